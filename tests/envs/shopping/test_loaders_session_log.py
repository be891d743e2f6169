"""Loaders (JSONL, Parquet, OPeRA) and the memory-mapped session log."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rewardgym.envs.shopping.loaders import OperaReport, load_jsonl, load_opera, load_parquet
from rewardgym.envs.shopping.schema import DataValidationError, ShopAction
from rewardgym.envs.shopping.session_log import STEP_SCHEMA, SessionLog, write_session_log
from rewardgym.envs.shopping.session_sources import in_test_split, resolve_sessions


def test_jsonl_session_log_round_trip(jsonl_sessions: Path, tmp_path: Path) -> None:
    sessions = list(load_jsonl(jsonl_sessions))
    summary = write_session_log(sessions, tmp_path / "store")
    assert summary.sessions == 30 and summary.steps == sum(len(s) for s in sessions)
    log = SessionLog(tmp_path / "store")
    assert log.session(7) == sessions[7]
    assert log.step(3, 1) == sessions[3].steps[1]
    assert log.step(0, 2).meta == {"url": "/p/1"}
    assert pickle.loads(pickle.dumps(log)).session(5) == sessions[5]
    with pytest.raises(IndexError, match="has 4 steps"):
        log.step(0, 4)


def test_parquet_round_trip(jsonl_sessions: Path, tmp_path: Path) -> None:
    write_session_log(load_jsonl(jsonl_sessions), tmp_path / "store")
    table = pa.ipc.open_file(str(tmp_path / "store" / "steps.arrow")).read_all()
    assert table.schema == STEP_SCHEMA
    pq.write_table(table, tmp_path / "ours.parquet")
    assert list(load_parquet(tmp_path / "ours.parquet")) == list(load_jsonl(jsonl_sessions))


@pytest.mark.parametrize(
    ("mutate", "field", "value"),
    [
        (lambda s: s["steps"][1]["action"].update(type="hover"), "action.type", "hover"),
        (lambda s: s["steps"][1]["action"].update(name=""), "action.name", ""),
        (lambda s: s["steps"][0].update(page=None), "page", None),
        (lambda s: s["steps"][0].update(timestamp="noon"), "timestamp", "noon"),
    ],
)
def test_jsonl_errors_name_file_line_field_value(
    tmp_path: Path, make_session, mutate, field, value
) -> None:
    session = make_session
    bad = session("bad")
    mutate(bad)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(session("ok")) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(DataValidationError) as err:
        list(load_jsonl(path))
    message = str(err.value)
    assert str(path) in message and "line 2" in message and repr(field) in message
    assert repr(value) in message


def test_jsonl_invalid_json_line(tmp_path: Path, make_session) -> None:
    session = make_session
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps(session("ok")) + "\n{not json\n")
    with pytest.raises(DataValidationError, match="line 2: invalid JSON"):
        list(load_jsonl(path))


def _opera_rows() -> list[dict]:
    base = {
        "click_type": "product_link",
        "mouse_position": "{}",
        "element_meta": "{}",
        "url": "https://shop/x",
        "window_size": "{}",
        "page_meta": "{}",
        "products": "",
        "image": "",
    }
    rows = [
        # Out of order in the file: the loader must sort by timestamp.
        {
            "session_id": "A",
            "action_id": "a2",
            "timestamp": "2025-04-14T21:53:00.000Z",
            "action_type": "click",
            "semantic_id": "product_1.title",
            "simplified_html": "<p2/>",
            "rationale": "Looks good",
            "input_text": None,
        },
        {
            "session_id": "A",
            "action_id": "a1",
            "timestamp": "2025-04-14T21:52:50.000Z",
            "action_type": "input",
            "semantic_id": "search_box",
            "simplified_html": "<p1/>",
            "rationale": None,
            "input_text": "rice cooker",
        },
        {
            "session_id": "A",
            "action_id": "a3",
            "timestamp": "2025-04-14T21:53:30.000Z",
            "action_type": "terminate",
            "semantic_id": None,
            "simplified_html": "<p3/>",
            "rationale": "Done",
            "input_text": None,
        },
        {
            "session_id": "B",
            "action_id": "b1",
            "timestamp": "2025-04-15T10:00:00.000Z",
            "action_type": "scroll",
            "semantic_id": "x",
            "simplified_html": "<q/>",
            "rationale": None,
            "input_text": None,
        },
    ]
    return [{**base, **r} for r in rows]


def _write_opera(root: Path) -> Path:
    action_dir = root / "OPeRA_filtered" / "action"
    action_dir.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(_opera_rows()), action_dir / "train-00000.parquet")
    pq.write_table(pa.Table.from_pylist(_opera_rows()[:3]), action_dir / "test-00000.parquet")
    return action_dir / "train-00000.parquet"


def test_opera_mapping_order_and_unknown(tmp_path: Path) -> None:
    train = _write_opera(tmp_path / "opera")
    with pytest.raises(DataValidationError) as err:
        list(load_opera([train]))
    assert (
        "row 3" in str(err.value) and "'scroll'" in str(err.value) and str(train) in str(err.value)
    )
    report = OperaReport()
    sessions = list(load_opera([train], skip_unknown=True, report=report))
    assert report.skipped == {"scroll": 1} and report.sessions == 1
    (a,) = sessions
    assert [s.action for s in a.steps] == [
        ShopAction("type_and_submit", "search_box", "rice cooker"),
        ShopAction("click", "product_1.title"),
        ShopAction("terminate"),
    ]
    assert a.steps[0].page == "<p1/>" and a.steps[1].rationale == "Looks good"
    assert [s.timestamp for s in a.steps] == [0.0, 10.0, 40.0]
    mapped = list(
        load_opera(
            [train],
            action_map={
                "click": "click",
                "input": "type_and_submit",
                "terminate": "terminate",
                "scroll": "click",
            },
        )
    )
    assert {s.session_id for s in mapped} == {"A", "B"}


def test_opera_dir_splits(tmp_path: Path, rewardgym_home: Path) -> None:
    _write_opera(tmp_path / "opera")
    log, idx = resolve_sessions(tmp_path / "opera", "test")
    assert len(idx) == 1 and log.session_ids == ["A"]
    with pytest.raises(DataValidationError, match="scroll"):
        resolve_sessions(tmp_path / "opera", "train")


def test_hash_split_is_stable_and_disjoint(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    log, train = resolve_sessions(jsonl_sessions, "train")
    _, test = resolve_sessions(jsonl_sessions, "test")
    assert set(train).isdisjoint(test) and len(train) + len(test) == len(log)
    assert test and train
    for i in test:
        assert in_test_split(log.session_ids[i], test_fraction=0.2, split_seed=0)
    # Converted once and cached by content.
    assert len(list((rewardgym_home / "shop" / "converted").iterdir())) == 1
