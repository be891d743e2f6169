"""Requests per second of a separate ``rewardgym serve`` process on loopback, 1 and 8 clients, against stepping the same envs here.

Reads top to bottom. For each row (an env, its reward and options) start ``rewardgym serve`` as
its own process on a free 127.0.0.1 port, wait for ``/health`` and play one episode untimed (the
first connection's set-up). Then, ``--rounds`` times, for
each ``--clients`` value: open that many OpenEnv sessions from this process
(``openenv.GenericEnvClient``, one WebSocket each) and let every one play ``--episodes`` seeded
episodes of at most ``--steps`` actions, all at once; then play the same episodes, same actions,
here in one loop, through the same text parsing and public info as the server. Served and local
runs alternate, so load from elsewhere falls on both alike. Prints, per row and client count,
the median over rounds of requests (resets and steps) per second served and local, their
range, and the median and range of the per-round ratio.

Rows: ``household`` (Household-v1, random action indices), ``shop`` (ShopSession-v0 with shop-r1,
about 6 KB an observation, a fixed search-then-stop reply), ``virtualhome`` (VirtualHome-v0,
random indices) and ``shop-600k`` (ShopSession-v0 over a session log written here whose pages
make observations of ``--obs-chars`` characters, 600,000 by default).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import gymnasium as gym
import httpx
import numpy as np
import tyro

from rewardgym.bounds import AT_LEAST_1, check_fields
from rewardgym.envs import HOUSEHOLD_ID, SHOP_SESSION_ID, VIRTUALHOME_ID
from rewardgym.envs.shopping.schema import ShopAction, ShopSession, ShopStep
from rewardgym.envs.shopping.session_log import write_session_log
from rewardgym.integrations.text_env import (
    make_text_env,
    observation_text,
    public_info,
    text_action,
)

SHOP_REPLIES = (
    '{"rationale": "I look for a mat.", "action": {"type": "type_and_submit", '
    '"name": "search_input", "text": "yoga mat"}}',
    '{"rationale": "Nothing fits.", "action": {"type": "terminate"}}',
)
"""What a shopper client replies: a search, then (every later step) stop."""
ROWS = ("household", "shop", "virtualhome", "shop-600k")


@dataclass(frozen=True)
class Config:
    """What to measure."""

    rows: tuple[str, ...] = ROWS
    """Which rows: household, shop, virtualhome, shop-600k."""
    clients: tuple[Annotated[int, AT_LEAST_1], ...] = (1, 8)
    """Concurrent sessions, one measurement per value and round."""
    rounds: Annotated[int, AT_LEAST_1] = 5
    """Repeated rounds per row and client count (the table gives their median and range)."""
    episodes: Annotated[int, AT_LEAST_1] = 4
    """Episodes per client and round."""
    steps: Annotated[int, AT_LEAST_1] = 20
    """Actions per episode at most (an episode that ends earlier is over)."""
    obs_chars: Annotated[int, AT_LEAST_1] = 600_000
    """Characters of an observation in the shop-600k row."""
    start_timeout_s: Annotated[float, AT_LEAST_1] = 120.0
    """How long a server may take to answer /health."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range and rows this script does not know."""
        check_fields(self)
        unknown = sorted(set(self.rows) - set(ROWS))
        if unknown:
            raise ValueError(f"--rows {' '.join(unknown)}: use some of {' '.join(ROWS)}")


@dataclass(frozen=True)
class Row:
    """One served env: its id, reward and keyword arguments."""

    name: str
    env_id: str
    reward: str | None = None
    env_kwargs: dict[str, str] = field(default_factory=dict)


def big_session_log(folder: Path, chars: int, sessions: int, steps: int) -> Path:
    """A session log of ``sessions`` sessions of ``steps`` steps whose every page is about ``chars`` characters."""
    item = '<li><a name="product_{i}">Product {i}: a plain grey yoga mat, 6 mm</a></li>'
    items = "".join(item.format(i=i) for i in range(chars // len(item) + 1))
    page = f"<html><body><ul>{items}</ul></body></html>"[:chars]
    logged = [
        ShopSession(
            session_id=f"big-{s}",
            steps=tuple(
                ShopStep(page=page, action=ShopAction(type="click", name="product_1"), rationale="")
                for _ in range(steps)
            ),
        )
        for s in range(sessions)
    ]
    return write_session_log(logged, folder / "sessions").path


def rows(config: Config, folder: Path) -> list[Row]:
    """The rows ``config`` asks for, the large-observation log written into ``folder`` if needed."""
    made = {
        "household": lambda: Row("household", HOUSEHOLD_ID),
        "shop": lambda: Row("shop", SHOP_SESSION_ID, "shop-r1"),
        "virtualhome": lambda: Row("virtualhome", VIRTUALHOME_ID),
        "shop-600k": lambda: Row(
            "shop-600k",
            SHOP_SESSION_ID,
            "shop-r1",
            {
                "data": str(big_session_log(folder, config.obs_chars, 8, config.steps)),
                "split": "all",
                "context": "latest",
            },
        ),
    }
    return [made[name]() for name in config.rows]


def plans(
    row: Row, env: gym.Env[Any, Any], config: Config, client: int
) -> list[tuple[int, list[str]]]:
    """The seeded episodes one client plays: ``(seed, replies)``."""
    rng = np.random.default_rng(client)
    out = []
    for episode in range(config.episodes):
        if isinstance(env.action_space, gym.spaces.Discrete):
            actions = [str(a) for a in rng.integers(0, int(env.action_space.n), config.steps)]
        else:
            actions = [SHOP_REPLIES[min(i, 1)] for i in range(config.steps)]
        out.append((client * 1000 + episode, actions))
    return out


@contextlib.contextmanager
def served(row: Row, config: Config, folder: Path) -> Iterator[str]:
    """``rewardgym serve`` for ``row`` in its own process; its URL until the block ends."""
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    command = [sys.executable, "-m", "rewardgym.cli", "serve", row.env_id, "--port", str(port)]
    command += ["--max-sessions", str(max(config.clients))]
    command += ["--reward", row.reward] if row.reward else []
    if row.env_kwargs:  # one --env-kwargs with every pair (a repeated flag keeps only its last)
        command += ["--env-kwargs", *(part for pair in row.env_kwargs.items() for part in pair)]
    log = folder / f"serve-{row.name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + config.start_timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"rewardgym serve {row.env_id} stopped: {log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"rewardgym serve {row.env_id} never answered /health")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


async def play_remote(url: str, episodes: list[tuple[int, list[str]]]) -> tuple[int, int]:
    """Play ``episodes`` through one session; the requests sent and the observation characters received."""
    from openenv import GenericEnvClient

    requests, chars = 0, 0
    async with GenericEnvClient(base_url=url, message_timeout_s=600) as client:
        for seed, actions in episodes:
            result = await client.reset(seed=seed)
            requests, chars = requests + 1, chars + len(result.observation["text"])
            for text in actions:
                result = await client.step({"action": text})
                requests, chars = requests + 1, chars + len(result.observation["text"])
                if result.done:
                    break
    return requests, chars


def play_local(
    env: gym.Env[Any, Any], env_id: str, episodes: list[tuple[int, list[str]]]
) -> tuple[int, int]:
    """Play ``episodes`` here, with the server's text parsing, observation text and public info."""
    requests, chars = 0, 0
    for seed, actions in episodes:
        obs, info = env.reset(seed=seed)
        public_info(env_id, info)
        requests, chars = requests + 1, chars + len(observation_text(obs))
        for text in actions:
            obs, _, terminated, truncated, info = env.step(text_action(env, text))
            public_info(env_id, info)
            requests, chars = requests + 1, chars + len(observation_text(obs))
            if terminated or truncated:
                break
    return requests, chars


def measure(row: Row, config: Config, folder: Path) -> list[dict[str, float]]:
    """Every round of every client count for one row: requests per second served and local."""
    envs = [
        make_text_env(row.env_id, row.reward, **row.env_kwargs) for _ in range(max(config.clients))
    ]
    results = []
    with served(row, config, folder) as url:
        asyncio.run(play_remote(url, plans(row, envs[0], config, 0)[:1]))  # warm up, not timed
        for round_ in range(config.rounds):
            for clients in config.clients:
                work = [plans(row, envs[c], config, c) for c in range(clients)]

                async def all_clients(
                    work: list[list[tuple[int, list[str]]]] = work,
                ) -> list[tuple[int, int]]:
                    return list(await asyncio.gather(*(play_remote(url, w) for w in work)))

                wall = time.perf_counter()
                answers = asyncio.run(all_clients())
                served_s = time.perf_counter() - wall
                wall = time.perf_counter()
                local = [play_local(envs[c], row.env_id, w) for c, w in enumerate(work)]
                local_s = time.perf_counter() - wall
                # The same episodes on both sides: as many requests, as many characters.
                assert sorted(answers) == sorted(local), f"served {answers}, local {local}"
                requests = sum(r for r, _ in answers)
                results.append(
                    {
                        "round": float(round_),
                        "clients": float(clients),
                        "requests": float(requests),
                        "obs_chars": sum(c for _, c in answers) / requests,
                        "served_per_s": requests / served_s,
                        "local_per_s": requests / local_s,
                    }
                )
    return results


def spread(values: list[float], digits: str) -> str:
    """``median (min-max)`` of ``values``."""
    return f"{statistics.median(values):{digits}} ({min(values):{digits}}-{max(values):{digits}})"


def run(config: Config) -> list[dict[str, Any]]:
    """Measure every row; print one table row per row and client count; return them."""
    table: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="rewardgym-perf-serve-") as tmp:
        for row in rows(config, Path(tmp)):
            results = measure(row, config, Path(tmp))
            for clients in config.clients:
                mine = [r for r in results if r["clients"] == clients]
                table.append(
                    {
                        "row": row.name,
                        "env": row.env_id + (f" + {row.reward}" if row.reward else ""),
                        "clients": clients,
                        "requests": int(mine[0]["requests"]),
                        "obs_chars": statistics.median(r["obs_chars"] for r in mine),
                        "served": [r["served_per_s"] for r in mine],
                        "local": [r["local_per_s"] for r in mine],
                        "ratio": [r["served_per_s"] / r["local_per_s"] for r in mine],
                    }
                )
    print(f"requests (resets + steps) per second; median (min-max) over {config.rounds} rounds")
    print(
        "| row | env | clients | requests a round | chars an observation | served/s | local/s | served / local |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for t in table:
        print(
            f"| {t['row']} | {t['env']} | {t['clients']} | {t['requests']} | {t['obs_chars']:.0f} | "
            f"{spread(t['served'], '.0f')} | {spread(t['local'], '.0f')} | {spread(t['ratio'], '.3f')} |"
        )
    return table


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
