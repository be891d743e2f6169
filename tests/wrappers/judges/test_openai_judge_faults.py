"""The openai judge against a local server that times out, fails with 500 and sends garbage."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rewardgym.agents.labelling.coren import label_dataset
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.judges import JudgeRequest
from rewardgym.wrappers.judges.openai import OpenAIJudge, OpenAIJudgeConfig


class FaultyServer(ThreadingHTTPServer):
    """A chat-completions server whose replies cycle through faults while ``faulty`` is set."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.faulty = True
        self.counter = itertools.count()
        self.lock = threading.Lock()
        self.auth: set[str] = set()

    def next_fault(self) -> int:
        with self.lock:
            return next(self.counter) % 5 if self.faulty else 4


class Handler(BaseHTTPRequestHandler):
    """Timeout, HTTP 500, a non-JSON body, a malformed answer, or a good answer."""

    server: FaultyServer

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.auth.add(self.headers.get("Authorization", ""))
        prompt = body["messages"][0]["content"]
        fault = self.server.next_fault()
        if fault == 0:
            time.sleep(0.6)  # longer than the client's timeout
        if fault == 1:
            self.send_response(500)
            self.end_headers()
            return
        if fault == 2:
            payload = b"<html>garbage"
        else:
            if fault == 3 and "Rating" in prompt:
                content = "I cannot tell."  # a malformed rating: an abstention
            elif "yes or no" in prompt:
                content = "yes"
            elif "comma-separated" in prompt:
                content = "apple, fridge"
            else:
                content = "Rating: 2"
            payload = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass


class RecordingJudge(OpenAIJudge):
    """Counts, per request kind, the calls made and the calls that got no answer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()

    def complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        answers = super().complete(requests)
        for request, answer in zip(requests, answers, strict=True):
            self.calls[request.kind] += 1
            self.failed[request.kind] += answer is None
        return answers


@pytest.fixture
def server() -> Iterator[FaultyServer]:
    srv = FaultyServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def test_labelling_survives_timeouts_500s_and_garbage(
    server: FaultyServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "in"
    collect_dataset(CollectConfig(episodes=2, seed=5)).save(source, minari=False)
    monkeypatch.setenv("COREN_TEST_KEY", "sk-secret-value")
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"

    def judge(retries: int) -> RecordingJudge:
        return RecordingJudge(
            url,
            OpenAIJudgeConfig(
                api_key_env="COREN_TEST_KEY",
                concurrency=4,
                timeout_s=0.3,
                max_retries=retries,
                backoff_s=0.01,
            ),
        )

    config = CorenConfig(n_prompts=2, epochs=5, batch_size=16)
    first = judge(retries=1)
    assert "sk-secret" not in repr(first) and "sk-secret" not in first.identity
    report = label_dataset(
        source,
        tmp_path / "out",
        first,
        config,
        embedder=hashing_embedder(),
        progress=False,
        minari=False,
    )
    assert server.auth == {"Bearer sk-secret-value"}
    assert report.failures > 0  # some requests saw only faults, within the bounded retries
    assert first.stats.retries > 0
    assert sum(report.abstentions.values()) >= report.failures
    labelled = TrajectoryDataset.from_dir(tmp_path / "out")
    assert labelled.n_steps == TrajectoryDataset.from_dir(source).n_steps
    assert all(np.isfinite(ep.rewards).all() for ep in labelled)
    # Nothing is lost: failed calls were not cached, so a rerun against a healthy server asks
    # exactly those again and nothing else.
    server.faulty = False
    second = judge(retries=0)
    label_dataset(
        source,
        tmp_path / "out",
        second,
        config,
        embedder=hashing_embedder(),
        progress=False,
        minari=False,
        overwrite=True,
    )
    assert second.stats.failures == 0
    # Temporal questions may differ (the recovered votes move the argmax actions).
    for kind in ("rate", "structural"):
        assert second.calls[kind] == first.failed[kind]
    assert sum(first.failed.values()) == report.failures


def test_openai_judge_rejects_bad_urls() -> None:
    with pytest.raises(ValueError, match="http"):
        OpenAIJudge("localhost:8000")
