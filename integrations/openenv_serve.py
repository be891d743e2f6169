"""``rewardgym serve ENV_ID``: one rewardgym env, its options and reward, served to OpenEnv clients until Ctrl-C.

The env's options are given as ``data collect`` takes them: ``--split test`` (ShopSession's and
VirtualHome's split; Household's is ``--env-kwargs instructions fine``) and ``--env-kwargs KEY
VALUE ...`` for any keyword argument of the env, a list written as JSON (``tasks '[3, 7]'``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Annotated, Any

import tyro

from rewardgym.bounds import AT_LEAST_1, POSITIVE, Range, check_fields
from rewardgym.envs.conventions import brief
from rewardgym.envs.registration import check_registered
from rewardgym.errors import UserError
from rewardgym.integrations.openenv_server import MAX_REQUEST_BYTES, SESSION_TIMEOUT_S, build_app

MAX_LIST_TEXT = 100_000
"""Longest JSON list an ``--env-kwargs`` value may be (task ids or names: a few hundred bytes)."""


def parsed_env_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with each text value that opens a JSON list read as a list of ids or names.

    Example:
        >>> parsed_env_kwargs({"tasks": "[3, 7]", "layout": "shifted"})
        {'tasks': [3, 7], 'layout': 'shifted'}
    """
    out = dict(kwargs)
    for key, value in kwargs.items():
        if not (isinstance(value, str) and value.lstrip().startswith("[")):
            continue
        try:
            if len(value) > MAX_LIST_TEXT:
                raise ValueError(f"{len(value)} characters, over {MAX_LIST_TEXT}")
            items = json.loads(value)
        except (ValueError, RecursionError) as err:
            raise UserError(
                f"--env-kwargs {key} {brief(value)} is not a JSON list ({err}): write a list "
                "as JSON, e.g. '[3, 7]' or '[\"make_coffee\"]'"
            ) from None
        if not all(isinstance(i, int | str) and not isinstance(i, bool) for i in items):
            raise UserError(f"--env-kwargs {key} {brief(value)}: a list holds ids or names")
        out[key] = items
    return out


@dataclass(frozen=True)
class Serve:
    """Serve a rewardgym env to OpenEnv clients on HOST:PORT (127.0.0.1 unless --host), until Ctrl-C."""

    env_id: Annotated[str, tyro.conf.Positional, tyro.conf.arg(metavar="ENV_ID")]
    """A rewardgym env id, e.g. rewardgym/ShopSession-v0 or rewardgym/Household-v1."""
    reward: str | None = None
    """A reward wrapper by name: shop-r1 (the paper's weights) or shop-r1/NAME (a REWARDS entry)."""
    split: str | None = None
    """The env's split (ShopSession-v0, VirtualHome-v0: train, test, ...); None: its default."""
    env_kwargs: dict[str, int | float | str] = field(default_factory=dict)
    """Keyword arguments for gym.make, as data collect takes them (a list as JSON: tasks '[3, 7]')."""
    port: Annotated[int, Range(ge=1, le=65535)] = 8000
    """TCP port to listen on."""
    host: str = "127.0.0.1"
    """Address to bind; only loopback by default, so nothing outside this machine can reach it."""
    max_sessions: Annotated[int, AT_LEAST_1] = 8
    """Concurrent sessions (WebSocket connections), each with its own env instance."""
    max_request_bytes: Annotated[int, AT_LEAST_1] = MAX_REQUEST_BYTES
    """Largest request (HTTP body or WebSocket message) accepted."""
    session_timeout: Annotated[float, POSITIVE] = SESSION_TIMEOUT_S
    """Seconds a session may stay silent before it is closed and its slot freed."""

    def __post_init__(self) -> None:
        """Refuse numbers out of range, an id rewardgym does not register and a split given twice."""
        check_fields(self)
        check_registered(self.env_id, source="ENV_ID")
        if self.split is not None and "split" in self.env_kwargs:
            raise UserError(
                "the split is given twice: pass --split or --env-kwargs split, not both"
            )

    def make_kwargs(self) -> dict[str, Any]:
        """The env's keyword arguments: ``--env-kwargs`` with lists read, and ``--split``."""
        kwargs = parsed_env_kwargs(dict(self.env_kwargs))
        if self.split is not None:
            kwargs["split"] = self.split
        return kwargs

    def run(self) -> None:
        """Build the app and run it with uvicorn until interrupted."""
        import uvicorn

        app = build_app(
            self.env_id,
            self.reward,
            max_sessions=self.max_sessions,
            max_request_bytes=self.max_request_bytes,
            session_timeout_s=self.session_timeout,
            env_kwargs=self.make_kwargs(),
        )
        print(
            f"serving {self.env_id} to OpenEnv clients at http://{self.host}:{self.port} "
            f"(WebSocket /ws, {self.max_sessions} sessions, closed after "
            f"{self.session_timeout:g} s idle); Ctrl-C stops",
            flush=True,
        )
        uvicorn.run(
            app,
            host=self.host,
            port=self.port,
            ws_max_size=self.max_request_bytes,
            log_level="warning",
        )


__all__ = ["MAX_LIST_TEXT", "Serve", "parsed_env_kwargs"]
