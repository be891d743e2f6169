"""``gym.make_vec`` over every registered id, in both modes, gives what N single envs give by hand.

Issue 32, item 1. Gymnasium 1.0.0's ``AsyncVectorEnv`` with its default shared memory returned
every Household and BabyAI ``text`` as the charset's first character repeated (it decodes a
``Text`` field once, when built) and could not hold the shop envs' ``history`` at all; the
text spaces now say how shared memory reads them (``rewardgym.envs.spaces``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.envs import (
    HOUSEHOLD_ID,
    HOUSEHOLD_V0_ID,
    SHOP_SESSION_ID,
    SHOP_STORE_ID,
    VIRTUALHOME_ID,
    rewardgym_ids,
)

IDS = rewardgym_ids()
SHOP_IDS = (SHOP_SESSION_ID, SHOP_STORE_ID)
NUM_ENVS = 2
STEPS = 8
SEED = 11
ENV_KWARGS: dict[str, dict[str, Any]] = {
    HOUSEHOLD_ID: {"max_steps": 3},
    HOUSEHOLD_V0_ID: {"max_steps": 3},
    VIRTUALHOME_ID: {"max_steps": 3},
}
"""Short episodes, so that the vector env's autoreset happens within ``STEPS``."""


def _vector_kwargs(env_id: str, mode: str) -> dict[str, Any]:
    """The shop envs' texts and past actions have no fixed size: async runs them without shared memory."""
    return {"shared_memory": False} if mode == "async" and env_id in SHOP_IDS else {}


def _item(batch: Any, index: int) -> Any:
    """Sub-env ``index``'s part of a batched observation."""
    if isinstance(batch, dict):
        return {key: _item(value, index) for key, value in batch.items()}
    return batch[index]


def _same(single: Any, batched: Any) -> bool:
    """Whether one env's observation equals its part of the batch (ints and 0-d arrays alike)."""
    if isinstance(single, dict):
        return single.keys() == batched.keys() and all(_same(single[k], batched[k]) for k in single)
    if isinstance(single, str):
        return isinstance(batched, str) and single == batched
    if isinstance(single, tuple | list):
        return len(single) == len(batched) and all(
            _same(a, b) for a, b in zip(single, batched, strict=True)
        )
    return bool(np.array_equal(np.asarray(single), np.asarray(batched)))


def _actions(env_id: str) -> list[list[Any]]:
    """``STEPS`` seeded actions for each sub-env, from its own action space."""
    space = gym.make(env_id, **ENV_KWARGS.get(env_id, {})).action_space
    out = []
    for i in range(NUM_ENVS):
        space.seed(100 + i)
        out.append([space.sample() for _ in range(STEPS)])
    return out


def _by_hand(env_id: str, actions: list[list[Any]]) -> list[list[tuple[Any, ...]]]:
    """Each step of N single envs, reset with ``SEED + i`` and reset on the step after an episode ends.

    That is Gymnasium 1.0.0's vector autoreset ("next step"): the step after a termination or
    truncation resets the sub-env, with reward 0 and both flags false.
    """
    trace: list[list[tuple[Any, ...]]] = []
    envs = [gym.make(env_id, **ENV_KWARGS.get(env_id, {})) for _ in range(NUM_ENVS)]
    trace.append([(env.reset(seed=SEED + i)[0],) for i, env in enumerate(envs)])
    ended = [False] * NUM_ENVS
    for t in range(STEPS):
        row = []
        for i, env in enumerate(envs):
            if ended[i]:
                row.append((env.reset()[0], 0.0, False, False))
                ended[i] = False
            else:
                obs, reward, terminated, truncated, _ = env.step(actions[i][t])
                row.append((obs, float(reward), terminated, truncated))
                ended[i] = terminated or truncated
        trace.append(row)
    for env in envs:
        env.close()
    return trace


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_matches_single_envs_stepped_by_hand(env_id: str, mode: str) -> None:
    actions = _actions(env_id)
    expected = _by_hand(env_id, actions)
    envs = gym.make_vec(
        env_id,
        num_envs=NUM_ENVS,
        vectorization_mode=mode,
        vector_kwargs=_vector_kwargs(env_id, mode),
        **ENV_KWARGS.get(env_id, {}),
    )
    try:
        obs, _ = envs.reset(seed=SEED)
        for i in range(NUM_ENVS):
            assert _same(expected[0][i][0], _item(obs, i)), f"reset of sub-env {i}"
        discrete = isinstance(envs.single_action_space, gym.spaces.Discrete)
        for t in range(STEPS):
            step = [actions[i][t] for i in range(NUM_ENVS)]
            batch = np.asarray(step) if discrete else tuple(step)
            obs, rewards, terminated, truncated, _ = envs.step(batch)
            for i in range(NUM_ENVS):
                want_obs, want_reward, want_term, want_trunc = expected[t + 1][i]
                assert _same(want_obs, _item(obs, i)), f"step {t}, sub-env {i}: observation"
                assert (rewards[i], terminated[i], truncated[i]) == (
                    want_reward,
                    want_term,
                    want_trunc,
                ), f"step {t}, sub-env {i}"
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", SHOP_IDS)
def test_async_shop_envs_with_shared_memory_say_how_to_run(env_id: str) -> None:
    """No fixed buffer holds the shop's texts: the error names the option that runs them."""
    with pytest.raises(ValueError, match="shared_memory=False") as caught:
        gym.make_vec(env_id, num_envs=NUM_ENVS, vectorization_mode="async")
    assert "vector_kwargs={'shared_memory': False}" in str(caught.value.__cause__)


def test_async_shared_text_without_copy_is_a_live_view_of_each_step() -> None:
    """With ``copy=False`` the text field reads the buffer as it is now, as the array fields do."""
    envs = gym.make_vec(
        "rewardgym/Household-v1",
        num_envs=NUM_ENVS,
        vectorization_mode="async",
        vector_kwargs={"copy": False},
    )
    try:
        obs, _ = envs.reset(seed=SEED)
        first = tuple(obs["text"])
        envs.step(np.array([0, 0]))
        assert tuple(obs["text"]) != first
        assert all(text.startswith("Instruction:") for text in obs["text"])
    finally:
        envs.close()
