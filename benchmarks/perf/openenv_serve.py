"""Steps per second of ``rewardgym serve`` on loopback, 1 and 8 clients at once, against stepping the same envs here.

Reads top to bottom: serve the env in this process (uvicorn in a thread, 127.0.0.1, a free port),
then for each ``--clients`` value open that many OpenEnv sessions (openenv-core's
``GenericEnvClient``, one WebSocket each) and let every one play ``--episodes`` seeded episodes
of ``--steps`` uniformly random actions (sent as text indices), all at once; then play the same
episodes, same actions, by stepping the env locally in one loop. Prints the requests (resets and
steps) per second of each and their ratio. Both sides parse the same text actions and build
the same JSON-safe info, so the ratio is the cost of the server, the WebSocket and the JSON.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import tyro

from rewardgym.bounds import AT_LEAST_1, check_fields
from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.integrations.openenv_server import build_app, serving_in_thread
from rewardgym.integrations.text_env import json_safe, make_text_env, text_action


@dataclass(frozen=True)
class Config:
    """What to measure."""

    env_id: str = HOUSEHOLD_ID
    """The rewardgym env to serve (a Discrete env: actions are random indices)."""
    clients: tuple[Annotated[int, AT_LEAST_1], ...] = (1, 8)
    """Concurrent sessions, one run per value."""
    episodes: Annotated[int, AT_LEAST_1] = 4
    """Episodes per client."""
    steps: Annotated[int, AT_LEAST_1] = 20
    """Steps per episode at most (an episode that ends earlier is reset)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def plans(config: Config, client: int) -> list[tuple[int, list[str]]]:
    """The seeded episodes one client plays: ``(seed, actions as text)``."""
    env = make_text_env(config.env_id)
    n = int(env.action_space.n)  # type: ignore[attr-defined]
    rng = np.random.default_rng(client)
    return [
        (client * 1000 + e, [str(a) for a in rng.integers(0, n, size=config.steps)])
        for e in range(config.episodes)
    ]


async def play_remote(url: str, episodes: list[tuple[int, list[str]]]) -> int:
    """Play ``episodes`` through one session; return the number of requests sent."""
    from openenv.core import GenericEnvClient

    requests = 0
    async with GenericEnvClient(base_url=url) as client:
        for seed, actions in episodes:
            await client.reset(seed=seed)
            requests += 1
            for text in actions:
                result = await client.step({"action": text})
                requests += 1
                if result.done:
                    break
    return requests


def play_local(config: Config, episodes: list[tuple[int, list[str]]]) -> int:
    """Play ``episodes`` on a local env, with the server's text parsing and JSON-safe info."""
    env = make_text_env(config.env_id)
    requests = 0
    for seed, actions in episodes:
        json_safe(env.reset(seed=seed)[1])
        requests += 1
        for text in actions:
            *_, terminated, truncated, info = env.step(text_action(env, text))
            json_safe(info)
            requests += 1
            if terminated or truncated:
                break
    return requests


def run(config: Config) -> list[dict[str, float]]:
    """Measure every client count against one server; print requests per second and the ratios."""
    rows = []
    app = build_app(config.env_id, max_sessions=max(config.clients))
    with serving_in_thread(app) as url:
        for clients in config.clients:
            work = [plans(config, c) for c in range(clients)]

            async def all_clients(work: list[list[tuple[int, list[str]]]] = work) -> int:
                return sum(await asyncio.gather(*(play_remote(url, w) for w in work)))

            wall = time.perf_counter()
            served = asyncio.run(all_clients())
            served_s = time.perf_counter() - wall
            wall = time.perf_counter()
            local = sum(play_local(config, w) for w in work)
            local_s = time.perf_counter() - wall
            assert served == local, f"served {served} requests, local {local}"
            rows.append(
                {
                    "clients": float(clients),
                    "requests": float(served),
                    "served_per_s": served / served_s,
                    "local_per_s": local / local_s,
                }
            )
    print(f"{config.env_id}: requests (resets + steps) per second")
    print("| clients | requests | served/s | local/s | served / local |")
    print("|---|---|---|---|---|")
    for row in rows:
        ratio = row["served_per_s"] / row["local_per_s"]
        print(
            f"| {row['clients']:.0f} | {row['requests']:.0f} | {row['served_per_s']:.0f} | "
            f"{row['local_per_s']:.0f} | {ratio:.3f} |"
        )
    return rows


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
