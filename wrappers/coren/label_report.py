"""What a labelling run reports: its cost, the judge's quality and how the dense return meets success.

``LabelReport`` is written to ``OUT/coren/report.json`` and printed by ``label coren``
(``summary``); ``build_report`` fills it for one ablation from the judged data set and the
figures ``dense_rewards`` measured. The judge's cold cost (seconds inside the backend per 1,000
calls the cache missed) is kept apart from the requests the cache answered.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.wrappers.coren.judging import JudgedDataset
from rewardgym.wrappers.coren.label_stats import cold_cost
from rewardgym.wrappers.judges.quality import ProbeState, judge_report


@dataclass
class LabelReport:
    """What a labelling run did and how its dense reward relates to success."""

    ablation: str
    episodes: int
    steps: int
    requests: int
    judge_calls: int
    cache_hits: int
    failures: int
    abstentions: dict[str, int]
    abstained_steps: dict[str, int]
    judge_seconds: float
    total_seconds: float
    heldout_episodes: int
    heldout_correlation: float
    heldout_term_correlations: dict[str, float]
    final_loss: float | None = None
    initial_loss: float | None = None
    out: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    cache: str = ""
    judges: dict[str, dict[str, float]] = field(default_factory=dict)
    """The judge-quality row of the judge, keyed by its name (``wrappers.judges.quality``)."""
    judge_call_seconds: float = 0.0
    """Seconds spent inside the judge's backend on the ``judge_calls`` the cache missed."""
    cold_seconds_per_1k_calls: float | None = None
    """The judge's cold cost, whatever the cache held: ``judge_call_seconds`` per 1,000
    ``judge_calls`` (None when the cache answered every request, ``cache_hits`` of them)."""

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready data."""
        return asdict(self)

    def summary(self) -> str:
        """The report in the lines ``label coren`` prints; an undefined figure reads n/a (why)."""
        cold = self.cold_seconds_per_1k_calls
        cost = (
            f"cold cost {cold:.3g} s per 1,000 judge calls"
            if cold is not None
            else "cold cost n/a: the cache answered every request"
        )
        lines = [
            f"relabelled {self.episodes:,} episodes / {self.steps:,} steps ({self.ablation}) "
            f"in {self.total_seconds:.1f} s (judging {self.judge_seconds:.1f} s): "
            f"{self.requests:,} requests, {self.cache_hits:,} answered from the cache, "
            f"{self.judge_calls:,} judge calls ({cost}), {self.failures:,} failures, "
            f"abstentions {json.dumps(self.abstentions)}",
            f"held-out point-biserial correlation of the dense return with success: "
            f"{_figure(self.heldout_correlation, '.3f', UNDEFINED_CORRELATION)} over "
            f"{self.heldout_episodes} episodes; written to {self.out}; judge cache {self.cache}",
        ]
        lines += [
            f"judge {name}: expert's next action rated +2 {row['expert_next_top']:.1%}, "
            f">= +1 {row['expert_next_supportive']:.1%}; top-rated = expert's "
            f"{row['greedy_agreement']:.1%}; non-executable rated -2 "
            f"{_figure(row['nonexec_minus2'], '.1%', 'no such action was rated')} "
            f"({row['probe_states']} held-out states); {row['calls_per_1k_steps']:,.0f} judge "
            f"calls per 1,000 steps after the cache, {cost}"
            for name, row in self.judges.items()
        ]
        return "\n".join(lines)


UNDEFINED_CORRELATION = "fewer than 2 held-out episodes, or all succeed, all fail or share a return"
"""Why a point-biserial correlation is undefined (NaN)."""


def _figure(value: float, spec: str, undefined: str) -> str:
    """``value`` formatted with ``spec``, or ``n/a (why)`` where it is undefined (NaN)."""
    return f"n/a ({undefined})" if math.isnan(value) else format(value, spec)


def build_report(
    ablation: str,
    judged: JudgedDataset,
    info: dict[str, Any],
    *,
    out: Path,
    cache: Path,
    judge_name: str,
    probe: tuple[list[ProbeState], np.ndarray] | None,
    started: float,
) -> LabelReport:
    """The report of one ablation: what the judging cost, what ``dense_rewards`` measured (its
    ``info``), the judge-quality row when ``probe`` holds the held-out ratings, and the wall time
    since ``started`` (a ``time.perf_counter`` reading)."""
    counts, stats, data = judged.counts, judged.judge_stats, judged.data
    report = LabelReport(
        ablation=ablation,
        episodes=len(data),
        steps=data.n_steps,
        requests=counts.rate_requests + counts.structural_requests + counts.temporal_requests,
        judge_calls=stats["calls"],
        cache_hits=judged.cache_hits,
        failures=stats["failures"],
        abstentions={
            "rate": counts.rate_abstentions,
            "structural": counts.structural_abstentions,
            "temporal": counts.temporal_abstentions,
        },
        abstained_steps=counts.abstained_steps,
        judge_seconds=judged.seconds,
        total_seconds=0.0,
        heldout_episodes=info["heldout_episodes"],
        heldout_correlation=info["heldout_correlation"],
        heldout_term_correlations=info["heldout_term_correlations"],
        final_loss=info.get("final_loss"),
        initial_loss=info.get("initial_loss"),
        out=str(out),
        extra={k: v for k, v in info.items() if k == "mean_weights"},
        cache=str(cache),
        judge_call_seconds=judged.call_seconds,
        cold_seconds_per_1k_calls=cold_cost(judged.call_seconds, stats["calls"]),
    )
    if probe is not None:
        row = judge_report(
            probe[0],
            probe[1],
            heldout_returns=info["heldout_returns"],
            heldout_success=info["heldout_success"],
            seconds=judged.seconds,
            calls=stats["calls"],
            steps=data.n_steps,
        )
        report.judges = {judge_name: row.as_dict()}
    report.total_seconds = time.perf_counter() - started
    return report


__all__ = ["UNDEFINED_CORRELATION", "LabelReport", "build_report"]
