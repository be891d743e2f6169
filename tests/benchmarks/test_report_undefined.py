"""Undefined figures in ``bench embodied``'s report read ``n/a (why)``, never ``nan`` (issue 23.5)."""

from __future__ import annotations

from typing import Any

from rewardgym.benchmarks.embodied.report import render_markdown

NAN = float("nan")


def _row(algorithm: str, reward: str, sr: float) -> dict[str, Any]:
    row: dict[str, Any] = {
        "algorithm": algorithm,
        "reward": reward,
        "split": "fine",
        "sr": sr,
        "sr_ci": (sr, sr),
        "cgc": sr,
        "plan": sr,
    }
    if (
        reward != "sparse"
    ):  # the paired difference from sparse CQL (at 40.0), as aggregate writes it
        diff = {"diff": sr - 40.0, "ci": [sr - 40.0, sr - 40.0], "verdict": "noise"}
        row["vs"] = {"cql/sparse": {"sr": diff}}
    if reward == "CST":
        row["position"] = {"oracle": {"value": NAN, "ci": [NAN, NAN]}}
    return row


def test_undefined_correlations_and_positions_say_why() -> None:
    judge = {
        "expert_next_top": 0.5,
        "expert_next_supportive": 0.75,
        "greedy_agreement": 0.25,
        "nonexec_minus2": NAN,  # no non-executable action was rated
        "probe_states": 4,
        "probe_seconds_per_state": 0.01,
    }
    payload = {
        # oracle and sparse CQL tie: where COREN lands between them is undefined
        "rows": [
            _row("cql", "sparse", 40.0),
            _row("cql", "oracle", 40.0),
            _row("cql", "CST", 45.0),
        ],
        "meta": {
            "label": {"reports": {"CST": {"heldout_correlation": NAN, "judge_calls": 7}}},
            "timings_seconds": {"total": 1.0},
        },
        "config": {"name": "t", "seeds": [0], "training": {"n_steps": 10}, "judge": "embedding"},
        "data": {"episodes": 4, "success_rate": 25.0, "mean_expert_steps": 9.0},
        "judges": {
            "embedding": {**judge, "return_success_corr": NAN},  # the labelling judge, one class
            "hf:smollm2-135m": judge,  # probed only: no labelling correlation
        },
    }
    text = render_markdown(payload)
    assert "nan" not in text.lower().replace("n/a", "")
    assert "n/a (reference SR = sparse SR)" in text
    assert text.count("n/a (one class or equal returns)") == 2
    assert "n/a (labelling judge only)" in text and "n/a (none rated)" in text
