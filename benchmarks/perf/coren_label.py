"""COREN labelling throughput: batched + de-duplicated + cached judge calls vs one call at a time.

Reads top to bottom: load (or collect) a Household data set, judge a slice of it once with
one judge call per request and no cache, then with the batched, de-duplicated, cached
pipeline (cold cache), then again with the warm cache, and print transitions/s and ratios.
The embedding judge runs on MiniLM by default (``--embedder hashing`` for a smoke run).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.bounds import AT_LEAST_1, check_fields
from rewardgym.embeddings import shared_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.coren.labelling import judge_dataset
from rewardgym.wrappers.judges import EmbeddingJudge, JudgeRequest
from rewardgym.wrappers.judges.cache import JudgeCache


@dataclass(frozen=True)
class Config:
    """What to measure."""

    episodes: Annotated[int, AT_LEAST_1] = 300
    """Episodes of the data set slice to judge (both modes judge the same slice)."""
    dataset: str = ""
    """A data set directory; empty collects ``episodes`` Household episodes with seed 0."""
    embedder: str = "minilm"
    """``minilm`` (the real judge) or ``hashing`` (a fast smoke run)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def run(config: Config) -> dict[str, float]:
    """Measure and print both modes; returns the figures."""
    if config.dataset:
        data = TrajectoryDataset.from_dir(config.dataset)
        data = data.select(lambda ep: ep.episode_id < config.episodes)
    else:
        data = collect_dataset(CollectConfig(episodes=config.episodes, seed=0))
    embedder = shared_embedder(config.embedder)
    judge = EmbeddingJudge(embedder)
    coren = CorenConfig()
    # Warm the embedder on this slice first, so both modes pay the same embedding cost (none).
    judge_dataset(data, judge, coren, JudgeCache(None), embedder=embedder, progress=False)

    def one_at_a_time(requests: Sequence[JudgeRequest]) -> list[str | None]:
        return [judge.complete([request])[0] for request in requests]

    steps = data.n_steps
    start = time.perf_counter()
    judge_dataset(
        data, judge, coren, None, embedder=embedder, progress=False, complete=one_at_a_time
    )
    sequential = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        cache = JudgeCache(Path(tmp) / "cache.sqlite")
        start = time.perf_counter()
        cold_run = judge_dataset(data, judge, coren, cache, embedder=embedder, progress=False)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        judge_dataset(data, judge, coren, cache, embedder=embedder, progress=False)
        warm = time.perf_counter() - start
        cache.close()
    figures = {
        "transitions": float(steps),
        "sequential_tps": steps / sequential,
        "batched_cold_tps": steps / cold,
        "batched_warm_tps": steps / warm,
        "ratio_cold": sequential / cold,
        "ratio_warm": sequential / warm,
        "judge_calls_batched": float(cold_run.judge_stats["calls"]),
    }
    print(
        f"COREN labelling throughput on {steps:,} transitions ({len(data)} episodes, {embedder.name}):"
    )
    print(f"  one judge call at a time, no cache : {figures['sequential_tps']:10.1f} transitions/s")
    print(
        f"  batched + de-duplicated, cold cache: {figures['batched_cold_tps']:10.1f} transitions/s"
        f"  ({cold_run.judge_stats['calls']:,} judge calls)"
    )
    print(
        f"  batched + cached, warm cache       : {figures['batched_warm_tps']:10.1f} transitions/s"
    )
    print(
        f"  ratio batched/one-at-a-time: {figures['ratio_cold']:.1f}x cold, "
        f"{figures['ratio_warm']:.1f}x warm (target >= 5x)"
    )
    return figures


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
