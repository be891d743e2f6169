"""``benchmarks/record_results.py``: a run's ``--out`` folder becomes a docs/results page."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rewardgym.benchmarks.provenance import command_line, page_command, run_provenance
from rewardgym.benchmarks.record_results import PAGE_MARK, record
from rewardgym.outputs import mark_output

TABLES = "# bench shop (tiny)\n\n## Protocol: natural\n\n| method | exact % |\n|---|---|\n| sft | 41.6 |\n"


def _run_folder(root: Path, meta: dict[str, object], kind: str = "bench-shop") -> Path:
    root.mkdir(parents=True)
    mark_output(root, kind)
    (root / "results.json").write_text(json.dumps({"meta": meta, "rows": []}))
    (root / "results.md").write_text(TABLES)
    (root / "results.png").write_bytes(b"\x89PNG fake plot")
    return root


def _record(run: Path, docs: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "rewardgym.benchmarks.record_results",
            str(run),
            "--docs",
            str(docs),
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        check=False,
    )


def test_page_holds_command_commit_machine_wall_time_tables_and_plots(tmp_path: Path) -> None:
    meta = {
        "suite": "shop",
        "preset": "tiny",
        "wall_seconds": 85.0,
        "smoke_test": True,
        **run_provenance(
            ["rewardgym", "bench", "shop", "--preset", "tiny", "--out", "results/shop"]
        ),
        "process_seconds": 85.0,  # this test's process has run for longer than the "run"
    }
    run = _run_folder(tmp_path / "run", meta)
    docs = tmp_path / "docs"
    result = _record(run, docs)
    assert result.returncode == 0, result.stderr
    page = (docs / "shop-tiny.md").read_text()
    assert page.splitlines()[0] == PAGE_MARK
    assert "`rewardgym bench shop --preset tiny --out results/shop`" in page
    assert f"{os.cpu_count()} CPU cores" in page and ("no GPU" in page or "GPU:" in page)
    assert (
        "1.4 min (85 s)" in page and "| kind | smoke test of the plumbing, not a result |" in page
    )
    if meta["git_commit"]:
        assert str(meta["git_commit"])[:12] in page
    assert "## bench shop (tiny)" in page and "| sft | 41.6 |" in page  # tables, headings demoted
    assert "![results](shop-tiny/results.png)" in page
    assert (docs / "shop-tiny" / "results.png").read_bytes() == b"\x89PNG fake plot"
    index = (docs / "README.md").read_text()
    assert "[shop-tiny.md](shop-tiny.md)" in index and "1.4 min" in index

    again = _record(run, docs)
    assert again.returncode != 0 and "--overwrite" in again.stderr
    assert _record(run, docs, "--overwrite").returncode == 0


def test_unrecorded_facts_say_so_and_user_files_are_kept(tmp_path: Path) -> None:
    run = _run_folder(tmp_path / "run", {"suite": "fidelity", "preset": "tiny"}, "bench-fidelity")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fidelity-tiny.md").write_text("my own notes\n")
    with pytest.raises(FileExistsError, match="not written by record_results"):
        record(run, docs, overwrite=True)
    assert (docs / "fidelity-tiny.md").read_text() == "my own notes\n"
    page = record(run, docs, name="fidelity-old").read_text()
    assert "| commit | not recorded |" in page and "| machine | not recorded |" in page
    assert "| wall time | not recorded |" in page and "| kind | not recorded |" in page


def test_a_folder_without_results_names_what_is_missing(tmp_path: Path) -> None:
    mark_output(tmp_path / "empty", "bench-shop")
    with pytest.raises(FileNotFoundError, match=r"results\.json is missing"):
        record(tmp_path / "empty", tmp_path / "docs")
    run = _run_folder(tmp_path / "run", {"wall_seconds": 3.0})
    with pytest.raises(ValueError, match="--suite and --preset"):
        record(run, tmp_path / "docs")


def test_command_line_reads_like_the_user_typed_it() -> None:
    assert command_line(["/usr/bin/rewardgym", "bench", "fidelity"]) == "rewardgym bench fidelity"
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "shop" / "suite.py"
    assert command_line([str(script), "--preset", "tiny"]) == (
        "python -m rewardgym.benchmarks.shop.suite --preset tiny"
    )


def test_no_recorded_page_shows_the_recording_machine_s_folders() -> None:
    """Every command of docs/results names its run folders as runs/NAME, never an absolute path."""
    docs = Path(__file__).resolve().parents[2] / "docs" / "results"
    facts = sorted(docs.glob("*/facts.json"))
    assert len(facts) > 20
    for path in facts:
        command = str(json.loads(path.read_text(encoding="utf-8")).get("command", ""))
        assert "/work/" not in command and "/tmp/" not in command, path
    absolute = re.compile(r"--(out|sweep|dataset|agent|shop-run|model)[ =]/")
    for page in [*docs.glob("*.md"), docs.parent / "embodied.md"]:
        assert not absolute.search(page.read_text(encoding="utf-8")), page
    assert page_command("x --out /a/runs/b") == "x --out runs/b"
    assert page_command("x --shop-run /a/s/shop-quick") == "x --shop-run runs/shop-quick"
