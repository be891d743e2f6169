"""verifiers' own ``openenv`` taskset plays ``rewardgym serve`` end to end: a shop and a household rollout against a scripted model."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request

from rewardgym.integrations.openenv_server import build_app, serving_in_thread
from rewardgym.integrations.text_env import make_text_env, text_action

EVAL_TIMEOUT_S = 300
SHOP_REPLIES = [
    '{"rationale": "I look for a mat.", "action": {"type": "type_and_submit", '
    '"name": "search_input", "text": "yoga mat"}}',
    '{"rationale": "Nothing fits.", "action": {"type": "terminate"}}',
]


class ScriptedModel:
    """An OpenAI-compatible chat endpoint that answers turn ``k`` of a chat with ``replies[k]`` (then the last)."""

    def __init__(self) -> None:
        self.replies: list[str] = ["0"]
        self.app = FastAPI()
        self.app.post("/v1/chat/completions")(self.chat)

    async def chat(self, request: Request) -> dict[str, Any]:
        body = await request.json()
        turn = sum(1 for message in body["messages"] if message["role"] == "assistant")
        reply = self.replies[min(turn, len(self.replies) - 1)]
        return {
            "id": f"scripted-{turn}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


@pytest.fixture(scope="module")
def model() -> Iterator[tuple[ScriptedModel, str]]:
    scripted = ScriptedModel()
    with serving_in_thread(scripted.app) as url:
        yield scripted, url


def vf_eval_openenv(env_url: str, model_url: str, out: Path) -> dict[str, Any]:
    """One rollout of verifiers' ``openenv`` taskset (seed 0) against ``env_url``: its trace.

    The taskset's config has no defaults verifiers' command line can build (it needs ``env`` or
    ``base_url``), so it comes in a config file; the player chats in-process (rewardgym's
    ``ChatHarness``, a subprocess runtime), so nothing needs a sandbox or a tunnel.
    """
    config = out / "eval.toml"
    config.write_text(
        "[env.taskset]\n"
        'id = "openenv"\n'
        f'base_url = "{env_url}"\n'
        "resets = [{seed = 0}]\n"
        "[env.player.harness]\n"
        'id = "rewardgym-shop"\n'
        "[env.player.runtime]\n"
        'type = "subprocess"\n'
    )
    command = [
        str(Path(sys.executable).parent / "vf-eval"), "@", str(config), "--model", "scripted",
        "--client.base-url", f"{model_url}/v1", "--client.api-key-var", "REWARDGYM_NO_KEY",
        "--no-push", "--no-rich", "-o", str(out / "runs"), "-n", "1",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=EVAL_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    [traces] = list((out / "runs").glob("*/traces.jsonl"))
    [episode] = [json.loads(line) for line in traces.read_text().splitlines()]
    [trace] = episode["traces"]
    assert trace["ok"], trace["errors"]
    return dict(trace)


def local_total(env_id: str, reward: str | None, replies: list[str]) -> tuple[float, int]:
    """The reward the same replies earn stepped here (seed 0), and the number of steps."""
    env = make_text_env(env_id, reward)
    env.reset(seed=0)
    total, steps, done = 0.0, 0, False
    while not done:
        reply = replies[min(steps, len(replies) - 1)]
        _, r, terminated, truncated, _ = env.step(text_action(env, reply))
        total, steps, done = total + float(r), steps + 1, terminated or truncated
    return total, steps


def test_a_household_rollout_sends_numbers_and_earns_the_local_reward(
    model: tuple[ScriptedModel, str], tmp_path: Path
) -> None:
    scripted, model_url = model
    env = make_text_env("rewardgym/Household-v1")
    env.reset(seed=0)
    scripted.replies = [str(a) for a in env.unwrapped.expert_script()]  # replies like "4"
    with serving_in_thread(build_app("rewardgym/Household-v1", max_sessions=2)) as url:
        trace = vf_eval_openenv(url, model_url, tmp_path)
    replies = [n["message"]["content"] for n in trace["nodes"] if n["sampled"]]
    assert replies == scripted.replies  # each sent as {"action": N}, each taken
    assert trace["rewards"]["openenv_reward"]["score"] == 1.0
    assert local_total("rewardgym/Household-v1", None, replies) == (1.0, len(replies))


def test_a_shop_rollout_sends_reply_objects_and_earns_the_local_reward(
    model: tuple[ScriptedModel, str], tmp_path: Path
) -> None:
    scripted, model_url = model
    scripted.replies = SHOP_REPLIES  # JSON objects: verifiers sends each as the action itself
    app = build_app("rewardgym/ShopSession-v0", "shop-r1", max_sessions=2)
    with serving_in_thread(app) as url:
        trace = vf_eval_openenv(url, model_url, tmp_path)
    total, steps = local_total("rewardgym/ShopSession-v0", "shop-r1", SHOP_REPLIES)
    assert sum(1 for n in trace["nodes"] if n["sampled"]) == steps
    assert trace["rewards"]["openenv_reward"]["score"] == pytest.approx(total, abs=1e-12)
    assert total > 0.5  # the object was read as a reply, not refused or scored as garbage
    first_observation = json.loads(trace["nodes"][0]["message"]["content"])["observation"]
    assert "truth" not in json.dumps(first_observation)
