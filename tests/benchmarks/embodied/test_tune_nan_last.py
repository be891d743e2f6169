"""Issue 34 item 5: the embodied tune never picks a grid point whose validation score is NaN."""

from __future__ import annotations

import math

from rewardgym.benchmarks.embodied import report
from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig, Row, Tuned


def test_a_nan_score_ranks_last(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    row = Row("cql", "sparse")
    first, second = Tuned("cql", "sparse", learning_rate=1e-3), Tuned("cql", "sparse")
    scores = {"a": (math.nan, math.nan), "b": (10.0, 20.0)}

    def stats(episodes: object, which: object) -> dict[str, object]:
        # (episodes of the point, bootstrap) or (resamples by row name, row name)
        keys = episodes[which] if isinstance(episodes, dict) else episodes
        sr, cgc = scores[keys[0]]  # type: ignore[index]
        return {"sr": sr, "cgc": cgc, "sr_ci": (sr, sr), "episodes": 1}

    monkeypatch.setattr(report, "_row_stats", stats)
    if hasattr(report, "SplitResamples"):
        build = staticmethod(lambda split, episodes, samples: episodes)
        monkeypatch.setattr(report.SplitResamples, "build", build)
    results = {"a": {"episodes": {"validation": "a"}}, "b": {"episodes": {"validation": "b"}}}
    payload = report.tune_summary(
        EmbodiedBenchConfig(), {(row, first, 0): "a", (row, second, 0): "b"}, results
    )
    assert payload["best"]["cql/sparse"]["sr"] == 10.0
