"""Run the judge ensemble over trajectories: votes, structural and temporal answers, terms.

For every step and prompt the judge rates the logged action and answers the structural
question; for every trajectory and prompt it answers the backward (temporal) question about
that prompt's argmax actions. The answers become the three consistency terms
``(r^C, r^S, r^T)`` of every step (``consistency.py``). All judge calls go through one
completion function, by default ``cache.cached_complete`` (batched, de-duplicated, cached).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rewardgym.envs.trajectories.embeddings import CachedEmbedder
from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.cache import JudgeCache, cached_complete
from rewardgym.wrappers.coren.config import TERMS, CorenConfig
from rewardgym.wrappers.coren.grounding import format_answer
from rewardgym.wrappers.coren.judges.base import (
    Judge,
    JudgeRequest,
    Transition,
    parse_object_list,
    parse_rating,
    parse_yes_no,
)
from rewardgym.wrappers.coren.prompts import Prompt

CompleteFn = Callable[[Sequence[JudgeRequest]], list[str | None]]
"""Answers a list of requests (one text or ``None`` each)."""


@dataclass
class ScoredTrajectory:
    """The judge answers of one trajectory and the consistency terms they give.

    ``votes`` and ``similarities`` are ``(T, N)`` (NaN where a prompt abstained),
    ``verified`` has one backward answer per prompt, and ``terms`` is ``(T, 3)``:
    ``r^C, r^S, r^T`` in that order.
    """

    votes: np.ndarray
    similarities: np.ndarray
    verified: list[bool | None]
    terms: np.ndarray


@dataclass
class EnsembleCounts:
    """What the ensemble asked and got: requests, abstentions and all-abstain steps."""

    rate_requests: int = 0
    structural_requests: int = 0
    temporal_requests: int = 0
    rate_abstentions: int = 0
    structural_abstentions: int = 0
    temporal_abstentions: int = 0
    abstained_steps: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        """The counts as a plain dict."""
        return dict(self.__dict__)


def score_trajectories(
    trajectories: Sequence[Sequence[Transition]],
    references: Sequence[Sequence[str]],
    judge: Judge,
    prompts: Sequence[Prompt],
    embedder: CachedEmbedder,
    cache: JudgeCache | None = None,
    batch_size: int = 256,
    similarity_threshold: float = 0.5,
    progress: Callable[[int], None] | None = None,
    complete: CompleteFn | None = None,
) -> tuple[list[ScoredTrajectory], EnsembleCounts]:
    """Ask the judge everything COREN needs about ``trajectories`` and compute the three terms.

    ``references[i][t]`` is the reference answer (already retrieved from the QA bank) of the
    structural question at step ``t`` of trajectory ``i``. ``progress`` is called with the
    number of requests answered since its last call.
    """
    if len(references) != len(trajectories):
        raise ValueError(
            f"score_trajectories: {len(trajectories)} trajectories but {len(references)} "
            "reference lists; give one reference answer per step"
        )

    def ask(requests: list[JudgeRequest]) -> list[str | None]:
        if complete is not None:
            answers = complete(requests)
            if progress is not None:
                progress(len(requests))
            return answers
        return cached_complete(judge, requests, cache, batch_size, progress)

    counts = EnsembleCounts()
    n_prompts = len(prompts)
    steps = [(i, t) for i, traj in enumerate(trajectories) for t in range(len(traj))]
    rate = [JudgeRequest("rate", p, trajectories[i][t]) for i, t in steps for p in prompts]
    structural = [
        JudgeRequest("structural", p, trajectories[i][t]) for i, t in steps for p in prompts
    ]
    counts.rate_requests, counts.structural_requests = len(rate), len(structural)
    # Answers repeat heavily (a few dozen distinct texts), so each one is parsed once.
    rating_of: dict[str | None, int | None] = {}
    ratings = [
        rating_of[a] if a in rating_of else rating_of.setdefault(a, parse_rating(a))
        for a in ask(rate)
    ]
    objects_of: dict[str | None, tuple[str, ...] | None] = {}
    answers = [
        objects_of[a] if a in objects_of else objects_of.setdefault(a, parse_object_list(a))
        for a in ask(structural)
    ]
    counts.rate_abstentions = sum(r is None for r in ratings)
    counts.structural_abstentions = sum(a is None for a in answers)

    flat_votes = np.array([np.nan if r is None else r for r in ratings], dtype=np.float64)
    flat_votes = flat_votes.reshape(len(steps), n_prompts)
    canonical = [format_answer(a) if a is not None else "" for a in answers]
    refs = [references[i][t] for i, t in steps for _ in prompts]
    flat_sims = _answer_similarity(embedder, canonical, refs).reshape(len(steps), n_prompts)

    offsets = np.cumsum([0, *[len(traj) for traj in trajectories]])
    temporal_requests: list[JudgeRequest] = []
    for i, traj in enumerate(trajectories):
        votes = flat_votes[offsets[i] : offsets[i + 1]]
        for n, prompt in enumerate(prompts):
            chosen = consistency.argmax_steps(votes[:, n])
            if chosen.size:
                actions = tuple(traj[int(t)].action for t in chosen)
                probe = Transition(traj[0].instruction, "", "")
                temporal_requests.append(JudgeRequest("temporal", prompt, probe, actions=actions))
    counts.temporal_requests = len(temporal_requests)
    verdicts = iter([parse_yes_no(a) for a in ask(temporal_requests)])
    counts.temporal_abstentions = 0

    scored: list[ScoredTrajectory] = []
    abstained = {"C": 0, "S": 0, "T": 0}
    for i in range(len(trajectories)):
        votes = flat_votes[offsets[i] : offsets[i + 1]]
        sims = flat_sims[offsets[i] : offsets[i + 1]]
        verified: list[bool | None] = []
        for n in range(n_prompts):
            if consistency.argmax_steps(votes[:, n]).size:
                verdict = next(verdicts)
                counts.temporal_abstentions += verdict is None
                verified.append(verdict)
            else:
                verified.append(None)
        gate = consistency.structural_gate(sims, similarity_threshold)
        keep = consistency.temporal_keep(votes, verified) if len(votes) else np.zeros_like(gate)
        terms = (
            np.stack(
                [
                    consistency.contextual(votes),
                    consistency.structural(votes, gate),
                    consistency.temporal(votes, verified),
                ],
                axis=1,
            )
            if len(votes)
            else np.zeros((0, 3))
        )
        abstained["C"] += int(consistency.all_abstained(votes).sum())
        abstained["S"] += int((~gate | np.isnan(votes)).all(axis=1).sum())
        abstained["T"] += int((~keep).all(axis=1).sum())
        scored.append(ScoredTrajectory(votes, sims, verified, terms))
    counts.abstained_steps = abstained
    return scored, counts


def combine_terms(
    terms: np.ndarray,
    votes: np.ndarray,
    config: CorenConfig,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """The reward of every step for ``config.ablation`` from ``(S, 3)`` terms and ``(S, N)`` votes.

    Orchestrated ablations need ``weights`` ``(S, len(config.terms))`` from Psi; without them
    the terms are weighted equally. One-term ablations return that term; ``average``,
    ``majority`` and ``single`` apply their fixed rule (an abstaining single prompt gives 0).
    """
    terms = np.asarray(terms, dtype=np.float64)
    if config.ablation == "average":
        return consistency.average_of_three(terms)
    if config.ablation == "majority":
        return consistency.majority_of_three(terms)
    if config.ablation == "single":
        return np.nan_to_num(np.asarray(votes, dtype=np.float64)[:, config.single_prompt_index])
    columns = [TERMS.index(t) for t in config.terms]
    if not config.uses_orchestrator:
        return terms[:, columns[0]]
    if weights is None:
        weights = np.full((len(terms), len(columns)), 1.0 / len(columns))
    return consistency.weighted_reward(terms[:, columns], weights)


def _answer_similarity(
    embedder: CachedEmbedder, answers: Sequence[str], references: Sequence[str]
) -> np.ndarray:
    """Cosine similarity of each answer with its reference (1 when equal, NaN when no answer)."""
    unique = sorted({*answers, *references} - {""})
    index = {text: row for row, text in enumerate(unique)}
    vectors = embedder.embed(unique) if unique else np.zeros((0, 1), dtype=np.float32)
    out = np.full(len(answers), np.nan)
    known: dict[tuple[str, str], float] = {}
    for row, pair in enumerate(zip(answers, references, strict=True)):
        if not pair[0]:
            continue
        if pair not in known:
            a, b = pair
            known[pair] = 1.0 if a == b else float(vectors[index[a]] @ vectors[index[b]])
        out[row] = known[pair]
    return out


__all__ = [
    "CompleteFn",
    "EnsembleCounts",
    "ScoredTrajectory",
    "combine_terms",
    "score_trajectories",
]
