"""A page's per-episode results and its reprint: the same intervals, COREN minus its ablations, undefined positions (issue 47)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from rewardgym.agents.evaluation.household import EvalConfig
from rewardgym.benchmarks.embodied.config import PRESETS, EmbodiedBenchConfig, Row, Tuned
from rewardgym.benchmarks.embodied.paired import NOISY_GAP
from rewardgym.benchmarks.embodied.report import aggregate, render_markdown
from rewardgym.benchmarks.embodied.stats import (
    EPISODES_FILE,
    episode_records,
    main,
    read_episodes,
    write_episodes,
)

TASKS, PER_TASK = 10, 4
ROWS = (
    "bc/none",
    "cql/sparse",
    "cql/perfect-judge",
    "cql/coren",
    "cql/single-prompt",
    "cql/average",
)
SPLITS = ("fine", "abstract")


def _episodes(split: str, success: np.ndarray, cgc: np.ndarray) -> dict[str, list[Any]]:
    return {
        "success": [float(v) for v in success],
        "cgc": [float(v) for v in cgc],
        "plan": [float(v) / 3.0 for v in success],
        "task": [float(t) for t in range(TASKS) for _ in range(PER_TASK)],
        "episode": [f"default/task {t}/{split} {i}" for t in range(TASKS) for i in range(PER_TASK)],
    }


def _run(judge_gain: float) -> tuple[EmbodiedBenchConfig, dict[Any, str], dict[str, Any]]:
    """A config, assignment and results of 3 seeds as ``run_bench_embodied`` builds them.

    Every row's success rate is sparse CQL's plus its gain (in probability); the perfect
    judge's is ``judge_gain``, COREN's 0.15, its ablations' 0.
    """
    config = PRESETS["quick"].replace(
        rows=ROWS, seeds=(0, 1, 2), evaluation=EvalConfig(splits=SPLITS), bootstrap=300
    )
    gains = {"cql/perfect-judge": judge_gain, "cql/coren": 0.15, "bc/none": 0.05}
    rng = np.random.default_rng(0)
    base = np.repeat(rng.uniform(0.1, 0.5, TASKS), PER_TASK)
    assignment: dict[Any, str] = {}
    results: dict[str, Any] = {}
    for name in ROWS:
        row = Row.parse(name)
        for seed in config.seeds:
            key = f"{name}-{seed}"
            assignment[(row, Tuned(row.algorithm, row.reward), seed)] = key
            episodes = {}
            for split in SPLITS:
                success = (rng.random(base.size) < base + gains.get(name, 0.0)).astype(float)
                episodes[split] = _episodes(split, success, rng.random(base.size))
            results[key] = {
                "episodes": episodes,
                "splits": {split: {"steps": 12.0} for split in SPLITS},
                "train_seconds": 1.0,
                "trained_with": {"dense_weight": None, "learning_rate": 1e-3},
            }
    return config, assignment, results


def _page(config: EmbodiedBenchConfig, rows: list[dict[str, Any]]) -> str:
    return render_markdown(
        {
            "rows": rows,
            "meta": {"timings_seconds": {"total": 1.0}},
            "config": {
                "name": config.name,
                "seeds": list(config.seeds),
                "training": {"n_steps": 10},
                "judge": "embedding",
                "indicative": config.indicative,
            },
            "data": {"episodes": 4, "success_rate": 25.0, "mean_expert_steps": 9.0},
        }
    )


def test_the_reprint_from_the_kept_episodes_equals_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, assignment, results = _run(judge_gain=0.4)
    page = _page(config, aggregate(config, assignment, results))
    written = write_episodes(tmp_path, config, episode_records(config, assignment, results))
    assert written == tmp_path / EPISODES_FILE and sorted(p.name for p in tmp_path.iterdir()) == [
        EPISODES_FILE
    ]  # atomic: no temporary sibling left
    table = pq.read_table(written)
    assert table.num_rows == len(ROWS) * 3 * len(SPLITS) * TASKS * PER_TASK
    assert table.column_names == [
        "row", "seed", "split", "instructions", "task", "episode", "success", "cgc", "plan"
    ]  # fmt: skip
    columns, meta = read_episodes(tmp_path)
    assert set(columns["instructions"]) == {"fine", "abstract"} and meta["bootstrap"] == 300
    main([str(tmp_path)])
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("### Default layout") and printed in page
    assert "#### Default layout: paired differences in SR" in printed
    assert "| cql/coren - cql/single-prompt |" in printed
    assert "| cql/coren - cql/average |" in printed
    assert "COREN schemes between sparse (0) and perfect-judge (1)" in printed


def test_coren_is_paired_with_its_ablations_on_the_same_draws() -> None:
    config, assignment, results = _run(judge_gain=0.4)
    rows = aggregate(config, assignment, results)
    by = {(r["algorithm"], r["reward"], r["split"]): r for r in rows}
    coren = by[("cql", "coren", "fine")]
    single = by[("cql", "single-prompt", "fine")]
    paired = coren["vs"]["cql/single-prompt"]["sr"]
    assert paired["diff"] == pytest.approx(coren["sr"] - single["sr"])
    assert "cql/coren" not in single.get("vs", {}) and "cql/average" in coren["vs"]
    assert set(single["vs"]) == {"cql/sparse", "bc/none"}  # ablations keep the usual pairs


def test_a_position_over_a_noisy_gap_is_undefined() -> None:
    config, assignment, results = _run(judge_gain=0.0)  # the perfect judge is sparse CQL again
    rows = aggregate(config, assignment, results)
    by = {(r["algorithm"], r["reward"], r["split"]): r for r in rows}
    gap = by[("cql", "perfect-judge", "fine")]["vs"]["cql/sparse"]["sr"]
    assert gap["verdict"] == "noise"
    position = by[("cql", "coren", "fine")]["position"]["perfect-judge"]
    assert math.isnan(position["value"]) and "is noise" in position["undefined"]
    assert f"| coren | {NOISY_GAP} | {NOISY_GAP} |" in _page(config, rows)
    real = aggregate(*_run(judge_gain=0.4))
    shown = {(r["algorithm"], r["reward"], r["split"]): r for r in real}
    assert math.isfinite(shown[("cql", "coren", "fine")]["position"]["perfect-judge"]["value"])


def test_a_folder_without_episodes_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path)])
    assert stop.value.code == 2
    assert "no per-episode results" in capsys.readouterr().err


def test_a_recorded_page_keeps_its_episodes_and_reprints_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """record_results carries episodes.parquet onto the page, so the page folder reprints."""
    import json

    from rewardgym.benchmarks.record_results import record
    from rewardgym.outputs import mark_output

    config, assignment, results = _run(judge_gain=0.4)
    run = tmp_path / "run"
    run.mkdir()
    mark_output(run, "bench-embodied")
    meta = {"suite": "embodied", "preset": "quick", "wall_seconds": 1.0}
    (run / "results.json").write_text(json.dumps({"meta": meta, "rows": []}))
    (run / "results.md").write_text(_page(config, aggregate(config, assignment, results)))
    write_episodes(run, config, episode_records(config, assignment, results))
    docs = tmp_path / "docs"
    record(run, docs, name="embodied-tiny")
    assert (docs / "embodied-tiny" / EPISODES_FILE).read_bytes() == (
        run / EPISODES_FILE
    ).read_bytes()
    main([str(run)])
    from_run = capsys.readouterr().out
    main([str(docs / "embodied-tiny")])
    assert capsys.readouterr().out == from_run and from_run.strip()
