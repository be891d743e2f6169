"""``CorenReward``: COREN's dense reward applied online, step by step, to a running env."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium as gym
import numpy as np

from rewardgym.embeddings import CachedEmbedder
from rewardgym.wrappers.composition import RewardComposition, compose_rewards
from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.ensemble import combine_terms
from rewardgym.wrappers.coren.grounding import format_answer, reference_answer, step_transition
from rewardgym.wrappers.coren.qa import QABank
from rewardgym.wrappers.judges.base import (
    Judge,
    JudgeRequest,
    Transition,
    parse_object_list,
    parse_rating,
    parse_yes_no,
)
from rewardgym.wrappers.judges.cache import JudgeCache, cached_complete
from rewardgym.wrappers.judges.prompts import Prompt, load_prompts

if TYPE_CHECKING:
    from rewardgym.wrappers.coren.orchestrator import Orchestrator


class CorenReward(gym.Wrapper[Any, Any, Any, Any]):
    """Add COREN's judge-ensemble reward, computed at every step, to the env's success reward.

    At each step the judge rates the action with every prompt and answers the structural
    question; the votes give ``r^C``, ``r^S`` and ``r^T`` exactly as in offline labelling,
    except that the temporal check can only look back: it verifies each prompt's argmax
    actions *so far*. The orchestrator (trained by ``rewardgym label coren``, file
    ``OUT/coren/orchestrator.pt``) weighs the terms; without one, orchestrated ablations
    weigh them equally. Every term goes into ``info["reward_terms"]``. Judge answers are
    cached in memory (or in ``cache``), so repeated states cost nothing. The reward is
    ``success + lambda * dense`` by ``composition`` (``rewardgym.wrappers.composition``, the
    same function offline training uses); the success flag is never dropped.

    Example:
        >>> import gymnasium as gym
        >>> import rewardgym
        >>> from rewardgym.wrappers.coren import CorenConfig, CorenReward
        >>> from rewardgym.wrappers.judges import EmbeddingJudge
        >>> from rewardgym.embeddings import hashing_embedder
        >>> judge = EmbeddingJudge(hashing_embedder())
        >>> env = CorenReward(gym.make("rewardgym/Household-v1"), judge, config=CorenConfig(ablation="average"))
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step(env.unwrapped.expert_action())
        >>> sorted(info["reward_terms"])
        ['contextual', 'dense', 'env', 'structural', 'temporal', 'total', 'votes', 'weights']
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
        """Wrap ``env``; ``orchestrator`` is a trained model or the path of a saved one."""
        super().__init__(env)
        self.judge = judge
        self.config = config or CorenConfig()
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
        self.qa = qa
        self.cache = cache if cache is not None else JudgeCache(None)
        self.composition = composition or RewardComposition()
        self._env_id = env.spec.id if env.spec is not None else ""
        self._instruction = ""
        self._obs: Any = None
        self._completed: list[str] = []
        self._steps: list[Transition] = []
        self._votes: list[np.ndarray] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the episode's history of votes."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._instruction = str(info.get("instruction", "")) or _instruction_of(obs)
        self._obs = obs
        self._completed, self._steps, self._votes = [], [], []
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and reward the action with the judge ensemble."""
        names = self.env.unwrapped.action_names  # type: ignore[attr-defined]
        name = str(names[_action_id(action, len(names))])
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
        terms, votes, weights = self._score(transition)
        dense = float(combine_terms(terms[None], votes[None], self.config, weights)[0])
        reward = float(compose_rewards(float(env_reward), dense, self.composition))
        info["reward_terms"] = {
            "contextual": float(terms[0]),
            "structural": float(terms[1]),
            "temporal": float(terms[2]),
            "votes": [None if np.isnan(v) else int(v) for v in votes],
            "weights": None
            if weights is None
            else dict(zip(self.config.terms, weights[0].tolist(), strict=True)),
            "env": float(env_reward),
            "dense": dense,
            "total": reward,
        }
        return obs, reward, terminated, truncated, info

    def _ask(self, requests: list[JudgeRequest]) -> list[str | None]:
        return cached_complete(self.judge, requests, self.cache, self.config.batch_size)

    def _score(self, t: Transition) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The terms, votes and orchestrator weights of the newest step."""
        rate = [JudgeRequest("rate", p, t) for p in self.prompts]
        structural = [JudgeRequest("structural", p, t) for p in self.prompts]
        answers = self._ask(rate + structural)
        votes = np.array(
            [np.nan if (r := parse_rating(a)) is None else r for a in answers[: len(rate)]]
        )
        self._steps.append(t)
        self._votes.append(votes)
        reference = self._reference(t)
        sims = np.full(len(self.prompts), np.nan)
        for n, answer in enumerate(answers[len(rate) :]):
            parsed = parse_object_list(answer)
            if parsed is not None:
                text = format_answer(parsed)
                sims[n] = (
                    1.0
                    if text == reference
                    else float(self.embedder.embed([text])[0] @ self.embedder.embed([reference])[0])
                )
        history = np.stack(self._votes)
        verified: list[bool | None] = []
        temporal: list[JudgeRequest] = []
        for n, prompt in enumerate(self.prompts):
            chosen = consistency.argmax_steps(history[:, n])
            if chosen.size:
                actions = tuple(self._steps[i].action for i in chosen)
                probe = Transition(t.instruction, "", "")
                temporal.append(JudgeRequest("temporal", prompt, probe, actions=actions))
        verdicts = iter(self._ask(temporal))
        for n in range(len(self.prompts)):
            has = consistency.argmax_steps(history[:, n]).size > 0
            verified.append(parse_yes_no(next(verdicts)) if has else None)
        gate = consistency.structural_gate(sims[None], self.config.similarity_threshold)
        terms = np.array(
            [
                consistency.contextual(votes[None])[0],
                consistency.structural(votes[None], gate)[0],
                consistency.temporal(history, verified)[-1],
            ]
        )
        weights = None
        if self.orchestrator is not None and self.config.uses_orchestrator:
            from rewardgym.wrappers.coren.orchestrator import step_inputs

            weights = self.orchestrator.weights(step_inputs([t]))
        return terms, votes, weights

    def _reference(self, t: Transition) -> str:
        """The reference structural answer: the simulator's ground truth, else the QA bank's."""
        base = self.env.unwrapped
        task = getattr(getattr(base, "task", None), "id", -1)
        truth = reference_answer(self._env_id, int(task), t.instruction, t.visible)
        if truth is not None:
            return truth
        if self.qa is None:
            raise ValueError(
                f"CorenReward: {self._env_id or 'this env'} has no ground-truth answer to the "
                "structural question; pass qa=QABank.from_jsonl(FILE, embedder)"
            )
        return self.qa.retrieve([(t.instruction, t.visible)])[0][0]


def _action_id(action: Any, n: int) -> int:
    """``action`` as an index into ``n`` action names; a ``ValueError`` like the env's otherwise.

    Only integers count: ``True``, ``1.7`` and ``"3"`` would be coerced by ``int()`` into a
    different action than the caller meant, and an index past the end would be an IndexError.
    """
    value = action.item() if isinstance(action, np.ndarray) and action.ndim == 0 else action
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"action {action!r} is not an integer action id: use 0..{n - 1}")
    if not 0 <= int(value) < n:
        raise ValueError(f"action {action!r} is out of range: use 0..{n - 1}")
    return int(value)


def _instruction_of(obs: Any) -> str:
    """The instruction from a text observation's first line (``Instruction: ...``/``Mission: ...``)."""
    text = obs.get("text", "") if isinstance(obs, dict) else str(obs)
    first = str(text).splitlines()[0] if text else ""
    return first.partition(":")[2].strip() or first


__all__ = ["CorenReward"]
