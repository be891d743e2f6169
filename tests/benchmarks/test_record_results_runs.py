"""A results page says what its run was (issue 34, item 6).

A sweep stopped after some candidates is recorded as unfinished, naming the missing ones; a
tune run lands on a tune page (only the recorded preset's full tune on ``embodied-tune``) whose
kind says tune; a NaN or negative wall time reads "unknown", never "nan min"; a line break or a
``|`` in a recorded command stays inside its cell (page and index); the wall time counts from
the process's start.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rewardgym.benchmarks.record_results import PAGE_MARK, record
from rewardgym.outputs import mark_output

META = {"suite": "shop", "preset": "tiny", "smoke_test": False}


def _run(root: Path, kind: str, stem: str, payload: dict[str, object]) -> Path:
    root.mkdir(parents=True)
    mark_output(root, kind)
    (root / f"{stem}.json").write_text(json.dumps(payload))  # json writes NaN as NaN
    (root / f"{stem}.md").write_text("# tables\n\n| row | sr |\n|---|---|\n| bc | 1.0 |\n")
    return root


def _fact(page: str, name: str) -> str:
    rows = [line for line in page.splitlines() if line.startswith(f"| {name} | ")]
    assert len(rows) == 1, rows
    return rows[0].removeprefix(f"| {name} | ").removesuffix(" |")


class Killed(BaseException):
    """Stands for the kill: nothing after it runs (a SIGKILL leaves only what was written)."""


def test_a_stopped_sweep_is_recorded_as_unfinished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rewardgym.benchmarks.shop import sweep

    hits = [[0, 0, 1], [1, 0, 0], [2, 1, 1]]  # [session, step, hit], as sweep.json keeps them

    def candidate(
        self: sweep.Sweep, name: str, changes: object, config: object, seed: int
    ) -> list[dict[str, object]]:
        if name != "baseline":
            raise Killed(name)
        row = {"candidate": name, "seed": seed, "temperature": 0.0, "n": 3, "hits": hits}
        return [{**row, "train_sessions": None, "exact": "66.7 [0.0, 100.0]"}]

    def lookup(self: sweep.Sweep, config: object) -> dict[str, object]:
        return {"candidate": "lookup", "train_sessions": None, "n": 3, "hits": hits}

    monkeypatch.setattr(sweep.Sweep, "candidate", candidate)
    monkeypatch.setattr(sweep.Sweep, "lookup", lookup)
    out = tmp_path / "out"
    chosen = ("baseline", "element-ids", "prompt-448")
    with pytest.raises(Killed):
        sweep.run_sweep(sweep.Config(candidates=chosen, out=out), progress=False)
    meta = json.loads((out / "sweep.json").read_text())["meta"]
    assert meta["candidates_missing"] == ["element-ids", "prompt-448"]
    kind = _fact(record(out, tmp_path / "docs").read_text(), "kind")
    assert kind.startswith("unfinished: the run stopped before candidates element-ids, prompt-448;")


@pytest.mark.parametrize(
    ("tuned", "smoke", "page", "kind"),
    [
        ("quick", False, "embodied-tune", "tune on the validation split"),
        ("quick", True, "embodied-tune-quick", "smoke test of the plumbing (a tune run)"),
        ("quick", None, "embodied-tune-quick", "not recorded"),
        ("demo", False, "embodied-tune-demo", "tune on the validation split"),
        ("full", False, "embodied-tune-full", "tune on the validation split"),
    ],
)
def test_a_tune_run_lands_on_a_tune_page(
    tuned: str, smoke: bool | None, page: str, kind: str, tmp_path: Path
) -> None:
    meta = {"suite": "embodied", "preset": "tune", "smoke_test": smoke}
    payload = {"meta": meta, "config": {"name": tuned, "mode": "tune"}, "best": {}}
    run = _run(tmp_path / "run", "bench-embodied", "tune", payload)
    written = record(run, tmp_path / "docs")
    assert written.name == f"{page}.md"
    shown = _fact(written.read_text(), "kind")
    assert shown.startswith(kind) and shown != "result", shown


@pytest.mark.parametrize(
    ("times", "shown"),
    [
        ({"wall_seconds": float("nan")}, "unknown (the run recorded nan s)"),
        (
            {"process_seconds": float("nan"), "wall_seconds": 60.0},
            "unknown (the run recorded nan s)",
        ),
        ({"wall_seconds": float("inf")}, "unknown (the run recorded inf s)"),
        ({"wall_seconds": -5.0}, "unknown (the run recorded -5 s)"),
        ({"wall_seconds": 60.0, "process_seconds": 125.0}, "2.1 min (125 s)"),
        ({"wall_seconds": 60.0}, "1.0 min (60 s), timed from the suite's start"),
        # a suite of `rewardgym demo`: the process also ran the suites before it
        (
            {"wall_seconds": 60.0, "process_seconds": 400.0, "argv": ["rewardgym", "demo"]},
            "1.0 min (60 s), timed from the suite's start",
        ),
        # a newer demo restarts the clock before each suite: its process time is the suite's
        (
            {
                "wall_seconds": 60.0,
                "process_seconds": 63.0,
                "process_clock": "restarted",
                "argv": ["rewardgym", "demo"],
            },
            "1.1 min (63 s)",
        ),
        ({}, "not recorded"),
    ],
)
def test_the_wall_time_never_reads_nan_and_counts_from_the_process(
    times: dict[str, float], shown: str, tmp_path: Path
) -> None:
    run = _run(tmp_path / "run", "bench-shop", "results", {"meta": {**META, **times}})
    page = record(run, tmp_path / "docs").read_text()
    assert _fact(page, "wall time") == shown and "nan min" not in page
    assert "nan min" not in (tmp_path / "docs" / "README.md").read_text()


@pytest.mark.parametrize(
    "command",
    [
        "rewardgym bench shop\n| kind | result |",
        "rewardgym bench shop --extra 'a:x=1' | tee log",
        "rewardgym bench shop\r\n|---|---|\n| injected | row |",
        "echo `date` && rewardgym bench shop",
    ],
)
def test_a_recorded_command_cannot_add_a_table_row(command: str, tmp_path: Path) -> None:
    run = _run(tmp_path / "run", "bench-shop", "results", {"meta": {**META, "command": command}})
    page = record(run, tmp_path / "docs").read_text()
    assert page.splitlines()[0] == PAGE_MARK
    facts = page.split("| fact | value |\n|---|---|\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split(" | ", 1)[0] for line in facts] == [
        "| kind",
        "| command",
        "| commit",
        "| machine",
        "| wall time",
        "| phases",
        "| finished (UTC)",
    ]
    cells = _fact(page, "command").replace("\\|", "").split("|")
    assert len(cells) == 1, cells  # no unescaped pipe: the command is one cell
    index = (tmp_path / "docs" / "README.md").read_text().splitlines()
    rows = [line for line in index if line.startswith("| [")]
    assert len(rows) == 1 and rows[0].replace("\\|", "").count("|") == 7


def test_the_process_wall_time_starts_with_the_process() -> None:
    code = (
        "import time; time.sleep(1.5)\n"
        "from rewardgym.benchmarks.provenance import process_seconds\n"
        "print(process_seconds())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert float(done.stdout) >= 1.5  # the sleep came before the first rewardgym import
