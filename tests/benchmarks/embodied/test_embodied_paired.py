"""Paired differences of the embodied suite: every row on the same episodes, one set of draws (issue 31)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rewardgym.agents.evaluation.household import EvalConfig, RandomPolicy, evaluate_household
from rewardgym.benchmarks.embodied.config import PRESETS, EmbodiedBenchConfig, Row, Tuned
from rewardgym.benchmarks.embodied.report import aggregate, oracle_vs_sparse, render_markdown
from rewardgym.benchmarks.embodied.stats import SplitResamples
from rewardgym.envs.household.v1 import ACTION_NAMES

SEEDS, TASKS, PER_TASK = 3, 25, 5
TASK_OF = [float(t) for t in range(TASKS) for _ in range(PER_TASK)]
IDS = [
    f"default/task {t}/instruction {i}/seed {100 * t + i}/abc"
    for t in range(TASKS)
    for i in range(PER_TASK)
]


def _episodes(success: np.ndarray, ids: list[str] = IDS) -> dict[str, list[Any]]:
    values = [float(v) for v in success]
    return {"success": values, "cgc": values, "plan": values, "task": TASK_OF, "episode": ids}


def _sparse(seed: int = 0) -> list[np.ndarray]:
    """Per-seed successes with a strong task effect (task success rates from 0 to 0.8)."""
    rng = np.random.default_rng(seed)
    rates = np.repeat(rng.uniform(0.0, 0.8, size=TASKS), PER_TASK)
    return [(rng.random(TASKS * PER_TASK) < rates).astype(float) for _ in range(SEEDS)]


def _better(base: list[np.ndarray], flips_per_seed: int, seed: int = 1) -> list[np.ndarray]:
    """``base`` with ``flips_per_seed`` failures of every seed turned into successes."""
    rng = np.random.default_rng(seed)
    out = []
    for run in base:
        run = run.copy()
        run[rng.choice(np.flatnonzero(run == 0.0), flips_per_seed, replace=False)] = 1.0
        out.append(run)
    return out


def _resamples(rows: dict[str, list[np.ndarray]], samples: int = 2000) -> SplitResamples:
    per_row = {name: [_episodes(run) for run in runs] for name, runs in rows.items()}
    return SplitResamples.build("fine", per_row, samples=samples)


def test_a_known_difference_on_constructed_episodes_is_recovered() -> None:
    sparse = _sparse()
    better = _better(sparse, flips_per_seed=20)  # 20 of 125 episodes per seed: +16.0 points
    draws = _resamples({"cql/perfect-judge": better, "cql/sparse": sparse})
    point, (low, high) = draws.difference("cql/perfect-judge", "cql/sparse", "sr")
    assert point == pytest.approx(16.0)
    assert 0.0 < low < 16.0 < high < 32.0  # real: the interval excludes 0 and covers the truth


def test_identical_rows_differ_by_exactly_zero_with_a_zero_width_interval() -> None:
    sparse = _sparse()
    draws = _resamples({"cql/coren": [r.copy() for r in sparse], "cql/sparse": sparse})
    for metric in ("sr", "cgc", "plan"):
        assert draws.difference("cql/coren", "cql/sparse", metric) == (0.0, [0.0, 0.0])
    value, interval = _resamples(
        {"cql/coren": sparse, "cql/sparse": sparse, "cql/perfect-judge": _better(sparse, 20)}
    ).position("cql/coren", "cql/sparse", "cql/perfect-judge")
    assert value == 0.0 and interval == [0.0, 0.0]


def test_shuffling_a_rows_episodes_changes_the_paired_interval_not_the_marginal() -> None:
    sparse = _sparse()
    better = _better(sparse, flips_per_seed=20)
    rng = np.random.default_rng(7)
    shuffled = []
    for run in better:  # within each (seed, task): the same cluster totals, other pairings
        cells = run.copy().reshape(TASKS, PER_TASK)
        for cell in cells:
            rng.shuffle(cell)
        shuffled.append(cells.ravel())
    paired = _resamples({"row": better, "cql/sparse": sparse}, samples=4000)
    unpaired = _resamples({"row": shuffled, "cql/sparse": sparse}, samples=4000)
    point, (low, high) = paired.difference("row", "cql/sparse", "sr")
    point_s, (low_s, high_s) = unpaired.difference("row", "cql/sparse", "sr")
    assert point == pytest.approx(point_s)
    assert high_s - low_s > (high - low) + 2.0  # pairing on the same episode narrows it
    assert paired.mean("row", "sr") == pytest.approx(unpaired.mean("row", "sr"))
    for a, b in zip(paired.interval("row", "sr"), unpaired.interval("row", "sr"), strict=True):
        assert a == pytest.approx(b, abs=1.0)  # the marginal's draws are alike in distribution


def test_a_row_on_other_episodes_is_refused() -> None:
    sparse = _sparse()
    other = [*IDS[:-1], "default/task 24/instruction 4/seed 999/zzz"]
    per_row = {
        "cql/sparse": [_episodes(run) for run in sparse],
        "bc/none": [_episodes(sparse[0]), _episodes(sparse[1], other), _episodes(sparse[2])],
    }
    with pytest.raises(ValueError, match=r"row 'bc/none' seed #1 played other episodes.*seed 999"):
        SplitResamples.build("fine", per_row, samples=10)
    fewer = {**per_row, "bc/none": [_episodes(run) for run in sparse[:2]]}
    with pytest.raises(ValueError, match="2 training seeds"):
        SplitResamples.build("fine", fewer, samples=10)


def test_every_policy_plays_the_same_held_out_episodes() -> None:
    """Identities (layout, task, instruction, env seed, first state) do not depend on the policy."""
    config = EvalConfig(splits=("fine", "shifted-abstract"), tasks=(0, 11), instructions_per_task=2)
    first = evaluate_household(RandomPolicy(len(ACTION_NAMES), seed=0), config)
    second = evaluate_household(RandomPolicy(len(ACTION_NAMES), seed=1), config)
    for split in config.splits:
        ids = first[split].episodes()["episode"]
        assert ids == second[split].episodes()["episode"] and len(set(ids)) == 4
        layout = "shifted" if split.startswith("shifted") else "default"
        assert all(i.startswith(f"{layout}/task ") for i in ids)
    assert first["fine"].episodes()["episode"] != first["shifted-abstract"].episodes()["episode"]
    moved = EvalConfig(splits=("fine",), tasks=(0, 11), instructions_per_task=2, seed=1)
    other = evaluate_household(RandomPolicy(len(ACTION_NAMES)), moved)["fine"]
    assert other.episodes()["episode"] != first["fine"].episodes()["episode"]


ROWS = ("bc/none", "cql/sparse", "cql/perfect-judge", "cql/coren")


def _suite_results() -> tuple[EmbodiedBenchConfig, dict[Any, str], dict[str, Any]]:
    """A config, assignment and results as ``run_bench_embodied`` builds them, by hand."""
    config = PRESETS["quick"].replace(
        rows=ROWS, seeds=(0, 1, 2), evaluation=EvalConfig(splits=("fine",)), bootstrap=500
    )
    sparse = _sparse()
    scores = {
        "bc/none": _better(sparse, 10, seed=3),
        "cql/sparse": sparse,
        "cql/perfect-judge": _better(sparse, 20),
        "cql/coren": _better(sparse, 10, seed=5),
    }
    assignment: dict[Any, str] = {}
    results: dict[str, Any] = {}
    for name in ROWS:
        row = Row.parse(name)
        for k, seed in enumerate(config.seeds):
            key = f"{name}-{seed}"
            assignment[(row, Tuned(row.algorithm, row.reward), seed)] = key
            results[key] = {
                "episodes": {"fine": _episodes(scores[name][k])},
                "splits": {"fine": {"steps": 10.0}},
                "train_seconds": 1.0,
                "trained_with": {"dense_weight": None, "learning_rate": 1e-3},
            }
    return config, assignment, results


def test_rows_carry_paired_differences_and_positions_from_the_same_draws() -> None:
    config, assignment, results = _suite_results()
    rows = aggregate(config, assignment, results)
    by = {f"{r['algorithm']}/{r['reward']}": r for r in rows}
    assert "cql/sparse" not in by["cql/sparse"]["vs"] and "bc/none" in by["cql/sparse"]["vs"]
    judge = by["cql/perfect-judge"]["vs"]["cql/sparse"]["sr"]
    assert judge["diff"] == pytest.approx(16.0) and judge["verdict"] == "real"
    assert by["cql/perfect-judge"]["sr"] - by["cql/sparse"]["sr"] == pytest.approx(16.0)
    position = by["cql/coren"]["position"]["perfect-judge"]
    assert position["value"] == pytest.approx(0.5)  # +8 of the judge's +16
    assert position["ci"][0] < 0.5 < position["ci"][1]
    check = oracle_vs_sparse(rows, reference="perfect-judge")
    assert check["oracle_minus_sparse"] == pytest.approx(16.0)
    assert check["oracle_minus_sparse_verdict"] == "real" and "intervals_overlap" not in check
    assert check["coren_position_ci"]["coren"] == position["ci"]


def _payload(rows: list[dict[str, Any]], n_steps: int, **config: Any) -> dict[str, Any]:
    """A quick run's results.json around ``rows``, trained ``n_steps`` by default."""
    return {
        "rows": rows,
        "meta": {"timings_seconds": {"total": 1.0}},
        "config": {
            "name": "quick",
            "seeds": [0, 1, 2],
            "training": {"n_steps": n_steps},
            "judge": "embedding",
            **config,
        },
        "data": {"episodes": 4, "success_rate": 25.0, "mean_expert_steps": 9.0},
    }


def test_the_tables_show_paired_differences_and_quick_says_they_are_indicative() -> None:
    config, assignment, results = _suite_results()
    payload = _payload(aggregate(config, assignment, results), n_steps=10, indicative=True)
    text = render_markdown(payload)
    assert "#### Default layout: paired differences in SR" in text
    assert "| fine - cql/sparse | fine - bc/none |" in text and "(the reference)" in text
    assert "+16.0 [" in text and "] real" in text and "intervals_overlap" not in text
    full = len(PRESETS["full"].seeds)
    assert text.count(f"the full preset ({full} seeds") >= 2  # the paired and the check tables
    assert "| coren | 0.50 | [" in text
    payload["config"]["indicative"] = False
    assert "Indicative" not in render_markdown(payload)


def test_full_has_five_seeds_or_more_and_quick_is_indicative() -> None:
    assert len(PRESETS["full"].seeds) >= 5 and PRESETS["quick"].indicative
    assert not PRESETS["full"].indicative


def test_rows_tuned_to_their_own_budgets_say_so_in_the_header_and_a_table() -> None:
    """The header's step count is no longer the shared default when each row has its budget."""
    config, assignment, results = _suite_results()
    rows = aggregate(config, assignment, results)
    budgets = {"cql/sparse": 4000, "cql/perfect-judge": 1000}
    for r in rows:
        r["n_steps"] = budgets.get(f"{r['algorithm']}/{r['reward']}", 2000)
    payload = _payload(rows, n_steps=800)
    text = render_markdown(payload)
    assert "1000-4000 steps by row" in text and "800 steps" not in text
    assert "| cql/sparse | 4000 | 0.001 |" in text
    for r in rows:
        r["n_steps"] = 800
    text = render_markdown(payload)
    assert "800 steps, judge" in text and "Each row trained with" not in text
