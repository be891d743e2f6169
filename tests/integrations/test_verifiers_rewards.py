"""Every reward term of every taskset is a declared reward function: verifiers' own command line reweights it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import verifiers.v1 as vf
from pydantic_config import cli
from verifiers.v1.cli.resolve import narrow_config, with_positional_taskset
from verifiers.v1.configs.cli.eval import EvalConfig
from verifiers.v1.trace import TraceTask
from verifiers.v1.utils.loaders import load_taskset

from rewardgym.envs.shopping.parsing import format_output
from rewardgym.integrations.text_env import action_names
from rewardgym.integrations.verifiers import SHOP_TERMS, shop_r1_weighted_terms
from rewardgym.integrations.verifiers_household import start_episode
from rewardgym.integrations.verifiers_store import start_visit
from rewardgym.integrations.verifiers_turns import EPISODE_SCORES, TextEpisode
from rewardgym.wrappers.shop_r1 import reward_config, truth_action

EVAL_TIMEOUT_S = 240
"""Seconds ``vf-eval`` against the scripted model may take (two replies; a shared machine)."""

TERMS = {
    "rewardgym-shop": SHOP_TERMS,
    "rewardgym-store": ("match", "purchase"),
    "rewardgym-household": ("success",),
    "rewardgym-virtualhome": ("success",),
}
SMALL = {
    "rewardgym-shop": ["--env.taskset.sessions", "1"],
    "rewardgym-store": ["--env.taskset.visits", "1"],
    "rewardgym-household": ["--env.taskset.episodes", "1"],
    "rewardgym-virtualhome": ["--env.taskset.episodes", "1", "--env.taskset.split", "test"],
}


def parsed_tasks(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[Any]:
    """The tasks of the taskset ``vf-eval`` would run for ``argv``, parsed by ``vf-eval``'s own parser."""
    argv = with_positional_taskset(argv)
    config_type = narrow_config(EvalConfig, argv)
    monkeypatch.setattr(sys, "argv", ["vf-eval", *argv])
    config = cli(config_type)
    return list(load_taskset(config.env.taskset))


def played(task: Any) -> vf.Trace:
    """A trace of ``task`` as its env leaves it: the ground truth's reply or episode, not yet scored."""
    trace: vf.Trace = vf.Trace(
        task=TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
        agent=vf.AgentInfo(config=vf.AgentConfig(), name="scripted", trainable=False),
    )
    info = task.data.info
    if "truth" in info:  # a shop step: the human's own action, with a rationale
        trace.root_reply = format_output("I want this.", truth_action(info["truth"]))
        return trace
    episode: TextEpisode = start_visit(info) if "intent" in info else start_episode(info)
    if "intent" in info:
        while not episode.over:
            episode.step(episode.env.get_wrapper_attr("truth_output")())
    else:
        names = action_names(episode.env)
        for action in episode.env.get_wrapper_attr("expert_script")():
            if episode.over:
                break
            episode.step(names[action])
    episode.env.close()
    trace.info[EPISODE_SCORES] = episode.rewards()
    return trace


def scored(task: Any, trace: vf.Trace) -> dict[str, tuple[float, float]]:
    """``{name: (score, weight)}`` after verifiers' own scoring of ``trace`` (``Task.score``)."""
    trace = trace.model_copy(deep=True)
    asyncio.run(task.score(trace))
    return {name: (r.score, r.weight) for name, r in trace.rewards.items() if r is not None}


@pytest.mark.parametrize("taskset_id", list(TERMS))
def test_weight_two_on_one_term_doubles_its_share_of_the_total(
    monkeypatch: pytest.MonkeyPatch, taskset_id: str
) -> None:
    [task, *_] = parsed_tasks(monkeypatch, [taskset_id, *SMALL[taskset_id]])
    assert {fn.__name__ for fn in task.hooks("reward")} == set(TERMS[taskset_id])
    trace = played(task)
    base = scored(task, trace)
    assert set(base) == set(TERMS[taskset_id]) and all(w == 1.0 for _, w in base.values())
    total = sum(s * w for s, w in base.values())
    assert total > 0
    for term in TERMS[taskset_id]:
        weights = json.dumps({term: {"weight": 2}})
        argv = [taskset_id, *SMALL[taskset_id], "--env.taskset.task.rewards", weights]
        [heavy, *_] = parsed_tasks(monkeypatch, argv)
        assert heavy.data == task.data
        reweighted = scored(heavy, trace)
        assert reweighted[term] == (base[term][0], 2.0)
        assert {n: v for n, v in reweighted.items() if n != term} == {
            n: v for n, v in base.items() if n != term
        }
        assert sum(s * w for s, w in reweighted.values()) == pytest.approx(total + base[term][0])


def test_the_shop_terms_are_shop_r1s_weighted_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = parsed_tasks(monkeypatch, ["rewardgym-shop", "--env.taskset.reward", "no-dars"])
    for task in tasks[:6]:
        trace = played(task)
        want = shop_r1_weighted_terms(
            trace.last_reply, task.data.info["truth"], reward_config("no-dars")
        )
        got = scored(task, trace)
        assert {name: s for name, (s, _) in got.items()} == {
            name: want[name][0] * want[name][1] if name in want else 0.0 for name in SHOP_TERMS
        }


@pytest.fixture
def scripted_model() -> Iterator[tuple[str, str]]:
    """An OpenAI-compatible chat server on 127.0.0.1 that answers every request with one reply."""
    reply = json.dumps({"rationale": "I search.", "action": {"type": "click", "name": "search"}})

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            message = {"role": "assistant", "content": reply}
            answer = json.dumps(
                {
                    "id": "scripted",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
            ).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *_: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", reply
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def vf_eval(url: str, out: Path, taskset_id: str, *options: str) -> list[dict[str, Any]]:
    """``vf-eval`` of ``taskset_id`` against the scripted model: its traces."""
    command = [
        str(Path(sys.executable).parent / "vf-eval"), taskset_id, "--model", "scripted",
        "--client.base-url", url, "--client.api-key-var", "REWARDGYM_NO_KEY",
        "--no-push", "--no-rich", "-o", str(out), *options,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=EVAL_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    [traces] = list(out.glob("*/traces.jsonl"))
    episodes = [json.loads(line) for line in traces.read_text().splitlines()]
    return [trace for episode in episodes for trace in episode["traces"]]


def test_vf_eval_reweights_a_household_reward_from_its_command_line(
    scripted_model: tuple[str, str], tmp_path: Path
) -> None:
    url, _ = scripted_model  # a Shop-R1 JSON output: no household action, two wasted turns
    [trace] = vf_eval(
        url, tmp_path, "rewardgym-household", "-n", "1", "--env.taskset.episodes", "1",
        "--env.taskset.max-turns", "2", "--env.taskset.task.rewards", '{"success": {"weight": 2}}',
    )  # fmt: skip
    assert trace["ok"], trace["errors"]
    assert trace["rewards"] == {"success": {"score": 0.0, "weight": 2.0}}
    assert trace["info"][EPISODE_SCORES] == {"success": 0.0}
    assert trace["metrics"]["steps"] == trace["metrics"]["inexecutable"] == 2.0


def test_vf_eval_reweights_a_shop_term_from_its_command_line(
    scripted_model: tuple[str, str], tmp_path: Path
) -> None:
    url, reply = scripted_model
    traces = vf_eval(
        url, tmp_path, "rewardgym-shop", "-n", "2", "--env.taskset.sessions", "1",
        "--env.taskset.task.rewards", '{"format": {"weight": 2}}',
    )  # fmt: skip
    assert len(traces) == 2
    for trace in traces:
        assert trace["ok"], trace["errors"]
        truth = trace["task"]["data"]["info"]["truth"]
        want = shop_r1_weighted_terms(reply, truth, reward_config("full"))
        shares = {name: score * weight for name, (score, weight) in want.items()}
        rewards = trace["rewards"]
        assert set(rewards) == set(SHOP_TERMS)
        assert rewards["format"] == {"score": shares["format"], "weight": 2.0}
        recorded = sum(r["score"] * r["weight"] for r in rewards.values())
        assert recorded == pytest.approx(sum(shares.values()) + shares["format"], abs=1e-12)
