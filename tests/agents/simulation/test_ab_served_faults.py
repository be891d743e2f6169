"""``simulate ab`` with a served simulator that stops answering (issue 39, items 11, 12, 14, 15, 26).

The server answers its first ``healthy`` requests (the preflight included) with a terminate
action, then fails every request: HTTP 500, or a reply held past the client's deadline.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rewardgym.cli import main

SECRET = "s3cretpw"
ANSWER = json.dumps({"rationale": "I am done.", "action": {"type": "terminate"}})


class _Flaky(BaseHTTPRequestHandler):
    server: _FlakyServer

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.lock:
            self.server.requests += 1
            healthy = self.server.requests <= self.server.healthy
        if not healthy and self.server.hang:
            time.sleep(1.0)  # past the client's deadline; bounded so the server shuts down
        data = json.dumps({"choices": [{"message": {"content": ANSWER}}]}).encode()
        self.send_response(200 if healthy else 500)
        self.send_header("Content-Length", str(len(data) if healthy else 0))
        self.end_headers()
        if healthy:
            self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        """Quiet."""


class _FlakyServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, healthy: int, hang: bool) -> None:
        super().__init__(("127.0.0.1", 0), _Flaky)
        self.healthy, self.hang, self.requests = healthy, hang, 0
        self.lock = threading.Lock()

    def spec(self, model: str = "m") -> str:
        """``openai:URL#model`` with a user and password in the URL."""
        return f"openai:http://alice:{SECRET}@127.0.0.1:{self.server_address[1]}/v1#{model}"


@pytest.fixture
def flaky() -> Iterator[type[_FlakyServer]]:
    servers: list[_FlakyServer] = []

    def start(healthy: int, hang: bool = False) -> _FlakyServer:
        server = _FlakyServer(healthy, hang)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server

    yield start  # type: ignore[misc]
    for server in servers:
        server.shutdown()
        server.server_close()


def _ab(out: Path, policy: str, *options: str) -> None:
    main(
        [
            "simulate", "ab", "--out", str(out), "--policy", policy, "--visits", "4",
            "--max-steps", "2", "--n-boot", "20", "--served.api-key-env", "",
            "--served.max-retries", "0", "--served.backoff-s", "0.01", *options,
        ]
    )  # fmt: skip


def test_unanswered_requests_are_counted_apart_and_nothing_shows_the_password(
    flaky: type[_FlakyServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Items 11, 14, 26: failures read as "parse rate 0.00" alone; a password and a model
    name's line break and HTML reached the output."""
    server = flaky(healthy=2)
    out = tmp_path / "ab"
    _ab(out, server.spec("m\n# <img src=x onerror=alert(1)>"))
    results = json.loads((out / "results.json").read_text())
    asked, failed = results["served_requests"], results["served_unanswered"]
    assert asked == server.requests - 1 and failed == asked - 1 >= 1  # the preflight aside
    report = (out / "report.md").read_text()
    assert f"The server left {failed} of {asked} requests unanswered" in report
    assert [line for line in report.splitlines() if line.startswith("#")] == [
        "# A/B: base -> price-up-20, policy served/m\\n# &lt;img src=x onerror=alert(1)>"
    ]
    shown = capsys.readouterr()
    written = "".join(p.read_text() for p in out.iterdir() if p.is_file())
    assert SECRET not in written + shown.out + shown.err


def test_a_server_that_stops_answering_stops_the_run(
    flaky: type[_FlakyServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 12: each visit waited out its requests (about 33 h at 1,000 visits), then exit 0."""
    server = flaky(healthy=2, hang=True)
    out = tmp_path / "ab"
    start = time.monotonic()
    with pytest.raises(SystemExit) as stop:
        _ab(
            out, server.spec(), "--visits", "200", "--served.timeout-s", "0.3",
            "--served.max-consecutive-failures", "3",
        )  # fmt: skip
    assert time.monotonic() - start < 15
    message = str(stop.value.code)
    assert "3 requests in a row" in message and SECRET not in message
    assert not (out / "results.json").exists() and not (out / "report.md").exists()


def test_a_cache_inside_out_is_refused_before_anything_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 15: the cache was made inside --out, then the run refused its own folder, forever."""
    out = tmp_path / "ab"
    spec = f"openai:http://alice:{SECRET}@127.0.0.1:9/v1#m"
    for cache in (out / "answers.sqlite", out):
        with pytest.raises(SystemExit) as refused:
            _ab(out, spec, "--served.cache", str(cache))
        assert refused.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "lies inside --out" in err and SECRET not in err
    assert list(tmp_path.iterdir()) == []
