"""Ask the judge ensemble about every step of a data set: COREN's three terms, and the probe.

``judge_dataset`` asks the ensemble about every step (batched, de-duplicated and cached on disk,
so a killed run resumes without repeating a call) and computes the contextual, structural and
temporal terms; ``probe_heldout`` rates the expert's and other moves at states of the held-out
episodes for the judge-quality row of the report. Nothing is written here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rewardgym.embeddings import CachedEmbedder, shared_embedder
from rewardgym.envs.trajectories.dataset import TrajectoryDataset
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.ensemble import (
    CompleteFn,
    Ensemble,
    EnsembleCounts,
    ScoredTrajectory,
    score_trajectories,
)
from rewardgym.wrappers.coren.grounding import episode_transitions
from rewardgym.wrappers.coren.label_stats import split_episodes
from rewardgym.wrappers.coren.qa import QABank, build_qa_bank
from rewardgym.wrappers.judges.base import Judge, Transition
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.embedding import EmbeddingJudge
from rewardgym.wrappers.judges.factory import make_judge
from rewardgym.wrappers.judges.openai import OpenAIJudgeConfig
from rewardgym.wrappers.judges.prompts import Prompt, load_prompts
from rewardgym.wrappers.judges.quality import ProbeState, probe_ratings, probe_states


@dataclass
class JudgedDataset:
    """A data set with the judge ensemble's answers and terms for every step."""

    data: TrajectoryDataset
    transitions: list[list[Transition]]
    scored: list[ScoredTrajectory]
    counts: EnsembleCounts
    judge_stats: dict[str, int]
    cache_hits: int
    seconds: float
    qa: QABank | None = None
    call_seconds: float = 0.0
    """Seconds spent inside the judge's backend, on the requests the cache did not answer."""

    def flat_terms(self) -> np.ndarray:
        """The ``(S, 3)`` terms of all steps, episode after episode."""
        return np.concatenate([s.terms for s in self.scored] or [np.zeros((0, 3))])


def resolve_judge(
    judge: Judge | str,
    embedder: CachedEmbedder | None = None,
    *,
    openai: OpenAIJudgeConfig | None = None,
) -> Judge:
    """A judge object from a judge or a spec string (``embedding``, ``hf:PATH``, ``openai:URL``)."""
    if isinstance(judge, Judge):
        return judge
    if judge == "embedding" and embedder is not None:
        return EmbeddingJudge(embedder)
    return make_judge(judge, openai=openai)


def judge_embedder(judge: Judge, embedder: CachedEmbedder | None) -> CachedEmbedder:
    """``embedder`` if given, else the embedding judge's own, else the shared MiniLM encoder."""
    if embedder is not None:
        return embedder
    if isinstance(judge, EmbeddingJudge):
        return judge.embedder
    return shared_embedder("minilm")


def judge_dataset(
    data: TrajectoryDataset,
    judge: Judge,
    config: CorenConfig | None = None,
    cache: JudgeCache | None = None,
    prompts: Sequence[Prompt] | None = None,
    qa: QABank | None = None,
    embedder: CachedEmbedder | None = None,
    progress: bool = True,
    complete: CompleteFn | None = None,
) -> JudgedDataset:
    """Ask ``judge`` about every step of ``data`` and compute COREN's three terms.

    Without ``qa`` the structural QA bank is drawn from the simulator (``build_qa_bank``),
    from episodes whose seeds are none of ``data``'s.
    """
    config = config or CorenConfig()
    embedder = judge_embedder(judge, embedder)
    prompts = tuple(prompts) if prompts is not None else load_prompts(config.n_prompts)
    start = time.perf_counter()
    judge.bind(data)
    transitions = [episode_transitions(ep, data.action_names, data.env_id) for ep in data]
    if qa is None:
        qa = default_qa_bank(data, config, embedder)
    calls_before, failures_before = judge.stats.calls, judge.stats.failures
    seconds_before = judge.stats.seconds
    hits_before = cache.stats.hits if cache is not None else 0
    from rewardgym.progress import progress_bar as tqdm

    with tqdm(desc="COREN judge requests", unit="req", disable=not progress) as bar:
        ensemble = Ensemble(judge, prompts, config, cache, bar.update, complete)
        scored, counts = score_trajectories(
            transitions, actions=data.action_names, qa=qa, embedder=embedder, ensemble=ensemble
        )
    return JudgedDataset(
        data=data,
        transitions=transitions,
        scored=scored,
        counts=counts,
        judge_stats={
            "calls": judge.stats.calls - calls_before,
            "failures": judge.stats.failures - failures_before,
            "retries": judge.stats.retries,
        },
        cache_hits=(cache.stats.hits - hits_before) if cache is not None else 0,
        seconds=time.perf_counter() - start,
        qa=qa,
        call_seconds=judge.stats.seconds - seconds_before,
    )


def default_qa_bank(
    data: TrajectoryDataset, config: CorenConfig, embedder: CachedEmbedder
) -> QABank:
    """The simulator's QA bank for ``data``'s env, drawn from episodes kept out of ``data``."""
    return build_qa_bank(
        data.env_id,
        embedder,
        n_pairs=config.qa_pairs,
        seed=config.qa_seed,
        exclude_seeds=[ep.seed for ep in data],
        env_kwargs=data.env_kwargs,
    )


def probe_heldout(
    data: TrajectoryDataset,
    judge: Judge,
    prompts: Sequence[Prompt],
    config: CorenConfig,
    cache: JudgeCache,
) -> tuple[list[ProbeState], np.ndarray] | None:
    """Probe states of the held-out episodes and the judge's ratings there (``None``: no probe).

    Envs whose simulator cannot say the expert's move (or rebuild an episode) get no report.
    """
    if not config.probe_states:
        return None
    _, heldout = split_episodes(len(data), config.holdout_fraction, config.seed)
    try:
        states = probe_states(
            data, max_states=config.probe_states, seed=config.seed, episodes=heldout.tolist()
        )
    except (TypeError, RuntimeError):
        return None
    ensemble = Ensemble(judge, prompts, config, cache)
    return states, probe_ratings(states, data.action_names, ensemble)


__all__ = [
    "JudgedDataset",
    "default_qa_bank",
    "judge_dataset",
    "judge_embedder",
    "probe_heldout",
    "resolve_judge",
]
