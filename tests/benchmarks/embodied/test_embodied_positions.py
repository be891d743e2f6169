"""Where each COREN row lands between sparse CQL (0) and a reference dense reward (1) (issues 22.2, 31)."""

from __future__ import annotations

from typing import Any

import pytest

from rewardgym.agents.evaluation.bootstrap import verdict
from rewardgym.benchmarks.embodied.report import oracle_vs_sparse, render_markdown


def _row(algorithm: str, reward: str, sr: float, split: str = "fine") -> dict[str, Any]:
    """A public row as ``aggregate`` writes it: SR, its paired differences and positions."""
    row: dict[str, Any] = {
        "algorithm": algorithm,
        "reward": reward,
        "split": split,
        "sr": sr,
        "sr_ci": (sr - 5.0, sr + 5.0),
        "cgc": sr,
        "plan": sr,
    }
    vs = {}
    for name, base in (("cql/sparse", 10.0), ("bc/none", 40.0)):
        if name != f"{algorithm}/{reward}":
            diff = sr - base
            ci = [diff - 3.0, diff + 3.0]
            vs[name] = {"sr": {"diff": diff, "ci": ci, "verdict": verdict(ci)}}
    row["vs"] = vs
    if algorithm == "cql" and reward not in ("sparse", "oracle", "perfect-judge"):
        row["position"] = {
            ref: {"value": (sr - 10.0) / (high - 10.0), "ci": [0.0, 3.0]}
            for ref, high in (("oracle", 20.0), ("perfect-judge", 50.0))
        }
    return row


ROWS = [
    _row("cql", "sparse", 10.0),
    _row("cql", "oracle", 20.0),
    _row("cql", "perfect-judge", 50.0),
    _row("cql", "CST", 30.0),
    _row("bc", "none", 40.0),
    _row("cql", "CST", 99.0, split="abstract"),  # another split is never read
]


def test_coren_rows_are_placed_between_sparse_and_each_reference() -> None:
    oracle = oracle_vs_sparse(ROWS)
    judge = oracle_vs_sparse(ROWS, reference="perfect-judge")
    assert oracle["reference"] == "oracle" and judge["reference"] == "perfect-judge"
    assert oracle["coren_position"] == {"CST": pytest.approx(2.0)}  # (30 - 10) / (20 - 10)
    assert judge["coren_position"] == {"CST": pytest.approx(0.5)}  # (30 - 10) / (50 - 10)
    assert judge["coren_position_ci"] == {"CST": [0.0, 3.0]}
    assert judge["oracle_minus_sparse"] == 40.0 and judge["oracle_minus_bc"] == 10.0
    assert judge["oracle_minus_sparse_ci"] == [37.0, 43.0]
    assert judge["oracle_minus_sparse_verdict"] == "real" and "intervals_overlap" not in judge


def test_a_reference_row_without_paired_differences_is_refused() -> None:
    rows = [{k: v for k, v in r.items() if k != "vs"} for r in ROWS]
    with pytest.raises(ValueError, match="no paired difference from cql/sparse"):
        oracle_vs_sparse(rows)


def test_the_report_names_each_reference_and_skips_what_was_not_run() -> None:
    payload = {
        "rows": [r for r in ROWS if r["reward"] != "oracle"],
        "meta": {"timings_seconds": {"total": 1.0}},
        "config": {"name": "t", "seeds": [0], "training": {"n_steps": 10}, "judge": "embedding"},
        "data": {"episodes": 4, "success_rate": 25.0, "mean_expert_steps": 9.0},
    }
    text = render_markdown(payload)
    assert "COREN schemes between sparse (0) and perfect-judge (1)" in text
    assert "perfect_judge_minus_sparse" in text and "between sparse (0) and oracle" not in text
    assert "Shifted layout" not in text  # no shifted split was played
    assert oracle_vs_sparse(payload["rows"]) == {}
