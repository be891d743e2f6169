"""``rewardgym demo`` times each later suite from its own start (its pages' wall time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rewardgym.benchmarks import provenance
from rewardgym.benchmarks.demo import run_demo


def test_each_later_suite_of_the_demo_is_timed_from_a_restarted_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rewardgym.benchmarks.embodied import suite as embodied
    from rewardgym.benchmarks.fidelity import suite as fidelity
    from rewardgym.benchmarks.shop import suite as shop

    clocks: list[str] = []

    def stage(*args: Any, **kwargs: Any) -> None:  # a suite that only records its provenance
        clocks.append(provenance.run_provenance(["rewardgym", "demo"])["process_clock"])

    monkeypatch.setattr(provenance, "_SUITE_START", None)
    for module, name in ((shop, "run_bench_shop"), (embodied, "run_bench_embodied")):
        monkeypatch.setattr(module, name, stage)
    monkeypatch.setattr(fidelity, "run_bench_fidelity", stage)
    run_demo(tmp_path / "demo")
    assert clocks == ["process", "restarted", "restarted"]
    assert provenance.run_provenance()["process_clock"] == "process"  # undone afterwards
