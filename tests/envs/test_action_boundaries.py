"""Every discrete env refuses what is not an integer choice, naming the value and the valid range.

Issue 24, item 9: ``Household-v1`` (and v0) ran ``step(3.7)`` as action 3 and ``step(-0.5)`` as
action 0, took ``step("4")`` and ``reset(options={"task": 1.5})``; NaN and ``None`` failed with
bare ``int()`` errors. The envs and ``CorenReward`` now share one check
(``rewardgym.envs.spaces.discrete_index``).

Issue 39, item 17: the shop envs scored ``step(5)``, ``None``, bytes and a list as a wrong
answer (0) without a word, alone and in every ``make_vec`` mode; they now refuse anything but
text with the :class:`~rewardgym.errors.InvalidActionError` the reward wrappers raise too.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.envs import (
    HOUSEHOLD_ID,
    HOUSEHOLD_V0_ID,
    SHOP_SESSION_ID,
    SHOP_STORE_ID,
    TRAJECTORY_REPLAY_ID,
    babyai_text_id,
)
from rewardgym.envs.spaces import discrete_index
from rewardgym.envs.trajectories import CollectConfig, collect_dataset
from rewardgym.errors import InvalidActionError
from rewardgym.wrappers import ShopR1Reward

NOT_INTEGERS = [3.7, -0.5, 2.0, "4", True, np.True_, math.nan, None, np.float32(1.0), [1]]
OUT_OF_RANGE = [-1, 10**6, np.int64(-3)]


@pytest.fixture(scope="module")
def replay_data():  # type: ignore[no-untyped-def]
    return collect_dataset(CollectConfig(episodes=2, seed=0))


def make(env_id: str, replay_data) -> gym.Env:  # type: ignore[no-untyped-def]
    kwargs = {"dataset": replay_data} if env_id == TRAJECTORY_REPLAY_ID else {}
    env = gym.make(env_id, disable_env_checker=True, **kwargs)
    env.reset(seed=0)
    return env


IDS = [HOUSEHOLD_ID, HOUSEHOLD_V0_ID, babyai_text_id("GoToLocal"), TRAJECTORY_REPLAY_ID]


@pytest.mark.parametrize("env_id", IDS)
def test_step_refuses_what_is_not_an_integer_action(env_id: str, replay_data) -> None:  # type: ignore[no-untyped-def]
    env = make(env_id, replay_data)
    n = env.action_space.n  # type: ignore[attr-defined]
    for action in NOT_INTEGERS:
        with pytest.raises(
            ValueError, match=rf"is not an integer action id: use an int in 0\.\.{n - 1}"
        ):
            env.step(action)
    for action in OUT_OF_RANGE:
        with pytest.raises(ValueError, match=rf"is out of range: use 0\.\.{n - 1}"):
            env.step(action)
    for action in (np.int64(0), np.array(1), 2):  # numpy integers and 0-d arrays are integers
        env.step(action)


@pytest.mark.parametrize("env_id", [HOUSEHOLD_ID, HOUSEHOLD_V0_ID])
@pytest.mark.parametrize("key", ["task", "instruction", "room"])
def test_household_reset_options_refuse_non_integers(env_id: str, key: str) -> None:
    env = gym.make(env_id, disable_env_checker=True)
    for value in (1.5, "1", True, math.nan, None):
        options = {"task": 0, key: value}
        if key == "task" and isinstance(value, str):
            options[key] = "not a task name"
        with pytest.raises(ValueError, match=rf"{key}|household task|Household-v1 task"):
            env.reset(seed=0, options=options)
    env.reset(seed=0, options={"task": np.int64(1), key: np.int64(1)})


def test_placements_must_be_a_dict() -> None:
    env = gym.make(HOUSEHOLD_ID, disable_env_checker=True)
    with pytest.raises(ValueError, match=r"options\['placements'\]=.* is not a dict"):
        env.reset(seed=0, options={"placements": ["mug"]})


def test_replay_episode_option_is_checked(replay_data) -> None:  # type: ignore[no-untyped-def]
    env = gym.make(TRAJECTORY_REPLAY_ID, dataset=replay_data, disable_env_checker=True)
    with pytest.raises(ValueError, match=r"options\['episode'\].*not an integer"):
        env.reset(options={"episode": 0.5})
    with pytest.raises(ValueError, match=r"has 2 episodes.*out of range: use 0\.\.1"):
        env.reset(options={"episode": 2})


def test_the_check_names_value_and_range() -> None:
    with pytest.raises(
        ValueError, match=r"^action 3\.7 is not an integer action id: use an int in 0\.\.57$"
    ):
        discrete_index(3.7, 58)
    with pytest.raises(ValueError, match=r"^action nan is not an integer"):
        discrete_index(math.nan, 58)
    with pytest.raises(ValueError, match=r"^action None is not an integer"):
        discrete_index(None, 58)
    assert discrete_index(np.array(5, dtype=np.uint8), 58) == 5
    with pytest.raises(ValueError, match="not an integer"):
        discrete_index(np.array(5.0), 58)


NOT_TEXTS = [5, None, b'{"action": {"type": "terminate"}}', ["terminate"], 1.5]
TERMINATE = '{"rationale": "Done.", "action": {"type": "terminate"}}'


@pytest.mark.parametrize("env_id", [SHOP_SESSION_ID, SHOP_STORE_ID])
def test_shop_envs_refuse_what_is_not_text(env_id: str) -> None:
    env = gym.make(env_id, disable_env_checker=True)
    wrapped = ShopR1Reward(gym.make(env_id, disable_env_checker=True))
    for stepped in (env, wrapped):
        stepped.reset(seed=0)
        for action in NOT_TEXTS:
            assert not env.action_space.contains(action)
            with pytest.raises(
                InvalidActionError, match=r"takes the policy's text \(a str\)"
            ) as err:
                stepped.step(action)
            assert isinstance(err.value, TypeError)
            assert f"got {type(action).__name__}: " in str(err.value)
        stepped.step(np.str_(TERMINATE))  # a numpy string is text


@pytest.mark.filterwarnings("ignore:.*ERROR:")  # the async workers log the error they send back
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", [SHOP_SESSION_ID, SHOP_STORE_ID])
def test_vector_shop_envs_refuse_what_is_not_text(env_id: str, mode: str) -> None:
    kwargs = {"shared_memory": False} if mode == "async" else {}
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, vector_kwargs=kwargs)
    try:
        envs.reset(seed=0)
        with pytest.raises(InvalidActionError, match=r"got NoneType: None"):
            envs.step((TERMINATE, None))
    finally:
        envs.close()
