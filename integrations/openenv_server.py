"""Any rewardgym env as an OpenEnv server, built with openenv-core's own ``create_app``.

``rewardgym serve ENV_ID`` (:class:`Serve`) serves one env id, optionally wrapped in a reward by
name, to OpenEnv clients (TRL's OpenEnv path, torchforge, ``openenv.core.GenericEnvClient``):
each WebSocket connection (``/ws``) is one session with its own env instance, up to
``--max-sessions`` at once, and the session ends (its env is closed, its slot freed) when the
client disconnects. Actions are :class:`TextAction` (one field, ``action``: the env's action as
text, see :mod:`rewardgym.integrations.text_env`); observations are :class:`TextObservation`
(the observation's text, the step's reward, ``done``, ``truncated`` and the JSON-safe ``info``).

openenv-core 0.3.0 drops ``Observation.metadata`` when it serializes a step
(``serialize_observation`` excludes it), so ``info`` travels in a declared field; ``metadata``
holds the same reward and info for in-process callers of :class:`RewardgymEnvironment`.

OpenEnv's HTTP ``/reset`` and ``/step`` build a fresh env per request (they keep no session), so
an HTTP ``/step`` has no episode: it is refused with 409 and a message pointing at ``/ws``. A bad
action is refused with 400 over HTTP and an ``EXECUTION_ERROR`` message over a WebSocket (the
session stays open). Requests larger than ``--max-request-bytes`` are refused: 413 over HTTP
(411 for a POST that does not say its length), and a WebSocket message over the cap closes its
connection (code 1009), freeing the session.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import gymnasium as gym
import tyro
from openenv.core.env_server import Action, Environment, Observation, State, create_app
from pydantic import Field

from rewardgym.bounds import AT_LEAST_1, Range, check_fields
from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.envs.registration import check_registered
from rewardgym.errors import BadAction, NoEpisode
from rewardgym.integrations.text_env import (
    json_safe,
    make_text_env,
    observation_text,
    text_action,
)

MAX_REQUEST_BYTES = 1_000_000
"""Default size cap of one request (an HTTP body or a WebSocket message): 1 MB of action text."""


class TextAction(Action):
    """One action of a served rewardgym env: the env's action as text (a ``Discrete`` env's index or name)."""

    action: str = Field(description="The action as text: the policy's output, an index or a name")


class TextObservation(Observation):
    """One observation of a served rewardgym env: its text, the step's info and whether it was cut short."""

    text: str = Field(default="", description="The observation as text")
    info: dict[str, Any] = Field(default_factory=dict, description="The step's info, JSON-safe")
    truncated: bool = Field(default=False, description="The episode hit its time limit")


def environment_class(
    env_id: str, reward: str | None = None, env_kwargs: dict[str, Any] | None = None
) -> type[RewardgymEnvironment]:
    """A :class:`RewardgymEnvironment` subclass bound to ``env_id`` and ``reward``: OpenEnv's factory.

    ``create_app`` calls the factory once per session and reads ``SUPPORTS_CONCURRENT_SESSIONS``
    from the class, so the class (not a closure) carries the settings.
    """
    check_registered(env_id, source="ENV_ID")
    make_text_env(env_id, reward, **(env_kwargs or {})).close()  # refuse a bad reward at start
    settings = (env_id, reward, dict(env_kwargs or {}))
    return type("ServedEnvironment", (RewardgymEnvironment,), {"settings": settings})


class RewardgymEnvironment(Environment[TextAction, TextObservation, State]):
    """One session's env: ``reset(seed=...)`` starts an episode, ``step`` takes one text action."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    settings: tuple[str, str | None, dict[str, Any]] = (HOUSEHOLD_ID, None, {})
    """``(env_id, reward, env_kwargs)``; set by :func:`environment_class`."""

    def __init__(self) -> None:
        super().__init__()
        env_id, reward, kwargs = self.settings
        self.env: gym.Env[Any, Any] = make_text_env(env_id, reward, **kwargs)
        self._state = State(step_count=0)
        self._running = False

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> TextObservation:
        """Start an episode: ``env.reset(seed=seed, options=options)``."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._state = State(episode_id=episode_id, step_count=0)
        self._running = True
        safe = json_safe(info)
        return TextObservation(text=observation_text(obs), info=safe, metadata={"info": safe})

    def step(
        self, action: TextAction, timeout_s: float | None = None, **kwargs: Any
    ) -> TextObservation:
        """Take ``action.action`` (parsed by :func:`text_action`); refuse it with no episode running."""
        chosen = text_action(self.env, action.action)
        if not self._running:
            raise NoEpisode(
                "no episode is running in this session: reset first; OpenEnv's HTTP /step keeps "
                "no session, so step over a WebSocket (/ws, e.g. openenv's GenericEnvClient)"
            )
        obs, reward, terminated, truncated, info = self.env.step(chosen)
        self._running = not (terminated or truncated)
        self._state = State(
            episode_id=self._state.episode_id, step_count=self._state.step_count + 1
        )
        safe = json_safe(info)
        return TextObservation(
            text=observation_text(obs),
            reward=float(reward),
            done=bool(terminated or truncated),
            truncated=bool(truncated),
            info=safe,
            metadata={"reward": float(reward), "info": safe},
        )

    @property
    def state(self) -> State:
        """The episode id and the number of steps taken."""
        return self._state

    def close(self) -> None:
        """Close the env (OpenEnv calls this when the session ends)."""
        self.env.close()


def build_app(
    env_id: str,
    reward: str | None = None,
    *,
    max_sessions: int = 8,
    max_request_bytes: int = MAX_REQUEST_BYTES,
    env_kwargs: dict[str, Any] | None = None,
) -> Any:
    """The FastAPI app serving ``env_id``: ``create_app`` plus 4xx answers and a request size cap."""
    from fastapi import Request
    from fastapi.responses import JSONResponse, Response

    cls = environment_class(env_id, reward, env_kwargs)
    app = create_app(cls, TextAction, TextObservation, max_concurrent_envs=max_sessions)

    async def refuse(status: int, err: Exception) -> JSONResponse:
        return JSONResponse(status_code=status, content={"detail": str(err)})

    async def bad_action(_: Request, err: Exception) -> JSONResponse:
        return await refuse(400, err)

    async def no_episode(_: Request, err: Exception) -> JSONResponse:
        return await refuse(409, err)

    app.add_exception_handler(BadAction, bad_action)
    app.add_exception_handler(NoEpisode, no_episode)
    app.add_exception_handler(gym.error.ResetNeeded, no_episode)

    @app.middleware("http")
    async def cap_request(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        length = request.headers.get("content-length")
        if request.method == "POST" and (length is None or not length.isdigit()):
            # A body without its length (chunked) could be any size: ask for the length.
            return JSONResponse(status_code=411, content={"detail": "send a Content-Length"})
        if length is not None and length.isdigit() and int(length) > max_request_bytes:
            return JSONResponse(
                status_code=413,
                content={
                    "detail": f"request of {length} bytes is over the {max_request_bytes} cap"
                },
            )
        return await call_next(request)

    return app


@contextlib.contextmanager
def serving_in_thread(
    app: Any, *, max_request_bytes: int = MAX_REQUEST_BYTES, start_timeout_s: float = 30.0
) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free 127.0.0.1 port in a thread; yield its URL; always stop it.

    For tests and benchmarks in one process; ``rewardgym serve`` is the command for the rest.
    """
    import uvicorn

    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="critical", ws_max_size=max_request_bytes
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True, name="openenv-server")
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the OpenEnv server on port {port} did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@dataclass(frozen=True)
class Serve:
    """Serve a rewardgym env to OpenEnv clients on HOST:PORT (127.0.0.1 unless --host), until Ctrl-C."""

    env_id: Annotated[str, tyro.conf.Positional, tyro.conf.arg(metavar="ENV_ID")]
    """A rewardgym env id, e.g. rewardgym/ShopSession-v0 or rewardgym/Household-v1."""
    reward: str | None = None
    """A reward wrapper by name: shop-r1 (the paper's weights) or shop-r1/NAME (a REWARDS entry)."""
    port: Annotated[int, Range(ge=1, le=65535)] = 8000
    """TCP port to listen on."""
    host: str = "127.0.0.1"
    """Address to bind; only loopback by default, so nothing outside this machine can reach it."""
    max_sessions: Annotated[int, AT_LEAST_1] = 8
    """Concurrent sessions (WebSocket connections), each with its own env instance."""
    max_request_bytes: Annotated[int, AT_LEAST_1] = MAX_REQUEST_BYTES
    """Largest request (HTTP body or WebSocket message) accepted."""

    def __post_init__(self) -> None:
        """Refuse numbers out of range and an id rewardgym does not register."""
        check_fields(self)
        check_registered(self.env_id, source="ENV_ID")

    def run(self) -> None:
        """Build the app and run it with uvicorn until interrupted."""
        import uvicorn

        app = build_app(
            self.env_id,
            self.reward,
            max_sessions=self.max_sessions,
            max_request_bytes=self.max_request_bytes,
        )
        print(
            f"serving {self.env_id} to OpenEnv clients at http://{self.host}:{self.port} "
            f"(WebSocket /ws, {self.max_sessions} sessions); Ctrl-C stops",
            flush=True,
        )
        uvicorn.run(
            app,
            host=self.host,
            port=self.port,
            ws_max_size=self.max_request_bytes,
            log_level="warning",
        )


__all__ = [
    "MAX_REQUEST_BYTES",
    "NoEpisode",
    "RewardgymEnvironment",
    "Serve",
    "TextAction",
    "TextObservation",
    "build_app",
    "environment_class",
    "serving_in_thread",
]
