"""Turn one suite run's ``--out`` folder into a results page of ``docs/results/``.

Run: ``python -m rewardgym.benchmarks.record_results results/shop`` (``--help`` lists the
config). Reads the run's ``results.json`` (its ``meta``: suite, preset, command, commit,
machine, wall time, as :mod:`rewardgym.benchmarks.provenance` records them) and
``results.md``, and writes ``docs/results/<suite>-<preset>.md``: the run's facts, its plots
(copied to ``docs/results/<suite>-<preset>/``) and its tables as the suite printed them. A
fact the run did not record is written as "not recorded", never guessed. The folder's
``README.md`` is rewritten to list every page. Nothing is overwritten without
``--overwrite``, and a file this script did not write is never replaced; every write is
atomic. The README's benchmark figures are quoted from these pages
(``tests/test_readme_figures.py`` checks it).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import tyro

from rewardgym.benchmarks.provenance import PACKAGE_ROOT
from rewardgym.runtime import atomic_output, prepare_output, write_atomic, write_json_atomic

RESULTS_DIR = PACKAGE_ROOT / "docs" / "results"
"""Where the recorded pages live in the repository."""
PAGE_MARK = "<!-- rewardgym results page: written by benchmarks/record_results.py -->"
"""First line of every page this script writes (a file without it is never replaced)."""
INDEX_MARK = "<!-- rewardgym results index: written by benchmarks/record_results.py -->"
OUTPUT_KIND = "results-page"
FACTS = "facts.json"
"""The page's recorded facts, beside its plots (the index is built from them)."""
NOT_RECORDED = "not recorded"
DESCRIPTION = (
    "Write a results page of docs/results from one suite run's output folder: the command, "
    "commit, machine and wall time the run recorded, its plots and its tables. An earlier page "
    "is replaced only with --overwrite; a file this script did not write is never replaced."
)


@dataclass(frozen=True)
class Config:
    """Write a docs/results page (facts, plots, tables) from one suite run's --out folder."""

    run_dir: Annotated[Path, tyro.conf.Positional, tyro.conf.arg(metavar="RUN-DIR")]
    """A suite's output folder (the --out of bench shop, bench embodied or bench fidelity)."""
    docs: Path = RESULTS_DIR
    """Folder of the results pages (default: docs/results of this checkout)."""
    name: Annotated[str | None, tyro.conf.arg(metavar="NAME")] = None
    """Page name (default: <suite>-<preset>, e.g. shop-quick)."""
    suite: Annotated[str | None, tyro.conf.arg(metavar="SUITE")] = None
    """Suite name, for a results.json that does not record it (shop, embodied, fidelity)."""
    preset: Annotated[str | None, tyro.conf.arg(metavar="PRESET")] = None
    """Preset name, for a results.json that does not record it."""
    overwrite: bool = False
    """Replace an earlier page of the same name (one this script wrote)."""

    def run(self) -> Path:
        """Write the page and its plots, refresh the index; return the page's path."""
        return record(
            self.run_dir,
            self.docs,
            name=self.name,
            suite=self.suite,
            preset=self.preset,
            overwrite=self.overwrite,
        )


def _read_run(run: Path) -> tuple[dict[str, Any], str]:
    results, tables = run / "results.json", run / "results.md"
    for stem in ("tune", "sweep", "breakdown"):  # --mode tune, shop.sweep, shop.breakdown
        if not results.exists() and (run / f"{stem}.json").exists():
            results, tables = run / f"{stem}.json", run / f"{stem}.md"
    for path in (results, tables):
        if not path.is_file():
            raise FileNotFoundError(
                f"{path} is missing: pass the --out folder of a finished bench shop, bench "
                "embodied (also --mode tune), bench fidelity or shop sweep run"
            )
    try:
        payload = json.loads(results.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ValueError(f"{results} is not valid JSON ({error}); rerun the suite") from None
    meta = payload.get("meta") if isinstance(payload, dict) else None
    if not isinstance(meta, dict):
        raise ValueError(f"{results} has no 'meta' object; it was not written by a rewardgym suite")
    return meta, tables.read_text(encoding="utf-8")


def _minutes(seconds: Any) -> str:
    if not isinstance(seconds, int | float):
        return NOT_RECORDED
    return f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def _machine(meta: Mapping[str, Any]) -> str:
    cores = meta.get("cpu_count")
    if cores is None:
        return NOT_RECORDED
    usable = meta.get("cpu_usable")
    text = f"{cores} CPU cores" + (f" ({usable} usable)" if usable not in (None, cores) else "")
    cuda = meta.get("cuda_available")
    if cuda is None:
        text += ", GPU not recorded"
    else:
        text += f", GPU: {meta.get('gpu') or 'yes'}" if cuda else ", no GPU"
    extras = [
        meta.get("platform"),
        f"Python {meta['python']}" if meta.get("python") else None,
        f"torch {meta['torch']}" if meta.get("torch") else None,
    ]
    return "; ".join([text, *(e for e in extras if e)])


def _commit(meta: Mapping[str, Any]) -> str:
    commit = meta.get("git_commit")
    if not commit:
        return NOT_RECORDED
    dirty = meta.get("git_dirty")
    state = {True: " plus uncommitted changes", False: "", None: " (changes not recorded)"}
    return f"`{commit[:12]}`{state[dirty]}"


def _phases(meta: Mapping[str, Any]) -> str:
    phases = meta.get("phase_seconds") or meta.get("timings_seconds")
    if not isinstance(phases, dict) or not phases:
        return NOT_RECORDED
    return ", ".join(
        f"{k} {v:.1f} s" for k, v in phases.items() if isinstance(v, int | float) and k != "total"
    )


def _demote(markdown: str) -> str:
    """Headings one level down (the page has its own title), code fences left alone."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#") and not line.startswith("######"):
            line = "#" + line
        lines.append(line)
    return "\n".join(lines).strip()


def facts(meta: Mapping[str, Any], suite: str, preset: str) -> dict[str, str]:
    """The page's facts as displayed: command, commit, machine, wall time, phases, date."""
    command = meta.get("command")
    smoke = meta.get("smoke_test")
    kind = NOT_RECORDED if smoke is None else "smoke test of the plumbing, not a result"
    kind = "result" if smoke is False else kind
    return {
        "suite": suite,
        "preset": preset,
        "kind": kind,
        "command": f"`{command}`" if command else NOT_RECORDED,
        "commit": _commit(meta),
        "machine": _machine(meta),
        "wall time": _minutes(meta.get("wall_seconds")),
        "phases": _phases(meta),
        "finished (UTC)": str(meta.get("finished_utc") or NOT_RECORDED),
    }


def render_page(shown: Mapping[str, str], tables: str, plots: list[str], folder: str) -> str:
    """The Markdown page: title, the run's facts, its plots and its tables."""
    lines = [
        PAGE_MARK,
        "",
        f"# Recorded results: bench {shown['suite']}, preset `{shown['preset']}`",
        "",
        "One recorded run; regenerate this page with "
        "`python -m rewardgym.benchmarks.record_results OUT --overwrite` from the run's "
        "`--out` folder rather than editing it.",
        "",
        "| fact | value |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in shown.items() if k not in ("suite", "preset")),
    ]
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{Path(p).stem}]({folder}/{p})" for p in plots]
    lines += ["", "## Tables (the run's results.md)", "", _demote(tables), ""]
    return "\n".join(lines)


def _owned_page(path: Path, overwrite: bool) -> None:
    if not path.exists():
        return
    first = path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
    if first.strip() != PAGE_MARK:
        raise FileExistsError(
            f"{path} exists and was not written by record_results (its first line is not the "
            "page marker); nothing is replaced: choose another --name or --docs"
        )
    if not overwrite:
        raise FileExistsError(f"{path} holds an earlier recording; pass --overwrite to replace it")


def render_index(docs: Path) -> str:
    """``README.md`` of the results folder: one line per recorded page."""
    entries = []
    for path in sorted(docs.glob("*/" + FACTS)):
        try:
            shown = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        page = path.parent.name + ".md"
        if (docs / page).is_file() and isinstance(shown, dict):
            entries.append({"page": page, **shown})
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
        "The README quotes its benchmark figures from these pages only "
        "(`tests/test_readme_figures.py`).",
        "",
    ]
    if not entries:
        lines.append("No run is recorded yet.")
    else:
        lines += [
            "| page | kind | command | commit | machine | wall time |",
            "|---|---|---|---|---|---|",
        ]
        for e in entries:
            lines.append(
                f"| [{e['page']}]({e['page']}) | {e.get('kind', '')} | {e.get('command', '')} "
                f"| {e.get('commit', '')} | {e.get('machine', '')} | {e.get('wall time', '')} |"
            )
    return "\n".join(lines) + "\n"


def write_index(docs: Path) -> Path:
    """Rewrite ``docs/README.md`` (refusing one this script did not write)."""
    path = docs / "README.md"
    if path.exists():
        first = path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
        if first.strip() != INDEX_MARK:
            raise FileExistsError(f"{path} was not written by record_results; it is left as is")
    return write_atomic(path, render_index(docs))


def record(
    run: Path,
    docs: Path = RESULTS_DIR,
    *,
    name: str | None = None,
    suite: str | None = None,
    preset: str | None = None,
    overwrite: bool = False,
) -> Path:
    """Write ``docs/<name>.md`` and ``docs/<name>/`` (plots, facts) from the run folder ``run``."""
    meta, tables = _read_run(Path(run))
    suite = suite or meta.get("suite")
    preset = preset or meta.get("preset")
    if not suite or not preset:
        raise ValueError(
            f"{Path(run) / 'results.json'} records no suite or preset in 'meta'; "
            "pass --suite and --preset"
        )
    name = name or f"{suite}-{preset}"
    page, folder = docs / f"{name}.md", docs / name
    _owned_page(page, overwrite)
    prepare_output(folder, OUTPUT_KIND, overwrite=overwrite)
    shown = facts(meta, str(suite), str(preset))
    plots = sorted(p.name for p in Path(run).glob("*.png") if p.is_file())
    with atomic_output(folder, OUTPUT_KIND, overwrite=overwrite) as tmp:
        for plot in plots:
            shutil.copyfile(Path(run) / plot, tmp / plot)
        write_json_atomic(tmp / FACTS, shown)
    write_atomic(page, render_page(shown, tables, plots, name))
    write_index(docs)
    return page


if __name__ == "__main__":
    config = tyro.cli(Config, description=DESCRIPTION)
    print(f"results page: {config.run()}")


__all__ = ["RESULTS_DIR", "Config", "facts", "record", "render_index", "render_page"]
