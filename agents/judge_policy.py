"""The judge-as-policy baseline: at every step the COREN judge ensemble rates every action.

This is what COREN's small agent replaces. Acting means one rubric rating per (candidate
action, prompt) pair at every step, so its latency grows with the action set and the number of
prompts, where a trained agent needs one forward pass. The action with the highest contextual
vote (the majority over prompts, ``rewardgym.wrappers.coren.consistency.contextual``) is taken;
ties go to the lowest action id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.envs.household.v1 import ACTION_NAMES
from rewardgym.wrappers.coren.config import N_PROMPTS


class JudgePolicy:
    """Acts by asking ``judge`` to rate every action under every prompt, uncached.

    Example:
        >>> from rewardgym.wrappers.judges.embedding import EmbeddingJudge
        >>> policy = JudgePolicy(EmbeddingJudge(), n_prompts=1)  # doctest: +SKIP
    """

    def __init__(
        self,
        judge: Any,
        n_prompts: int = N_PROMPTS,
        env_id: str = HOUSEHOLD_ID,
        action_names: Sequence[str] = ACTION_NAMES,
    ) -> None:
        """Rate with ``judge`` (a ``rewardgym.wrappers.coren`` judge) under ``n_prompts`` prompts."""
        from rewardgym.wrappers.judges.prompts import load_prompts

        self.judge = judge
        self.prompts = load_prompts(n_prompts)
        self.env_id = env_id
        self.action_names = tuple(action_names)
        self.requests = 0

    def votes(self, observation: dict[str, Any], instruction: str) -> np.ndarray:
        """The ``(actions, prompts)`` rubric votes for one observation (NaN where abstained)."""
        from rewardgym.wrappers.coren.grounding import step_transition
        from rewardgym.wrappers.judges.base import JudgeRequest

        completed = [
            self.action_names[i] for i in np.flatnonzero(observation.get("completed", ())).tolist()
        ]
        requests = [
            JudgeRequest(
                "rate",
                prompt,
                step_transition(observation, instruction, name, completed, self.env_id),
            )
            for name in self.action_names
            for prompt in self.prompts
        ]
        self.requests += len(requests)
        ratings = self.judge.rate(requests)
        values = np.array([np.nan if r is None else float(r) for r in ratings])
        return values.reshape(len(self.action_names), len(self.prompts))

    def act_batch(
        self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]
    ) -> np.ndarray:
        """The action with the highest majority vote for each observation."""
        from rewardgym.wrappers.coren.consistency import contextual

        return np.array(
            [
                int(np.argmax(contextual(self.votes(obs, instruction))))
                for obs, instruction in zip(observations, instructions, strict=True)
            ],
            dtype=np.int64,
        )


__all__ = ["JudgePolicy"]
