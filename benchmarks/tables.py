"""Render result rows as Markdown tables and write them as JSON, CSV and Markdown files."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardgym.bounds import strict_json, undefined_as_null


def _cell(value: Any, digits: int, undefined: str) -> str:
    if isinstance(value, float):
        return undefined if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def markdown_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    headers: Sequence[str] | None = None,
    digits: int = 2,
    undefined: Mapping[str, str] | None = None,
) -> str:
    """A GitHub-flavoured Markdown table of ``columns`` over ``rows`` (missing cells are blank).

    A NaN cell is a figure that is undefined there: it reads ``undefined[column]`` (say why,
    e.g. ``n/a (one class)``), or ``n/a``.

    Example:
        >>> print(markdown_table([{"x": 0.5}, {"x": float("nan")}], ["x"], undefined={"x": "n/a (why)"}))
        | x |
        |---|
        | 0.50 |
        | n/a (why) |
    """
    heads = list(headers) if headers is not None else list(columns)
    why = dict(undefined or {})
    lines = ["| " + " | ".join(heads) + " |", "|" + "|".join("---" for _ in heads) + "|"]
    for row in rows:
        cells = (_cell(row.get(c, ""), digits, why.get(c, "n/a")) for c in columns)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_results(
    out: Path, rows: Sequence[Mapping[str, Any]], markdown: str, meta: Mapping[str, Any]
) -> None:
    """Write ``results.json`` (meta + rows), ``results.csv`` (rows) and ``results.md`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    payload = undefined_as_null({"meta": dict(meta), "rows": list(rows)})
    (out / "results.json").write_text(strict_json(payload, out / "results.json", indent=2))
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    with open(out / "results.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()}
            )
    (out / "results.md").write_text(markdown + "\n")


__all__ = ["markdown_table", "write_results"]
