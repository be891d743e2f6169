"""Run the judge ensemble over trajectories: votes, structural and temporal answers, terms.

For every step and prompt the judge rates the logged action and answers the structural
question; for every trajectory and prompt it answers the backward (temporal) question about
that prompt's argmax actions. The answers become the three consistency terms
``(r^C, r^S, r^T)`` of every step (``consistency.py``). All judge calls go through one
completion path, by default ``batching.ask_steps`` (batched, de-duplicated, cached).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rewardgym.embeddings import CachedEmbedder
from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.config import TERMS, CorenConfig
from rewardgym.wrappers.coren.grounding import format_answer
from rewardgym.wrappers.judges.base import (
    Judge,
    JudgeRequest,
    Transition,
    parse_object_list,
    parse_rating,
    parse_yes_no,
)
from rewardgym.wrappers.judges.batching import AnswerTable, CompleteFn, ask_steps, map_distinct
from rewardgym.wrappers.judges.cache import JudgeCache, cached_complete
from rewardgym.wrappers.judges.prompts import Prompt


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
    number of requests answered since its last call. The terms of all steps are computed at
    once over ``(S, N)`` arrays; every rule works row by row, so this equals scoring each
    trajectory on its own.
    """
    if len(references) != len(trajectories):
        raise ValueError(
            f"score_trajectories: {len(trajectories)} trajectories but {len(references)} "
            "reference lists; give one reference answer per step"
        )

    def ask(kind: str) -> AnswerTable:
        return ask_steps(kind, flat, prompts, judge, cache, batch_size, progress, complete)

    flat = [step for traj in trajectories for step in traj]
    lengths = [len(traj) for traj in trajectories]
    bounds = np.cumsum([0, *lengths])
    owner = np.repeat(np.arange(len(trajectories)), lengths)
    counts = EnsembleCounts()
    counts.rate_requests = counts.structural_requests = len(flat) * len(prompts)

    rate = ask("rate")
    ratings = [np.nan if r is None else r for r in rate.parsed(parse_rating)]
    votes = np.array(ratings, dtype=np.float64)[rate.index]
    counts.rate_abstentions = int(np.isnan(votes).sum())

    structural = ask("structural")
    objects = structural.parsed(parse_object_list)
    missing = np.array([a is None for a in objects], dtype=bool)
    counts.structural_abstentions = int(missing[structural.index].sum())
    canonical = map_distinct(lambda a: format_answer(a) if a is not None else "", objects)
    refs = [r for refs_of_traj in references for r in refs_of_traj]
    sims = _answer_similarity(embedder, canonical, structural.index, refs)

    chosen = _argmax_mask(votes, owner, len(trajectories))
    asked, requests = _temporal_requests(chosen, owner, bounds, flat, prompts)
    counts.temporal_requests = len(requests)
    if complete is not None:
        replies = complete(requests)
        if progress is not None:
            progress(len(requests))
    else:
        replies = cached_complete(judge, requests, cache, batch_size, progress)
    verdicts = map_distinct(parse_yes_no, replies)
    counts.temporal_abstentions = sum(v is None for v in verdicts)
    verified: list[list[bool | None]] = [[None] * len(prompts) for _ in trajectories]
    for (i, n), verdict in zip(asked, verdicts, strict=True):
        verified[i][n] = verdict

    failed = np.array([[v is False for v in row] for row in verified], dtype=bool)
    failed = failed.reshape(len(trajectories), len(prompts))
    gate = consistency.structural_gate(sims, similarity_threshold)
    keep = ~np.isnan(votes) & ~(chosen & failed[owner])
    terms = np.stack(
        [
            consistency.contextual(votes),
            consistency.structural(votes, gate),
            consistency.majority_votes(np.where(keep, votes, np.nan)),
        ],
        axis=1,
    )
    counts.abstained_steps = {
        "C": int(consistency.all_abstained(votes).sum()),
        "S": int((~gate | np.isnan(votes)).all(axis=1).sum()),
        "T": int((~keep).all(axis=1).sum()),
    }
    scored = [
        ScoredTrajectory(votes[a:b], sims[a:b], verified[i], terms[a:b])
        for i, (a, b) in enumerate(itertools.pairwise(bounds.tolist()))
    ]
    return scored, counts


def _argmax_mask(votes: np.ndarray, owner: np.ndarray, n_trajectories: int) -> np.ndarray:
    """``H_n`` of every trajectory and prompt as one ``(S, N)`` mask (``consistency.argmax_steps``)."""
    filled = np.where(np.isnan(votes), -np.inf, votes)
    best = np.full((n_trajectories, votes.shape[1]), -np.inf)
    np.maximum.at(best, owner, filled)
    best[best <= 0] = np.nan  # no positive vote: nothing to verify
    return np.asarray(filled == best[owner], dtype=bool)


def _temporal_requests(
    chosen: np.ndarray,
    owner: np.ndarray,
    bounds: np.ndarray,
    flat: Sequence[Transition],
    prompts: Sequence[Prompt],
) -> tuple[list[tuple[int, int]], list[JudgeRequest]]:
    """The backward question of every (trajectory, prompt) with argmax steps, in that order."""
    steps, columns = np.nonzero(chosen)
    order = np.lexsort((steps, columns, owner[steps]))
    steps, columns = steps[order], columns[order]
    actions: dict[tuple[int, int], list[str]] = {}
    for i, n, step in zip(owner[steps].tolist(), columns.tolist(), steps.tolist(), strict=True):
        actions.setdefault((i, n), []).append(flat[step].action)
    requests = [
        JudgeRequest(
            "temporal",
            prompts[n],
            Transition(flat[int(bounds[i])].instruction, "", ""),
            actions=tuple(names),
        )
        for (i, n), names in actions.items()
    ]
    return list(actions), requests


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
    embedder: CachedEmbedder, answers: Sequence[str], index: np.ndarray, references: Sequence[str]
) -> np.ndarray:
    """Cosine similarity of answer ``answers[index[s, n]]`` with ``references[s]``, ``(S, N)``.

    It is 1 when the texts are equal and NaN when there is no answer (``""``); each distinct
    (answer, reference) pair is computed once.
    """
    texts = {text: row for row, text in enumerate(dict.fromkeys([*answers, *references]))}
    answer_ids = np.array([texts[a] for a in answers], dtype=np.int64)
    reference_ids = np.array([texts[r] for r in references], dtype=np.int64)
    pairs = answer_ids[index] * len(texts) + reference_ids[:, None]
    distinct, inverse = np.unique(pairs, return_inverse=True)
    unique = sorted(set(texts) - {""})
    row = {text: i for i, text in enumerate(unique)}
    vectors = embedder.embed(unique) if unique else np.zeros((0, 1), dtype=np.float32)
    names = list(texts)
    values = np.full(len(distinct), np.nan)
    for k, code in enumerate(distinct.tolist()):
        a, b = names[code // len(texts)], names[code % len(texts)]
        if a:
            values[k] = 1.0 if a == b else float(vectors[row[a]] @ vectors[row[b]])
    return values[inverse.reshape(-1)].reshape(index.shape)


__all__ = [
    "CompleteFn",
    "EnsembleCounts",
    "ScoredTrajectory",
    "combine_terms",
    "score_trajectories",
]
