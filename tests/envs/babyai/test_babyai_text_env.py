"""BabyAI through the text adapter: minigrid's dynamics, a faithful description, the bot as expert."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX, STATE_TO_IDX

import rewardgym  # noqa: F401
from rewardgym.envs import BABYAI_TEXT_LEVELS, babyai_text_id
from rewardgym.envs.babyai import BabyAITextEnv, describe, describe_view


def _view(*cells: tuple[int, int, str, str, str]) -> np.ndarray:
    image = np.zeros((7, 7, 3), dtype=np.uint8)
    image[:, :, 0] = OBJECT_TO_IDX["empty"]
    for i, j, obj, colour, state in cells:
        image[i, j] = (OBJECT_TO_IDX[obj], COLOR_TO_IDX[colour], STATE_TO_IDX[state])
    return image


def test_view_description_places_objects_relative_to_the_agent() -> None:
    image = _view(
        (2, 4, "ball", "red", "open"),
        (1, 5, "key", "blue", "open"),
        (5, 2, "door", "green", "locked"),
        (3, 1, "wall", "grey", "open"),
        (3, 6, "box", "purple", "open"),  # the agent's own cell: what it carries
    )
    assert describe_view(image) == [
        "a blue key 1 step forward and 2 steps left",  # equally near: alphabetical
        "a red ball 2 steps forward and 1 step left",
        "a locked green door 4 steps forward and 2 steps right",
        "a wall 5 steps forward",
    ]
    text = describe(image, 3, "go to the red ball", "purple box")
    assert text.startswith("Mission: go to the red ball\nYou are facing north.")
    assert text.endswith("You are carrying a purple box.")


@pytest.mark.parametrize("level", BABYAI_TEXT_LEVELS)
def test_text_env_keeps_minigrid_and_adds_text(level: str) -> None:
    env = gym.make(babyai_text_id(level))
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    raw = gym.make(f"BabyAI-{level}-v0").reset(seed=3)[0]
    assert np.array_equal(obs["image"], raw["image"]) and obs["direction"] == raw["direction"]
    assert obs["text"].startswith(f"Mission: {raw['mission']}\n")
    assert info["instruction"] == raw["mission"]
    assert env.unwrapped.action_names[2] == "forward"


@pytest.mark.parametrize("level", BABYAI_TEXT_LEVELS)
def test_bot_expert_solves_the_level(level: str) -> None:
    env = gym.make(babyai_text_id(level))
    for seed in range(3):
        env.reset(seed=seed)
        terminated = truncated = False
        while not (terminated or truncated):
            _, reward, terminated, truncated, info = env.step(env.unwrapped.expert_action())
        assert terminated and info["success"] and float(reward) > 0


def test_expert_recovers_from_random_actions() -> None:
    env = BabyAITextEnv("GoToLocal")
    rng = np.random.default_rng(0)
    successes = 0
    for seed in range(5):
        env.reset(seed=seed)
        done = False
        while not done:
            action = env.expert_action()
            if action is None or rng.random() < 0.3:
                action = int(rng.integers(7))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        successes += info["success"]
    assert successes >= 4


def test_unknown_level_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown BabyAI level"):
        BabyAITextEnv("NoSuchLevel")
