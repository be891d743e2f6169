"""Chat-completions servers on 127.0.0.1 that answer with hand-written bytes, faults included.

A ``RawChatServer`` reads one HTTP request per connection, asks its ``fault`` function what
to send for the prompt (``None``: a well-formed completion), writes those bytes (optionally
trickled) and closes; :func:`marked` faults only prompts that say ``FAULT``, so one batch can
mix healthy and broken answers. Every loop is bounded: requests are read within a socket timeout and at most 1 MiB
of head, trickles send a fixed number of pieces, and a client that went away ends the reply.
"""

from __future__ import annotations

import json
import re
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

Reply = list[tuple[bytes, float]]
"""What a server sends: pieces of bytes, each followed by a pause of that many seconds."""


def completion_body(content: str) -> bytes:
    """A chat-completions JSON body whose first choice says ``content`` (ASCII-escaped)."""
    return json.dumps({"choices": [{"message": {"content": content}}]}).encode()


def http_reply(body: bytes, status: str = "200 OK", headers: tuple[str, ...] = ()) -> bytes:
    """A complete HTTP/1.1 response with a correct Content-Length."""
    lines = [f"HTTP/1.1 {status}", "Content-Type: application/json", "Connection: close"]
    lines += [*headers, f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def healthy_answer(prompt: str) -> str:
    """What a cooperative judge says to a rate, structural or temporal prompt."""
    if "yes or no" in prompt:
        return "yes"
    if "comma-separated" in prompt:
        return "apple, fridge"
    return "Rating: 2"


def marked(reply: Reply) -> Callable[[str], Reply | None]:
    """A fault function sending ``reply`` to prompts that contain ``FAULT``, healthy otherwise."""
    return lambda prompt: reply if "FAULT" in prompt else None


@dataclass
class Seen:
    """What a server received: the number of requests and each Authorization header."""

    requests: int = 0
    auth: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class RawChatServer(socketserver.ThreadingTCPServer):
    """A server whose reply to each prompt is ``fault(prompt)`` (None: a healthy answer)."""

    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default listen backlog is 5: with 8 requests in flight the kernel drops
    # the extra SYNs and the client resends them after 1 s, which made every batch take 1 s.
    request_queue_size = 128

    def __init__(self, fault: Callable[[str], Reply | None]) -> None:
        super().__init__(("127.0.0.1", 0), _RawHandler)
        self.fault = fault
        self.seen = Seen()

    @property
    def url(self) -> str:
        """The base URL a judge is given (``/v1`` is appended to nothing in particular)."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _RawHandler(socketserver.BaseRequestHandler):
    server: RawChatServer

    def handle(self) -> None:
        sock = self.request
        sock.settimeout(5.0)
        data = b""
        try:
            while b"\r\n\r\n" not in data and len(data) < 1 << 20:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            length = int(match.group(1)) if match else 0
            while len(body) < length:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                body += chunk
        except OSError:
            return
        auth = re.search(rb"(?im)^authorization:\s*(.*?)\r?$", head)
        with self.server.seen.lock:
            self.server.seen.requests += 1
            self.server.seen.auth.append(auth.group(1).decode() if auth else "")
        try:
            prompt = json.loads(body)["messages"][0]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            prompt = ""
        reply = self.server.fault(prompt)
        if reply is None:
            reply = [(http_reply(completion_body(healthy_answer(prompt))), 0.0)]
        try:
            for piece, pause in reply:
                sock.sendall(piece)
                if pause:
                    time.sleep(pause)
        except OSError:
            pass  # the client gave up: the reply ends here


@pytest.fixture
def chat_server() -> Iterator[Callable[[Callable[[str], Reply | None]], RawChatServer]]:
    """Start ``RawChatServer``s on 127.0.0.1 for the test; all are shut down afterwards."""
    servers: list[RawChatServer] = []

    def start(fault: Callable[[str], Reply | None]) -> RawChatServer:
        server = RawChatServer(fault)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def raw() -> SimpleNamespace:
    """The byte builders of this module: ``http_reply``, ``completion_body``, ``marked``."""
    return SimpleNamespace(http_reply=http_reply, completion_body=completion_body, marked=marked)
