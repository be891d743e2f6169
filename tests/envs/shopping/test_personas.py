"""Personas (issue 32, item 4): OPeRA's user table, the session log's persona column, the context block."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.context import approx_token_count, build_context
from rewardgym.envs.shopping.loaders import (
    load_jsonl,
    load_opera,
    load_opera_users,
    opera_user_files,
)
from rewardgym.envs.shopping.schema import DataValidationError, ShopAction, ShopSession, ShopStep
from rewardgym.envs.shopping.session_log import (
    LEGACY_SESSION_SCHEMA,
    SESSIONS_FILE,
    SessionLog,
    write_session_log,
)
from rewardgym.envs.shopping.session_sources import default_session_log, resolve_sessions
from rewardgym.envs.shopping.synthetic import (
    SyntheticShopperConfig,
    intent_for_session,
    persona_text,
)

USER = "324934a2-5d58-49d9-bae8-545fba660731"
"""OPeRA's session ids are ``{user uuid}_{start}_{end}``."""


def _opera(root: Path, *, users: list[dict] | None, sessions: list[dict] | None) -> Path:
    """An OPeRA-shaped folder with one two-step session of ``USER`` in each split."""
    variant = root / "OPeRA_filtered"
    sid = f"{USER}_2025-04-14T21:52:46Z_2025-04-14T21:55:50Z"
    rows = [
        {"session_id": sid, "timestamp": "2025-04-14T21:52:50Z", "action_type": "input",
         "semantic_id": "search_box", "simplified_html": "<p1/>", "input_text": "rice cooker",
         "rationale": "I need a rice cooker."},
        {"session_id": sid, "timestamp": "2025-04-14T21:53:00Z", "action_type": "terminate",
         "semantic_id": None, "simplified_html": "<p2/>", "input_text": None, "rationale": None},
    ]  # fmt: skip
    for split in ("train", "test"):
        (variant / "action").mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows), variant / "action" / f"{split}-0.parquet")
        for kind, table in (("user", users), ("session", sessions)):
            if table is not None:
                (variant / kind / split).mkdir(parents=True, exist_ok=True)
                pq.write_table(
                    pa.Table.from_pylist(table), variant / kind / split / f"{split}.parquet"
                )
    return root


def test_opera_user_table_gives_each_session_its_persona(
    tmp_path: Path, rewardgym_home: Path
) -> None:
    survey = [
        {"user_id": USER, "age": 34, "shopping_frequency": "weekly", "notes": None},
        {"user_id": "someone-else", "age": 51, "shopping_frequency": "", "notes": "x"},
    ]
    root = _opera(tmp_path / "opera", users=survey, sessions=None)
    log, positions = resolve_sessions(root, "train")
    assert log.has_personas and log.persona(positions[0]) == "age: 34\nshopping_frequency: weekly"
    env = gym.make(SHOP_SESSION_ID, data=root, split="train", context="compact", persona=True)
    obs, _ = env.reset(options={"session": 0})
    assert obs["context"].startswith("Shopper persona:\nage: 34\nshopping_frequency: weekly\n")
    plain = gym.make(SHOP_SESSION_ID, data=root, split="train", context="compact")
    assert "persona" not in plain.reset(options={"session": 0})[0]["context"]


def test_the_session_table_says_whose_session_it_is(tmp_path: Path) -> None:
    root = _opera(
        tmp_path / "opera",
        users=[{"user_id": "u7", "persona": "I buy for a family of four."}],
        sessions=[
            {"session_id": f"{USER}_2025-04-14T21:52:46Z_2025-04-14T21:55:50Z", "user_id": "u7"}
        ],
    )
    actions = sorted((root / "OPeRA_filtered" / "action").glob("train-*.parquet"))
    users, sessions = opera_user_files(actions, "train")
    (session,) = load_opera(actions, users=load_opera_users(users, sessions))
    assert session.persona == "I buy for a family of four."
    (without,) = load_opera(actions)
    assert without.persona is None


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ([{"id": "u1", "persona": "p"}], "field 'columns': missing the column 'user_id'"),
        ([{"user_id": "u1"}, {"user_id": ""}], "row 1 field 'user_id': must be a non-empty string"),
        ([{"user_id": "u1"}, {"user_id": "u1"}], "row 1 field 'user_id': duplicate user id"),
        ([{"user_id": "u1", "persona": 3}], "row 0 field 'persona': must be a string or null"),
    ],
)
def test_a_bad_user_table_names_file_row_and_field(
    tmp_path: Path, table: list[dict], needle: str
) -> None:
    path = tmp_path / "users.parquet"
    pq.write_table(pa.Table.from_pylist(table), path)
    with pytest.raises(DataValidationError) as err:
        load_opera_users([path])
    assert str(path) in str(err.value) and needle in str(err.value)


def test_a_session_table_without_user_ids_is_refused(tmp_path: Path) -> None:
    users, sessions = tmp_path / "u.parquet", tmp_path / "s.parquet"
    pq.write_table(pa.Table.from_pylist([{"user_id": "u1", "persona": "p"}]), users)
    pq.write_table(pa.Table.from_pylist([{"session_id": "s1"}]), sessions)
    with pytest.raises(DataValidationError, match=r"missing the columns \['user_id'\]"):
        load_opera_users([users], [sessions])


def test_a_session_twice_in_the_session_table_is_refused(tmp_path: Path) -> None:
    """Issue 39, item 10: the second row silently gave the session another user's persona."""
    users, sessions = tmp_path / "u.parquet", tmp_path / "s.parquet"
    people = [{"user_id": "u1", "persona": "p1"}, {"user_id": "u2", "persona": "p2"}]
    pq.write_table(pa.Table.from_pylist(people), users)
    owners = [{"session_id": "s1", "user_id": "u1"}, {"session_id": "s1", "user_id": "u2"}]
    pq.write_table(pa.Table.from_pylist(owners), sessions)
    with pytest.raises(DataValidationError) as err:
        load_opera_users([users], [sessions])
    assert f"{sessions}:row 1 field 'session_id': duplicate session id (first at " in str(err.value)


def _session(sid: str, persona: str | None) -> ShopSession:
    step = ShopStep("<html><a name='buy'>Buy</a></html>", ShopAction("terminate"))
    return ShopSession(sid, (step,), persona)


def test_personas_round_trip_and_a_log_without_the_column_still_opens(tmp_path: Path) -> None:
    write_session_log([_session("a", "I like deals."), _session("b", None)], tmp_path / "log")
    log = SessionLog(tmp_path / "log")
    assert [log.session(i).persona for i in range(2)] == ["I like deals.", None]
    # A log written before the persona column: its session table has the legacy schema.
    raw = (tmp_path / "log" / SESSIONS_FILE).read_bytes()
    index = pa.ipc.open_file(pa.BufferReader(raw)).read_all()
    legacy = index.drop_columns(["persona"])
    assert legacy.schema == LEGACY_SESSION_SCHEMA
    with (
        pa.OSFile(str(tmp_path / "log" / SESSIONS_FILE), "wb") as sink,
        pa.ipc.new_file(sink, LEGACY_SESSION_SCHEMA) as writer,
    ):
        writer.write_table(legacy)
    old = SessionLog(tmp_path / "log")
    assert [old.persona(i) for i in range(2)] == [None, None] and not old.has_personas
    assert old.session(0).steps == log.session(0).steps


def test_jsonl_carries_a_persona_and_refuses_one_that_is_not_text(tmp_path: Path) -> None:
    good = {"session_id": "s", "persona": "I am frugal.", "steps": [
        {"page": "<p/>", "action": {"type": "terminate"}}]}  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "session_id": "t", "persona": 1}))
    sessions = load_jsonl(path)
    assert next(sessions).persona == "I am frugal."
    with pytest.raises(DataValidationError, match="line 2 field 'persona'"):
        next(sessions)


def test_the_embedded_corpus_carries_the_synthetic_shoppers_personas() -> None:
    log = default_session_log()
    config = SyntheticShopperConfig()
    for index in (0, 1, 7):
        assert log.persona(index) == persona_text(intent_for_session(config, index))
    text = log.persona(1)
    assert text is not None and text.startswith(("I shop to buy.", "I like to browse"))
    # What the visit is for stays hidden: no category, budget or wanted feature.
    intent = intent_for_session(config, 1)
    assert f"{intent.budget:g}" not in text and not any(f in text for f in intent.must)


def test_a_persona_block_opens_the_context_and_stays_within_the_budget() -> None:
    history = [ShopStep("<html><a name='x'>X</a></html>", ShopAction("click", "x"), "I look.")]
    page = "<html>" + "".join(f"<a name='item_{i}'>Item {i}</a>" for i in range(40)) + "</html>"
    for mode in ("session", "latest", "compact"):
        budget = 120
        text = build_context(history, page, mode=mode, max_tokens=budget, persona="I am thrifty.")
        assert text.startswith("Shopper persona:\nI am thrifty.\n")
        assert approx_token_count(text) <= budget
        assert build_context(history, page, mode=mode) == build_context(
            history, page, mode=mode, persona=None
        )
    long = " ".join(["I compare every product carefully."] * 40)
    text = build_context([], page, mode="compact", max_tokens=100, persona=long)
    head = text.split("\nStep 1 (current)")[0]
    assert head.startswith("Shopper persona:\n") and approx_token_count(head) <= 50
    assert "item_0" in text.split("Step 1 (current)")[1]
