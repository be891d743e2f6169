"""The runner-overhead script's arithmetic, table and shipped sizes (the timed runs are recorded alone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.benchmarks.perf.runner_overhead import (
    full_units,
    projection,
    render,
    shipped_bytes,
)


def test_projection_counts_rounds_of_units_and_adds_rays_costs() -> None:
    hours = projection(units=10, unit_seconds=360.0, overhead=36.0, startup=3600.0, nodes=(4, 16))
    assert hours[4] == {"local_hours": pytest.approx(0.3), "ray_hours": pytest.approx(1.33)}
    assert hours[16] == {"local_hours": pytest.approx(0.1), "ray_hours": pytest.approx(1.11)}


def test_full_presets_have_more_units_than_quick() -> None:
    name, units = full_units("embodied")
    assert name == "full" and units >= 90  # 17 rows x 6 seeds, shared rewards counted apart
    name, units = full_units("shop")
    assert name == "cpu" and units > 4


def test_shipped_sizes_and_the_table(tmp_path: Path) -> None:
    (tmp_path / "data" / "train").mkdir(parents=True)
    (tmp_path / "data" / "train" / "steps.bin").write_bytes(b"x" * 5000)
    (tmp_path / "data" / "labelled" / "coren").mkdir(parents=True)
    (tmp_path / "data" / "labelled" / "coren" / "r.bin").write_bytes(b"y" * 100)
    sizes = shipped_bytes("embodied", tmp_path)
    assert set(sizes) == {"data/train", "data/labelled/coren"}  # folders holding files only
    assert sizes["data/train"] > 5000
    row = {
        "suite": "embodied",
        "preset": "quick",
        "units": 30,
        "local_s": 100.0,
        "ray_s": 105.0,
        "ratio": 1.05,
        "ratio_with_startup": 1.09,
        "ray_startup_s": 4.0,
        "overhead_per_unit_s": 0.33,
        "shipped_total_mb": 3.2,
        "largest_folder_mb": 1.1,
    }
    table = render(
        {
            "workers": 2,
            "rows": [row],
            "projections": {
                "embodied full": {"units": 102, "by_workers": projection(102, 6.7, 0.3, 4.0, (8,))}
            },
        }
    )
    assert (
        "| embodied | quick | 30 | 100.0 | 105.0 | 1.050 | 4.0 | 1.090 | +0.33 | 3.2 (1.10) |"
        in table
    )
    assert "## embodied full: 102 units" in table and "| 8 | 0.02 | 0.03 |" in table
