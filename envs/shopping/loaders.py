"""Read sessions from JSONL, Parquet in our schema, or OPeRA's action and user tables, with precise errors.

JSONL schema, one session per line::

    {"session_id": "s1",
     "persona": "I shop for my family ...",                  # optional, text or null
     "steps": [{"page": "<html>...</html>",
                "action": {"type": "click", "name": "buy_now"},
                "rationale": "I like this one.",            # optional
                "timestamp": 12.5,                          # optional, seconds
                "meta": {"url": "/p/1"}}]}                  # optional, any JSON object

``action.type`` is ``click`` (needs ``name``), ``type_and_submit`` (needs ``name`` and ``text``)
or ``terminate``. Parquet files in our schema have one row per step with the columns of
:data:`rewardgym.envs.shopping.session_log.STEP_SCHEMA`, rows of a session contiguous and in step
order. Every problem, including bytes that are not UTF-8, JSON nested too deeply, numbers too
large for a float and unpaired surrogate escapes, is a ``DataValidationError`` naming the
file, the line or row, and the field.

OPeRA (``NEU-HAI/OPeRA``) ships, beside each variant's action tables, a user table
(``OPeRA_filtered/user/{split}/{split}.parquet``) and a session table
(``OPeRA_filtered/session/{split}/{split}.parquet``). The dataset card names these files but
not their columns, so rewardgym reads them by a schema of its own, checked row by row:

* user table: ``user_id`` (a non-empty string or integer, unique) and either a ``persona``
  text column or any other columns (the survey's answers), which become the persona as
  ``column: value`` lines in the table's column order (nulls and empty strings left out);
* session table: ``session_id`` and ``user_id`` (which user each session belongs to). Without
  one, a session's user is its id up to the first ``_``: OPeRA's session ids are
  ``{user uuid}_{start}_{end}``.

A session whose user is not in the user table has no persona (None); a session id twice in the
session table is an error, as a user id twice in the user table is. The action tables' text
columns (``simplified_html``, ``rationale``, ``semantic_id``, ``input_text``, ``url``, ...) must
hold strings or nulls; a binary column is read as UTF-8 text, and a cell that is not UTF-8, a
number or a timestamp where text belongs is an error naming the file, the row and the column.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
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
OPERA_VARIANTS = ("OPeRA_filtered", "OPeRA_full")
"""OPeRA's two variants, in the order they are preferred."""


def _utf8(value: str, source: str, where: str, field_name: str) -> str:
    """``value`` when UTF-8 can store it; a lone surrogate (an unpaired ``\\ud800``) is an error."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise DataValidationError(
            f"holds the lone surrogate {value[err.start]!r} at character {err.start} (an "
            "unpaired \\uD800-\\uDFFF escape), which is not text; fix or drop it",
            source=source,
            location=where,
            field_name=field_name,
            value=value[max(0, err.start - 20) : err.start + 20],
        ) from None
    return value


def _opera_text(value: Any, source: str, where: str, field_name: str) -> str | None:
    """An OPeRA text cell: a string, UTF-8 bytes (a binary column) or null; anything else is an error."""
    if value is None:
        return None
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as err:
            raise DataValidationError(
                f"not UTF-8 text (byte {err.start} of the value); store it as a UTF-8 string column",
                source=source,
                location=where,
                field_name=field_name,
                value=value[max(0, err.start - 10) : err.start + 10],
            ) from None
    if not isinstance(value, str):
        raise DataValidationError(
            f"must be a string or null, not {type(value).__name__}",
            source=source,
            location=where,
            field_name=field_name,
            value=value,
        )
    return _utf8(value, source, where, field_name)


def _finite_seconds(value: Any, source: str, where: str) -> float:
    seconds = math.nan
    if isinstance(value, int | float) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):  # an integer of hundreds of digits
            seconds = float(value)
    if not math.isfinite(seconds):
        raise DataValidationError(
            "must be a finite number of seconds",
            source=source,
            location=where,
            field_name="timestamp",
            value=value,
        )
    return seconds


def _parse_json(text: str, source: str, where: str, field_name: str | None = None) -> Any:
    """``json.loads(text)``; every way it can fail becomes an error naming file and place."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        message = f"invalid JSON ({err.msg} at column {err.colno})"
    except RecursionError:
        message = "invalid JSON (nested too deeply to read)"
    except ValueError as err:  # e.g. an integer of more than 4300 digits
        message = f"invalid JSON ({err})"
    raise DataValidationError(
        message, source=source, location=where, field_name=field_name, value=text[:200].strip()
    )


def _optional_text(value: Any, source: Any, where: Any, field: str) -> str | None:
    """``value`` when it is a string or None; a file/row/field error otherwise."""
    if value is not None and not isinstance(value, str):
        raise DataValidationError(
            "must be a string or null",
            source=source,
            location=where,
            field_name=field,
            value=value,
        )
    return value


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
    _utf8(page, source, where, "page")
    rationale = _optional_text(raw.get("rationale"), source, where, "rationale")
    if rationale is not None:
        _utf8(rationale, source, where, "rationale")
    timestamp = _finite_seconds(raw.get("timestamp", 0.0), source, where)
    meta = raw.get("meta", {})
    if not isinstance(meta, dict):
        raise DataValidationError(
            "must be an object", source=source, location=where, field_name="meta", value=meta
        )
    try:
        encoded = json.dumps(meta, ensure_ascii=False)
    except (RecursionError, ValueError):
        raise DataValidationError(
            "must be a JSON object the session log can hold (it is nested too deeply)",
            source=source,
            location=where,
            field_name="meta",
        ) from None
    except TypeError as err:  # a Parquet struct column holding bytes or a timestamp
        raise DataValidationError(
            f"must hold only JSON values (text, numbers, lists, objects): {err}",
            source=source,
            location=where,
            field_name="meta",
        ) from None
    _utf8(encoded, source, where, "meta")
    action = ShopAction.from_dict(raw.get("action"), source=source, location=where)
    _utf8(action.name, source, where, "action.name")
    _utf8(action.text, source, where, "action.text")
    return ShopStep(page, action, rationale, timestamp, meta)


def load_jsonl(path: str | Path) -> Iterator[ShopSession]:
    """Sessions of a JSONL file in our schema, lazily; errors name the file, line and field."""
    source = str(path)
    seen: dict[str, int] = {}
    with open(path, "rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            where = f"line {line_no}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise DataValidationError(
                    f"not UTF-8 text (byte {err.start} of the line); save the file as UTF-8",
                    source=source,
                    location=where,
                    value=raw[max(0, err.start - 10) : err.start + 10],
                ) from None
            if not line.strip():
                continue
            record = _parse_json(line, source, where)
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
            sid = _utf8(str(sid), source, where, "session_id")
            if sid in seen:
                raise DataValidationError(
                    f"duplicate session id (first on line {seen[sid]}); ids must be unique",
                    source=source,
                    location=where,
                    field_name="session_id",
                    value=sid,
                )
            seen[sid] = line_no
            steps = record.get("steps")
            if not isinstance(steps, list) or not steps:
                raise DataValidationError(
                    "must be a non-empty list",
                    source=source,
                    location=where,
                    field_name="steps",
                    value=steps,
                )
            persona = _optional_text(record.get("persona"), source, where, "persona")
            yield ShopSession(
                sid,
                tuple(_step_from_json(s, source, f"{where} step {i}") for i, s in enumerate(steps)),
                None if persona is None else _utf8(persona, source, where, "persona"),
            )


def _read_parquet(path: str | Path) -> pa.Table:
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as err:
        raise DataValidationError(
            f"not a readable Parquet file ({err})", source=str(path)
        ) from None


def _session_id(value: Any, source: str, where: str) -> str:
    if value is None or isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise DataValidationError(
            "must be a non-empty string",
            source=source,
            location=where,
            field_name="session_id",
            value=value,
        )
    return str(value)


def load_parquet(path: str | Path) -> Iterator[ShopSession]:
    """Sessions of a Parquet file in our step schema; errors name the file, row and field.

    The rows of a session must be contiguous; when a ``step`` column is present, its values
    must increase along the rows of each session (rows out of order are an error, not
    silently reordered).
    """
    source = str(path)
    table = _read_parquet(path)
    missing = [c for c in ("session_id", "page", "action_type") if c not in table.column_names]
    if missing:
        raise DataValidationError(
            f"missing required columns {missing}",
            source=source,
            field_name="columns",
            value=table.column_names,
        )
    has_step = "step" in table.column_names
    current: str | None = None
    steps: list[ShopStep] = []
    seen: dict[str, int] = {}
    last_step: Any = None
    row_no = -1
    for batch in table.to_batches():
        for row in batch.to_pylist():
            row_no += 1
            where = f"row {row_no}"
            sid = _session_id(row["session_id"], source, where)
            if sid != current:
                if current is not None:
                    yield ShopSession(current, tuple(steps))
                if sid in seen:
                    raise DataValidationError(
                        f"duplicate session id: its rows must be contiguous, and they started "
                        f"at row {seen[sid]}",
                        source=source,
                        location=where,
                        field_name="session_id",
                        value=sid,
                    )
                seen[sid] = row_no
                steps, current, last_step = [], sid, None
            if has_step:
                step = row["step"]
                if not isinstance(step, int) or isinstance(step, bool):
                    raise DataValidationError(
                        "must be an integer",
                        source=source,
                        location=where,
                        field_name="step",
                        value=step,
                    )
                if last_step is not None and step <= last_step:
                    raise DataValidationError(
                        f"rows out of order: step {step} comes after step {last_step} of "
                        f"session {sid!r}; sort each session's rows by step",
                        source=source,
                        location=where,
                        field_name="step",
                        value=step,
                    )
                last_step = step
            raw_action = {
                "type": row.get("action_type"),
                "name": row.get("action_name"),
                "text": row.get("action_text"),
            }
            meta = row.get("meta")
            if meta is None or meta == "":
                meta = {}
            elif isinstance(meta, str):
                meta = _parse_json(meta, source, where, "meta")
            timestamp = row.get("timestamp")
            raw = {
                "page": row.get("page"),
                "action": raw_action,
                "rationale": row.get("rationale"),
                "timestamp": 0.0 if timestamp is None else timestamp,
                "meta": meta,
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
    """Seconds of an OPeRA row's ``timestamp``: a finite number, a datetime or an ISO-8601 time.

    One NaN would make every comparison of the session's sort false, so its steps would keep
    file order: it is an error naming the file, the row and the field instead.
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _finite_seconds(value, source, where)
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


def _opera_meta(row: Mapping[str, Any], source: str, where: str) -> dict[str, Any]:
    """The ``action_id``, ``click_type`` and ``url`` a step keeps as meta: texts (or integer ids)."""
    meta: dict[str, Any] = {}
    for key in ("action_id", "click_type", "url"):
        value = row.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            meta[key] = value
        elif (text := _opera_text(value, source, where, key)) is not None:
            meta[key] = text
    return meta


def opera_files(root: str | os.PathLike[str], split: str) -> list[Path]:
    """OPeRA's action Parquet files of ``split`` under ``root`` (filtered preferred over full)."""
    base = Path(root)
    for variant in OPERA_VARIANTS:
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
    return any((base / v / "action").is_dir() for v in OPERA_VARIANTS)


@dataclass(frozen=True)
class OperaUsers:
    """OPeRA's user table read into personas, and which user each session belongs to."""

    personas: dict[str, str] = field(default_factory=dict)
    """Persona text by user id."""
    session_users: dict[str, str] | None = None
    """User id by session id (the session table); None: a session's id up to its first ``_``."""

    def persona(self, session_id: str) -> str | None:
        """The persona of the user behind ``session_id``, or None when the table has none."""
        if self.session_users is None:
            user = session_id.split("_", 1)[0]
        else:
            user = self.session_users.get(session_id, "")
        return self.personas.get(user)


def opera_user_files(action_files: Sequence[Path], split: str) -> tuple[list[Path], list[Path]]:
    """The user and session Parquet files of ``split`` beside OPeRA action files (empty if absent).

    They are looked up in the variant (``OPeRA_filtered`` or ``OPeRA_full``) the action files
    come from: ``<variant>/user/<split>/*.parquet`` and ``<variant>/session/<split>/*.parquet``.
    """
    if not action_files:
        return [], []
    variant = action_files[0].parent.parent
    users = sorted((variant / "user" / split).glob("*.parquet"))
    sessions = sorted((variant / "session" / split).glob("*.parquet"))
    return users, sessions


def _persona_value(value: Any) -> str | None:
    """A survey answer as persona text (None for a null or empty answer)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _first_time(first: dict[str, str], key: str, kind: str, source: str, where: str) -> None:
    """Record where ``kind`` id ``key`` first appears; a ``DataValidationError`` on a repeat."""
    if key in first:
        raise DataValidationError(
            f"duplicate {kind} id (first at {first[key]}); ids must be unique",
            source=source,
            location=where,
            field_name=f"{kind}_id",
            value=key,
        )
    first[key] = f"{source}:{where}"


def _user_id(value: Any, source: str, where: str) -> str:
    if value is None or isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise DataValidationError(
            "must be a non-empty string",
            source=source,
            location=where,
            field_name="user_id",
            value=value,
        )
    return _utf8(str(value), source, where, "user_id")


def load_opera_users(user_files: Sequence[Path], session_files: Sequence[Path] = ()) -> OperaUsers:
    """Personas of OPeRA's user table (module docstring); errors name the file, row and field."""
    personas: dict[str, str] = {}
    first_row: dict[str, str] = {}
    for path in user_files:
        source = str(path)
        table = _read_parquet(path)
        if "user_id" not in table.column_names:
            raise DataValidationError(
                "missing the column 'user_id' of a user table",
                source=source,
                field_name="columns",
                value=table.column_names,
            )
        answers = [c for c in table.column_names if c != "user_id"]
        for row_no, row in enumerate(table.to_pylist()):
            where = f"row {row_no}"
            user = _user_id(row["user_id"], source, where)
            _first_time(first_row, user, "user", source, where)
            if "persona" in answers:
                text = _optional_text(row["persona"], source, where, "persona")
            else:
                lines = [
                    f"{name}: {shown}"
                    for name in answers
                    if (shown := _persona_value(row[name])) is not None
                ]
                text = "\n".join(lines) or None
            if text:
                personas[user] = _utf8(text, source, where, "persona")
    if not session_files:
        return OperaUsers(personas)
    session_users: dict[str, str] = {}
    first_session_row: dict[str, str] = {}
    for path in session_files:
        source = str(path)
        table = _read_parquet(path)
        missing = [c for c in ("session_id", "user_id") if c not in table.column_names]
        if missing:
            raise DataValidationError(
                f"missing the columns {missing} of a session table",
                source=source,
                field_name="columns",
                value=table.column_names,
            )
        for row_no, row in enumerate(table.select(["session_id", "user_id"]).to_pylist()):
            where = f"row {row_no}"
            sid = _session_id(row["session_id"], source, where)
            _first_time(first_session_row, sid, "session", source, where)
            session_users[sid] = _user_id(row["user_id"], source, where)
    return OperaUsers(personas, session_users)


def load_opera(
    files: list[Path],
    *,
    action_map: Mapping[str, str] | None = None,
    skip_unknown: bool = False,
    report: OperaReport | None = None,
    users: OperaUsers | None = None,
) -> Iterator[ShopSession]:
    """Sessions from OPeRA action tables: rows grouped by session, ordered by time, mapped to ours.

    Unknown ``action_type`` values raise, naming the file, row and value, unless ``action_map``
    maps them or ``skip_unknown`` drops them (counted in ``report.skipped``). ``users``
    (:func:`load_opera_users`) gives each session its user's persona.
    """
    mapping = dict(OPERA_ACTION_MAP if action_map is None else action_map)
    for value in mapping.values():
        if value not in ACTION_TYPES:
            raise ValueError(f"action_map maps to {value!r}; targets must be one of {ACTION_TYPES}")
    report = report if report is not None else OperaReport()
    grouped: dict[str, list[tuple[float, int, ShopStep]]] = {}
    for path in files:
        source = str(path)
        table = _read_parquet(path)
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
            if not isinstance(kind, str) or kind not in mapping:
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
            raw_action = {
                "type": mapping[kind],
                "name": _opera_text(row.get("semantic_id"), source, where, "semantic_id") or "",
                "text": _opera_text(row.get("input_text"), source, where, "input_text") or "",
            }
            action = ShopAction.from_dict(raw_action, source=source, location=where)
            time = _parse_time(row.get("timestamp"), source, where)
            page = _opera_text(row.get("simplified_html"), source, where, "simplified_html")
            rationale = _opera_text(row.get("rationale"), source, where, "rationale")
            meta = _opera_meta(row, source, where)
            step = ShopStep(page or "", action, rationale or None, time, meta)
            sid = _session_id(row["session_id"], source, where)
            grouped.setdefault(sid, []).append((time, len(grouped), step))
    for sid, items in grouped.items():
        items.sort(key=lambda item: item[0])
        report.sessions += 1
        t0 = items[0][0]
        yield ShopSession(
            sid,
            tuple(ShopStep(s.page, s.action, s.rationale, t - t0, s.meta) for t, _, s in items),
            None if users is None else users.persona(sid),
        )


__all__ = [
    "OPERA_ACTION_MAP",
    "OPERA_VARIANTS",
    "OperaReport",
    "OperaUsers",
    "is_opera_dir",
    "load_jsonl",
    "load_opera",
    "load_opera_users",
    "load_parquet",
    "opera_files",
    "opera_user_files",
]
