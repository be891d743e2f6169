"""Read sessions from JSONL, Parquet in our schema, or OPeRA's action table, with precise errors.

JSONL schema, one session per line::

    {"session_id": "s1",
     "steps": [{"page": "<html>...</html>",
                "action": {"type": "click", "name": "buy_now"},
                "rationale": "I like this one.",            # optional
                "timestamp": 12.5,                          # optional, seconds
                "meta": {"url": "/p/1"}}]}                  # optional, any JSON object

``action.type`` is ``click`` (needs ``name``), ``type_and_submit`` (needs ``name`` and ``text``)
or ``terminate``. Parquet files in our schema have one row per step with the columns of
:data:`rewardgym.envs.shopping.store.STEP_SCHEMA`, rows of a session in step order.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from rewardgym.envs.shopping.schema import (
    ACTION_TYPES,
    DataValidationError,
    ShopAction,
    ShopSession,
    ShopStep,
)

OPERA_ACTION_MAP: dict[str, str] = {
    "click": "click",
    "input": "type_and_submit",
    "terminate": "terminate",
}
"""How OPeRA's ``action_type`` values map to ours by default."""

OPERA_COLUMNS = ("session_id", "timestamp", "action_type", "semantic_id", "simplified_html")


def _step_from_json(raw: Any, source: str, where: str) -> ShopStep:
    if not isinstance(raw, dict):
        raise DataValidationError(
            "a step must be an object",
            source=source,
            location=where,
            field_name="steps[]",
            value=raw,
        )
    page = raw.get("page")
    if not isinstance(page, str):
        raise DataValidationError(
            "must be a string of simplified HTML",
            source=source,
            location=where,
            field_name="page",
            value=page,
        )
    rationale = raw.get("rationale")
    if rationale is not None and not isinstance(rationale, str):
        raise DataValidationError(
            "must be a string or null",
            source=source,
            location=where,
            field_name="rationale",
            value=rationale,
        )
    timestamp = raw.get("timestamp", 0.0)
    if (
        not isinstance(timestamp, int | float)
        or isinstance(timestamp, bool)
        or not math.isfinite(timestamp)
    ):
        raise DataValidationError(
            "must be a finite number of seconds",
            source=source,
            location=where,
            field_name="timestamp",
            value=timestamp,
        )
    meta = raw.get("meta", {})
    if not isinstance(meta, dict):
        raise DataValidationError(
            "must be an object", source=source, location=where, field_name="meta", value=meta
        )
    action = ShopAction.from_dict(raw.get("action"), source=source, location=where)
    return ShopStep(page, action, rationale, float(timestamp), meta)


def load_jsonl(path: str | Path) -> Iterator[ShopSession]:
    """Sessions of a JSONL file in our schema, lazily; errors name the file, line and field."""
    source = str(path)
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"line {line_no}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise DataValidationError(
                    f"invalid JSON ({err.msg})", source=source, location=where, value=line.strip()
                ) from None
            if not isinstance(record, dict):
                raise DataValidationError(
                    "a line must hold one session object",
                    source=source,
                    location=where,
                    value=record,
                )
            sid = record.get("session_id")
            if not isinstance(sid, str | int) or isinstance(sid, bool) or str(sid) == "":
                raise DataValidationError(
                    "must be a non-empty string",
                    source=source,
                    location=where,
                    field_name="session_id",
                    value=sid,
                )
            steps = record.get("steps")
            if not isinstance(steps, list) or not steps:
                raise DataValidationError(
                    "must be a non-empty list",
                    source=source,
                    location=where,
                    field_name="steps",
                    value=steps,
                )
            yield ShopSession(
                str(sid),
                tuple(_step_from_json(s, source, f"{where} step {i}") for i, s in enumerate(steps)),
            )


def load_parquet(path: str | Path) -> Iterator[ShopSession]:
    """Sessions of a Parquet file in our step schema; errors name the file, row and field."""
    source = str(path)
    table = pq.read_table(path)
    missing = [c for c in ("session_id", "page", "action_type") if c not in table.column_names]
    if missing:
        raise DataValidationError(
            f"missing required columns {missing}",
            source=source,
            field_name="columns",
            value=table.column_names,
        )
    current: str | None = None
    steps: list[ShopStep] = []
    for row_no, row in enumerate(table.to_pylist()):
        where = f"row {row_no}"
        sid = str(row["session_id"])
        if current is not None and sid != current:
            yield ShopSession(current, tuple(steps))
            steps = []
        current = sid
        raw_action = {
            "type": row.get("action_type"),
            "name": row.get("action_name"),
            "text": row.get("action_text"),
        }
        meta = row.get("meta") or "{}"
        raw = {
            "page": row.get("page"),
            "action": raw_action,
            "rationale": row.get("rationale"),
            "timestamp": row.get("timestamp") or 0.0,
            "meta": json.loads(meta) if isinstance(meta, str) else meta,
        }
        steps.append(_step_from_json(raw, source, where))
    if current is not None:
        yield ShopSession(current, tuple(steps))


@dataclass
class OperaReport:
    """What an OPeRA load did: rows read, sessions built, and rows skipped by action type."""

    rows: int = 0
    sessions: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def skipped_total(self) -> int:
        """Number of rows skipped for an unmapped action type."""
        return sum(self.skipped.values())


def _parse_time(value: Any, source: str, where: str) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    raise DataValidationError(
        "not an ISO-8601 time or a number",
        source=source,
        location=where,
        field_name="timestamp",
        value=value,
    )


def opera_files(root: str | os.PathLike[str], split: str) -> list[Path]:
    """OPeRA's action Parquet files of ``split`` under ``root`` (filtered preferred over full)."""
    base = Path(root)
    for variant in ("OPeRA_filtered", "OPeRA_full"):
        files = sorted((base / variant / "action").glob(f"{split}-*.parquet"))
        if files:
            return files
    raise FileNotFoundError(
        f"{base}: no OPeRA action files for split {split!r}; expected "
        f"OPeRA_filtered/action/{split}-*.parquet or OPeRA_full/action/{split}-*.parquet"
    )


def is_opera_dir(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is laid out like OPeRA's repository."""
    base = Path(path)
    return any((base / v / "action").is_dir() for v in ("OPeRA_filtered", "OPeRA_full"))


def load_opera(
    files: list[Path],
    *,
    action_map: Mapping[str, str] | None = None,
    skip_unknown: bool = False,
    report: OperaReport | None = None,
) -> Iterator[ShopSession]:
    """Sessions from OPeRA action tables: rows grouped by session, ordered by time, mapped to ours.

    Unknown ``action_type`` values raise, naming the file, row and value, unless ``action_map``
    maps them or ``skip_unknown`` drops them (counted in ``report.skipped``).
    """
    mapping = dict(OPERA_ACTION_MAP if action_map is None else action_map)
    for value in mapping.values():
        if value not in ACTION_TYPES:
            raise ValueError(f"action_map maps to {value!r}; targets must be one of {ACTION_TYPES}")
    report = report if report is not None else OperaReport()
    grouped: dict[str, list[tuple[float, int, ShopStep]]] = {}
    for path in files:
        source = str(path)
        table = pq.read_table(path)
        missing = [c for c in OPERA_COLUMNS if c not in table.column_names]
        if missing:
            raise DataValidationError(
                f"missing OPeRA columns {missing}",
                source=source,
                field_name="columns",
                value=table.column_names,
            )
        for row_no, row in enumerate(table.to_pylist()):
            report.rows += 1
            where = f"row {row_no}"
            kind = row.get("action_type")
            if kind not in mapping:
                if skip_unknown:
                    report.skipped[str(kind)] = report.skipped.get(str(kind), 0) + 1
                    continue
                raise DataValidationError(
                    f"unknown OPeRA action_type; known: {sorted(mapping)}. Pass action_map= to map "
                    "it or skip_unknown=True to drop such rows",
                    source=source,
                    location=where,
                    field_name="action_type",
                    value=kind,
                )
            ours = mapping[kind]
            raw_action = {
                "type": ours,
                "name": row.get("semantic_id") or "",
                "text": row.get("input_text") or "",
            }
            action = ShopAction.from_dict(raw_action, source=source, location=where)
            time = _parse_time(row.get("timestamp"), source, where)
            page = row.get("simplified_html") or ""
            meta = {k: row[k] for k in ("action_id", "click_type", "url") if row.get(k) is not None}
            step = ShopStep(page, action, row.get("rationale") or None, time, meta)
            grouped.setdefault(str(row["session_id"]), []).append((time, len(grouped), step))
    for sid, items in grouped.items():
        items.sort(key=lambda item: item[0])
        report.sessions += 1
        t0 = items[0][0]
        yield ShopSession(
            sid, tuple(ShopStep(s.page, s.action, s.rationale, t - t0, s.meta) for t, _, s in items)
        )


__all__ = [
    "OPERA_ACTION_MAP",
    "OperaReport",
    "is_opera_dir",
    "load_jsonl",
    "load_opera",
    "load_parquet",
    "opera_files",
]
