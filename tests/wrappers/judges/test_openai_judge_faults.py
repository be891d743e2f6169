"""The openai judge against hostile servers on 127.0.0.1 (issue 12, items 4-7).

Timeouts, 500s and garbage bodies (abstentions, resumable); redirects (never followed, so the
key never leaves for another origin); transport garbage (a bad status line, a truncated body,
a 70 kB header, broken chunking, a lone surrogate); trickling servers (one deadline per
attempt); huge bodies (a size cap); and runs in which every call fails (401, 500, a dead port,
an unset key variable), which stop with a non-zero exit before any data set is written.
Every server loop is bounded in count and time (``conftest.py``); every test asserts a wall
clock bound.
"""

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

from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.coren.labelling import LabelConfig, label_dataset
from rewardgym.wrappers.judges import JudgeRequest, Transition, parse_rating
from rewardgym.wrappers.judges.cache import JudgeCache, cached_complete
from rewardgym.wrappers.judges.openai import (
    JudgeUnavailableError,
    OpenAIJudge,
    OpenAIJudgeConfig,
)
from rewardgym.wrappers.judges.prompts import load_prompts

Reply = list[tuple[bytes, float]]
SHORT = {"max_steps": 4}
"""Episodes cut to four steps: a labelling of one still sends about 200 requests."""


@pytest.fixture(scope="module")
def one_episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One short Household-v1 episode, saved once for the labelling runs of this module."""
    out = tmp_path_factory.mktemp("faults-one") / "in"
    collect_dataset(CollectConfig(episodes=1, seed=5, env_kwargs=SHORT)).save(out, minari=False)
    return out


class FaultyServer(ThreadingHTTPServer):
    """A chat-completions server whose replies cycle through faults while ``faulty`` is set."""

    daemon_threads = True
    request_queue_size = 128  # the default 5 drops SYNs of 8 concurrent requests (1 s resends)

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
    server: FaultyServer, one_episode: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = one_episode
    monkeypatch.setenv("COREN_TEST_KEY", "sk-secret-value")
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"

    def judge(retries: int, timeout_s: float = 0.3) -> RecordingJudge:
        return RecordingJudge(
            url,
            OpenAIJudgeConfig(
                api_key_env="COREN_TEST_KEY",
                concurrency=4,
                timeout_s=timeout_s,
                max_retries=retries,
                backoff_s=0.01,
            ),
        )

    config = CorenConfig(n_prompts=2, epochs=5, batch_size=16, probe_states=0)
    first = judge(retries=1)
    assert "sk-secret" not in repr(first) and "sk-secret" not in first.identity
    report = label_dataset(
        source,
        tmp_path / "out",
        LabelConfig(coren=config, minari=False),
        judge=first,
        embedder=hashing_embedder(),
        progress=False,
    )
    assert server.auth == {"Bearer sk-secret-value"}
    assert report.failures > 0  # some requests saw only faults, within the bounded retries
    assert first.stats.retries > 0
    assert sum(report.abstentions.values()) >= report.failures
    labelled = TrajectoryDataset.from_dir(tmp_path / "out")
    assert labelled.n_steps == TrajectoryDataset.from_dir(source).n_steps
    assert all(np.isfinite(ep.dense_rewards).all() for ep in labelled)
    # Nothing is lost: failed calls were not cached, so a rerun against a healthy server asks
    # exactly those again and nothing else.
    server.faulty = False
    second = judge(retries=0, timeout_s=5.0)  # healthy now: a loaded machine must not fail it
    label_dataset(
        source,
        tmp_path / "out",
        LabelConfig(coren=config, minari=False, overwrite=True),
        judge=second,
        embedder=hashing_embedder(),
        progress=False,
    )
    assert second.stats.failures == 0, second.last_error
    # Temporal questions may differ (the recovered votes move the argmax actions).
    for kind in ("rate", "structural"):
        assert second.calls[kind] == first.failed[kind]
    assert sum(first.failed.values()) == report.failures


def test_openai_judge_rejects_bad_urls() -> None:
    with pytest.raises(ValueError, match="http"):
        OpenAIJudge("localhost:8000")


# ---------------------------------------------------------------------------------------------
# Raw faults: each test sends one healthy request and one whose prompt says FAULT, in a batch.

KEY = "sk-canary-0123456789"


def _requests() -> list[JudgeRequest]:
    prompt = load_prompts(1)[0]
    healthy = Transition("go to bed", "You are in the bedroom.", "walk to bed")
    faulty = Transition("FAULT go to bed", "You are in the bedroom.", "walk to bed")
    return [JudgeRequest("rate", prompt, healthy), JudgeRequest("rate", prompt, faulty)]


def _judge(url: str, **settings: Any) -> OpenAIJudge:
    config = {"api_key_env": "COREN_TEST_KEY", "timeout_s": 2.0, "max_retries": 1}
    return OpenAIJudge(url, OpenAIJudgeConfig(**{"backoff_s": 0.01, **config, **settings}))


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COREN_TEST_KEY", KEY)
    return KEY


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_are_never_followed_so_the_key_stays_home(
    chat_server: Any, raw: Any, key: str, status: int
) -> None:
    """Item 4: a 3xx to another host and port is a failure; the other origin sees nothing."""
    thief = chat_server(lambda prompt: None)
    location = f"http://127.0.0.1:{thief.server_address[1]}/steal"
    redirect = raw.http_reply(b"", f"{status} Moved", (f"Location: {location}",))
    home = chat_server(raw.marked([(redirect, 0.0)]))
    judge = _judge(home.url)
    start = time.monotonic()
    answers = judge.complete(_requests())
    assert answers[0] == "Rating: 2" and answers[1] is None
    assert thief.seen.requests == 0 and KEY not in "".join(thief.seen.auth)
    assert home.seen.requests == 2  # redirects are final: no retry either
    assert "not followed" in (judge.last_error or "") and KEY not in (judge.last_error or "")
    assert time.monotonic() - start < 5.0


GARBAGE = (
    "bad status line",
    "not http at all",
    "truncated body",
    "200 kB header",
    "broken chunking",
    "closed at once",
    "gzip that is not",
    "deep JSON",
)


def _long_header(size: int, body: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * size + b"\r\n"
    return head + b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_70_kB_header_no_longer_crashes(chat_server: Any, raw: Any, key: str) -> None:
    """Item 5: http.client's LineTooLong; h11 accepts headers up to httpcore's 100 kB cap."""
    ok = raw.completion_body("Rating: 1")
    server = chat_server(raw.marked([(_long_header(70_000, ok), 0.0)]))
    assert _judge(server.url).complete(_requests()) == ["Rating: 2", "Rating: 1"]


def _garbage(raw: Any, name: str) -> Reply:
    ok = raw.completion_body("Rating: 1")
    replies: dict[str, bytes] = {
        "bad status line": b"HTTP/1.1 abc\r\n\r\n",
        "not http at all": b"\x00\xffgarbage\r\n\r\n",
        "truncated body": raw.http_reply(ok)[: -len(ok) + 5],
        "200 kB header": _long_header(200_000, ok),
        "broken chunking": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + ok,
        "closed at once": b"",
        "gzip that is not": raw.http_reply(ok, headers=("Content-Encoding: gzip",)),
        "deep JSON": raw.http_reply(b"[" * 200_000 + b"]" * 200_000),
    }
    return [(replies[name], 0.0)]


@pytest.mark.parametrize("fault", GARBAGE)
def test_transport_garbage_is_an_abstention(
    chat_server: Any, raw: Any, key: str, fault: str
) -> None:
    """Item 5: BadStatusLine, IncompleteRead, LineTooLong and kin answer None, never raise."""
    server = chat_server(raw.marked(_garbage(raw, fault)))
    judge = _judge(server.url)
    start = time.monotonic()
    answers = judge.complete(_requests())
    assert answers == ["Rating: 2", None]
    assert server.seen.requests == 3  # the healthy one, and the faulty one retried once
    assert judge.stats.failures == 1 and judge.stats.retries == 1
    assert time.monotonic() - start < 6.0


def test_a_lone_surrogate_is_cached_and_a_rerun_reads_it(
    chat_server: Any, raw: Any, key: str, tmp_path: Path
) -> None:
    """Item 5: an answer escaping ``\\ud800`` is stored (as U+FFFD); the rerun reads the cache."""
    surrogate = raw.http_reply(b'{"choices": [{"message": {"content": "Rating: 2 \\ud800"}}]}')
    server = chat_server(raw.marked([(surrogate, 0.0)]))
    cache = JudgeCache(tmp_path / "cache.sqlite")
    first = _judge(server.url)
    answers = cached_complete(first, _requests(), cache)
    assert answers[1] is not None and answers[1].startswith("Rating: 2 ")
    assert parse_rating(answers[1]) == 2
    cache.close()
    before = server.seen.requests
    rerun = _judge(server.url)
    again = cached_complete(rerun, _requests(), JudgeCache(tmp_path / "cache.sqlite"))
    assert again == answers and rerun.stats.calls == 0 and server.seen.requests == before


def test_labelling_with_surrogate_answers_completes_and_resumes(
    chat_server: Any, raw: Any, key: str, one_episode: Path, tmp_path: Path
) -> None:
    """Item 5 end to end: every answer carries a lone surrogate; the run and its rerun finish."""
    escaped = b'{"choices": [{"message": {"content": "\\udfff Rating: 2 \\ud800"}}]}'
    server = chat_server(lambda prompt: [(raw.http_reply(escaped), 0.0)])
    source = one_episode
    config = CorenConfig(n_prompts=2, epochs=3, batch_size=16)
    embedder = hashing_embedder()
    label = LabelConfig(coren=config, minari=False)
    judge = _judge(server.url)
    report = label_dataset(
        source, tmp_path / "out", label, judge=judge, embedder=embedder, progress=False
    )
    assert report.judge_calls > 0 and TrajectoryDataset.from_dir(tmp_path / "out").n_steps > 0
    rerun = _judge(server.url)
    label = LabelConfig(coren=config, minari=False, overwrite=True)
    label_dataset(source, tmp_path / "out", label, judge=rerun, embedder=embedder, progress=False)
    assert rerun.stats.calls == 0  # everything came from the cache written by the first run


@pytest.mark.parametrize("where", ["body", "headers"])
def test_one_deadline_bounds_a_trickling_server(
    chat_server: Any, raw: Any, key: str, where: str
) -> None:
    """Item 6: one byte every 0.1 s cannot hold an attempt past ``timeout_s``."""
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"
    if where == "body":
        trickle: Reply = [(head, 0.0)] + [(b" ", 0.1)] * 100
    else:
        trickle = [(b"HTTP/1.1 200 OK\r\n", 0.0)] + [(b"X", 0.1)] * 100
    server = chat_server(raw.marked(trickle))
    judge = _judge(server.url, timeout_s=0.5, max_retries=0)
    start = time.monotonic()
    answers = judge.complete(_requests())
    elapsed = time.monotonic() - start
    assert answers == ["Rating: 2", None]
    assert elapsed < 1.5, f"a 0.5 s deadline held the request {elapsed:.1f} s"
    assert "within 0.5 s" in (judge.last_error or "")


@pytest.mark.parametrize("declared", [True, False])
def test_a_huge_answer_is_refused_and_not_cached(
    chat_server: Any, raw: Any, key: str, tmp_path: Path, declared: bool
) -> None:
    """Item 6: a 3 MB answer (declared or chunked) is over the 1 MiB cap: None, nothing stored."""
    body = raw.completion_body("Rating: 2 " + "x" * 3_000_000)
    if declared:
        reply: Reply = [(raw.http_reply(body), 0.0)]
    else:
        head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)]
        reply = [(head, 0.0)] + [(b"%x\r\n%s\r\n" % (len(c), c), 0.0) for c in chunks]
        reply.append((b"0\r\n\r\n", 0.0))
    server = chat_server(raw.marked(reply))
    cache = JudgeCache(tmp_path / "cache.sqlite")
    judge = _judge(server.url)
    start = time.monotonic()
    answers = cached_complete(judge, _requests(), cache)
    assert answers == ["Rating: 2", None] and len(cache) == 1
    assert "max_response_bytes" in (judge.last_error or "")
    assert server.seen.requests == 2  # a body too large is final: not retried
    assert time.monotonic() - start < 5.0


# ---------------------------------------------------------------------------------------------
# Item 7: a run in which every call fails stops, with a non-zero exit, before writing.


@pytest.fixture(scope="module")
def small_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("faults") / "in"
    collect_dataset(CollectConfig(episodes=2, seed=5, env_kwargs=SHORT)).save(out, minari=False)
    return out


def _label_cli(
    source: Path, out: Path, url: str, key_env: str = "COREN_TEST_KEY"
) -> SystemExit | None:
    """Run ``rewardgym label coren`` in this process; the SystemExit it raised, if any."""
    from rewardgym.cli import main

    args = ["label", "coren", "--dataset", str(source), "--out", str(out), "--judge"]
    args += [f"openai:{url}", "--n-prompts", "2", "--epochs", "3", "--no-minari"]
    args += ["--openai.timeout-s", "1", "--openai.max-retries", "1", "--openai.backoff-s", "0.01"]
    args += ["--openai.api-key-env", key_env]
    try:
        main(args)
    except SystemExit as stop:
        return stop
    return None


def _refuse_all(raw: Any, status: str) -> Any:
    return lambda prompt: [(raw.http_reply(b'{"error": "no"}', status), 0.0)]


@pytest.mark.parametrize("status", ["401 Unauthorized", "403 Forbidden"])
def test_a_refused_key_stops_the_run_at_once(
    chat_server: Any, raw: Any, key: str, small_source: Path, tmp_path: Path, status: str
) -> None:
    server = chat_server(_refuse_all(raw, status))
    judge = _judge(server.url)
    start = time.monotonic()
    with pytest.raises(JudgeUnavailableError, match=status.split()[0]):
        label_dataset(
            small_source,
            tmp_path / "out",
            LabelConfig(coren=CorenConfig(n_prompts=2)),
            judge=judge,
            progress=False,
        )
    assert list(tmp_path.iterdir()) == []  # no data set, no temporary left behind
    assert server.seen.requests <= 8  # stopped at the first refusals, not after thousands
    assert time.monotonic() - start < 10.0


def test_cli_exits_non_zero_when_every_call_fails(
    chat_server: Any, raw: Any, key: str, small_source: Path, tmp_path: Path
) -> None:
    """401 on every request, 500 on every request, and a port nobody listens on."""
    refuse = chat_server(_refuse_all(raw, "401 Unauthorized"))
    broken = chat_server(_refuse_all(raw, "500 Internal Server Error"))
    for name, url, words in (
        ("refused", refuse.url, "HTTP 401"),
        ("broken", broken.url, "none of the first"),
        ("dead", "http://127.0.0.1:1/v1", "none of the first"),
    ):
        start = time.monotonic()
        stop = _label_cli(small_source, tmp_path / name, url)
        assert stop is not None and stop.code not in (0, None), name
        message = str(stop.code)
        assert words in message and "nothing written" in message and KEY not in message
        assert not (tmp_path / name).exists(), name
        assert time.monotonic() - start < 20.0, name
    assert list(tmp_path.iterdir()) == []


def test_cli_exits_non_zero_when_the_key_variable_is_unset(
    chat_server: Any, small_source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COREN_UNSET_KEY", raising=False)
    server = chat_server(lambda prompt: None)
    stop = _label_cli(small_source, tmp_path / "out", server.url, key_env="COREN_UNSET_KEY")
    assert stop is not None and stop.code == 2  # the user's mistake: one line, exit status 2
    assert "COREN_UNSET_KEY is not set" in str(stop)
    assert server.seen.requests == 0 and not (tmp_path / "out").exists()
    # An empty variable name is the explicit way to talk to a server that needs no key.
    assert _label_cli(small_source, tmp_path / "keyless", server.url, key_env="") is None
    assert TrajectoryDataset.from_dir(tmp_path / "keyless").n_steps > 0
    assert set(server.seen.auth) == {""}
