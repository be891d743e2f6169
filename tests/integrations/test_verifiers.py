"""The verifiers tasksets: ``rewardgym-shop``'s weighted terms are ShopR1Reward's; ``vf-eval`` runs both end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from verifiers.v1.utils.loaders import environment_class, taskset_class

from rewardgym.integrations.text_env import make_text_env
from rewardgym.integrations.verifiers import (
    ShopConfig,
    ShopEnv,
    ShopTaskset,
    shop_r1_weighted_terms,
)
from rewardgym.integrations.verifiers_household import HouseholdEnv, HouseholdTaskset, parse_reply
from rewardgym.wrappers.shop_r1 import ShopR1Reward, reward_config

EVAL_TIMEOUT_S = 420
"""Seconds the served evaluation may take (a CPU-served model on a shared machine)."""


@pytest.fixture(scope="module")
def tasks() -> list[Any]:
    return list(ShopTaskset(ShopConfig(id="rewardgym-shop", sessions=2)))


def wrapper_total(task: Any, reply: str, reward: str = "full") -> dict[str, float]:
    """``ShopR1Reward``'s terms for ``reply`` at the task's logged step (the env replayed to it)."""
    env = ShopR1Reward(gym.make("rewardgym/ShopSession-v0", split="test"), reward_config(reward))
    info = task.data.info
    sessions = env.get_wrapper_attr("sessions")
    env.reset(options={"session": _session_index(env, info["session_id"], sessions)})
    for _ in range(info["step"]):
        env.step("")
    *_, step_info = env.step(reply)
    return dict(step_info["reward_terms"])


def _session_index(env: gym.Env, session_id: str, sessions: Any) -> int:
    ids = env.get_wrapper_attr("log").session_ids
    return next(i for i, s in enumerate(sessions) if ids[s] == session_id)


def test_verifiers_finds_the_tasksets_and_their_envs_by_id() -> None:
    assert taskset_class("rewardgym-shop") is ShopTaskset
    assert environment_class("rewardgym-shop") is ShopEnv
    assert taskset_class("rewardgym-household") is HouseholdTaskset
    assert environment_class("rewardgym-household") is HouseholdEnv


def test_household_replies_name_an_action_or_none() -> None:
    env = make_text_env("rewardgym/Household-v1")
    env.reset(seed=0)
    assert parse_reply(env, "Find fridge.") == parse_reply(env, "I look.\nfind fridge") == 4
    assert parse_reply(env, "7") == 7
    for nonsense in ("", "fly to the moon", "99", '{"action": 3}'):
        assert parse_reply(env, nonsense) is None


def test_tasks_are_the_logged_steps(tasks: list[Any]) -> None:
    first = tasks[0].data
    assert first.info["step"] == 0 and first.prompt.startswith("# Session so far")
    assert {t.data.info["truth"]["type"] for t in tasks} >= {"click", "type_and_submit"}
    assert len({t.data.name for t in tasks}) == len(tasks)


names = st.sampled_from(["search_input", "product_1_title", "next_page", "add_to_cart", ""])
texts = st.sampled_from(["water bottle", "water bottles", "yoga mat", ""])
actions = st.one_of(
    st.builds(lambda n: {"type": "click", "name": n}, names),
    st.builds(lambda n, t: {"type": "type_and_submit", "name": n, "text": t}, names, texts),
    st.just({"type": "terminate"}),
)
completions = st.one_of(
    st.builds(
        lambda r, a: json.dumps({"rationale": r, "action": a}), st.text(max_size=20), actions
    ),
    st.builds(lambda a: json.dumps({"action": a}), actions),
    st.text(max_size=30),
)


@settings(max_examples=40, deadline=None)
@given(
    completion=completions,
    index=st.integers(0, 5),
    reward=st.sampled_from(["full", "no-dars", "binary"]),
)
def test_recorded_terms_add_up_to_shop_r1_rewards_total(
    tasks: list[Any], completion: str, index: int, reward: str
) -> None:
    task = tasks[index]
    want = wrapper_total(task, completion, reward)
    terms = shop_r1_weighted_terms(completion, task.data.info["truth"], reward_config(reward))
    value = {name: score * weight for name, (score, weight) in terms.items()}
    assert sum(value.values()) == pytest.approx(want["total"], rel=1e-12, abs=1e-12)
    assert value["format"] == want["format"] and value["type"] == want["type"]
    attribute = value.get("name_bonus", 0.0) + value.get("name_rouge", 0.0)
    assert attribute == pytest.approx(want["attribute"], rel=1e-12, abs=1e-12)
    text = value.get("text_bonus", 0.0) + value.get("text_rouge", 0.0)
    assert text == pytest.approx(want["value"], rel=1e-12, abs=1e-12)
    assert value["rationale"] == want["rationale"] == 0.0 and want["rationale_missing"] == 1.0


def _vf_eval(taskset: str, served: tuple[str, Path], out: Path, *options: str) -> list[Any]:
    """Run verifiers' own ``vf-eval`` on ``taskset`` against the served model; its episodes."""
    url, folder = served
    command = [
        str(Path(sys.executable).parent / "vf-eval"), taskset, "--model", str(folder),
        "--client.base-url", url, "--client.api-key-var", "REWARDGYM_NO_KEY",
        "--no-push", "--no-rich", "-o", str(out), *options,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=EVAL_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    [traces] = list(out.glob("*/traces.jsonl"))
    return [json.loads(line) for line in traces.read_text().splitlines()]


def test_vf_eval_runs_the_taskset_against_a_served_model(
    served: tuple[str, Path], tasks: list[Any], tmp_path: Path
) -> None:
    episodes = _vf_eval(
        "rewardgym-shop", served, tmp_path,
        "-n", "2", "--env.taskset.sessions", "1", "--env.taskset.max-context-chars", "400",
        "--sampling.max-tokens", "24",
    )  # fmt: skip
    assert len(episodes) == 2
    by_name = {t.data.name: t for t in tasks}
    for episode in episodes:
        [trace] = episode["traces"]
        assert trace["ok"], trace["errors"]
        reply = next(n["message"]["content"] for n in reversed(trace["nodes"]) if n["sampled"])
        recorded = sum(r["score"] * r["weight"] for r in trace["rewards"].values())
        want = wrapper_total(by_name[trace["task"]["data"]["name"]], reply.strip())
        assert recorded == pytest.approx(want["total"], rel=1e-12, abs=1e-12)
        assert trace["metrics"]["rationale_missing"] == 1.0


def test_vf_eval_plays_household_episodes_against_a_served_model(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    [episode] = _vf_eval(
        "rewardgym-household", served, tmp_path,
        "-n", "1", "--env.taskset.max-turns", "2", "--sampling.max-tokens", "12",
    )  # fmt: skip
    [trace] = episode["traces"]
    assert trace["ok"], trace["errors"]
    replies = [n["message"]["content"].strip() for n in trace["nodes"] if n["sampled"]]
    # The same replies replayed here give the recorded steps, inexecutable count and progress.
    env = make_text_env("rewardgym/Household-v1")
    env.reset(seed=0)
    inexecutable, cgc, success = 0.0, 0.0, 0.0
    for reply in replies[:2]:
        action = parse_reply(env, reply)
        if action is None:
            inexecutable += 1
            continue
        _, reward, *_, info = env.step(action)
        inexecutable += 0.0 if info["executable"] else 1.0
        cgc, success = float(info["cgc"]), float(reward)
    assert trace["metrics"]["steps"] == min(len(replies), 2)
    assert trace["metrics"]["inexecutable"] == inexecutable
    assert trace["metrics"]["cgc"] == cgc
    assert trace["rewards"]["success"]["score"] == success


def test_the_shop_taskset_replays_your_own_sessions(tmp_path: Path) -> None:
    steps = [
        {"page": "<html><input name='search_input'/></html>", "rationale": "I look for a lamp.",
         "action": {"type": "type_and_submit", "name": "search_input", "text": "desk lamp"}},
        {"page": "<html><a name='product_1_title'>Brass lamp</a></html>",
         "action": {"type": "click", "name": "product_1_title"}},
        {"page": "<html><p>Brass lamp</p></html>", "action": {"type": "terminate"}},
    ]  # fmt: skip
    log = tmp_path / "mine.jsonl"
    log.write_text(
        "\n".join(json.dumps({"session_id": f"mine-{i}", "steps": steps[i:]}) for i in range(2))
    )
    config = ShopConfig(id="rewardgym-shop", data=str(log), split="all", max_context_chars=2000)
    mine = list(ShopTaskset(config))
    assert [t.data.name for t in mine] == [
        "mine-0#0",
        "mine-0#1",
        "mine-0#2",
        "mine-1#0",
        "mine-1#1",
    ]
    assert [t.data.info["truth"]["type"] for t in mine] == [
        "type_and_submit", "click", "terminate", "click", "terminate",
    ]  # fmt: skip
    assert "Brass lamp" in mine[2].data.prompt


def test_the_shop_validation_split_is_held_out_of_train() -> None:
    def session_ids(split: str) -> set[str]:
        config = ShopConfig(id="rewardgym-shop", split=split, sessions=3, max_context_chars=200)
        return {t.data.info["session_id"] for t in ShopTaskset(config)}

    validation, train, test = session_ids("validation"), session_ids("train"), session_ids("test")
    assert len(validation) == len(train) == len(test) == 3
    assert not validation & train and not validation & test and not train & test
