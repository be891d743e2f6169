"""Turn one suite run's ``--out`` folder into a results page of ``docs/results/``.

Run: ``python -m rewardgym.benchmarks.record_results results/shop`` (``--help`` lists the
config). Reads the run's ``results.json`` (its ``meta``: suite, preset, command, commit,
machine, wall time, as :mod:`rewardgym.benchmarks.provenance` records them) and
``results.md``, and writes ``<docs>/<suite>-<preset>.md``: the run's facts (the command with an
absolute ``--out`` folder shown as ``runs/NAME``, ``provenance.page_command``), its plots
(copied to ``<docs>/<suite>-<preset>/``) and its tables as the suite printed them. A fact the
run did not record is written as "not recorded", never guessed. The folder's ``README.md`` is
rewritten to list every page. The README's benchmark figures are quoted from these pages
(``tests/test_readme_figures.py`` checks it).

A page a newer run replaces is kept, marked superseded: ``--supersede NAME --because WHY``
moves ``NAME.md`` and its folder to ``NAME-<commit>`` (the page's recorded commit, 7
characters), records ``superseded_by`` and ``because`` in its ``facts.json``, opens the page
with a banner and lists it under "Superseded" in the index. With a RUN-DIR the run's page then
takes the name; alone it works for a hand-written page too (one the index lists through its
``facts.json``). The README and the docs quote current pages only.

Everything in the run folder is untrusted input. It must carry the marker of a rewardgym suite
output; every file read is a plain file (a symbolic link is refused, never followed); the
suite comes from a closed set and the preset and page name are plain names (letters, digits,
``.``, ``_``, ``-``), so a page and its folder are always direct children of ``--docs``.
Nothing is overwritten without ``--overwrite``, and then only a page and a folder this script
wrote; every write is atomic. Without ``--docs`` the pages go to ``docs/results`` of the
current directory, and only when that is a rewardgym checkout. A mistake prints one line and
exits 2.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import tyro

from rewardgym.atomic import absolute, atomic_path, remove_tree, write_atomic, write_json_atomic
from rewardgym.benchmarks.provenance import page_command
from rewardgym.benchmarks.run_meta import (
    NOT_RECORDED,
    code_span,
    commit,
    flag_value,
    machine,
    page_kind,
    phases,
    text_value,
    wall_time,
)
from rewardgym.errors import UserError
from rewardgym.markdown_text import cell, heading, no_html, no_links, printable
from rewardgym.outputs import OWNER_FILE, atomic_output, owner, prepare_output

PAGE_MARK = "<!-- rewardgym results page: written by benchmarks/record_results.py -->"
"""First line of every page this script writes (a file without it is never replaced)."""
INDEX_MARK = "<!-- rewardgym results index: written by benchmarks/record_results.py -->"
OUTPUT_KIND = "results-page"
FACTS = "facts.json"
"""The page's recorded facts, beside its plots (the index is built from them)."""
SUPERSEDED_BY = "superseded_by"
"""Key of ``facts.json`` naming the page that replaced this one (absent on a current page)."""
RECORDED_COMMIT = re.compile(r"`([0-9a-f]{7,40})`")
"""The commit in a page's ``commit`` fact (a code span, as :func:`facts` writes it)."""
SUITE_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bench-shop": ("shop", ("results",)),
    "bench-shop-sweep": ("shop", ("sweep",)),
    "bench-shop-breakdown": ("shop", ("breakdown",)),
    "bench-shop-stopping": ("shop", ("stopping",)),
    "bench-embodied": ("embodied", ("results", "tune")),  # tune: --mode tune
    "bench-fidelity": ("fidelity", ("results",)),
}
"""Marker kind of each suite output a page records -> its suite and its results files' stems."""
RECORDED_TUNE_PRESET = "quick"
"""The preset of the recorded tune run (``docs/results/embodied-tune.md``, the embodied
config's ``TUNE_COMMAND``): only a tune of this preset that is no smoke test gets that page's
default name, ``embodied-tune``; any other tune lands on ``embodied-tune-<preset>``."""
PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}")
"""A page, preset or plot name: a direct child of a folder, never ``.``, ``..`` or a path."""
MAX_BYTES = 256 * 2**20
"""The largest run file read or copied, plots included (results.json of the paper presets are a
few MB, a plot well under one)."""
DESCRIPTION = (
    "Write a results page from one suite run's output folder: the command, commit, machine "
    "and wall time the run recorded, its plots and its tables. An earlier page is replaced "
    "only with --overwrite, and only one this script wrote; --supersede NAME --because WHY "
    "keeps it instead, as NAME-<commit>.md marked superseded."
)


@dataclass(frozen=True)
class Config:
    """Write a docs/results page (facts, plots, tables) from one suite run's --out folder."""

    run_dir: Annotated[Path | None, tyro.conf.Positional, tyro.conf.arg(metavar="RUN-DIR")] = None
    """A suite's output folder (the --out of bench shop, bench embodied or bench fidelity);
    left out, --supersede only marks a page superseded."""
    docs: Path | None = None
    """Folder of the results pages (default: docs/results of the current directory, when it is
    a rewardgym checkout)."""
    name: Annotated[str | None, tyro.conf.arg(metavar="NAME")] = None
    """Page name, a plain name (default: <suite>-<preset>, e.g. shop-quick)."""
    suite: Annotated[str | None, tyro.conf.arg(metavar="SUITE")] = None
    """Suite name, for a results.json that does not record it (shop, embodied, fidelity)."""
    preset: Annotated[str | None, tyro.conf.arg(metavar="PRESET")] = None
    """Preset name, for a results.json that does not record it."""
    overwrite: bool = False
    """Replace an earlier page of the same name (one this script wrote)."""
    supersede: Annotated[str | None, tyro.conf.arg(metavar="NAME")] = None
    """Keep the page NAME (e.g. shop-quick) as NAME-<its commit>.md, marked superseded by NAME;
    with RUN-DIR, the run's page (it must be NAME) then takes its place."""
    because: Annotated[str | None, tyro.conf.arg(metavar="WHY")] = None
    """With --supersede: the change that superseded the page (its banner and the index say it)."""

    def run(self) -> Path:
        """Write the page (or mark one superseded), refresh the index; return the page's path."""
        if self.run_dir is not None:
            return record(
                self.run_dir,
                self.docs,
                name=self.name,
                suite=self.suite,
                preset=self.preset,
                overwrite=self.overwrite,
                supersede=self.supersede,
                because=self.because,
            )
        if self.supersede is None or self.because is None:
            raise UserError(
                "no RUN-DIR: pass a suite's --out folder to record it, or --supersede NAME "
                "--because WHY to keep the page NAME as superseded"
            )
        return supersede_page(self.docs, self.supersede, self.because)


def plain_name(value: str, what: str) -> str:
    """``value`` when it is a plain name (a direct child of a folder), else a ``UserError``."""
    if not PLAIN_NAME.fullmatch(value) or value.lower() == "readme":
        raise UserError(
            f"{what} {value[:80]!r} is not a plain name: use 1-80 letters, digits, '.', '_' "
            "or '-', starting with a letter or digit (no '/', no '..', not README)"
        )
    return value


def default_docs(cwd: Path | None = None) -> Path:
    """``docs/results`` of the current directory when it is a rewardgym checkout, else refused."""
    here = absolute(cwd or Path.cwd())
    try:
        project = tomllib.loads((here / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        project = {}
    table = project.get("project")
    if not isinstance(table, dict) or table.get("name") != "rewardgym":
        raise UserError(
            f"no --docs given and {here} is not a rewardgym checkout (no pyproject.toml of "
            "the rewardgym project): pass --docs DIR, the folder of the results pages"
        )
    return here / "docs" / "results"


def _read_plain(path: Path) -> bytes:
    """The bytes of ``path``, a plain file of the run (a link, a device or a FIFO is refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        if isinstance(err, FileNotFoundError):
            raise
        kind = "a symbolic link" if path.is_symlink() else f"unreadable ({err.strerror})"
        raise UserError(f"{path} is {kind}: a run's files are read only as plain files") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{path} is not a plain file: a run's files are read only as such")
        _refuse_large(path, info.st_size)
        data = handle.read(MAX_BYTES + 1)
        _refuse_large(path, len(data))
        return data


def _read_json(path: Path) -> Any:
    try:
        return json.loads(_read_plain(path).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        problem = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        raise UserError(f"{path} is not valid JSON ({problem}); rerun the suite") from None


def _run_kind(run: Path) -> str:
    """The marker kind of the suite output ``run`` (refused without a suite's marker)."""
    if not run.is_dir():
        raise FileNotFoundError(
            f"RUN-DIR {run} is not a folder: pass the --out folder of a finished suite run"
        )
    marker = run / OWNER_FILE
    if not os.path.lexists(marker):
        raise UserError(
            f"{run} has no {OWNER_FILE}: it was not written by a rewardgym suite, so it is not "
            "recorded; pass the --out folder of bench shop, bench embodied, bench fidelity, "
            "shop sweep or shop breakdown"
        )
    found = _read_json(marker)
    kind = found.get("kind") if isinstance(found, dict) else None
    if kind not in SUITE_KINDS:
        raise UserError(
            f"{run} is a rewardgym {kind!r} output, not a suite run; a page records one of "
            f"{', '.join(SUITE_KINDS)}"
        )
    return str(kind)


def _read_run(run: Path, kind: str) -> tuple[str, dict[str, Any], dict[str, Any], str]:
    """The results file's stem, its payload and ``meta``, and the tables of the run."""
    stems = SUITE_KINDS[kind][1]
    stem = next((s for s in stems if os.path.lexists(run / f"{s}.json")), stems[0])
    results, tables = run / f"{stem}.json", run / f"{stem}.md"
    for path in (results, tables):
        if not os.path.lexists(path):
            raise FileNotFoundError(
                f"{path} is missing: pass the --out folder of a finished bench shop, bench "
                "embodied (also --mode tune), bench fidelity or shop sweep run"
            )
    payload = _read_json(results)
    meta = payload.get("meta") if isinstance(payload, dict) else None
    if not isinstance(meta, dict):
        raise UserError(f"{results} has no 'meta' object; it was not written by a rewardgym suite")
    try:
        text = _read_plain(tables).decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{tables} is not UTF-8 text; rerun the suite") from None
    return stem, payload, meta, text


def facts(
    meta: Mapping[str, Any], suite: str, preset: str, *, tune: bool = False
) -> dict[str, str]:
    """The page's facts as displayed: kind, command, commit, machine, wall time, phases, date."""
    command = text_value(meta, "command")
    return {
        "suite": suite,
        "preset": preset,
        "kind": page_kind(meta, tune),
        "command": code_span(printable(page_command(command))) if command else NOT_RECORDED,
        "commit": commit(meta),
        "machine": machine(meta),
        "wall time": wall_time(meta),
        "phases": phases(meta),
        "finished (UTC)": text_value(meta, "finished_utc") or NOT_RECORDED,
    }


def render_page(shown: Mapping[str, str], tables: str, plots: list[str], folder: str) -> str:
    """The Markdown page: title, the run's facts, its plots and its tables."""
    lines = [
        PAGE_MARK,
        "",
        f"# Recorded results: bench {cell(shown['suite'])}, preset `{cell(shown['preset'])}`",
        "",
        "One recorded run; regenerate this page with "
        "`python -m rewardgym.benchmarks.record_results OUT --overwrite` from the run's "
        "`--out` folder rather than editing it.",
        "",
        "| fact | value |",
        "|---|---|",
        *(f"| {k} | {cell(v)} |" for k, v in shown.items() if k not in ("suite", "preset")),
    ]
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{Path(p).stem}]({folder}/{p})" for p in plots]
    lines += ["", "## Tables (the run's results.md)", "", _demote(tables), ""]
    return "\n".join(lines)


def _demote(markdown: str) -> str:
    """Headings one level down (the page has its own title), code fences left alone, no HTML."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#") and not line.startswith("######"):
            line = "#" + line
        lines.append(no_html(line))
    return "\n".join(lines).strip()


def _first_line(path: Path) -> str | None:
    """The first line of ``path`` (None when it is absent); a link or a folder is refused."""
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        raise FileExistsError(f"{path} is not a plain file; nothing is replaced: choose --docs")
    return path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip()


def _owned_page(path: Path, overwrite: bool) -> None:
    first = _first_line(path)
    if first is None:
        return
    if first != PAGE_MARK:
        raise FileExistsError(
            f"{path} exists and was not written by record_results (its first line is not the "
            "page marker); nothing is replaced: choose another --name or --docs"
        )
    if not overwrite:
        raise FileExistsError(f"{path} holds an earlier recording; pass --overwrite to replace it")


def _owned_index(docs: Path) -> None:
    first = _first_line(docs / "README.md")
    if first is not None and first != INDEX_MARK:
        raise FileExistsError(
            f"{docs / 'README.md'} was not written by record_results; it is left as is"
        )


def page_facts(docs: Path) -> dict[str, dict[str, Any]]:
    """The facts of every page the index lists, by file name: ``NAME.md`` beside ``NAME/facts.json``.

    A hand-written page is listed the same way, through a ``facts.json`` of its own.
    """
    listed = {}
    for path in sorted(docs.glob("*/" + FACTS)):
        page = path.parent.name + ".md"
        if not PLAIN_NAME.fullmatch(path.parent.name) or path.is_symlink():
            continue
        try:
            shown = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        if (docs / page).is_file() and isinstance(shown, dict):
            listed[page] = shown
    return listed


def _page_link(page: object) -> str:
    """A link to the page file ``page`` of the folder; text that is no plain page name as is."""
    text = str(page)
    if PLAIN_NAME.fullmatch(text) and text.endswith(".md"):
        return f"[{text}]({text})"
    return cell(text)


def _row(link: str, shown: Mapping[str, Any], columns: Sequence[str]) -> str:
    values = [cell(shown[c]) if isinstance(shown.get(c), str) else "" for c in columns]
    return f"| {link} | " + " | ".join(values) + " |"


def render_index(docs: Path) -> str:
    """``README.md`` of the results folder: one line per current page, then the superseded."""
    listed = page_facts(docs)
    current = {p: s for p, s in listed.items() if SUPERSEDED_BY not in s}
    superseded = {p: s for p, s in listed.items() if SUPERSEDED_BY in s}
    lines = [
        INDEX_MARK,
        "",
        "# Recorded results",
        "",
        "Each page holds the tables and plots of one recorded suite run, with its command, "
        "commit, machine and wall time. Record one from a run's `--out` folder:",
        "",
        "```bash",
        "rewardgym bench shop --preset quick --out results/shop",
        "python -m rewardgym.benchmarks.record_results results/shop   # -> docs/results/shop-quick.md",
        "```",
        "",
        "A page that a newer run replaces is kept, marked superseded: "
        '`python -m rewardgym.benchmarks.record_results --supersede NAME --because "WHY"` '
        "moves `NAME.md` and its folder to `NAME-<commit>` (the page's recorded commit, 7 "
        "characters), opens it with a banner naming the change and lists it under "
        "*Superseded* below; add the new run's `OUT` folder to record its successor in the "
        "same step. The README and the docs quote their benchmark figures from current pages "
        "only (`tests/test_readme_figures.py`).",
        "",
    ]
    if not current:
        lines.append("No current run is recorded.")
    else:
        lines += [
            "| page | kind | command | commit | machine | wall time |",
            "|---|---|---|---|---|---|",
        ]
        columns = ("kind", "command", "commit", "machine", "wall time")
        lines += [_row(_page_link(p), s, columns) for p, s in current.items()]
    if superseded:
        lines += [
            "",
            "## Superseded",
            "",
            "| page | superseded by | because | command | commit | wall time |",
            "|---|---|---|---|---|---|",
        ]
        for p, s in superseded.items():
            link = f"{_page_link(p)} | {_page_link(s[SUPERSEDED_BY])}"
            lines.append(_row(link, s, ("because", "command", "commit", "wall time")))
    return "\n".join(lines) + "\n"


def write_index(docs: Path) -> Path:
    """Rewrite ``docs/README.md`` (refusing one this script did not write)."""
    _owned_index(docs)
    return write_atomic(docs / "README.md", render_index(docs))


def supersede_page(docs: str | os.PathLike[str] | None, name: str, because: str) -> Path:
    """Keep the page ``name`` as ``<name>-<commit>.md``, marked superseded by ``name``; return it.

    The page and its folder are copied under the new name, each atomically (the page's links
    into its folder follow), its facts gain ``superseded_by`` and ``because``, a banner opens
    the page; then the originals go and the index is rewritten. A page the index does not
    list, one already superseded, one without a recorded commit, or a new name that exists is
    refused before anything is written.
    """
    docs = absolute(docs) if docs is not None else default_docs()
    name = plain_name(name.removesuffix(".md"), "--supersede")
    reason = no_links(heading(because).strip().rstrip(".").strip())
    if not reason:
        raise UserError(
            "--because is empty: name the change that superseded the page, e.g. --because "
            '"tokenizer fix (commit 1b9322d)"'
        )
    page, folder = docs / f"{name}.md", docs / name
    shown = None if page.is_symlink() or folder.is_symlink() else page_facts(docs).get(page.name)
    if shown is None:
        raise UserError(
            f"--supersede {name}: {page} is no page of the results index (a plain file beside "
            f"{name}/{FACTS}); pass a page that {docs / 'README.md'} lists"
        )
    if SUPERSEDED_BY in shown:
        raise UserError(
            f"--supersede {name}: {page.name} is already superseded by "
            f"{str(shown[SUPERSEDED_BY])[:80]}; supersede the current page instead"
        )
    commit = RECORDED_COMMIT.match(str(shown.get("commit")))
    if commit is None:
        raise UserError(
            f"--supersede {name}: {folder / FACTS} records no commit "
            f"({str(shown.get('commit'))[:40]!r}), which names the kept page; it stays current"
        )
    kept = plain_name(f"{name}-{commit.group(1)[:7]}", "the superseded page's name")
    for target in (docs / f"{kept}.md", docs / kept):
        if os.path.lexists(target):
            raise FileExistsError(
                f"{target} exists and nothing is overwritten: {page.name} is left current; "
                "move that file away, then supersede again"
            )
    _owned_index(docs)
    text = _page_text(page, folder)
    lines = re.sub(rf"\]\({re.escape(name)}/", f"]({kept}/", text).split("\n")
    banner = f"> Superseded by [{page.name}]({page.name}): {reason}."
    at = 1 if lines[0].strip() == PAGE_MARK else 0  # a page's marker stays its first line
    lines[at:at] = ["", banner] if at else [banner, ""]
    with atomic_path(docs / kept, replace=False) as tmp:
        shutil.copytree(folder, tmp, symlinks=True)
        write_json_atomic(tmp / FACTS, {**shown, SUPERSEDED_BY: page.name, "because": reason})
    with atomic_path(docs / f"{kept}.md", replace=False) as tmp:
        tmp.write_text("\n".join(lines), encoding="utf-8")
    remove_tree(folder)
    page.unlink()
    write_index(docs)
    return docs / f"{kept}.md"


def _page_text(page: Path, folder: Path) -> str:
    """The text of ``page``, once it and every entry of ``folder`` are shown to copy cleanly."""
    for parent, names, files in os.walk(folder):
        for entry in (Path(parent, n) for n in (*names, *files)):
            kind = entry.lstat().st_mode
            if not (stat.S_ISREG(kind) or stat.S_ISDIR(kind) or stat.S_ISLNK(kind)):
                raise UserError(
                    f"--supersede: {entry} is no plain file, folder or link (a FIFO, socket or "
                    "device); nothing is moved: take it out of the page folder, then supersede"
                )
    try:
        return page.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(
            f"--supersede: {page} is not UTF-8 text (byte {err.start}); nothing is moved: "
            "save the page as UTF-8, then supersede"
        ) from None


def _plots(run: Path, pattern: str = "*.png") -> list[str]:
    """The run's ``*.png`` plots (or files matching ``pattern``), each a plain file with a plain
    name (anything else refused)."""
    plots = []
    for path in sorted(run.glob(pattern)):
        plain_name(path.name, f"file {run / path.name}:")
        if path.is_symlink() or not path.is_file():
            raise UserError(
                f"{path} is not a plain file (a symbolic link?): a run's files are copied only "
                "as plain files; replace it by the file itself"
            )
        _refuse_large(path, path.stat().st_size)
        plots.append(path.name)
    return plots


def _refuse_large(path: Path, size: int) -> None:
    if size > MAX_BYTES:
        raise UserError(
            f"{path} holds {size:,} bytes, more than a run writes (at most {MAX_BYTES:,}); "
            "nothing is copied"
        )


def _copy_plain(source: Path, target: Path) -> None:
    """Copy the plain file ``source``, refused once it passes :data:`MAX_BYTES` (it may grow)."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as src, target.open("wb") as dst:
        copied = 0
        while chunk := src.read(1 << 20):
            copied += len(chunk)
            _refuse_large(source, copied)
            dst.write(chunk)


def _page_name(
    suite: str, preset: str, stem: str, payload: Mapping[str, Any], meta: Mapping[str, Any]
) -> str:
    """The default page name: ``<suite>-<preset>``, and for a tune ``embodied-tune[-<preset>]``."""
    if stem != "tune":
        return f"{suite}-{preset}"
    config = payload.get("config")
    tuned = config.get("name") if isinstance(config, dict) else None
    if not isinstance(tuned, str):
        raise UserError("the tune run records no preset in config.name; pass --name for its page")
    tuned = plain_name(tuned, "config.name of the tune run")
    recorded = tuned == RECORDED_TUNE_PRESET and flag_value(meta, "smoke_test") is False
    return f"{suite}-tune" if recorded else f"{suite}-tune-{tuned}"


def record(
    run: str | os.PathLike[str],
    docs: str | os.PathLike[str] | None = None,
    *,
    name: str | None = None,
    suite: str | None = None,
    preset: str | None = None,
    overwrite: bool = False,
    supersede: str | None = None,
    because: str | None = None,
) -> Path:
    """Write ``docs/<name>.md`` and ``docs/<name>/`` (plots, facts) from the run folder ``run``.

    With ``supersede`` (the run's own page name) and ``because``, the earlier page of that name
    is first kept as superseded (:func:`supersede_page`), once the run has been read.
    """
    if (supersede is None) != (because is None):
        raise UserError("--supersede NAME and --because WHY go together: pass both or neither")
    run = absolute(run)
    kind = _run_kind(run)
    stem, payload, meta, tables = _read_run(run, kind)
    own_suite = SUITE_KINDS[kind][0]
    recorded_suite = text_value(meta, "suite")
    for given, where in ((suite, "--suite"), (recorded_suite, "meta.suite")):
        if given is not None and given != own_suite:
            raise UserError(
                f"{where} {given[:40]!r} does not match the run: {run} is a {kind} output "
                f"(suite {own_suite!r})"
            )
    where = "--preset" if preset else "meta.preset"
    preset = preset or text_value(meta, "preset")
    if not preset:
        raise UserError(
            f"{run / (stem + '.json')} records no suite or preset in 'meta'; "
            "pass --suite and --preset"
        )
    preset = plain_name(preset, where)
    name = (
        plain_name(name, "--name") if name else _page_name(own_suite, preset, stem, payload, meta)
    )
    plain_name(name, "the page name")
    shown = facts(meta, own_suite, preset, tune=stem == "tune")
    plots = _plots(run)
    # A suite's per-episode results travel with its page, so its intervals can be recomputed.
    kept = _plots(run, "episodes.parquet")
    docs = absolute(docs) if docs is not None else default_docs()
    if docs.exists() and not docs.is_dir():
        raise NotADirectoryError(f"--docs {docs} is a file; name the folder of the results pages")
    page, folder = docs / f"{name}.md", docs / name
    if folder == run or folder in run.parents:
        raise UserError(f"{run} lies inside {folder}, the page's own folder; record it elsewhere")
    if supersede is not None and because is not None:
        if supersede.removesuffix(".md") != name:
            raise UserError(
                f"--supersede {supersede[:80]} is not the page this run writes, {name}.md: pass "
                f"--name {supersede[:80]}, or supersede it alone (no RUN-DIR)"
            )
        supersede_page(docs, name, because)
    if folder.is_symlink():
        raise FileExistsError(f"{folder} is a symbolic link; nothing is replaced: choose --docs")
    if (
        folder.is_dir()
        and any(folder.iterdir())
        and (owner(folder) or {}).get("kind") != OUTPUT_KIND
    ):
        raise FileExistsError(
            f"{folder} exists and is not a page folder record_results wrote; nothing is "
            "replaced: choose another --name or --docs"
        )
    _owned_page(page, overwrite)
    _owned_index(docs)
    prepare_output(folder, OUTPUT_KIND, overwrite=overwrite)
    with atomic_output(folder, OUTPUT_KIND, overwrite=overwrite) as tmp:
        for plot in plots + kept:
            _copy_plain(run / plot, tmp / plot)
        write_json_atomic(tmp / FACTS, shown)
    write_atomic(page, render_page(shown, tables, plots, name))
    write_index(docs)
    return page


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the arguments, write the page and print where it went (a mistake: one line, exit 2)."""
    from rewardgym.cli import USER_ERRORS, refuse

    prog = "python -m rewardgym.benchmarks.record_results"
    config = tyro.cli(Config, args=argv, prog=prog, description=DESCRIPTION)
    try:
        page = config.run()
    except USER_ERRORS as err:
        refuse(prog, err)
    print(f"results page: {page}")


if __name__ == "__main__":
    main()


__all__ = [
    "PLAIN_NAME",
    "SUITE_KINDS",
    "Config",
    "cell",
    "default_docs",
    "facts",
    "main",
    "page_facts",
    "plain_name",
    "printable",
    "record",
    "render_index",
    "render_page",
    "supersede_page",
]
