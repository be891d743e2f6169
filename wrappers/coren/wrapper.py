"""``CorenReward``: COREN's dense reward applied online, step by step, to a running env."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium as gym
import numpy as np

from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.spaces import discrete_index
from rewardgym.wrappers.composition import RewardComposition, compose_rewards
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.ensemble import (
    Ensemble,
    rate_steps,
    structural_similarities,
    temporal_failures,
)
from rewardgym.wrappers.coren.grounding import step_transition
from rewardgym.wrappers.coren.qa import QABank, build_qa_bank
from rewardgym.wrappers.coren.scoring import TrajectoryAnswers, trajectory_rewards
from rewardgym.wrappers.judges.base import Judge, Transition
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.prompts import Prompt, load_prompts

if TYPE_CHECKING:
    from rewardgym.wrappers.coren.orchestrator import Orchestrator


class CorenReward(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Reward every step with COREN's judge ensemble, scored by the same function as labelling.

    At each step every prompt rates the candidate actions at the observation (the rating of
    the action taken is its vote, the top-rated one its plan), the QA pair most similar to
    the observation gates the structural term, and the backward question asks about each
    prompt's plan so far (online the future is unknown, so this is
    ``CorenConfig(temporal_scope="prefix")``; offline labelling with that scope gives the
    same rewards on the same trajectory). The orchestrator (``OUT/coren/orchestrator.pt`` of
    ``rewardgym label coren``) weighs the terms; without one, orchestrated ablations weigh
    them equally. ``info["reward_terms"]`` holds the float terms and their ``total`` (the
    returned reward); ``info["coren"]`` the votes, plans and weights. Judge answers are
    cached (in memory by default), so repeated states cost nothing. The reward is
    ``success + lambda * dense`` by ``composition`` (``rewardgym.wrappers.composition``, the
    same function offline training uses); the success flag is never dropped.

    Example:
        >>> import gymnasium as gym
        >>> import rewardgym
        >>> from rewardgym.wrappers.coren import CorenConfig, CorenReward
        >>> from rewardgym.wrappers.judges import EmbeddingJudge
        >>> from rewardgym.embeddings import hashing_embedder
        >>> judge = EmbeddingJudge(hashing_embedder())
        >>> config = CorenConfig(ablation="average", qa_pairs=8)
        >>> env = CorenReward(gym.make("rewardgym/Household-v1"), judge, config=config)
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step(env.unwrapped.expert_action())
        >>> sorted(info["reward_terms"])
        ['contextual', 'dense', 'env', 'structural', 'temporal', 'total']
        >>> terms = info["reward_terms"]
        >>> abs(reward - (terms["env"] + terms["dense"])) < 1e-6 and reward == terms["total"]
        True
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        judge: Judge,
        orchestrator: Orchestrator | str | Path | None = None,
        config: CorenConfig | None = None,
        prompts: Sequence[Prompt] | None = None,
        embedder: CachedEmbedder | None = None,
        qa: QABank | None = None,
        cache: JudgeCache | None = None,
        composition: RewardComposition | None = None,
    ) -> None:
        """Wrap ``env``; ``orchestrator`` is a trained model or the path of a saved one.

        Without ``qa`` the bank is drawn from the simulator (``build_qa_bank``) for the
        envs that have ground truth; other envs need a QA file.
        """
        gym.utils.RecordConstructorArgs.__init__(
            self,
            judge=judge,
            orchestrator=orchestrator,
            config=config,
            prompts=prompts,
            embedder=embedder,
            qa=qa,
            cache=cache,
            composition=composition,
        )
        gym.Wrapper.__init__(self, env)
        self.judge = judge
        self.config = replace(config or CorenConfig(), temporal_scope="prefix")
        self.prompts = (
            tuple(prompts) if prompts is not None else load_prompts(self.config.n_prompts)
        )
        found = embedder or getattr(judge, "embedder", None)
        if found is None:
            from rewardgym.embeddings import shared_embedder

            found = shared_embedder("minilm")
        self.embedder: CachedEmbedder = found
        self.orchestrator: Orchestrator | None
        if isinstance(orchestrator, str | Path):
            from rewardgym.wrappers.coren.orchestrator import Orchestrator

            self.orchestrator = Orchestrator.load(orchestrator, self.embedder)
        else:
            self.orchestrator = orchestrator
        self._env_id = env.spec.id if env.spec is not None else ""
        self.qa = qa
        self.cache = cache if cache is not None else JudgeCache(None)
        self.ensemble = Ensemble(self.judge, self.prompts, self.config, self.cache)
        self.composition = composition or RewardComposition()
        self._pair_sims: dict[int, np.ndarray] = {}
        self._instruction = ""
        self._obs: Any = None
        self._completed: list[str] = []
        self._steps: list[Transition] = []
        self._rows: list[tuple[np.ndarray, ...]] = []
        self._weights: list[np.ndarray] = []

    @property
    def action_names(self) -> tuple[str, ...]:
        """The env's action names (what the judges rate)."""
        return tuple(self.env.unwrapped.action_names)  # type: ignore[attr-defined]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the episode's history of answers."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._instruction = str(info.get("instruction", "")) or _instruction_of(obs)
        self._obs = obs
        self._completed, self._steps, self._rows, self._weights = [], [], [], []
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and reward the action with the judge ensemble."""
        names = self.action_names
        # The env's own check (rewardgym.envs.spaces), before the judges see the action.
        name = str(names[discrete_index(action, len(names))])
        transition = step_transition(
            self._obs if isinstance(self._obs, dict) else {"text": str(self._obs)},
            self._instruction,
            name,
            self._completed,
            self._env_id,
        )
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        if info.get("executable", True):
            self._completed.append(name)
        self._obs = obs
        terms, dense, coren = self._score(transition)
        total = float(compose_rewards(float(env_reward), dense, self.composition))
        info["reward_terms"] = {
            "contextual": float(terms[0]),
            "structural": float(terms[1]),
            "temporal": float(terms[2]),
            "dense": dense,
            "env": float(env_reward),
            "total": total,
        }
        info["coren"] = coren
        return obs, total, terminated, truncated, info

    def _bank(self) -> QABank:
        if self.qa is None:
            kwargs = dict(getattr(getattr(self.env, "spec", None), "kwargs", None) or {})
            self.qa = build_qa_bank(
                self._env_id,
                self.embedder,
                n_pairs=self.config.qa_pairs,
                seed=self.config.qa_seed,
                env_kwargs=kwargs,
            )
        return self.qa

    def _score(self, t: Transition) -> tuple[np.ndarray, float, dict[str, Any]]:
        """The terms, dense reward and details of the newest step, scored on the episode so far."""
        rated = rate_steps([t], self.action_names, self.ensemble)
        bank = self._bank()
        pair = int(bank.retrieve([(t.instruction, t.visible)])[0][0])
        if pair not in self._pair_sims:
            sims, _ = structural_similarities(bank, [pair], self.embedder, self.ensemble)
            self._pair_sims[pair] = sims[0]
        self._steps.append(t)
        plan = np.concatenate([*(row[1] for row in self._rows), rated.plan])
        failed, _, _ = temporal_failures(
            [t.instruction], [plan], self.action_names, self.ensemble, "episode"
        )
        row = (rated.votes, rated.plan, rated.logged, self._pair_sims[pair][None], failed[0][-1:])
        self._rows.append(row)
        answers = TrajectoryAnswers(
            *(np.concatenate(parts) for parts in zip(*self._rows, strict=True))
        )
        weights = None
        if self.orchestrator is not None and self.config.uses_orchestrator:
            from rewardgym.wrappers.coren.orchestrator import step_inputs

            self._weights.append(self.orchestrator.weights(step_inputs([t])))
            weights = np.concatenate(self._weights)
        terms, rewards = trajectory_rewards(answers, self.config, weights)
        names = self.action_names
        details = {
            "votes": [None if np.isnan(v) else int(v) for v in rated.votes[0]],
            "plan": [names[a] if a >= 0 else None for a in rated.plan[0].tolist()],
            "qa_pair": pair,
            "weights": None
            if weights is None
            else dict(zip(self.config.terms, weights[-1].tolist(), strict=True)),
        }
        return terms[-1], float(rewards[-1]), details


def _instruction_of(obs: Any) -> str:
    """The instruction from a text observation's first line (``Instruction: ...``/``Mission: ...``)."""
    text = obs.get("text", "") if isinstance(obs, dict) else str(obs)
    first = str(text).splitlines()[0] if text else ""
    return first.partition(":")[2].strip() or first


__all__ = ["CorenReward"]
