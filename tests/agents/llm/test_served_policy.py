"""A policy served elsewhere, ``openai:URL[#model]`` (issue 32, item 3): spec, cache, faults, a real server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rewardgym.agents.llm.config import SamplingConfig
from rewardgym.agents.llm.served import ServedConfig, ServedPolicy, parse_served
from rewardgym.agents.simulation.commands import check_policy
from rewardgym.wrappers.judges.openai import JudgeUnavailableError


class _Echo(BaseHTTPRequestHandler):
    """A chat and text endpoint answering ``<prompt>|<seed>``; HTTP 500 for prompts that say FAIL."""

    server: _EchoServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        chat = self.path.endswith("/chat/completions")
        prompt = body["messages"][0]["content"] if chat else body["prompt"]
        with self.server.lock:
            self.server.prompts.append(prompt)
        if "FAIL" in prompt:
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        text = f"{prompt}|{body.get('seed')}"
        choice = {"message": {"content": text}} if chat else {"text": text}
        answer = json.dumps({"choices": [choice]})
        data = answer.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        """Quiet."""


class _EchoServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Echo)
        self.prompts: list[str] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@pytest.fixture
def echo() -> Iterator[_EchoServer]:
    server = _EchoServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def _policy(url: str, temperature: float, **client: object) -> ServedPolicy:
    config = ServedConfig(api_key_env="", max_retries=0, backoff_s=0.01, **client)  # type: ignore[arg-type]
    sampling = SamplingConfig(temperature=temperature, max_new_tokens=8)
    return ServedPolicy(url, "m", sampling=sampling, config=config, seed=3, progress=False)


def test_specs_name_a_url_and_a_model_or_are_refused() -> None:
    assert parse_served("openai:http://h:8000/v1/#org/m") == ("http://h:8000/v1", "org/m")
    assert parse_served("openai:https://api.example.com/v1") == (
        "https://api.example.com/v1",
        "default",
    )
    check_policy("openai:http://127.0.0.1:8000/v1#m")
    for bad in ("openai:ftp://h/v1", "openai:#m", "openai:http://[::1/v1"):
        with pytest.raises(ValueError, match="openai:URL"):
            check_policy(bad)


def test_answers_come_back_in_order_cached_and_resumed(echo: _EchoServer, tmp_path: Path) -> None:
    cache = tmp_path / "served.sqlite"
    first = _policy(echo.url, 0.6, cache=cache, concurrency=3)
    prompts = ["p", "q", "p", "r"]
    answers = first.complete(prompts)
    # Raw texts in prompt order; a sampled prompt asked twice is two requests with two seeds.
    assert [a.split("|")[0] for a in answers] == prompts and answers[0] != answers[2]
    assert sorted(echo.prompts) == ["p", "p", "q", "r"]
    rerun = _policy(echo.url, 0.6, cache=cache)
    assert rerun.complete(prompts) == answers and len(echo.prompts) == 4  # nothing asked again
    greedy = _policy(echo.url, 0.0)
    assert greedy.complete(["s", "s"]) == ["s|None", "s|None"] and echo.prompts.count("s") == 1


def test_a_failed_request_reads_as_the_empty_output_and_is_asked_again(
    echo: _EchoServer, tmp_path: Path
) -> None:
    cache = tmp_path / "served.sqlite"
    policy = _policy(echo.url, 0.0, cache=cache)
    assert policy.complete(["ok", "FAIL"]) == ["ok|None", ""] and policy.failures == 1
    _policy(echo.url, 0.0, cache=cache).complete(["ok", "FAIL"])
    # Only the failure is asked again (the first run's two requests may arrive in either order).
    assert sorted(echo.prompts) == ["FAIL", "FAIL", "ok"] and echo.prompts[-1] == "FAIL"
    with pytest.raises(JudgeUnavailableError, match="none of the first 1 requests"):
        _policy(echo.url, 0.0).complete(["FAIL"])


def test_a_dead_server_stops_the_run_within_seconds() -> None:
    policy = _policy("http://127.0.0.1:9/v1", 0.0)
    start = time.monotonic()
    with pytest.raises(JudgeUnavailableError, match="served policy: none of the first"):
        policy.preflight()
    assert time.monotonic() - start < 10


def test_simulate_ab_and_the_perf_script_visit_with_a_served_policy(
    echo: _EchoServer, tmp_path: Path
) -> None:
    from rewardgym.benchmarks.perf.served_visits import Config, run
    from rewardgym.cli import main

    main(
        [
            "simulate", "ab", "--out", str(tmp_path / "ab"), "--policy", f"openai:{echo.url}#m",
            "--served.api-key-env", "", "--visits", "2", "--max-steps", "2", "--n-boot", "20",
        ]
    )  # fmt: skip
    lines = (tmp_path / "ab" / "visits_sim_a.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads((tmp_path / "ab" / "results.json").read_text())
    assert any("Session so far" in p for p in echo.prompts)  # the shop prompt reached the server
    rows = run(Config(url=echo.url, model="m", visits=2, max_steps=3, concurrency=(1, 2)))
    assert [r["concurrency"] for r in rows] == [1.0, 2.0]
    assert all(r["completions"] == 8 and r["failures"] == 0 for r in rows)


def test_a_served_model_answers_through_transformers_serve(served: tuple[str, Path]) -> None:
    url, folder = served
    sampling = SamplingConfig(temperature=0.0, max_new_tokens=4)
    started = time.monotonic()
    for endpoint in ("chat", "text"):
        config = ServedConfig(api_key_env="", endpoint=endpoint, concurrency=2, timeout_s=180.0)
        policy = ServedPolicy(url, str(folder), sampling=sampling, config=config, progress=False)
        policy.preflight()
        answers = policy.complete(
            ["Say hello.", "Name a colour."][: 2 if endpoint == "chat" else 1]
        )
        assert all(isinstance(a, str) and a for a in answers) and policy.failures == 0
    assert time.monotonic() - started < 240
