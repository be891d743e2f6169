"""The runner here: results land as units finish, --resume skips them, a failing unit stops the run."""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rewardgym.benchmarks.runner import RunnerOptions, Unit, UnitFailed, run_units, unit_store
from rewardgym.benchmarks.runner_ray import (
    folder_digest,
    land,
    pack,
    private_root,
    rewrite,
    run_shipped,
)


def square(log: str, value: int) -> dict[str, Any]:
    """A unit: appends its value to ``log`` (so a test sees which units ran), returns its square."""
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"{value}\n")
    if value < 0:
        raise ValueError(f"negative value {value}")
    return {"square": value * value}


def _units(log: Path, values: list[int]) -> list[Unit]:
    return [Unit(f"v{v}", square, (str(log), v)) for v in values]


def test_results_land_per_unit_and_resume_skips_them_saying_how_many(tmp_path: Path) -> None:
    log, lines = tmp_path / "ran.txt", []
    first = run_units(_units(log, [1, 2, 3]), RunnerOptions(), tmp_path, quiet=True)
    assert first == {f"v{v}": {"square": v * v} for v in (1, 2, 3)}
    saved = json.loads((unit_store(tmp_path) / "v2.json").read_text())
    assert saved == {"key": "v2", "signature": saved["signature"], "result": {"square": 4}}
    assert log.read_text().split() == ["1", "2", "3"]

    again = run_units(
        _units(log, [1, 2, 3, 4]),
        RunnerOptions(resume=True),
        tmp_path,
        quiet=True,
        log=lines.append,
    )
    assert again == {**first, "v4": {"square": 16}}
    assert log.read_text().split() == ["1", "2", "3", "4"]  # only the new unit ran
    assert lines == [f"resume: 3 of 4 units already in {unit_store(tmp_path)}, skipped"]

    changed = [Unit("v1", square, (str(log), 5))]  # same key, other arguments: runs again
    assert run_units(changed, RunnerOptions(resume=True), tmp_path, quiet=True) == {
        "v1": {"square": 25}
    }
    assert log.read_text().split()[-1] == "5"

    run_units(_units(log, [1]), RunnerOptions(), tmp_path, quiet=True)  # no --resume: runs again
    assert log.read_text().split()[-1] == "1"
    assert sorted(p.name for p in unit_store(tmp_path).iterdir()) == ["v1.json"]


def test_a_failing_unit_stops_the_run_naming_it_and_keeps_the_finished(tmp_path: Path) -> None:
    log = tmp_path / "ran.txt"
    units = _units(log, [1, -5, 3])
    with pytest.raises(UnitFailed, match=r"unit v-5 failed: ValueError: negative value -5; the 1 "):
        run_units(units, RunnerOptions(), tmp_path, quiet=True)
    assert [p.name for p in unit_store(tmp_path).iterdir()] == ["v1.json"]
    assert log.read_text().split() == ["1", "-5"]  # nothing started after the failure


def test_units_wait_for_the_units_they_start_from_in_spawned_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A spawned process imports this module by name (tests.benchmarks.test_runner) to find
    # square; under --import-mode=importlib only a sys.path entry for the checkout makes it
    # importable there (the worker's own path may have lost its cwd entry earlier in a run).
    monkeypatch.setattr(sys, "path", [*sys.path, str(Path(__file__).resolve().parents[2])])
    log = tmp_path / "ran.txt"
    units = [
        Unit("late", square, (str(log), 3), after=("early",)),
        Unit("early", square, (str(log), 2)),
        Unit("other", square, (str(log), 4)),
    ]
    results = run_units(units, RunnerOptions(), tmp_path, workers=2, quiet=True)
    assert results == {"late": {"square": 9}, "early": {"square": 4}, "other": {"square": 16}}
    order = log.read_text().split()
    assert order.index("2") < order.index("3")
    with pytest.raises(RuntimeError, match=r"units \['late'\] wait on units that are not"):
        run_units(units[:1], RunnerOptions(), tmp_path / "b", quiet=True)


@dataclass(frozen=True)
class _Task:
    dataset: str
    out: Path
    name: str = "kept"


def test_rewrite_moves_only_paths_under_the_root() -> None:
    root, local = Path("/runs/a"), Path("/tmp/w")
    task = _Task("/runs/a/data/train", Path("/runs/a"), "/runs/ab")
    moved = rewrite((task, ["/runs/a/x"], {"k": Path("/other")}), root, local)
    assert moved == (
        _Task("/tmp/w/data/train", Path("/tmp/w"), "/runs/ab"),
        ["/tmp/w/x"],
        {"k": Path("/other")},
    )


def read_and_write(data: Path, out: Path) -> dict[str, Any]:
    """A unit that reads an input folder and writes an output folder."""
    text = (data / "rows.txt").read_text()
    out.mkdir(parents=True)
    (out / "model.txt").write_text(text.upper())
    return {"data": str(data)}


def test_folders_travel_to_a_worker_without_the_drivers_disk_and_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Ray worker's half, called here: the driver's root is absent, as on another machine."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "worker-tmp"))
    root = tmp_path / "driver"
    (root / "data").mkdir(parents=True)
    (root / "data" / "rows.txt").write_text("seven rows")
    digest, archive = folder_digest(root / "data"), pack(root / "data")
    (root / "data").rename(tmp_path / "aside")  # the worker does not see the driver's folder

    args = (root / "data", root / "models" / "m")
    result, shipped = run_shipped(
        read_and_write, args, str(root), [("data", digest)], ["models/m"], archive
    )
    assert result == {"data": str(private_root(str(root)) / "data")}
    assert not (root / "models").exists()  # the worker wrote only its private copy
    land(root, shipped)
    assert (root / "models" / "m" / "model.txt").read_text() == "SEVEN ROWS"
    assert folder_digest(root / "models" / "m") == shipped["models/m"][0]

    (tmp_path / "aside").rename(root / "data")  # the same disk: it runs in place
    (root / "models" / "m" / "model.txt").unlink()
    (root / "models" / "m").rmdir()
    result, _ = run_shipped(read_and_write, args, str(root), [("data", digest)], ["models/m"])
    assert result == {"data": str(root / "data")}


@pytest.mark.parametrize("command", ["bench embodied", "bench shop"])
def test_every_suites_help_says_how_to_run_on_a_cluster(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rewardgym.cli import main

    monkeypatch.setenv("COLUMNS", "240")
    with pytest.raises(SystemExit) as stop:
        main([*command.split(), "--help"])
    assert stop.value.code in (0, None)
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())
    for flag in ("--runner {local,ray}", "--ray.address", "--ray.num-cpus", "--ray.num-gpus"):
        assert flag in text, f"rewardgym {command} --help lists no {flag}"
    assert "--resume" in text and "docs/cluster.md" in text and "ray start --head" in text


def test_the_runner_options_parse_from_a_suites_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rewardgym.benchmarks.runner import RayOptions
    from rewardgym.cli import build, main

    words = ["--runner", "ray", "--ray.address", "auto", "--ray.num-gpus", "1", "--resume"]
    command = build(["bench", "shop", "--preset", "tiny", *words])
    assert command.runner == RunnerOptions("ray", RayOptions("auto", 1.0, 1.0), resume=True)
    assert build(["bench", "embodied"]).runner == RunnerOptions()  # local, as make demo runs
    refused = {
        "--ray.address, --ray.num-cpus and --ray.num-gpus need --runner ray": [
            "bench",
            "embodied",
            "--ray.address",
            "auto",  # alone it would be ignored
        ],
        "RayOptions.num_cpus=0.0: must be > 0": [
            "bench",
            "shop",
            "--runner",
            "ray",
            "--ray.num-cpus",
            "0",
        ],
    }
    for message, argv in refused.items():
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and message in capsys.readouterr().err
