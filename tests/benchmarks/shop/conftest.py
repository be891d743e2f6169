"""Shared fixtures of the ``eval shop`` tests: a small store, the tiny default model, a served model.

The served model is a chat endpoint on 127.0.0.1 that answers every prompt with the terminate
JSON, unless its ``fail`` rule says to answer HTTP 500 (a request the client counts unanswered),
and that holds each request until its ``gate`` opens (bounded, so the server always shuts down).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from rewardgym.wrappers.judges.openai import PREFLIGHT_PROMPT

TERMINATE = json.dumps({"rationale": "I am done.", "action": {"type": "terminate"}})
"""What the served model answers."""

SECRET = "s3cretpw"
"""The password :meth:`ShopServer.spec` writes into the URL."""

FailRule = Callable[[int, str], bool]
"""Whether the server fails request number n (from 1, the preflight included) of this prompt."""


class _Handler(BaseHTTPRequestHandler):
    server: ShopServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = str(body["messages"][-1]["content"])
        with self.server.lock:
            self.server.requests += 1
            number = self.server.requests
        if self.server.gate is not None:
            self.server.gate.wait(10.0)
        failed = prompt != PREFLIGHT_PROMPT and self.server.fail(number, prompt)
        data = json.dumps({"choices": [{"message": {"content": TERMINATE}}]}).encode()
        self.send_response(500 if failed else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "0" if failed else str(len(data)))
        self.end_headers()
        if not failed:
            self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        """Quiet."""


class ShopServer(ThreadingHTTPServer):
    """The served model: ``requests`` counts what it was asked; it answers :attr:`answer`."""

    daemon_threads = True
    answer = TERMINATE
    secret = SECRET

    def __init__(self, fail: FailRule, gate: threading.Event | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fail, self.gate, self.requests = fail, gate, 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def spec(self, model: str = "m", password: bool = False) -> str:
        """``openai:URL#model``, with a user and :data:`SECRET` in the URL when ``password``."""
        url = self.url.replace("//", f"//alice:{SECRET}@") if password else self.url
        return f"openai:{url}#{model}"


@pytest.fixture
def shop_server() -> Iterator[Callable[..., ShopServer]]:
    """Start served models: ``shop_server(fail=rule, gate=event)``; each is shut down after."""
    servers: list[ShopServer] = []

    def start(fail: FailRule = lambda n, p: False, gate: threading.Event | None = None) -> Any:
        server = ShopServer(fail, gate)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        if server.gate is not None:
            server.gate.set()
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 30-session synthetic corpus (train and test splits)."""
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    path = tmp_path_factory.mktemp("eval-shop") / "store"
    build_synthetic_log(path, config=SyntheticShopperConfig(sessions=30, seed=3))
    return path


@pytest.fixture(scope="session")
def tiny_model(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default model at the tiny preset's size, tokenizer trained on the store's sessions."""
    from rewardgym.agents.llm.model import create_default_model
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    log, train = resolve_sessions(store, "train")
    folder = tmp_path_factory.mktemp("eval-shop-model") / "model"
    return create_default_model(folder, log, train, preset("tiny").default_model)
