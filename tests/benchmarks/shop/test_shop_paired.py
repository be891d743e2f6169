"""``diff_vs_sft``: the paired session bootstrap of a row's exact match minus sft's, and its use in the tables."""

from __future__ import annotations

import pytest

from rewardgym.agents.evaluation.shopping import StepRecord
from rewardgym.benchmarks.shop.report import (
    build_rows,
    difference_note,
    is_real,
    paired_difference,
    render_tables,
)
from rewardgym.envs.shopping.schema import ShopAction

CLICK, TERM = ShopAction("click", "a"), ShopAction("terminate")


def _run(right: dict[tuple[int, int], bool], steps: dict[int, int]) -> list[StepRecord]:
    """Records of sessions ``steps`` (session -> step count); a step is right where ``right`` says."""
    return [
        StepRecord(s, j, CLICK, CLICK if right.get((s, j), False) else TERM)
        for s, count in steps.items()
        for j in range(count)
    ]


def test_value_on_a_hand_built_example_pairs_steps_and_pools_sessions() -> None:
    steps = {0: 2, 1: 4}  # 6 steps
    row = _run({(0, 0): True, (0, 1): True, (1, 0): True}, steps)  # 3 of 6 right
    sft = _run({(0, 0): True, (1, 1): True}, steps)  # 2 of 6 right
    point, (lo, hi) = paired_difference([row], [sft], samples=500)
    assert point == pytest.approx(100.0 * (3 - 2) / 6)
    # Only two sessions, so every resample is {0, 0}, {0, 1} or {1, 1}: +50, +16.7 or 0 points.
    assert lo == pytest.approx(0.0) and hi == pytest.approx(50.0)
    # Steps the other side never scored do not count, and runs of one row are averaged per step.
    extra = _run({(2, 0): True}, {2: 3})
    again, _ = paired_difference([row + extra, row], [sft], samples=50)
    assert again == pytest.approx(point)
    assert paired_difference([extra], [sft]) is None


def test_the_interval_excludes_zero_when_every_session_moves_the_same_way() -> None:
    steps = {s: 5 for s in range(40)}
    sft = _run({(s, j): j < 2 for s in steps for j in range(5)}, steps)  # 40%
    better = _run({(s, j): j < 3 for s in steps for j in range(5)}, steps)  # 60%
    point, interval = paired_difference([better], [sft], samples=400, seed=3)
    assert point == pytest.approx(20.0) and interval == pytest.approx([20.0, 20.0])
    assert is_real(interval)
    # Same rates, opposite orientation: each row wins half the sessions by a lot.
    mixed = _run({(s, j): (j < 4) if s % 2 else (j < 0) for s in steps for j in range(5)}, steps)
    point, interval = paired_difference([mixed], [sft], samples=400, seed=3)
    assert point == pytest.approx(0.0) and interval[0] < 0.0 < interval[1]
    assert not is_real(interval)
    # Seeded: the same call gives the same interval.
    assert paired_difference([mixed], [sft], samples=400, seed=3) == (point, interval)


def test_rows_carry_the_difference_and_the_tables_say_which_are_real() -> None:
    steps = {s: 4 for s in range(30)}
    sft = _run({(s, j): j < 1 for s in steps for j in range(4)}, steps)
    rl = _run({(s, j): j < 3 for s in steps for j in range(4)}, steps)
    flat = _run({(s, j): j == (s % 4) for s in steps for j in range(4)}, steps)
    records = {"baseline/frequency": [sft], "sft": [sft], "shop-r1": [rl], "sft+rl-binary": [flat]}
    order = ["baseline/frequency", "sft", "sft+rl-binary", "shop-r1"]
    rows = {r["method"]: r for r in build_rows(records, [], order, "natural", samples=300)}
    assert "diff_vs_sft" not in rows["sft"] and "diff_vs_sft" not in rows["baseline/frequency"]
    assert rows["shop-r1"]["diff_vs_sft"] == pytest.approx(50.0)
    assert rows["shop-r1"]["diff_vs_sft_ci"] == pytest.approx([50.0, 50.0])
    lo, hi = rows["sft+rl-binary"]["diff_vs_sft_ci"]
    assert lo <= rows["sft+rl-binary"]["diff_vs_sft"] <= hi
    tables = render_tables(list(rows.values()), "natural")
    assert "exact vs sft (paired, points)" in tables and "+50.0 [+50.0, +50.0] real" in tables
    note = difference_note(list(rows.values()))
    assert note is not None and "real (interval excludes 0): shop-r1 +50.0" in note
