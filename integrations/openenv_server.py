"""Any rewardgym env as an OpenEnv server, built with openenv's own ``create_fastapi_app``.

:func:`build_app` serves one env id, optionally wrapped in a reward by name, to OpenEnv clients
(TRL's OpenEnv path, torchforge, ``openenv.GenericEnvClient``, verifiers' ``openenv`` taskset):
each WebSocket connection (``/ws``) is one session with its own env instance, up to
``max_sessions`` at once; a session ends (its env closed, its slot freed) when its client
disconnects or sends nothing for ``session_timeout_s`` seconds (:mod:`.openenv_guard`), and a
session opened over HTTP (``openenv/session/create`` on ``/mcp``) is freed by openenv's reaper
after the same idle time.

An action (:class:`TextAction`) is the JSON object an OpenEnv client sends: ``{"action": TEXT}``,
``{"action": INDEX}`` (verifiers sends a household reply ``3`` so), or a whole Shop-R1 reply
``{"rationale": ..., "action": {...}}``. :func:`action_text` turns each back into the reply's
text, which :func:`~rewardgym.integrations.text_env.text_action` parses as local stepping does.
An observation (:class:`TextObservation`) is the observation's text, the step's reward, ``done``,
``truncated`` and the env's public info (:func:`~rewardgym.integrations.text_env.public_info`):
the logged truth and the formal goal never cross the wire. ``info`` travels in a declared field
(``Observation.metadata`` stays empty: openenv releases differ in whether they send it).

OpenEnv's HTTP ``/reset`` and ``/step`` build a fresh env per request (they keep no session), so
an HTTP ``/step`` has no episode: it is refused with 409 and a message pointing at ``/ws``. Bad
input is refused with its reason and no traceback: 400 for an action or reset the env cannot take
(an unknown or non-object ``options``, a task the env lacks, a seed that is no whole number), 422
for a request of the wrong shape, and over a WebSocket an error message with the same reason (the
session stays open). Requests larger than ``max_request_bytes`` are refused: 413 over HTTP (411
for a POST that does not say its length); a WebSocket message over the cap closes its connection
(code 1009). openenv's web interface (``ENABLE_WEB_INTERFACE``) would step one env shared by
every client, so it is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

import gymnasium as gym
from openenv.core.env_server import (
    Action,
    ConcurrencyConfig,
    Environment,
    Observation,
    State,
    create_fastapi_app,
)
from openenv.core.env_server.types import EnvironmentMetadata
from pydantic import (
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    StrictInt,
    StrictStr,
    model_validator,
)

from rewardgym import __version__
from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.envs.conventions import brief
from rewardgym.envs.registration import check_registered
from rewardgym.errors import NoEpisode, UserError
from rewardgym.integrations.openenv_guard import SessionGuard
from rewardgym.integrations.text_env import (
    PUBLIC_INFO,
    json_safe,
    make_text_env,
    observation_text,
    public_info,
    text_action,
)

MAX_REQUEST_BYTES = 1_000_000
"""Default size cap of one request (an HTTP body or a WebSocket message): 1 MB of action text."""
SESSION_TIMEOUT_S = 600.0
"""Default idle time after which a session is closed: 10 minutes, longer than a slow model's
turn or a trainer's optimizer step between two env steps, short enough that abandoned sessions
do not hold every slot for long."""
SEED_LIMIT = 2**63
"""Seeds are whole numbers in ``0..2**63-1``."""


class TextAction(Action):
    """One action of a served rewardgym env: its ``action`` (text, an index, or a reply's action object).

    Other keys of the object a client sends (a Shop-R1 reply's ``rationale``) are kept, so the
    whole reply reaches the env as the text the model wrote.
    """

    model_config = ConfigDict(extra="allow", validate_assignment=True)
    action: StrictStr | StrictInt | dict[str, Any] = Field(
        description="The action: the policy's text, an action index or name, or a reply's "
        'action object (with "rationale" beside it)'
    )
    _order: list[str] = PrivateAttr(default_factory=list)
    """The keys in the order the client sent them, so the reply's text is rebuilt as written."""

    @model_validator(mode="wrap")
    @classmethod
    def _keep_order(cls, data: Any, handler: ModelWrapValidatorHandler[TextAction]) -> TextAction:
        action = handler(data)
        if isinstance(data, dict):
            action._order = [str(key) for key in data if key != "metadata"]
        return action


class TextObservation(Observation):
    """One observation of a served rewardgym env: its text, the step's public info and whether it was cut short."""

    text: str = Field(default="", description="The observation as text")
    info: dict[str, Any] = Field(default_factory=dict, description="The step's public info")
    truncated: bool = Field(default=False, description="The episode hit its time limit")


def action_text(action: TextAction) -> str:
    """The reply text an action stands for: its ``action`` text or index, else the object as JSON.

    Example:
        >>> action_text(TextAction(action=3))
        '3'
        >>> action_text(TextAction(rationale="done", action={"type": "terminate"}))
        '{"rationale": "done", "action": {"type": "terminate"}}'
    """
    dumped = action.model_dump(exclude={"metadata"})
    fields = {key: dumped[key] for key in action._order if key in dumped} | dumped
    value = fields["action"]
    if len(fields) == 1 and isinstance(value, str | int):
        return str(value)
    return json.dumps(fields, ensure_ascii=False)


def environment_class(
    env_id: str, reward: str | None = None, env_kwargs: dict[str, Any] | None = None
) -> type[RewardgymEnvironment]:
    """A :class:`RewardgymEnvironment` subclass bound to ``env_id``, ``reward`` and ``env_kwargs``.

    openenv's app calls the class once per session and reads ``SUPPORTS_CONCURRENT_SESSIONS``
    from it, so the class (not a closure) carries the settings. The env is made once here, so a
    bad reward or keyword argument is refused before anything listens.
    """
    check_registered(env_id, source="ENV_ID")
    try:
        make_text_env(env_id, reward, **(env_kwargs or {})).close()
    except TypeError as err:  # gym.make passes unknown keyword arguments to the constructor
        raise UserError(f"{env_id} takes no such option: {err}") from None
    settings = (env_id, reward, dict(env_kwargs or {}))
    return type("ServedEnvironment", (RewardgymEnvironment,), {"settings": settings})


def _check_reset(seed: object, episode_id: object, options: object, extra: dict[str, Any]) -> None:
    """Refuse reset arguments no env takes, naming each and what would do."""
    if extra:
        raise UserError(
            f"reset got {', '.join(sorted(extra))}: it takes seed, episode_id and options "
            "(an env's own reset options go inside options)"
        )
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT
    ):
        raise UserError(f"reset seed={brief(seed)} is not a whole number in 0..2**63-1")
    if episode_id is not None and not isinstance(episode_id, str):
        raise UserError(f"reset episode_id={brief(episode_id)} is not text")
    if options is not None and not isinstance(options, dict):
        raise UserError(f"reset options={brief(options)} is not an object of the env's options")


class RewardgymEnvironment(Environment[TextAction, TextObservation, State]):
    """One session's env: ``reset(seed=...)`` starts an episode, ``step`` takes one action."""

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
        """Start an episode: ``env.reset(seed=seed, options=options)``; refuse what the env cannot take."""
        _check_reset(seed, episode_id, options, kwargs)
        try:
            obs, info = self.env.reset(seed=seed, options=options)
        except (ValueError, TypeError, KeyError, IndexError, OverflowError) as err:
            raise UserError(
                f"reset(seed={seed}, options={brief(options)}) refused: {err}"
            ) from None
        self._state = State(episode_id=episode_id, step_count=0)
        self._running = True
        shown = public_info(self.settings[0], info)
        return TextObservation(text=observation_text(obs), info=shown)

    def step(
        self, action: TextAction, timeout_s: float | None = None, **kwargs: Any
    ) -> TextObservation:
        """Take ``action`` (read by :func:`action_text`, parsed by :func:`text_action`)."""
        chosen = text_action(self.env, action_text(action))
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
        shown = public_info(self.settings[0], info)
        return TextObservation(
            text=observation_text(obs),
            reward=float(reward),
            done=bool(terminated or truncated),
            truncated=bool(truncated),
            info=shown,
        )

    @property
    def state(self) -> State:
        """The episode id and the number of steps taken."""
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        """The env id, its reward and options, rewardgym's version and a readme of how to play it."""
        env_id, reward, kwargs = self.settings
        scored = f"reward {reward}" if reward else "the env's own reward"
        options = ", ".join(f"{key}={value!r}" for key, value in kwargs.items()) or "defaults"
        return EnvironmentMetadata(
            name=env_id,
            description=f"{env_id} served by rewardgym, {scored}, options: {options}",
            version=__version__,
            author="rewardgym",
            readme_content=readme(env_id, reward, kwargs),
        )

    def close(self) -> None:
        """Close the env (OpenEnv calls this when the session ends)."""
        self.env.close()


def readme(env_id: str, reward: str | None, kwargs: dict[str, Any]) -> str:
    """The ``/metadata`` readme: what is served, how to connect, what an action and an observation hold."""
    scored = f"`{reward}` (rewardgym's Shop-R1 reward by name)" if reward else "the env's own"
    return "\n".join(
        [
            f"# {env_id}",
            "",
            f"rewardgym {__version__}: `{env_id}` with env options {json.dumps(kwargs)}; "
            f"reward: {scored}.",
            "",
            "Connect over a WebSocket (`/ws`, e.g. `openenv.GenericEnvClient`): one session, one "
            "env. `reset` takes `seed` and the env's `options`.",
            "An action is `{'action': TEXT}` (an action name, or a shopper's whole reply), "
            "`{'action': INDEX}`, or a reply object `{'rationale': ..., 'action': {...}}`.",
            "An observation holds `text`, `reward`, `done`, `truncated` and `info`, whose keys are "
            f"among: {', '.join(sorted(PUBLIC_INFO.get(env_id, ()))) or 'none'}.",
        ]
    )


def build_app(
    env_id: str,
    reward: str | None = None,
    *,
    max_sessions: int = 8,
    max_request_bytes: int = MAX_REQUEST_BYTES,
    session_timeout_s: float = SESSION_TIMEOUT_S,
    env_kwargs: dict[str, Any] | None = None,
) -> Any:
    """The ASGI app serving ``env_id``: openenv's app with 4xx answers, a size cap and :class:`SessionGuard`."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, Response
    from starlette.exceptions import HTTPException

    web = os.environ.get("ENABLE_WEB_INTERFACE", "")
    if web.strip().lower() in ("true", "1", "yes"):
        raise UserError(
            f"ENABLE_WEB_INTERFACE={web}: openenv's web interface steps one env shared by every "
            "client, so rewardgym serve does not offer it; unset the variable and play over /ws"
        )
    cls = environment_class(env_id, reward, env_kwargs)
    concurrency = ConcurrencyConfig(
        max_concurrent_envs=max_sessions, session_timeout=session_timeout_s
    )
    app = create_fastapi_app(
        cls, TextAction, TextObservation, concurrency_config=concurrency, env_name=env_id
    )

    def refusal(status: int, detail: Any, headers: Mapping[str, str] | None = None) -> JSONResponse:
        # json_safe: a NaN or an exception in a validation error's input must not turn it into a 500
        return JSONResponse(
            status_code=status, content={"detail": json_safe(detail)}, headers=dict(headers or {})
        )

    async def user_error(_: Request, err: Exception) -> JSONResponse:
        return refusal(409 if isinstance(err, NoEpisode) else 400, str(err))

    async def reset_needed(_: Request, err: Exception) -> JSONResponse:
        return refusal(409, str(err))

    async def http_error(_: Request, err: Exception) -> JSONResponse:
        assert isinstance(err, HTTPException)
        return refusal(err.status_code, err.detail, err.headers)

    async def bad_shape(_: Request, err: Exception) -> JSONResponse:
        assert isinstance(err, RequestValidationError)
        return refusal(422, err.errors())

    app.add_exception_handler(UserError, user_error)
    app.add_exception_handler(gym.error.ResetNeeded, reset_needed)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, bad_shape)

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

    return SessionGuard(app, idle_timeout_s=session_timeout_s)


@contextlib.contextmanager
def serving_in_thread(
    app: Any, *, max_request_bytes: int = MAX_REQUEST_BYTES, start_timeout_s: float = 30.0
) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free 127.0.0.1 port in a thread; yield its URL; always stop it.

    For tests in one process; ``rewardgym serve`` is the command for the rest.
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


__all__ = [
    "MAX_REQUEST_BYTES",
    "SESSION_TIMEOUT_S",
    "NoEpisode",
    "RewardgymEnvironment",
    "TextAction",
    "TextObservation",
    "action_text",
    "build_app",
    "environment_class",
    "readme",
    "serving_in_thread",
]
