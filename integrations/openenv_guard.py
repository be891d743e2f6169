"""An ASGI layer around the OpenEnv app that keeps each WebSocket session alive through bad input and quiet when its client goes.

openenv's ``/ws`` loop (openenv 0.4.1) reads each message with ``message.get("type")``, so a
message that is JSON but not an object (``[1, 2, 3]``) ends the sender's session; a wrong-typed
action comes back as ``VALIDATION_ERROR`` with its reasons in an ``errors`` list that openenv's
client drops (it raises with the ``message`` alone); a client that drops its socket makes the
loop's last ``send`` fail, which uvicorn logs as a 60-line traceback; and a client that never
speaks again holds its slot forever. :class:`SessionGuard` sits between uvicorn and the app and,
for WebSocket connections only:

- answers a non-object JSON message itself (an ``INVALID_JSON`` error naming what was sent) and
  waits for the next one, so the session goes on;
- writes a validation error's reasons into its ``message``;
- ends a session whose client sent nothing for ``idle_timeout_s`` seconds: the app is told the
  client left (so it closes the env and frees the slot) and the socket is closed with code 1001;
- drops what the app sends after its client has gone, and logs that client's leaving in one line.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Message, Receive, Send], Awaitable[None]]

LOG = logging.getLogger("rewardgym.serve")

IDLE_CLOSE_CODE = 1001
"""WebSocket close code of a session ended for idleness ("going away")."""


def _error(message: str, code: str) -> str:
    """An openenv ``WSErrorResponse`` as text."""
    return json.dumps({"type": "error", "data": {"message": message, "code": code}})


def _validation_details(text: str) -> str:
    """A ``VALIDATION_ERROR`` response with its reasons (``loc: msg``) written into its message."""
    try:
        reply = json.loads(text)
        errors = reply["data"]["errors"]
        reasons = "; ".join(
            f"{'.'.join(str(part) for part in error.get('loc', ())) or 'message'}: "
            f"{error.get('msg', error)}"
            for error in errors[:5]
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return text
    reply["data"]["message"] = (
        f"invalid message: {reasons}; an action is {{'action': TEXT}}, {{'action': INDEX}} or "
        "a reply object {'rationale': ..., 'action': {...}} (see GET /schema)"
    )
    return json.dumps(reply)


class SessionGuard:
    """Wrap ``app`` (an ASGI app): see the module's docstring for what it does to WebSockets."""

    def __init__(self, app: ASGIApp, *, idle_timeout_s: float) -> None:
        self.app = app
        self.idle_timeout_s = idle_timeout_s

    def __getattr__(self, name: str) -> Any:
        """Everything else (``routes``, ``state``, ...) is the wrapped app's."""
        return getattr(self.app, name)

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        """Serve one connection; HTTP passes through untouched."""
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        gone = False  # the client has left (or was timed out): nothing more reaches it
        idle = False
        client = scope.get("client") or ("?", 0)

        async def guarded_receive() -> Message:
            nonlocal gone, idle
            while True:
                try:
                    message = await asyncio.wait_for(receive(), self.idle_timeout_s)
                except TimeoutError:
                    idle = True
                    LOG.info(
                        "closing the session of %s:%s: idle for %g s", *client, self.idle_timeout_s
                    )
                    return {"type": "websocket.disconnect", "code": IDLE_CLOSE_CODE}
                if message["type"] == "websocket.disconnect":
                    gone = True
                    LOG.info("client %s:%s left (code %s)", *client, message.get("code"))
                    return message
                text = message.get("text")
                if message["type"] != "websocket.receive" or not isinstance(text, str):
                    return message
                if text.lstrip()[:1] == "{":
                    return message
                try:
                    value = json.loads(text)
                except ValueError:
                    return message  # the app answers INVALID_JSON itself
                await guarded_send(
                    {
                        "type": "websocket.send",
                        "text": _error(
                            f"a message is a JSON object like {{'type': 'step', 'data': ...}}, "
                            f"not a {type(value).__name__}",
                            "INVALID_JSON",
                        ),
                    }
                )

        async def guarded_send(message: Message) -> None:
            if gone:
                return
            if message["type"] == "websocket.close" and idle:
                message = {
                    "type": "websocket.close",
                    "code": IDLE_CLOSE_CODE,
                    "reason": f"idle for {self.idle_timeout_s:g} s",
                }
            text = message.get("text")
            error = isinstance(text, str) and text.startswith('{"type":"error"')
            if error and '"VALIDATION_ERROR"' in str(text):
                message = {**message, "text": _validation_details(str(text))}
            try:
                await send(message)
            except OSError:  # uvicorn's ClientDisconnected: the client left mid-send
                LOG.info("client %s:%s left while being answered", *client)

        await self.app(scope, guarded_receive, guarded_send)


__all__ = ["IDLE_CLOSE_CODE", "SessionGuard"]
