"""``benchmarks/shop/recipe_pairs.py``: candidates minus a reference, seed k with seed k, on the same steps."""

from __future__ import annotations

import pytest

from rewardgym.benchmarks.shop.recipe_pairs import (
    LOOKUP,
    choose_winner,
    paired_lines,
    render_pairs,
    seed_paired_difference,
)


def test_the_difference_pairs_seed_k_with_seed_k_on_the_steps_both_scored() -> None:
    mine = {
        0: {(0, 0): 1.0, (0, 1): 0.0, (1, 0): 1.0},
        1: {(0, 0): 1.0, (0, 1): 1.0, (1, 0): 1.0, (2, 0): 1.0},  # (2, 0): only mine
        2: {(0, 0): 1.0},  # a seed the reference lacks
    }
    theirs = {
        0: {(0, 0): 0.0, (0, 1): 0.0, (1, 0): 1.0},
        1: {(0, 0): 0.0, (0, 1): 0.0, (1, 0): 0.0},
    }
    found = seed_paired_difference(mine, theirs, samples=400)
    assert found is not None
    assert found["seeds"] == [0, 1] and found["steps"] == 6
    assert found["per_seed"] == pytest.approx({0: 100 / 3, 1: 100.0})
    assert found["diff"] == pytest.approx(400 / 6)  # 4 of the 6 paired steps gained
    lo, hi = found["ci"]
    assert lo <= found["diff"] <= hi and lo < hi
    # Seed k is never paired with another seed: swapping the reference's seeds changes it.
    swapped = seed_paired_difference(mine, {0: theirs[1], 1: theirs[0]}, samples=400)
    assert swapped is not None
    assert swapped["per_seed"] == pytest.approx({0: 200 / 3, 1: 200 / 3})
    assert seed_paired_difference({0: {(0, 0): 1.0}}, {1: {(0, 0): 1.0}}) is None


def test_the_interval_holds_the_seed_spread_not_only_the_sessions() -> None:
    sessions = range(40)
    same = {(s, 0): 1.0 for s in sessions}
    none = {(s, 0): 0.0 for s in sessions}
    # Seed 0 gains on every step, seed 1 loses on every step: no session noise at all.
    split = seed_paired_difference({0: same, 1: none}, {0: none, 1: same}, samples=400)
    assert split is not None and split["diff"] == 0.0
    assert split["ci"][0] < -50 and split["ci"][1] > 50  # the seeds disagree: a wide interval
    agree = seed_paired_difference({0: same, 1: same}, {0: none, 1: none}, samples=400)
    assert agree is not None and agree["ci"] == [100.0, 100.0]


def _row(name: str, seed: int, hits: list[int], temperature: float = 0.2) -> dict:
    return {
        "candidate": name,
        "seed": seed,
        "temperature": temperature,
        "hits": [[s, 0, h] for s, h in enumerate(hits)],
    }


def test_lines_pair_each_candidate_with_the_reference_and_the_lookup() -> None:
    good, bad = [1] * 30, [0] * 30
    rows = [
        *(_row("cpu", k, bad) for k in (0, 1, 2)),
        *(_row("first", k, good) for k in (0, 1, 2)),
        *(_row("cpu/constrained", k, good) for k in (0, 1, 2)),
        *(_row("first/constrained", k, bad) for k in (0, 1, 2)),
    ]
    lookup = {(s, 0): float(s % 2) for s in range(30)}
    lines = paired_lines(rows, lookup, "cpu", samples=200)
    pairs = {(line["candidate"], line["minus"]): line for line in lines}
    assert set(pairs) == {
        ("cpu", LOOKUP),
        ("first", "cpu"),
        ("first", LOOKUP),
        ("cpu/constrained", LOOKUP),
        ("first/constrained", "cpu/constrained"),  # constrained against constrained
        ("first/constrained", LOOKUP),
    }
    assert pairs[("first", "cpu")]["diff"] == 100.0
    assert pairs[("first", LOOKUP)]["diff"] == pytest.approx(50.0)
    assert pairs[("first", "cpu")]["seeds"] == [0, 1, 2]
    winner = choose_winner(lines, "cpu")
    assert winner is not None and winner["candidate"] == "first"
    assert "Winner: first" in render_pairs(lines, "cpu", winner)
    assert choose_winner(lines, None) is None


def test_no_winner_unless_the_paired_gain_excludes_zero() -> None:
    mixed = [1, 0] * 15
    rows = [
        *(_row("cpu", k, mixed) for k in (0, 1, 2)),
        *(_row("noisy", k, mixed[1:] + mixed[:1]) for k in (0, 1, 2)),
        *(_row("worse", k, [0] * 30) for k in (0, 1, 2)),
    ]
    lines = paired_lines(rows, {(s, 0): 1.0 for s in range(30)}, "cpu", samples=200)
    assert choose_winner(lines, "cpu") is None  # noisy's gain holds 0, worse's is below it
    assert "cpu stays the recipe" in render_pairs(lines, "cpu", None)
