"""How far a run reproduces: a SHA-256 digest of every results table, and two runs compared.

Every suite records ``meta["table_digests"]`` in its ``results.json``: for each Markdown table
of its ``results.md``, named by its heading, the SHA-256 of the table's lines. Two
runs of one command on one machine are bit-for-bit the same where their digests match; a table
of wall times or latencies never is. Compare two runs (their ``--out`` folders, their
``results.md`` files, two recorded pages of ``docs/results/``, or a run and its page)::

    python -m rewardgym.benchmarks.repro /work/runs/quick-a /work/runs/quick-b

Example:
    >>> text = "# P\\n## T\\n| x |\\n# Q\\n## T\\n| y |\\n### U\\n| z |"
    >>> digests = table_digests(text)
    >>> list(digests), len(digests["U"])
    (['P / T', 'Q / T', 'U'], 64)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import tyro


def _names(stacks: list[tuple[str, ...]]) -> list[str]:
    """Each table's name: its innermost heading, with the ones above it where that is shared."""
    names = []
    for stack in stacks:
        suffix: tuple[str, ...] = ()
        for depth in range(1, len(stack) + 1):
            suffix = stack[-depth:]
            if sum(other[-depth:] == suffix for other in stacks) == 1:
                break
        names.append(" / ".join(suffix) or "(no heading)")
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def table_digests(markdown: str) -> dict[str, str]:
    """Table name -> SHA-256 of its lines, for every table of ``markdown``.

    A table is the lines starting with ``|`` (outside fenced code) under one heading; it is
    named by that heading, with the headings above it (``A / B``) where two tables would share
    a name, so that a run's ``results.md`` and its recorded page (one heading deeper) name
    their tables alike.
    """
    stack: list[tuple[int, str]] = []
    stacks: list[tuple[str, ...]] = []
    tables: list[list[str]] = []
    open_table = False
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, line[level:].strip()))
            open_table = False
            continue
        if not line.startswith("|"):
            continue
        if not open_table:
            stacks.append(tuple(title for _, title in stack))
            tables.append([])
            open_table = True
        tables[-1].append(line.rstrip())
    return {
        name: hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
        for name, lines in zip(_names(stacks), tables, strict=True)
    }


def _markdown(source: Path) -> str:
    """The Markdown of ``source``: a run folder's ``results.md``, or a ``.md`` file itself."""
    path = source / "results.md" if source.is_dir() else source
    if not path.is_file():
        raise FileNotFoundError(
            f"{source}: no results.md there; give a run's --out folder, its results.md or a "
            "docs/results page"
        )
    return path.read_text(encoding="utf-8")


def compare(first: dict[str, str], second: dict[str, str]) -> list[dict[str, str]]:
    """One entry per table of either run: its name, both digests (12 digits) and the verdict."""
    rows = []
    for name in dict.fromkeys([*first, *second]):
        a, b = first.get(name), second.get(name)
        same = "identical" if a == b else ("differs" if a and b else "only in one run")
        rows.append(
            {"table": name, "first": (a or "-")[:12], "second": (b or "-")[:12], "verdict": same}
        )
    return rows


@dataclass(frozen=True)
class Config:
    """Compare the results tables of two runs, digest by digest."""

    first: Annotated[Path, tyro.conf.Positional]
    """The first run: its --out folder, its results.md or a docs/results page."""
    second: Annotated[Path, tyro.conf.Positional]
    """The second run, of the same command."""


def main(config: Config) -> list[dict[str, str]]:
    """Print every table's digests in both runs and how many tables are bit-for-bit the same."""
    from rewardgym.benchmarks.tables import markdown_table

    rows = compare(table_digests(_markdown(config.first)), table_digests(_markdown(config.second)))
    same = sum(r["verdict"] == "identical" for r in rows)
    print(markdown_table(rows, ["table", "first", "second", "verdict"]))
    print(f"\n{same} of {len(rows)} tables identical")
    return rows


__all__ = ["Config", "compare", "main", "table_digests"]


if __name__ == "__main__":
    main(tyro.cli(Config))
