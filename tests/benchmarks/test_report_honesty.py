"""Reports say what their rows are: a smoke-test preset is marked as one, unparsable rows are named,
and every plot is written with its labels even when a run has nothing to draw."""

from __future__ import annotations

from pathlib import Path

from rewardgym.benchmarks.embodied.report import plot_results, render_markdown
from rewardgym.benchmarks.shop.config import preset
from rewardgym.benchmarks.shop.report import (
    SMOKE_NOTE,
    plot_reward_terms,
    plot_rows,
    render_tables,
    smoke_banner,
    unparsed_rows,
)


def _row(method: str, value: float, parse_rate: float) -> dict[str, object]:
    return {
        "method": method,
        "n_steps": 10,
        "exact_match": value,
        "exact_match_ci": [value, value],
        "type_accuracy": value,
        "type_f1": value,
        "parse_rate": parse_rate,
    }


def test_only_the_tiny_preset_is_marked_a_smoke_test() -> None:
    banner = smoke_banner(preset("tiny"))
    assert "SMOKE TEST, NOT A RESULT" in banner and "--preset quick" in banner
    for name in ("quick", "smol", "paper"):
        assert smoke_banner(preset(name)) == ""


def test_smoke_note_sits_under_every_table_and_unparsable_rows_are_named() -> None:
    rows = [_row("baseline/random", 0.0, 100.0), _row("sft", 0.0, 0.0), _row("shop-r1", 5.0, 40.0)]
    tables = render_tables(rows, "natural", note=SMOKE_NOTE)
    assert tables.count(SMOKE_NOTE) == tables.count("### Table")
    assert SMOKE_NOTE not in render_tables(rows, "natural")
    assert unparsed_rows(rows) == ["sft"]  # a baseline never parses text: it is not listed


def test_plots_are_written_for_empty_runs_and_smoke_runs(tmp_path: Path) -> None:
    rows = [_row("baseline/random", 10.0, 100.0), _row("sft", 0.0, 0.0)]
    assert plot_rows(rows, tmp_path, smoke=True).stat().st_size > 0
    assert plot_reward_terms({}, tmp_path, smoke=True).stat().st_size > 0
    embodied = [
        {"algorithm": "bc", "reward": "none", "split": "fine", "sr": 40.0, "sr_ci": [30.0, 50.0]},
        {"algorithm": "cql", "reward": "sparse", "split": "abstract", "sr": 5.0, "sr_ci": [0, 9]},
    ]
    path = plot_results(embodied, tmp_path / "sr.png", title="bench embodied (test)", smoke=True)
    assert path.stat().st_size > 0


def test_an_embodied_run_whose_agents_learned_nothing_says_so() -> None:
    def payload(sr: float) -> dict[str, object]:
        row = {"algorithm": "bc", "reward": "none", "sr": sr, "sr_ci": [0.0, sr], "cgc": 0.0}
        return {
            "rows": [{**row, "split": s, "plan": 0.0} for s in ("fine", "abstract")],
            "meta": {"timings_seconds": {"total": 1.0}},
            "config": {"name": "t", "seeds": [0], "training": {"n_steps": 10}, "judge": "e"},
            "data": {"episodes": 40, "success_rate": 27.5, "mean_expert_steps": 18.4},
        }

    assert "Every agent's SR is 0 on every split: at 10 training steps" in render_markdown(
        payload(0.0)
    )
    assert "Every agent's SR is 0" not in render_markdown(payload(12.5))


def test_bench_fidelity_tiny_marks_its_learned_rows_a_smoke_test() -> None:
    from rewardgym.benchmarks.fidelity.config import preset as fidelity_preset
    from rewardgym.benchmarks.fidelity.suite import smoke_banner as fidelity_banner

    assert "SMOKE TEST for the learned rows" in fidelity_banner(fidelity_preset("tiny"))
    assert fidelity_banner(fidelity_preset("quick")) == ""
