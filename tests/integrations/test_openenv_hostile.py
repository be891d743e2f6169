"""``rewardgym serve`` against a hostile client: no privileged info, idle sessions freed, bad input a 4xx with its reason."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from openenv import GenericEnvClient
from starlette.testclient import TestClient

from rewardgym.envs import rewardgym_ids
from rewardgym.errors import UserError
from rewardgym.integrations.openenv_guard import IDLE_CLOSE_CODE
from rewardgym.integrations.openenv_server import build_app, serving_in_thread
from rewardgym.integrations.text_env import PUBLIC_INFO, make_text_env

HOUSEHOLD = "rewardgym/Household-v1"
REPLY = '{"rationale": "I am done.", "action": {"type": "terminate"}}'
PRIVATE = ("truth", "truth_rationale", "goal", "goal_flags", "program", "logged_action")


def ws_url(url: str) -> str:
    return url.replace("http://", "ws://") + "/ws"


@pytest.fixture(scope="module")
def household() -> Iterator[str]:
    with serving_in_thread(build_app(HOUSEHOLD, max_sessions=2)) as url:
        yield url


def test_every_env_id_has_a_documented_public_info() -> None:
    assert set(PUBLIC_INFO) == set(rewardgym_ids())


@pytest.mark.parametrize("env_id", rewardgym_ids())
def test_served_info_is_the_public_info_only(env_id: str) -> None:
    env = make_text_env(env_id)
    _, local_info = env.reset(seed=0)
    discrete = hasattr(env.action_space, "n")
    action = "0" if discrete else REPLY
    private_values = [
        json.dumps(local_info[key]) for key in PRIVATE if isinstance(local_info.get(key), str)
    ]
    with (
        TestClient(build_app(env_id, max_sessions=1)) as client,
        client.websocket_connect("/ws") as ws,
    ):
        ws.send_text(json.dumps({"type": "reset", "data": {"seed": 0}}))
        reset = ws.receive_text()
        ws.send_text(json.dumps({"type": "step", "data": {"action": action}}))
        step = ws.receive_text()
    for answer in (reset, step):
        info = json.loads(answer)["data"]["observation"]["info"]
        assert set(info) <= PUBLIC_INFO[env_id], set(info) - PUBLIC_INFO[env_id]
        assert not set(info) & set(PRIVATE)
        for value in private_values:  # nor anywhere else in what is sent
            assert value not in answer


def test_idle_sessions_are_closed_and_their_slots_freed() -> None:
    app = build_app(HOUSEHOLD, max_sessions=2, session_timeout_s=0.5)

    async def scenario(url: str) -> tuple[list[int | None], str]:
        idle = [await websockets.connect(ws_url(url)) for _ in range(2)]  # every slot, silent
        await asyncio.sleep(2.0)
        codes = [ws.close_code for ws in idle]
        async with GenericEnvClient(base_url=url) as client:  # a slot is free again
            result = await client.reset(seed=3)
        return codes, str(result.observation["text"])

    with serving_in_thread(app) as url:
        codes, text = asyncio.run(asyncio.wait_for(scenario(url), 30))
        assert codes == [IDLE_CLOSE_CODE, IDLE_CLOSE_CODE]
        assert text.startswith("Instruction:")
        # Sessions opened over HTTP (openenv/session/create) are freed by the same timeout.
        http = httpx.Client(base_url=url, timeout=10)
        create = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create", "params": {}}
        for _ in range(2):
            assert "session_id" in http.post("/mcp", json=create).json()["result"]
        assert "error" in http.post("/mcp", json=create).json()  # at capacity
        deadline = time.monotonic() + 15
        while "error" in (answer := http.post("/mcp", json=create).json()):
            assert time.monotonic() < deadline, answer
            time.sleep(0.5)


def test_bad_input_is_a_4xx_with_its_reason(household: str) -> None:
    http = httpx.Client(base_url=household, timeout=10)
    for body, status, reason in [
        ({"options": {"bogus": 1}}, 400, "bogus"),
        ({"options": "fast"}, 400, "is not an object"),
        ({"options": {"task": 999}}, 400, "999"),
        ({"speed": 3}, 400, "speed"),
    ]:
        answer = http.post("/reset", json=body)
        assert (answer.status_code, reason in answer.text) == (status, True), answer.text
    for raw in (b'{"seed": 1e400}', b'{"seed": NaN}', b'{"seed": -1}'):
        answer = http.post("/reset", content=raw, headers={"content-type": "application/json"})
        assert answer.status_code == 422 and "seed" in answer.text, answer.text
    nan = http.post(
        "/step",
        content=b'{"action": {"action": NaN}}',
        headers={"content-type": "application/json"},
    )
    assert nan.status_code == 422 and "action" in nan.text
    superscript = http.post("/step", json={"action": {"action": "²"}})
    assert superscript.status_code == 400 and "neither an index" in superscript.text

    async def over_the_socket() -> list[str]:
        errors = []
        async with GenericEnvClient(base_url=household) as client:
            for call in (
                client.reset(seed=1e400),
                client.reset(options={"task": 999}),
                client.reset(seed=2),  # the session survived both
                client.step({"action": [1, 2]}),
                client.step({"action": "9" * 5000}),
            ):
                try:
                    await call
                except RuntimeError as err:
                    errors.append(str(err))
        return errors

    errors = asyncio.run(asyncio.wait_for(over_the_socket(), 30))
    assert len(errors) == 4
    assert "seed=inf is not a whole number" in errors[0]
    assert "999" in errors[1]
    assert "action" in errors[2] and "Input should be" in errors[2]  # the details, not just a code
    assert "out of range" in errors[3]


def test_the_web_interface_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENABLE_WEB_INTERFACE", "true")
    with pytest.raises(UserError, match="shared by every"):
        build_app(HOUSEHOLD)


def test_a_non_object_message_is_answered_and_the_session_goes_on(household: str) -> None:
    async def scenario() -> list[Any]:
        async with websockets.connect(ws_url(household)) as ws:
            answers = []
            for text in ("[1, 2, 3]", "7", '"step"', '{"type": "reset", "data": {"seed": 4}}'):
                await ws.send(text)
                answers.append(json.loads(await ws.recv()))
            return answers

    answers = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert [a["type"] for a in answers] == ["error", "error", "error", "observation"]
    assert "not a list" in answers[0]["data"]["message"]
