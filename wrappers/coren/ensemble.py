"""Ask the judge ensemble everything COREN needs about trajectories, then score them.

Three kinds of questions, each asked once per distinct judge input (batched, cached,
resumable; ``batching.ask_steps``), the same code offline (many trajectories) and online
(``CorenReward``, one step at a time):

1. ``rate_steps``: every prompt rates every candidate action at every distinct observation
   (``CorenConfig.candidates``); the rating of the logged action is the step's vote and the
   top-rated candidate is the prompt's planned action there (``H_n(tau)``).
2. ``structural_similarities``: every prompt answers the structural question of every QA
   pair of the bank; the similarity of its answer to the pair's reference is what a step
   that retrieves the pair is gated by.
3. ``temporal_failures``: every prompt is asked whether executing its plan achieves the
   instruction (about the whole trajectory, or the plan up to each step).

``score_trajectories`` puts the answers of a trajectory into a ``TrajectoryAnswers`` and
scores it with ``scoring.trajectory_rewards``, the one scoring function.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from rewardgym.embeddings import CachedEmbedder
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.consistency import argmax_actions
from rewardgym.wrappers.coren.grounding import format_answer
from rewardgym.wrappers.coren.qa import QABank
from rewardgym.wrappers.coren.scoring import TrajectoryAnswers, coren_terms
from rewardgym.wrappers.judges.base import (
    Judge,
    JudgeRequest,
    Transition,
    parse_object_list,
    parse_rating,
    parse_yes_no,
)
from rewardgym.wrappers.judges.batching import CompleteFn, ask_steps, map_distinct
from rewardgym.wrappers.judges.cache import JudgeCache, cached_complete
from rewardgym.wrappers.judges.embedding import action_object
from rewardgym.wrappers.judges.prompts import Prompt

Progress = Callable[[int], None]


@dataclass
class ScoredTrajectory:
    """The judge answers of one trajectory and the ``(T, 3)`` terms ``r^C, r^S, r^T`` they give."""

    answers: TrajectoryAnswers
    terms: np.ndarray

    @property
    def votes(self) -> np.ndarray:
        """``(T, N)`` ratings of the logged actions."""
        return self.answers.votes


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


@dataclass
class Ensemble:
    """The judge, its prompts and how to ask them (shared by labelling and ``CorenReward``)."""

    judge: Judge
    prompts: Sequence[Prompt]
    config: CorenConfig
    cache: JudgeCache | None = None
    progress: Progress | None = None
    complete: CompleteFn | None = None
    """Answer every request one by one instead (the unbatched baseline of the perf tests)."""


def candidate_actions(step: Transition, actions: Sequence[str], mode: str) -> list[int]:
    """The ids of the actions a prompt rates at ``step`` (``CorenConfig.candidates``).

    ``grounded`` keeps the actions that name no object, or an object in view or held, or a
    room the agent can walk to: what an agent reading the observation could consider.
    """
    if mode == "all":
        return list(range(len(actions)))
    known = {*step.visible, *step.reachable, step.held} - {""}
    return [i for i, a in enumerate(actions) if (obj := action_object(a)[1]) == "" or obj in known]


@dataclass
class StepRatings:
    """Per step and prompt: the vote for the logged action and the top-rated candidate.

    ``requests`` and ``abstentions`` count every candidate rating asked (after merging equal
    observations), not only the logged actions' votes.
    """

    votes: np.ndarray
    plan: np.ndarray
    logged: np.ndarray
    requests: int
    abstentions: int


def rate_steps(
    steps: Sequence[Transition], actions: Sequence[str], ensemble: Ensemble
) -> StepRatings:
    """Every prompt rates every candidate action at each distinct observation of ``steps``."""
    prompts, judge = ensemble.prompts, ensemble.judge
    index = {name: i for i, name in enumerate(actions)}
    unknown = sorted({s.action for s in steps} - set(index))
    if unknown:
        raise ValueError(f"logged actions {unknown[:3]} are not among the env's action names")
    logged = np.array([index[s.action] for s in steps], dtype=np.int64)
    # Observations repeat across steps and episodes: key each by what the judge reads of it.
    blank = [replace(s, action="") for s in steps]
    keys = zip(*(judge.batch_cache_inputs("rate", p, blank) for p in prompts), strict=True)
    slots: dict[object, int] = {}
    state = np.array([slots.setdefault(k, len(slots)) for k in keys], dtype=np.int64)
    firsts = np.unique(state, return_index=True)[1]
    wanted: list[set[int]] = [
        set(candidate_actions(steps[i], actions, ensemble.config.candidates)) for i in firsts
    ]
    for s, a in zip(state.tolist(), logged.tolist(), strict=True):
        wanted[s].add(a)
    pairs = [(s, a) for s, acts in enumerate(wanted) for a in sorted(acts)]
    expanded = [replace(steps[firsts[s]], action=actions[a]) for s, a in pairs]
    table = ask_steps(
        "rate",
        expanded,
        prompts,
        judge,
        ensemble.cache,
        ensemble.config.batch_size,
        ensemble.progress,
        ensemble.complete,
    )
    parsed = [np.nan if r is None else float(r) for r in table.parsed(parse_rating)]
    rows = np.asarray(parsed, dtype=np.float32)[table.index]  # (E, N)
    grid = np.full((len(wanted), len(actions), len(prompts)), np.nan, dtype=np.float32)
    where = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    grid[where[:, 0], where[:, 1]] = rows
    votes = grid[state, logged].astype(np.float64)
    plan = np.empty((len(steps), len(prompts)), dtype=np.int64)
    for start in range(0, len(steps), 4096):  # bounded memory: (chunk, A, N) at a time
        part = slice(start, start + 4096)
        plan[part] = argmax_actions(grid[state[part]], logged[part])
    return StepRatings(
        votes,
        plan,
        logged,
        requests=len(expanded) * len(prompts),
        abstentions=int(np.isnan(rows).sum()),
    )


def qa_transition(bank: QABank, i: int) -> Transition:
    """What a judge sees of QA pair ``i`` when it answers the pair's structural question."""
    pair = bank.pairs[i]
    return Transition(pair.instruction, pair.text, "", pair.visible, pair.held)


def structural_similarities(
    bank: QABank, pairs: Sequence[int], embedder: CachedEmbedder, ensemble: Ensemble
) -> tuple[np.ndarray, int]:
    """``(len(pairs), N)``: similarity of each prompt's answer to each pair's reference.

    Returns the abstention count too. NaN where the prompt gave no answer; 1 for an answer
    equal to the reference.
    """
    transitions = [qa_transition(bank, i) for i in pairs]
    table = ask_steps(
        "structural",
        transitions,
        ensemble.prompts,
        ensemble.judge,
        ensemble.cache,
        ensemble.config.batch_size,
        ensemble.progress,
        ensemble.complete,
    )
    objects = table.parsed(parse_object_list)
    missing = np.array([a is None for a in objects], dtype=bool)
    canonical = map_distinct(lambda a: format_answer(a) if a is not None else "", objects)
    references = [bank.pairs[i].answer for i in pairs]
    sims = answer_similarity(embedder, canonical, table.index, references)
    return sims, int(missing[table.index].sum())


def temporal_failures(
    instructions: Sequence[str],
    plans: Sequence[np.ndarray],
    actions: Sequence[str],
    ensemble: Ensemble,
    scope: str,
) -> tuple[list[np.ndarray], int, int]:
    """Per trajectory, ``(T, N)``: whether the backward question about prompt ``n``'s plan was no.

    ``scope="episode"`` asks once per trajectory and prompt about the whole plan;
    ``"prefix"`` asks at every step about the plan so far. Returns the failures, the number
    of questions and the number of abstentions.
    """
    asked: list[tuple[int, int, int]] = []  # (trajectory, first step, prompt)
    requests: list[JudgeRequest] = []
    for i, (instruction, plan) in enumerate(zip(instructions, plans, strict=True)):
        ends = range(1, len(plan) + 1) if scope == "prefix" else [len(plan)]
        probe = Transition(instruction, "", "")
        for n, prompt in enumerate(ensemble.prompts):
            column = plan[:, n]
            for end in ends:
                names = tuple(actions[a] for a in column[:end].tolist() if a >= 0)
                if names:
                    asked.append((i, end, n))
                    requests.append(JudgeRequest("temporal", prompt, probe, actions=names))
    if ensemble.complete is not None:
        replies = ensemble.complete(requests)
        if ensemble.progress is not None:
            ensemble.progress(len(requests))
    else:
        replies = cached_complete(
            ensemble.judge, requests, ensemble.cache, ensemble.config.batch_size, ensemble.progress
        )
    verdicts = map_distinct(parse_yes_no, replies)
    failed = [np.zeros(plan.shape, dtype=bool) for plan in plans]
    for (i, end, n), verdict in zip(asked, verdicts, strict=True):
        if verdict is False:
            if scope == "prefix":
                failed[i][end - 1, n] = True
            else:
                failed[i][:, n] = True
    return failed, len(requests), sum(v is None for v in verdicts)


def score_trajectories(
    trajectories: Sequence[Sequence[Transition]],
    *,
    actions: Sequence[str],
    qa: QABank,
    embedder: CachedEmbedder,
    ensemble: Ensemble,
) -> tuple[list[ScoredTrajectory], EnsembleCounts]:
    """Ask the ensemble about ``trajectories`` and score each with the one scoring function."""
    config = ensemble.config
    flat = [step for traj in trajectories for step in traj]
    bounds = np.cumsum([0, *[len(t) for t in trajectories]]).tolist()
    counts = EnsembleCounts()
    rated = rate_steps(flat, actions, ensemble)
    counts.rate_requests, counts.rate_abstentions = rated.requests, rated.abstentions

    pair_of_step, _ = qa.retrieve([(s.instruction, s.visible) for s in flat])
    used = np.unique(pair_of_step)
    sims, missing = structural_similarities(qa, used.tolist(), embedder, ensemble)
    counts.structural_requests = len(used) * len(ensemble.prompts)
    counts.structural_abstentions = missing
    step_sims = sims[np.searchsorted(used, pair_of_step)] if len(flat) else sims[:0]

    spans = list(itertools.pairwise(bounds))
    failed, asked, abstained = temporal_failures(
        [t[0].instruction if t else "" for t in trajectories],
        [rated.plan[a:b] for a, b in spans],
        actions,
        ensemble,
        config.temporal_scope,
    )
    counts.temporal_requests, counts.temporal_abstentions = asked, abstained
    scored = []
    for (a, b), fail in zip(spans, failed, strict=True):
        answers = TrajectoryAnswers(
            rated.votes[a:b], rated.plan[a:b], rated.logged[a:b], step_sims[a:b], fail
        )
        scored.append(ScoredTrajectory(answers, coren_terms(answers, config.similarity_threshold)))
    votes = rated.votes
    gate = np.nan_to_num(step_sims, nan=-np.inf) >= config.similarity_threshold
    dropped = np.concatenate([s.answers.favourite & s.answers.failed for s in scored] or [gate])
    counts.abstained_steps = {
        "C": int(np.isnan(votes).all(axis=1).sum()),
        "S": int((~gate | np.isnan(votes)).all(axis=1).sum()),
        "T": int((dropped | np.isnan(votes)).all(axis=1).sum()),
    }
    return scored, counts


def answer_similarity(
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
    "Ensemble",
    "EnsembleCounts",
    "ScoredTrajectory",
    "StepRatings",
    "answer_similarity",
    "candidate_actions",
    "qa_transition",
    "rate_steps",
    "score_trajectories",
    "structural_similarities",
    "temporal_failures",
]
