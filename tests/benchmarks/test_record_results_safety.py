"""``record_results`` treats a run folder and its flags as untrusted input (issue 34, items 1, 2, 7).

Table-driven, in this process through the script's own ``main``: every hostile page name,
metadata value, link or missing marker is refused with one line on stderr and exit status 2
(never a traceback), and nothing is written or removed anywhere: not in ``--docs``, not beside
it, not in the package's own ``docs/results``. ``--overwrite`` replaces only a page and a
folder that record_results wrote.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rewardgym.benchmarks.provenance import PACKAGE_ROOT
from rewardgym.benchmarks.record_results import PAGE_MARK, main
from rewardgym.outputs import OWNER_FILE, mark_output

META = {"suite": "shop", "preset": "tiny", "smoke_test": True, "command": "rewardgym bench shop"}


def _run(root: Path, meta: object = None, kind: str | None = "bench-shop") -> Path:
    """A run folder: marker of ``kind`` (None: none), results.json with ``meta``, tables, a plot."""
    root.mkdir(parents=True)
    if kind is not None:
        mark_output(root, kind)
    (root / "results.json").write_text(json.dumps({"meta": META if meta is None else meta}))
    (root / "results.md").write_text("# bench shop (tiny)\n\n| method | exact % |\n|---|---|\n")
    (root / "results.png").write_bytes(b"\x89PNG fake plot")
    return root


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` (links not followed) and the bytes of every plain file."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
        for p in sorted(root.rglob("*"))
    }


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the script, assert exit 2 with one line and no traceback; return that line."""
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A results folder holding another page, its folder and a file of the user's."""
    folder = tmp_path / "site" / "results"
    folder.mkdir(parents=True)
    (folder / "other.md").write_text(PAGE_MARK + "\nanother page\n")
    mark_output(folder / "other", "results-page")
    (folder / "notes.txt").write_text("my own notes\n")
    return folder


@pytest.mark.parametrize(
    "name",
    [".", "..", "../../x", "../x", "/tmp/x", "a/b", "a\\b", ".hidden", "README", "x" * 81, " "],
)
def test_a_page_name_that_is_no_plain_name_is_refused(
    name: str, tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path / "run")
    before = _tree(tmp_path)
    for extra in ((), ("--overwrite",)):
        err = _refused(capsys, str(run), "--docs", str(docs), "--name", name, *extra)
        assert "not a plain name" in err
    assert _tree(tmp_path) == before


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({**META, "preset": "../../x"}, "not a plain name"),
        ({**META, "preset": "a/b"}, "not a plain name"),
        ({**META, "preset": ".."}, "not a plain name"),
        ({**META, "preset": "."}, "not a plain name"),
        ({**META, "suite": "../x"}, "does not match the run"),
        ({**META, "suite": "embodied"}, "does not match the run"),
        ({**META, "preset": None}, "records no suite or preset"),
        ({**META, "preset": 3}, "not text"),
        ({**META, "preset": ["tiny"]}, "not text"),
        ({**META, "suite": {"a": 1}}, "not text"),
        ({**META, "command": 3}, "not text"),
        ({**META, "command": ["rewardgym", "bench"]}, "not text"),
        ({**META, "git_commit": 12345}, "not text"),
        ({**META, "git_commit": "abc", "git_dirty": "yes"}, "not true or false"),
        ({**META, "smoke_test": "no"}, "not true or false"),
        ({**META, "wall_seconds": "fast"}, "not a number"),
        ({**META, "wall_seconds": True}, "not a number"),
        ({**META, "process_seconds": [1]}, "not a number"),
        ({**META, "cpu_count": "2"}, "not a count"),
        ({**META, "cpu_count": 2, "cuda_available": 1}, "not true or false"),
        ({**META, "phase_seconds": [1, 2]}, "not an object"),
        ({**META, "phase_seconds": {"sft": "slow"}}, "not seconds"),
        ({**META, "candidates_missing": "b"}, "not a list"),
        ({**META, "candidates_missing": [1]}, "not text"),
        ({**META, "finished_utc": 17}, "not text"),
        ([1, 2], "no 'meta' object"),
        ("text", "no 'meta' object"),
    ],
)
def test_odd_metadata_is_refused_in_one_line(
    meta: object, message: str, tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path / "run", meta)
    before = _tree(tmp_path)
    err = _refused(capsys, str(run), "--docs", str(docs), "--overwrite")
    assert message in err
    assert _tree(tmp_path) == before


def _link_results_png(run: Path, outside: Path) -> None:
    (run / "results.png").unlink()
    (run / "results.png").symlink_to(outside)


def _link_file(name: str):  # type: ignore[no-untyped-def]
    def make(run: Path, outside: Path) -> None:
        (outside.parent / name).write_bytes((run / name).read_bytes())
        (run / name).unlink()
        (run / name).symlink_to(outside.parent / name)

    return make


def _drop_marker(run: Path, outside: Path) -> None:
    (run / OWNER_FILE).unlink()


def _other_marker(run: Path, outside: Path) -> None:
    mark_output(run, "simulate-ab")


def _page_marker(run: Path, outside: Path) -> None:
    mark_output(run, "results-page")


def _odd_plot_name(run: Path, outside: Path) -> None:
    (run / "a](x).png").write_bytes(b"\x89PNG")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_link_results_png, "not a plain file"),
        (_link_file("results.json"), "symbolic link"),
        (_link_file("results.md"), "symbolic link"),
        (_link_file(OWNER_FILE), "symbolic link"),
        (_drop_marker, "it was not written by a rewardgym suite"),
        (_other_marker, "not a suite run"),
        (_page_marker, "not a suite run"),
        (_odd_plot_name, "not a plain name"),
    ],
)
def test_links_and_foreign_folders_are_refused_never_followed(
    change: object, message: str, tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path / "run")
    secret = tmp_path / "secret" / "system-file"
    secret.parent.mkdir()
    secret.write_bytes(b"secret bytes")
    change(run, secret)  # type: ignore[operator]
    before = _tree(tmp_path)
    err = _refused(capsys, str(run), "--docs", str(docs))
    assert message in err
    assert _tree(tmp_path) == before
    assert not any(b"secret" in (v or b"") for k, v in _tree(docs).items())


def test_overwrite_replaces_only_the_page_and_folder_record_results_wrote(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path / "run")
    main([str(run), "--docs", str(docs)])
    assert (docs / "shop-tiny.md").read_text().startswith(PAGE_MARK)
    main([str(run), "--docs", str(docs), "--overwrite"])
    kept = {"other.md", "other", "notes.txt", "shop-tiny.md", "shop-tiny", "README.md"}
    assert kept == {p.name for p in docs.iterdir()}
    assert (docs / "notes.txt").read_text() == "my own notes\n"
    capsys.readouterr()

    # An existing page without --overwrite, then pages and folders that are not its own.
    assert "--overwrite" in _refused(capsys, str(run), "--docs", str(docs))
    (docs / "mine").mkdir()
    (docs / "mine" / "keep.txt").write_text("keep")
    (docs / "theirs.md").write_text("my page\n")
    mark_output(docs / "suite-out", "bench-shop")
    (docs / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (docs / "linked-page.md").symlink_to(docs / "shop-tiny.md")
    before = _tree(tmp_path)
    for name in ("mine", "theirs", "suite-out", "linked", "linked-page"):
        _refused(capsys, str(run), "--docs", str(docs), "--name", name, "--overwrite")
    assert _tree(tmp_path) == before
    (docs / "README.md").write_text("the user's own index\n")
    before = _tree(tmp_path)
    assert "left as is" in _refused(capsys, str(run), "--docs", str(docs), "--name", "new")
    assert _tree(tmp_path) == before  # the index is checked before the page is written


def test_a_missing_run_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(capsys, str(tmp_path / "nowhere"), "--docs", str(tmp_path / "docs"))
    assert "not a folder" in err and not (tmp_path / "docs").exists()


def test_without_docs_only_a_rewardgym_checkout_gets_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path / "run")
    package_docs = PACKAGE_ROOT / "docs" / "results"
    shipped = sorted(os.listdir(package_docs)) if package_docs.is_dir() else []
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert "not a rewardgym checkout" in _refused(capsys, str(run))
    assert list(elsewhere.iterdir()) == []
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "rewardgym"\n')
    monkeypatch.chdir(checkout)
    main([str(run)])
    assert (checkout / "docs" / "results" / "shop-tiny.md").is_file()
    assert (sorted(os.listdir(package_docs)) if package_docs.is_dir() else []) == shipped


@pytest.mark.parametrize(
    "meta",
    [
        {**META, "process_seconds": 10**400},
        {**META, "wall_seconds": -(10**400)},
        {**META, "phase_seconds": {"sft": 10**400}},
    ],
)
def test_an_integer_too_large_for_seconds_is_one_line(
    meta: object, tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39, item 23: JSON's unbounded integers were an OverflowError traceback."""
    run = _run(tmp_path / "run", meta)
    before = _tree(tmp_path)
    assert "too large" in _refused(capsys, str(run), "--docs", str(docs))
    assert _tree(tmp_path) == before


def test_html_in_the_tables_and_the_metadata_is_escaped(tmp_path: Path, docs: Path) -> None:
    """Issue 39, item 24: a run's HTML reached the page and the index raw."""
    tag = "<img src=x onerror=alert(1)>"
    meta = {**META, "cpu_count": 2, "cpu_model": tag, "finished_utc": f"<script>{tag}"}
    run = _run(tmp_path / "run", meta)
    (run / "results.md").write_text(f"# bench <b>shop</b>\n\n| a {tag} |\n|---|\n<!-- x -->\n")
    main([str(run), "--docs", str(docs)])
    for written in (docs / "shop-tiny.md", docs / "README.md"):
        text = written.read_text()
        text = text.replace(text.split("\n", 1)[0], "")  # the page's own marker comment
        assert "<img" not in text and "<script" not in text and "<b>" not in text
        assert "<!--" not in text and "&lt;img src=x onerror=alert(1)>" in text
    assert "## bench &lt;b>shop&lt;/b>" in (docs / "shop-tiny.md").read_text()


def test_a_plot_over_the_size_cap_is_refused_before_anything_is_copied(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39, item 25: a 1 GiB plot (sparse here, so it costs nothing) was copied whole."""
    run = _run(tmp_path / "run")
    os.truncate(run / "results.png", 2**30)
    before = _tree(docs)
    err = _refused(capsys, str(run), "--docs", str(docs))
    assert "results.png holds 1,073,741,824 bytes" in err
    assert _tree(docs) == before
