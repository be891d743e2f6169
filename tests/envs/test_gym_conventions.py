"""Every registered env keeps Gymnasium's conventions where Gymnasium leaves them to the env.

Issue 34, item 8: unknown ``reset`` options were ignored (a typo played a random session) and
``session=True`` read as 1; Household and BabyAI stepped on after the episode ended and the
unwrapped envs stepped before ``reset``; ``ShopR1Reward(env).spec.to_json()`` failed on a
function; ``ShopStore-v0(store="rank-by-rating")`` failed; both Household versions' data sets
were ``rewardgym/household-v0``; a 1 MB option was echoed whole in an error.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest
from gymnasium.envs.registration import EnvSpec

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.envs import (
    HOUSEHOLD_ID,
    HOUSEHOLD_V0_ID,
    SHOP_SESSION_ID,
    SHOP_STORE_ID,
    TRAJECTORY_REPLAY_ID,
    VIRTUALHOME_ID,
    babyai_text_id,
    rewardgym_ids,
)
from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig, store_variant
from rewardgym.envs.trajectories.minari_io import default_dataset_id
from rewardgym.wrappers import ShopR1Reward

IDS = rewardgym_ids()
BABYAI_ID = babyai_text_id("GoToLocal")
VALID_OPTIONS: dict[str, tuple[str, ...]] = {
    SHOP_SESSION_ID: ("session",),
    SHOP_STORE_ID: ("intent",),
    HOUSEHOLD_V0_ID: ("instruction", "room", "task"),
    HOUSEHOLD_ID: ("instruction", "placements", "room", "task"),
    TRAJECTORY_REPLAY_ID: ("episode",),
    VIRTUALHOME_ID: ("program",),
}
HUGE = "x" * 1_000_000


def _unwrapped(env_id: str, **kwargs: Any) -> gym.Env:
    return gym.make(env_id, disable_env_checker=True, **kwargs).unwrapped


def _first_action(env: gym.Env) -> Any:
    return (
        '{"rationale": "r", "action": {"type": "click", "name": "x"}}'
        if isinstance(env.action_space, gym.spaces.Text)
        else 0
    )


def test_every_id_has_an_options_case() -> None:
    assert set(IDS) - set(VALID_OPTIONS) == {i for i in IDS if "BabyAI" in i}


@pytest.mark.parametrize("env_id", IDS)
def test_unknown_reset_options_are_refused_naming_the_key_and_the_valid_keys(env_id: str) -> None:
    env = _unwrapped(env_id)
    valid = VALID_OPTIONS.get(env_id, ())
    listed = ", ".join(repr(k) for k in valid) if valid else "this env takes no options"
    with pytest.raises(ValueError, match=r"unknown option 'sesion'") as caught:
        env.reset(seed=0, options={"sesion": 3})
    assert listed in str(caught.value)
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(seed=0, options=["session"])  # type: ignore[arg-type]
    env.reset(seed=0, options={})


@pytest.mark.parametrize(
    ("env_id", "key"), [(SHOP_SESSION_ID, "session"), (SHOP_STORE_ID, "intent")]
)
@pytest.mark.parametrize("value", [True, False, 1.0, "1"])
def test_a_bool_or_a_float_is_not_an_index(env_id: str, key: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"options\['{key}'\].* is not an integer"):
        _unwrapped(env_id).reset(seed=0, options={key: value})


@pytest.mark.parametrize("env_id", IDS)
def test_the_unwrapped_env_refuses_to_step_before_reset(env_id: str) -> None:
    env = _unwrapped(env_id)
    with pytest.raises(gym.error.ResetNeeded, match=r"call reset\(\)"):
        env.step(_first_action(env))


# Each env with a short way to the end of an episode: make kwargs and the action to repeat.
ENDINGS: dict[str, tuple[dict[str, Any], Any]] = {
    HOUSEHOLD_V0_ID: ({"max_steps": 2}, 0),
    HOUSEHOLD_ID: ({"max_steps": 2}, 0),
    BABYAI_ID: ({}, 0),
    TRAJECTORY_REPLAY_ID: ({}, 0),
    SHOP_SESSION_ID: ({}, ""),
    SHOP_STORE_ID: ({"shopper": SyntheticShopperConfig(max_steps=4)}, ""),
}


@pytest.mark.parametrize("env_id", sorted(ENDINGS))
def test_no_step_after_the_episode_ends_until_reset(env_id: str) -> None:
    kwargs, action = ENDINGS[env_id]
    env = _unwrapped(env_id, **kwargs)
    env.reset(seed=0)
    for _ in range(1000):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    assert terminated or truncated
    with pytest.raises(gym.error.ResetNeeded, match=r"call reset\(\)"):
        env.step(action)
    env.reset(seed=1)
    env.step(action)


def test_shop_r1_reward_spec_is_json_and_rebuilds() -> None:
    env = ShopR1Reward(gym.make(SHOP_SESSION_ID))
    assert env.spec is not None
    assert env.spec.additional_wrappers[-1].kwargs["rouge"] == "rouge_l"
    rebuilt = gym.make(EnvSpec.from_json(env.spec.to_json()))
    assert isinstance(rebuilt, ShopR1Reward) and rebuilt.config == env.config
    rebuilt.reset(seed=0)
    _, reward, *_ = rebuilt.step('{"rationale": "r", "action": {"type": "terminate"}}')
    assert reward >= 0.5


def test_a_custom_rouge_is_recorded_by_name_and_asked_for_again() -> None:
    def my_rouge(prediction: str, reference: str) -> float:
        return 1.0

    env = ShopR1Reward(gym.make(SHOP_SESSION_ID), rouge=my_rouge)
    assert env.spec is not None
    recorded = env.spec.additional_wrappers[-1].kwargs["rouge"]
    assert recorded.endswith("my_rouge") and "my_rouge" in env.spec.to_json()
    with pytest.raises(ValueError, match="pass the function itself"):
        gym.make(EnvSpec.from_json(env.spec.to_json()))


def test_shop_store_takes_a_variant_name() -> None:
    env = _unwrapped(SHOP_STORE_ID, store="rank-by-rating")
    assert env.store == store_variant("rank-by-rating")  # type: ignore[attr-defined]
    assert env.store.ranking == "rating"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown store variant 'rank-by-ratin'"):
        _unwrapped(SHOP_STORE_ID, store="rank-by-ratin")


def test_each_env_version_gets_its_own_minari_id() -> None:
    ids = {env_id: default_dataset_id(env_id) for env_id in IDS}
    assert ids[HOUSEHOLD_V0_ID] == "rewardgym/household/perturbed-expert-v0"
    assert ids[HOUSEHOLD_ID] == "rewardgym/household/perturbed-expert-v1"
    assert len(set(ids.values())) == len(ids), ids


# A 1 MB value in each place an option, or a make argument read like one, is checked.
HUGE_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (SHOP_SESSION_ID, {}, {"session": HUGE}),
    (SHOP_SESSION_ID, {}, {HUGE: 1}),
    (SHOP_STORE_ID, {}, {"intent": HUGE}),
    (HOUSEHOLD_V0_ID, {}, {"task": HUGE}),
    (HOUSEHOLD_V0_ID, {}, {"room": HUGE}),
    (HOUSEHOLD_ID, {}, {"instruction": HUGE}),
    (HOUSEHOLD_ID, {}, {"placements": HUGE}),
    (HOUSEHOLD_ID, {}, {"placements": {HUGE: "fridge"}}),
    (HOUSEHOLD_ID, {}, {"placements": {"milk": HUGE}}),
    (TRAJECTORY_REPLAY_ID, {}, {"episode": HUGE}),
    (BABYAI_ID, {}, {HUGE: 1}),
    (SHOP_STORE_ID, {"store": HUGE}, {}),
]


@pytest.mark.parametrize(("env_id", "kwargs", "options"), HUGE_CASES)
def test_a_huge_value_is_never_echoed_whole(
    env_id: str, kwargs: dict[str, Any], options: dict[str, Any]
) -> None:
    with pytest.raises(ValueError) as caught:
        _unwrapped(env_id, **kwargs).reset(seed=0, options=options)
    message = str(caught.value)
    assert len(message) < 1_000, message[:300]
    assert "1,000,000 long" in message
