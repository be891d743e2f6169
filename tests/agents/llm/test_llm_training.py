"""SFT and GRPO on the tiny default model: weights change, loss falls, reward rises."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from rewardgym.agents.llm.dataset import sample_rows, to_dataset
from rewardgym.agents.llm.grpo import ORDER_LOG, GRPOOptions, ReplayEnv, train_grpo
from rewardgym.agents.llm.model import load_model
from rewardgym.agents.llm.prompt import env_kwargs
from rewardgym.agents.llm.sft import completion_loss, train_sft
from rewardgym.wrappers import PolicyOutput, ShopR1Reward

QUIET = GRPOOptions(resume=False, progress=False)


class ShortOutputReward(gym.Wrapper):
    """A user's own reward wrapper: the fewer characters the policy writes, the better."""

    def step(self, action: str | PolicyOutput) -> tuple[Any, float, bool, bool, dict]:
        """Step the env with the text; reward minus its length in hundreds of characters."""
        text = action.text if isinstance(action, PolicyOutput) else action
        obs, _, terminated, truncated, info = self.env.step(text)
        info["reward_terms"] = {"length": float(len(text))}
        return obs, -len(text) / 100.0, terminated, truncated, info


def _weights(path: Path) -> dict[str, torch.Tensor]:
    model, _ = load_model(path)
    return {k: v.clone() for k, v in model.state_dict().items()}


def _changed(before: dict[str, torch.Tensor], after: dict[str, torch.Tensor]) -> bool:
    return any(not torch.equal(before[k], after[k]) for k in before)


@pytest.fixture(scope="module")
def sft_model(tiny_model: Path, tiny_rows, tiny_config, tmp_path_factory) -> Path:
    """The tiny model after a few SFT steps."""
    rows = to_dataset(sample_rows(tiny_rows, tiny_config.sft.max_examples, 0))
    return train_sft(
        tiny_model,
        rows,
        tmp_path_factory.mktemp("sft"),
        tiny_config.sft,
        max_length=tiny_config.prompt.max_prompt_tokens + 64,
        progress=False,
    ).path


def test_sft_lowers_the_completion_loss(tiny_model: Path, sft_model: Path, tiny_rows) -> None:
    data = to_dataset(tiny_rows)
    before = completion_loss(tiny_model, data, limit=24)
    after = completion_loss(sft_model, data, limit=24)
    assert after < before - 0.5
    assert _changed(_weights(tiny_model), _weights(sft_model))


def test_grpo_follows_a_user_wrapper(
    tiny_model: Path, shop_store: Path, tiny_rows, tiny_config, tmp_path: Path
) -> None:
    config = replace(
        tiny_config.grpo,
        steps=8,
        learning_rate=3e-2,
        num_generations=4,
        max_completion_tokens=16,
        save_steps=100,
    )
    env = ReplayEnv(to_dataset(tiny_rows), shop_store, env_kwargs(tiny_config.prompt))
    result = train_grpo(tiny_model, env, tmp_path, ShortOutputReward, config, QUIET)
    rewards = result.series("reward")
    assert len(rewards) == 8 and result.steps == 8
    assert np.mean(rewards[-3:]) > np.mean(rewards[:3])
    assert _changed(_weights(tiny_model), _weights(result.path))
    assert len((tmp_path / ORDER_LOG).read_text().splitlines()) == 8


def test_grpo_with_shop_r1_logs_every_reward_term(
    sft_model: Path, shop_store: Path, tiny_rows, tiny_config, tmp_path: Path
) -> None:
    config = replace(tiny_config.grpo, steps=2, learning_rate=1e-3, save_steps=100)
    env = ReplayEnv(to_dataset(tiny_rows), shop_store, env_kwargs(tiny_config.prompt))
    result = train_grpo(sft_model, env, tmp_path, ShopR1Reward, config, QUIET)
    last = result.log_history[-2]
    for term in ("format", "rationale", "type", "attribute", "value", "total"):
        assert f"reward_terms/{term}" in last
    assert last["reward_terms/rationale_missing"] == 0.0  # the rollout supplied self-certainty
    assert result.steps == 2 and (tmp_path / "model" / "model.safetensors").is_file()


def test_sft_warms_up_and_logs_the_first_and_last_loss(
    tiny_model: Path, tiny_rows, tiny_config, tmp_path: Path
) -> None:
    rows = to_dataset(sample_rows(tiny_rows, 64, 0))
    config = replace(tiny_config.sft, warmup_ratio=0.5, logging_steps=1, learning_rate=1e-3)
    result = train_sft(tiny_model, rows, tmp_path / "a", config, max_length=256, progress=False)
    rates = [r["learning_rate"] for r in result.log_history if "learning_rate" in r]
    assert result.steps == 8 and len(rates) == 8
    # warmup_steps=0.5 is read as half of the 8 steps: the rate climbs, peaks at 1e-3, decays.
    assert rates[0] < rates[1] < rates[2] < rates[3]
    assert max(rates) == pytest.approx(1e-3, rel=0.3) and rates[-1] < max(rates)
    sparse = replace(tiny_config.sft, logging_steps=100)
    quiet = train_sft(tiny_model, rows, tmp_path / "b", sparse, max_length=256, progress=False)
    assert len(quiet.losses) == 2 and all(np.isfinite(quiet.losses))


def test_loss_guard_names_the_run_and_the_step() -> None:
    from types import SimpleNamespace

    from rewardgym.agents.llm.callbacks import LossGuard, TrainingDiverged

    guard = LossGuard("row 'sft' (seed 1)")
    state = SimpleNamespace(global_step=7, max_steps=20)
    guard.on_log(None, state, None, logs={"loss": 2.5})
    with pytest.raises(TrainingDiverged, match=r"row 'sft' \(seed 1\).*nan at step 7 of 20"):
        guard.on_log(None, state, None, logs={"loss": float("nan")})
    with pytest.raises(TrainingDiverged, match="inf"):
        guard.on_log(None, state, None, logs={"loss": float("inf")})


def test_loss_guard_refuses_weights_the_last_update_wrecked() -> None:
    """Issue 39, item 5: a step's loss is computed before its update; the weights tell the rest."""
    from types import SimpleNamespace

    from rewardgym.agents.llm.callbacks import LossGuard, TrainingDiverged

    guard = LossGuard("train sft")
    state = SimpleNamespace(global_step=2, max_steps=2)
    layer = torch.nn.Linear(2, 2)
    guard.on_train_end(None, state, None, model=layer)
    with torch.no_grad():
        layer.bias[1] = float("inf")
    with pytest.raises(TrainingDiverged, match=r"train sft: after step 2 of 2, 1 weight tensors"):
        guard.on_train_end(None, state, None, model=layer)


def test_grpo_with_per_term_advantages_gives_each_term_its_own_reward(
    sft_model: Path, shop_store: Path, tiny_rows, tiny_config, tmp_path: Path
) -> None:
    config = replace(
        tiny_config.grpo, steps=2, learning_rate=1e-3, save_steps=100, advantages="per-term"
    )
    env = ReplayEnv(to_dataset(tiny_rows), shop_store, env_kwargs(tiny_config.prompt))
    result = train_grpo(sft_model, env, tmp_path, ShopR1Reward, config, QUIET)
    step = next(r for r in result.log_history if "rewards/term_type/mean" in r)
    total = sum(
        step[f"rewards/term_{t}/mean"]
        for t in ("format", "rationale", "type", "attribute", "value")
    )
    assert total == pytest.approx(step["reward"], rel=1e-5, abs=1e-6)
    assert (
        len((tmp_path / ORDER_LOG).read_text().splitlines()) == 2
    )  # the env is stepped once per batch


def test_the_one_entry_point_trains_on_the_live_store(
    sft_model: Path, tiny_config, tmp_path: Path
) -> None:
    from rewardgym.agents.simulation.live_grpo import LiveEnv

    config = replace(
        tiny_config.grpo,
        steps=1,
        num_generations=2,
        prompts_per_step=2,
        max_completion_tokens=24,
        save_steps=100,
    )
    live = LiveEnv(tiny_config.prompt, max_turns=2, intents=5)
    result = train_grpo(sft_model, live, tmp_path, None, config, QUIET)
    assert result.steps == 1 and (tmp_path / "model" / "model.safetensors").is_file()
    last = result.log_history[-2]
    assert "reward_terms/type" in last  # the live store's default reward: Shop-R1's
    assert last["reward_terms/rationale_missing"] == 0.0  # the live rollout supplied certainty
    (line,) = (tmp_path / ORDER_LOG).read_text().splitlines()
    assert all(0 <= s < 5 and 1 <= t <= 2 for s, t in json.loads(line)["rows"])
