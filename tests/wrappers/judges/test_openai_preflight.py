"""An openai judge that cannot answer one completion stops ``label coren`` in seconds (issue 24, item 6).

Before the preflight, a closed port or a server answering HTML ran 118 s: the first batch of
thousands of requests was retried to the end before anyone noticed. Both cases run here with
the judge's default timeout, retries and backoff, against 127.0.0.1 only, each bounded.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, collect_dataset


class _HTMLHandler(BaseHTTPRequestHandler):
    """A web server, not a chat endpoint: every POST gets a 200 with an HTML page."""

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        page = b"<html><body>Welcome to nginx!</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)


@pytest.fixture
def html_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HTMLHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def closed_port() -> str:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("preflight") / "in"
    collect_dataset(CollectConfig(episodes=2, seed=3)).save(out, minari=False)
    return out


@pytest.mark.parametrize("which", ["closed_port", "html_server"])
def test_a_judge_that_cannot_answer_stops_the_run_within_seconds(
    which: str,
    source: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = request.getfixturevalue(which)
    out = tmp_path / "out"
    argv = ["label", "coren", "--dataset", str(source), "--out", str(out), "--no-minari"]
    argv += ["--judge", f"openai:{url}", "--openai.api-key-env", ""]  # default deadlines
    start = time.monotonic()
    with pytest.raises(SystemExit) as stop:
        main(argv)
    elapsed = time.monotonic() - start
    assert elapsed < 20.0, f"{which}: took {elapsed:.1f} s to give up"
    message = str(stop.value.code)
    assert stop.value.code not in (0, None) and "\n" not in message
    assert url in message and "chat completion" in message and "nothing written" in message
    reason = "transport error" if which == "closed_port" else "not a chat completion"
    assert reason in message
    assert "Traceback" not in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []
