"""Hostile data files fail at load with an error that names the file and the line or row.

Issue 12, item 11: non-UTF-8 bytes, duplicate ids, JSON nested 100k deep, a 400-digit
timestamp, a 5000-digit id, lone surrogate escapes, an empty file read with ``split="all"``;
Parquet with bad ``meta`` JSON, a null ``session_id``, rows out of ``step`` order; an empty
split named by the user's file rather than the cache path.

Issue 39, item 9: OPeRA action tables whose page or rationale column holds integers, whose
binary page is not UTF-8, or whose ``url`` is bytes that are not UTF-8 or a timestamp crashed with
an Arrow or JSON ``TypeError`` (when the session log was written); so did a Parquet ``meta``
struct holding bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import gymnasium as gym
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.envs.shopping.loaders import load_jsonl, load_opera, load_parquet
from rewardgym.envs.shopping.schema import DataValidationError
from rewardgym.envs.shopping.session_log import STEP_SCHEMA, write_session_log
from rewardgym.envs.shopping.session_sources import resolve_sessions


def _good_line(make_session: Callable[..., dict[str, Any]], sid: str = "ok") -> bytes:
    return json.dumps(make_session(sid)).encode() + b"\n"


def _with_step_field(make_session: Callable[..., dict[str, Any]], key: str, raw: str) -> bytes:
    """A session line whose second step's ``key`` is the raw JSON text ``raw``."""
    session = make_session("bad")
    session["steps"][1][key] = "@@RAW@@"
    return json.dumps(session).replace('"@@RAW@@"', raw).encode() + b"\n"


CASES: dict[str, tuple[Callable[[Callable[..., Any]], bytes], str]] = {
    "non-UTF-8 bytes": (
        lambda s: _with_step_field(s, "rationale", '"caf\xe9"').replace(b"caf\xc3\xa9", b"caf\xe9"),
        "not UTF-8",
    ),
    "duplicate session id": (lambda s: _good_line(s, "ok"), "duplicate session id"),
    "JSON nested 100k deep": (lambda s: b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too"),
    "400-digit timestamp": (
        lambda s: _with_step_field(s, "timestamp", "9" * 400),
        "finite number of seconds",
    ),
    "5000-digit id": (lambda s: b'{"session_id": ' + b"7" * 5000 + b', "steps": []}\n', "JSON"),
    "lone surrogate in a rationale": (
        lambda s: _with_step_field(s, "rationale", '"I \\ud800 like it"'),
        "lone surrogate",
    ),
    "lone surrogate in meta": (
        lambda s: _with_step_field(s, "meta", '{"note": "\\udfff"}'),
        "lone surrogate",
    ),
    "lone surrogate in the session id": (
        lambda s: json.dumps(s("x\ud800")).encode() + b"\n",
        "lone surrogate",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_jsonl_names_file_and_line(
    tmp_path: Path, make_session: Callable[..., dict[str, Any]], case: str
) -> None:
    build, words = CASES[case]
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(_good_line(make_session) + build(make_session))
    with pytest.raises(DataValidationError) as err:
        list(load_jsonl(path))
    message = str(err.value)
    assert str(path) in message and "line 2" in message and words in message, message
    assert len(message) < 600  # the 5000-digit value or the 100k brackets are not echoed whole


def test_hostile_jsonl_fails_at_conversion_not_later(
    tmp_path: Path, make_session: Callable[..., dict[str, Any]], rewardgym_home: Path
) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(_good_line(make_session) + CASES["lone surrogate in meta"][0](make_session))
    with pytest.raises(DataValidationError, match="line 2"):
        resolve_sessions(path, "all")
    assert not list((rewardgym_home / "shop" / "converted").iterdir())  # no half cache entry


def test_empty_jsonl_fails_when_loaded_not_at_reset(tmp_path: Path, rewardgym_home: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    with pytest.raises(ValueError, match=f"{path}: holds no sessions"):
        resolve_sessions(path, "all")
    with pytest.raises(ValueError, match="holds no sessions"):
        gym.make("rewardgym/ShopSession-v0", data=str(path), split="all")


def test_an_empty_split_names_the_users_file(
    tmp_path: Path, make_session: Callable[..., dict[str, Any]], rewardgym_home: Path
) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(_good_line(make_session, "s0"))
    log, _ = resolve_sessions(path, "all")
    empty = "test" if resolve_sessions(path, "train")[1] else "train"
    with pytest.raises(ValueError) as err:
        resolve_sessions(path, empty)  # type: ignore[arg-type]
    assert str(path) in str(err.value) and str(log.path) not in str(err.value)


def _parquet_rows(jsonl: Path, tmp_path: Path) -> list[dict[str, Any]]:
    write_session_log(load_jsonl(jsonl), tmp_path / "store")
    table = pa.ipc.open_file(str(tmp_path / "store" / "steps.arrow")).read_all()
    return table.to_pylist()


def _write_parquet(rows: list[dict[str, Any]], path: Path, schema: pa.Schema | None) -> Path:
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


@pytest.mark.parametrize(
    ("change", "words", "row"),
    [
        (lambda rows: rows[5].update(meta="{not json"), "invalid JSON", 5),
        (lambda rows: rows[6].update(session_id=None), "non-empty string", 6),
        (lambda rows: rows.insert(2, rows.pop(3)), "rows out of order", 3),
        (lambda rows: rows.append(dict(rows[0])), "duplicate session id", None),
        (lambda rows: rows[1].update(meta="[" * 50_000 + "]" * 50_000), "nested too", 1),
    ],
)
def test_hostile_parquet_names_file_and_row(
    jsonl_sessions: Path, tmp_path: Path, change: Any, words: str, row: int | None
) -> None:
    rows = _parquet_rows(jsonl_sessions, tmp_path)
    change(rows)
    schema = pa.schema([f.with_nullable(True) for f in STEP_SCHEMA])
    path = _write_parquet(rows, tmp_path / "hostile.parquet", schema)
    with pytest.raises(DataValidationError) as err:
        list(load_parquet(path))
    message = str(err.value)
    assert str(path) in message and words in message, message
    assert f"row {row if row is not None else len(rows) - 1}" in message, message


def test_parquet_step_column_is_honoured(jsonl_sessions: Path, tmp_path: Path) -> None:
    rows = _parquet_rows(jsonl_sessions, tmp_path)
    for r in rows:
        r["step"] = 10 * r["step"] + 1  # gaps are fine, only the order matters
    path = _write_parquet(rows, tmp_path / "gaps.parquet", STEP_SCHEMA)
    assert list(load_parquet(path)) == list(load_jsonl(jsonl_sessions))


def test_a_file_that_is_not_parquet_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "fake.parquet"
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(DataValidationError, match=f"{path}: not a readable Parquet file"):
        list(load_parquet(path))


OPERA_ROW = {
    "session_id": "A",
    "timestamp": "2025-04-14T21:52:50Z",
    "action_type": "click",
    "semantic_id": "buy",
    "simplified_html": "<p/>",
    "rationale": "I like it.",
    "input_text": None,
    "url": "https://shop/p/1",
}


@pytest.mark.parametrize(
    ("cell", "words"),
    [
        ({"simplified_html": 5}, "field 'simplified_html': must be a string or null, not int"),
        ({"rationale": 7}, "field 'rationale': must be a string or null, not int"),
        ({"simplified_html": b"\xff<p/>"}, "field 'simplified_html': not UTF-8 text"),
        ({"url": b"\xfe/p/1"}, "field 'url': not UTF-8 text"),
        ({"url": datetime(2025, 4, 14)}, "field 'url': must be a string or null, not datetime"),
        ({"action_type": ["click"]}, "field 'action_type': unknown OPeRA action_type"),
    ],
)
def test_hostile_opera_cells_name_file_row_and_column(
    tmp_path: Path, cell: dict[str, Any], words: str
) -> None:
    path = tmp_path / "train-0.parquet"
    rows = [{**OPERA_ROW, "session_id": sid, **cell} for sid in ("A", "B")]
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(DataValidationError) as err:
        write_session_log(load_opera([path]), tmp_path / "log")
    assert f"{path}:row 0 {words}" in str(err.value), str(err.value)


def test_an_opera_binary_text_column_in_utf8_reads_as_text(tmp_path: Path) -> None:
    path = tmp_path / "train-0.parquet"
    cells = {"simplified_html": "<p>caf\u00e9</p>".encode(), "url": b"https://shop/p/1"}
    pq.write_table(pa.Table.from_pylist([{**OPERA_ROW, **cells}]), path)
    (session,) = load_opera([path])
    assert session.steps[0].page == "<p>caf\u00e9</p>"
    assert session.steps[0].meta == {"url": "https://shop/p/1"}


def test_a_parquet_meta_struct_of_bytes_names_the_row(jsonl_sessions: Path, tmp_path: Path) -> None:
    rows = _parquet_rows(jsonl_sessions, tmp_path)
    for row in rows:
        row["meta"] = {"url": b"/p/1"}
    path = _write_parquet(rows, tmp_path / "struct.parquet", None)
    with pytest.raises(DataValidationError, match=r"row 0 field 'meta': must hold only JSON"):
        list(load_parquet(path))
