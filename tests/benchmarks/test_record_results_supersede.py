"""``record_results --supersede``: an old page is kept under its commit, marked, and indexed apart."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from rewardgym.benchmarks.record_results import (
    PAGE_MARK,
    main,
    page_facts,
    record,
    render_index,
    supersede_page,
)
from rewardgym.outputs import mark_output

WHY = "tokenizer fix (commit 1b9322d) and constrained decoding (commit d49d8b5)"


def _run(root: Path, commit: str, figure: str) -> Path:
    """A finished bench shop run of preset ``tiny`` at ``commit`` whose table shows ``figure``."""
    root.mkdir(parents=True)
    mark_output(root, "bench-shop")
    meta = {"suite": "shop", "preset": "tiny", "smoke_test": False, "git_commit": commit}
    (root / "results.json").write_text(json.dumps({"meta": meta}))
    (root / "results.md").write_text(f"| method | exact % |\n|---|---|\n| sft | {figure} |\n")
    (root / "results.png").write_bytes(b"\x89PNG " + commit.encode())
    return root


def _tree(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
    }


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A results folder with the recorded page shop-tiny.md (commit 138913d...) and its plot."""
    folder = tmp_path / "results"
    record(_run(tmp_path / "old", "138913dae12a" + "0" * 28, "41.6"), folder)
    return folder


def test_a_superseded_page_keeps_its_run_under_its_commit(docs: Path, tmp_path: Path) -> None:
    before = json.loads((docs / "shop-tiny" / "facts.json").read_text())
    old_text = (docs / "shop-tiny.md").read_text()
    kept = supersede_page(docs, "shop-tiny", WHY + ".")
    assert kept == docs / "shop-tiny-138913d.md"
    assert not (docs / "shop-tiny.md").exists() and not (docs / "shop-tiny").exists()
    lines = kept.read_text().splitlines()
    assert lines[:3] == [PAGE_MARK, "", f"> Superseded by [shop-tiny.md](shop-tiny.md): {WHY}."]
    assert (
        "\n".join(lines[3:]) + "\n"
        == old_text.replace("](shop-tiny/", "](shop-tiny-138913d/").split("\n", 1)[1]
    )
    assert "![results](shop-tiny-138913d/results.png)" in lines
    assert (docs / "shop-tiny-138913d" / "results.png").read_bytes().startswith(b"\x89PNG 1389")
    facts = json.loads((docs / "shop-tiny-138913d" / "facts.json").read_text())
    assert facts == {**before, "superseded_by": "shop-tiny.md", "because": WHY}

    index = (docs / "README.md").read_text()
    current, superseded = index.split("## Superseded")
    assert "No current run is recorded." in current and "--supersede NAME" in current
    row = "| [shop-tiny-138913d.md](shop-tiny-138913d.md) | [shop-tiny.md](shop-tiny.md) | "
    assert f"{row}{WHY} | " in superseded and "`138913dae12a`" in superseded

    # the new run takes the name without --overwrite; both pages are listed, each in its table
    record(_run(tmp_path / "new", "5755ab411973" + "0" * 28, "44.3"), docs)
    index = (docs / "README.md").read_text()
    current, superseded = index.split("## Superseded")
    assert "| [shop-tiny.md](shop-tiny.md) | result |" in current
    assert "shop-tiny-138913d" not in current and row in superseded
    assert render_index(docs) == index  # regenerating the index gives the same text
    assert {p: "superseded_by" in f for p, f in page_facts(docs).items()} == {
        "shop-tiny.md": False,
        "shop-tiny-138913d.md": True,
    }


def test_a_hand_written_page_is_superseded_through_its_facts(tmp_path: Path) -> None:
    docs = tmp_path / "results"
    (docs / "perf-x").mkdir(parents=True)
    (docs / "perf-x.md").write_text("# perf x\n\n![speed](perf-x/speed.png) 19.05 examples/s\n")
    (docs / "perf-x" / "speed.png").write_bytes(b"png")
    (docs / "perf-x" / "facts.json").write_text(
        json.dumps({"kind": "result", "commit": "`e61668a`"})
    )
    main(["--supersede", "perf-x.md", "--because", "faster loader", "--docs", str(docs)])
    page = (docs / "perf-x-e61668a.md").read_text()
    assert page.startswith("> Superseded by [perf-x.md](perf-x.md): faster loader.\n\n# perf x\n")
    assert "![speed](perf-x-e61668a/speed.png)" in page
    assert sorted(p.name for p in docs.iterdir()) == [
        "README.md",
        "perf-x-e61668a",
        "perf-x-e61668a.md",
    ]


def test_recording_a_run_can_supersede_the_page_it_replaces(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _run(tmp_path / "new", "5755ab411973", "44.3")
    err = _refused(
        capsys, str(new), "--docs", str(docs), "--supersede", "shop-cpu", "--because", "x"
    )
    assert "not the page this run writes, shop-tiny.md" in err
    main([str(new), "--docs", str(docs), "--supersede", "shop-tiny", "--because", WHY])
    assert "| sft | 44.3 |" in (docs / "shop-tiny.md").read_text()
    kept = (docs / "shop-tiny-138913d.md").read_text()
    assert "| sft | 41.6 |" in kept and "> Superseded by [shop-tiny.md](shop-tiny.md)" in kept


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--supersede", "shop-nope", "--because", WHY], "no page of the results index"),
        (["--supersede", "shop-tiny"], "no RUN-DIR"),
        (["--supersede", "shop-tiny", "--because", " . "], "--because is empty"),
        (["--because", WHY], "no RUN-DIR"),
        (["--supersede", "../shop-tiny", "--because", WHY], "not a plain name"),
        (["--supersede", "README", "--because", WHY], "not a plain name"),
    ],
)
def test_a_bad_supersede_is_refused_and_changes_nothing(
    argv: list[str], message: str, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _tree(docs.parent)
    assert message in _refused(capsys, *argv, "--docs", str(docs))
    assert _tree(docs.parent) == before


def test_a_superseded_page_or_a_taken_name_is_never_superseded_again(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    supersede_page(docs, "shop-tiny", WHY)
    before = _tree(docs.parent)
    err = _refused(
        capsys, "--supersede", "shop-tiny-138913d", "--because", "x", "--docs", str(docs)
    )
    assert "already superseded by shop-tiny.md" in err
    assert _tree(docs.parent) == before

    record(_run(tmp_path / "again", "138913dae12a", "41.7"), docs)  # a rerun at the same commit
    before = _tree(docs.parent)
    err = _refused(capsys, "--supersede", "shop-tiny", "--because", "x", "--docs", str(docs))
    assert "shop-tiny-138913d.md exists and nothing is overwritten" in err
    assert _tree(docs.parent) == before

    (docs / "shop-nocommit").mkdir()
    (docs / "shop-nocommit.md").write_text("# by hand\n")
    (docs / "shop-nocommit" / "facts.json").write_text(json.dumps({"commit": "not recorded"}))
    err = _refused(capsys, "--supersede", "shop-nocommit", "--because", "x", "--docs", str(docs))
    assert "records no commit ('not recorded')" in err


@pytest.mark.parametrize("damage", ["latin-1 page", "fifo in folder"])
def test_a_page_that_cannot_be_copied_is_refused_and_changes_nothing(
    damage: str, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if damage == "latin-1 page":
        page = docs / "shop-tiny.md"
        page.write_bytes(page.read_bytes() + "caf\xe9\n".encode("latin-1"))
        words = "is not UTF-8 text"
    else:
        os.mkfifo(docs / "shop-tiny" / "pipe")
        words = "shop-tiny/pipe is no plain file, folder or link"
    before = _tree(docs.parent)
    err = _refused(capsys, "--supersede", "shop-tiny", "--because", WHY, "--docs", str(docs))
    assert words in err and "Traceback" not in err
    assert _tree(docs.parent) == before


def test_a_link_written_in_because_stays_text(docs: Path) -> None:
    because = "[x](javascript:alert(1)) and ![y](javascript:alert(2))"
    kept = supersede_page(docs, "shop-tiny", because)
    viewer = MarkdownIt("commonmark").enable("table")
    viewer.validateLink = lambda url: True  # a viewer that follows any scheme
    for page in (kept, docs / "README.md"):
        html = viewer.render(page.read_text())
        assert "javascript:" in html and 'href="javascript' not in html, html
        assert 'src="javascript' not in html


def test_a_page_shows_an_absolute_out_folder_under_runs(tmp_path: Path) -> None:
    run = _run(tmp_path / "abs", "138913dae12a", "41.6")
    results = json.loads((run / "results.json").read_text())
    results["meta"]["command"] = f"rewardgym bench shop --preset tiny --out {run}"
    (run / "results.json").write_text(json.dumps(results))
    page = record(run, tmp_path / "results").read_text()
    assert "| command | `rewardgym bench shop --preset tiny --out runs/abs` |" in page
    assert str(tmp_path) not in page
    assert str(tmp_path) not in (tmp_path / "results" / "README.md").read_text()
