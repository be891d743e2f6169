"""``rewardgym serve`` through openenv's own client: sessions match local stepping, free on disconnect, refuse bad input."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from openenv import GenericEnvClient
from websockets.exceptions import ConnectionClosed

from rewardgym import __version__
from rewardgym.errors import UserError
from rewardgym.integrations.openenv_serve import Serve
from rewardgym.integrations.openenv_server import build_app, serving_in_thread
from rewardgym.integrations.text_env import make_text_env, observation_text, public_info

CAP = 4096
"""The request size cap of the test servers (bytes)."""
SESSIONS = 3


def serving(app: Any, ws_max_size: int = CAP) -> contextlib.AbstractContextManager[str]:
    return serving_in_thread(app, max_request_bytes=ws_max_size)


@pytest.fixture(scope="module")
def household() -> Iterator[str]:
    app = build_app("rewardgym/Household-v1", max_sessions=SESSIONS, max_request_bytes=CAP)
    with serving(app) as url:
        yield url


def local_episode(env_id: str, reward: str | None, seed: int, actions: list[str]) -> list[Any]:
    """What a session should answer: the same episode stepped here, made JSON-safe like the server."""
    env = make_text_env(env_id, reward)
    obs, info = env.reset(seed=seed)
    out: list[Any] = [(observation_text(obs), None, False, public_info(env_id, info))]
    for text in actions:
        action = text if reward else int(text)
        obs, r, term, trunc, info = env.step(action)
        out.append(
            (observation_text(obs), float(r), bool(term or trunc), public_info(env_id, info))
        )
        if term or trunc:
            break
    return out


async def open_session(url: str, seed: int, wait_s: float = 20.0) -> tuple[GenericEnvClient, Any]:
    """A client whose session has reset to ``seed``, waiting while the server is at capacity.

    A client that closed its session a moment ago may still hold its slot: the server frees it
    when it has read the close, so a test that follows another waits for it here.
    """
    deadline = time.monotonic() + wait_s
    while True:
        client = GenericEnvClient(base_url=url)
        try:
            return client, await client.reset(seed=seed)
        except (RuntimeError, ConnectionClosed) as err:
            await client.disconnect()
            if not refused_for_capacity(err) or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


def refused_for_capacity(err: Exception) -> bool:
    """The server's answer to a session over capacity: its error message, or (when the client's
    first message crosses the server's close) the connection it closed."""
    return isinstance(err, ConnectionClosed) or "CAPACITY_REACHED" in str(err)


async def remote_episode(url: str, seed: int, actions: list[str]) -> list[Any]:
    client, result = await open_session(url, seed)
    async with client:
        out: list[Any] = [(result.observation["text"], None, False, result.observation["info"])]
        for text in actions:
            result = await client.step({"action": text})
            obs = result.observation
            out.append((obs["text"], result.reward, result.done, obs["info"]))
            if result.done:
                break
        return out


async def gather(*coroutines: Any) -> list[Any]:
    return list(await asyncio.wait_for(asyncio.gather(*coroutines), timeout=60))


def test_concurrent_sessions_equal_local_episodes(household: str) -> None:
    rng = np.random.default_rng(0)
    plans = {seed: [str(a) for a in rng.integers(0, 61, size=12)] for seed in (11, 12, 13)}
    remote = asyncio.run(gather(*(remote_episode(household, s, a) for s, a in plans.items())))
    for (seed, actions), got in zip(plans.items(), remote, strict=True):
        assert got == local_episode("rewardgym/Household-v1", None, seed, actions)
    assert remote[0][0][0] != remote[1][0][0]  # different episodes, not one shared env


def test_shop_r1_reward_by_name_matches_the_local_wrapper() -> None:
    outputs = [
        '{"rationale": "I look for shoes.", "action": {"type": "type_and_submit", "name": "search", "text": "shoes"}}',
        '{"rationale": "done", "action": {"type": "terminate"}}',
        "not json",
    ]
    app = build_app("rewardgym/ShopSession-v0", "shop-r1", max_sessions=2)
    with serving(app, ws_max_size=1_000_000) as url:
        remote = asyncio.run(gather(*(remote_episode(url, s, outputs) for s in (0, 1))))
    for seed, got in zip((0, 1), remote, strict=True):
        want = local_episode("rewardgym/ShopSession-v0", "shop-r1", seed, outputs)
        assert got == want
        assert got[1][1] == got[1][3]["reward_terms"]["total"]


def test_a_client_that_disconnects_frees_its_session(household: str) -> None:
    async def scenario() -> str:
        clients = [(await open_session(household, 1))[0] for _ in range(SESSIONS)]
        try:
            extra = GenericEnvClient(base_url=household)
            with pytest.raises((RuntimeError, ConnectionClosed)) as refused:
                await extra.reset(seed=1)
            assert refused_for_capacity(refused.value)
            await extra.disconnect()
            assert clients[0]._ws is not None
            clients[0]._ws.transport.abort()  # mid-episode, no close message: the socket drops
            late, result = await open_session(household, 2)  # the dropped session's slot
            await late.disconnect()
            return str(result.observation["text"])
        finally:
            for client in clients[1:]:
                await client.disconnect()

    assert asyncio.run(asyncio.wait_for(scenario(), 60)).startswith("Instruction:")


def test_malformed_requests_are_refused_and_the_server_keeps_serving(household: str) -> None:
    http = httpx.Client(base_url=household, timeout=10)
    assert http.post("/step", json={"action": {"action": "fly"}}).status_code == 400
    no_session = http.post("/step", json={"action": {"action": "0"}})
    assert no_session.status_code == 409 and "/ws" in no_session.json()["detail"]
    assert http.post("/step", json={"action": {"bogus": 1}}).status_code == 422
    assert http.post("/step", content=b"x" * (CAP + 1)).status_code == 413

    async def websocket_abuse() -> None:
        client, _ = await open_session(household, 4)  # a session with an episode running
        ws = client._ws  # the client's own WebSocket, to send what the client never would
        assert ws is not None
        await ws.send("{not json")
        assert '"INVALID_JSON"' in str(await ws.recv())
        await ws.send('{"type": "step", "data": {"action": "fly away"}}')
        assert "neither an index" in str(await ws.recv())
        await ws.send('{"type": "step", "data": {"action": "0"}}')
        assert '"observation"' in str(await ws.recv())  # the session survived both
        await ws.send('{"type": "step", "data": {"action": "' + "x" * CAP + '"}}')
        with pytest.raises(Exception, match="1009"):
            await ws.recv()
        await client.disconnect()

    asyncio.run(asyncio.wait_for(websocket_abuse(), 30))
    assert http.get("/health").status_code == 200
    episode = asyncio.run(gather(remote_episode(household, 5, ["0", "1"])))[0]
    assert episode == local_episode("rewardgym/Household-v1", None, 5, ["0", "1"])


def test_rewards_by_name_are_refused_where_they_cannot_score() -> None:
    with pytest.raises(UserError, match="only rewardgym/ShopSession-v0"):
        make_text_env("rewardgym/Household-v1", "shop-r1")
    with pytest.raises(UserError, match="shop-r1/no-dars"):
        make_text_env("rewardgym/ShopSession-v0", "shop-r2")


def test_actions_as_openenv_clients_send_them_equal_text_actions() -> None:
    # verifiers' openenv taskset sends a household reply "3" as {"action": 3} and a Shop-R1
    # reply as the reply object itself; both step exactly as the reply's text steps locally.
    reply = {"rationale": "I look for shoes.", "action": {"type": "click", "name": "search"}}
    app = build_app("rewardgym/ShopSession-v0", "shop-r1", max_sessions=1)
    with serving(app, ws_max_size=1_000_000) as url:
        got = asyncio.run(gather(remote_object_episode(url, 0, [reply, {"action": "oops"}])))[0]
    want = local_episode("rewardgym/ShopSession-v0", "shop-r1", 0, [json.dumps(reply), "oops"])
    assert got == want and got[1][1] > 0  # the object scored as the text does
    app = build_app("rewardgym/Household-v1", max_sessions=1)
    with serving(app) as url:
        got = asyncio.run(gather(remote_object_episode(url, 6, [{"action": 3}, {"action": "4"}])))
    assert got[0] == local_episode("rewardgym/Household-v1", None, 6, ["3", "4"])


async def remote_object_episode(url: str, seed: int, actions: list[dict[str, Any]]) -> list[Any]:
    client, result = await open_session(url, seed)
    async with client:
        out: list[Any] = [(result.observation["text"], None, False, result.observation["info"])]
        for action in actions:
            result = await client.step(action)
            obs = result.observation
            out.append((obs["text"], result.reward, result.done, obs["info"]))
        return out


def test_metadata_names_the_env_its_reward_options_and_version() -> None:
    kwargs = Serve(env_id="rewardgym/ShopSession-v0", split="test").make_kwargs()
    app = build_app("rewardgym/ShopSession-v0", "shop-r1/no-dars", env_kwargs=kwargs)
    with serving(app) as url:
        meta = httpx.get(f"{url}/metadata", timeout=10).json()
        info = asyncio.run(gather(remote_episode(url, 0, [])))[0][0][3]
    assert meta["name"] == "rewardgym/ShopSession-v0" and meta["version"] == __version__
    assert "shop-r1/no-dars" in meta["description"] and "split='test'" in meta["description"]
    assert "truncated" in meta["readme_content"] and "exact_match" in meta["readme_content"]
    test_split = make_text_env("rewardgym/ShopSession-v0", split="test")
    assert info["session_id"] == test_split.reset(seed=0)[1]["session_id"]  # the test split's
    assert (
        info["session_id"]
        != make_text_env("rewardgym/ShopSession-v0").reset(seed=0)[1]["session_id"]
    )


def test_env_options_are_read_as_data_collect_reads_them() -> None:
    serve = Serve(
        env_id="rewardgym/Household-v1", env_kwargs={"tasks": "[3, 7]", "layout": "shifted"}
    )
    assert serve.make_kwargs() == {"tasks": [3, 7], "layout": "shifted"}
    for bad in ("[" * 100_000, "[1, 2", '["a", true]'):
        with pytest.raises(UserError, match="--env-kwargs tasks"):
            Serve(env_id="rewardgym/Household-v1", env_kwargs={"tasks": bad}).make_kwargs()
    with pytest.raises(UserError, match="takes no such option"):
        build_app("rewardgym/Household-v1", env_kwargs={"split": "test"})
    with pytest.raises(UserError, match="given twice"):
        Serve(env_id="rewardgym/ShopSession-v0", split="test", env_kwargs={"split": "train"})


def test_the_serve_command_listens_on_loopback_and_logs_no_traceback(tmp_path: Any) -> None:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    rewardgym = Path(sys.executable).parent / "rewardgym"
    command = [str(rewardgym), "serve", "rewardgym/Household-v1", "--port", str(port)]
    command += ["--env-kwargs", "instructions", "fine"]
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, (tmp_path / "serve.log").read_text()
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "rewardgym serve never answered /health"
            time.sleep(0.3)
        url = f"http://127.0.0.1:{port}"
        episode = asyncio.run(gather(remote_episode(url, 9, ["3", "walk to kitchen"])))[0]
        local = make_text_env("rewardgym/Household-v1", instructions="fine")
        assert episode[0][0] == observation_text(local.reset(seed=9)[0])
        assert episode[2][3]["action_name"] == "walk to kitchen"
        asyncio.run(asyncio.wait_for(drop_clients(url, 6), 60))
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
    text = (tmp_path / "serve.log").read_text()
    assert "serving rewardgym/Household-v1" in text
    assert "Traceback" not in text and "Exception in ASGI" not in text, text[:3000]


async def drop_clients(url: str, count: int) -> None:
    """Clients that drop their sockets mid-episode, and one that sends a non-object message first."""
    for n in range(count):
        client, _ = await open_session(url, n)
        assert client._ws is not None
        if n == 0:
            await client._ws.send("[1, 2, 3]")
            assert "not a list" in str(await client._ws.recv())
        client._ws.transport.abort()
        await asyncio.sleep(0.2)
