"""The paper's binary baseline reward: 1 when the predicted action matches the human's exactly, else 0.

Not a reward of its own: :class:`ShopR1Reward` at the registered config ``binary``
(:data:`~rewardgym.wrappers.shop_r1.REWARDS`), kept under this name so that
``BinaryMatchReward(env)`` and an ``env.spec`` that records it still build it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from rewardgym.envs.shopping.parsing import ParsedOutput
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers.shop_r1 import RewardTerms, ShopR1Reward, reward_config, shop_r1_reward

BINARY_MATCH_CONFIG = reward_config("binary")
"""Shop-R1's reward reduced to the exact-match term: no format, no rationale, v(a) in {0, 1}."""


def binary_match_reward(
    output_text: str, truth: ShopAction | Mapping[str, Any], parsed: ParsedOutput | None = None
) -> RewardTerms:
    """Terms of the binary reward: ``type`` (and ``total``) is 1.0 on an exact match, every other 0."""
    return shop_r1_reward(output_text, truth, config=BINARY_MATCH_CONFIG, parsed=parsed)


class BinaryMatchReward(ShopR1Reward):
    """Reward 1.0 for an exact match of the human's action (type, then normalised name and text), else 0.

    This is "RL (binary)" in Shop-R1 (arXiv 2507.17842): :class:`ShopR1Reward` at
    :data:`BINARY_MATCH_CONFIG`, so exact match is as defined by
    :func:`rewardgym.envs.shopping.schema.actions_match` (canonical names and texts), judged
    against ``info["truth"]``. ``info["reward_terms"]`` has the same keys as
    :class:`~rewardgym.wrappers.ShopR1Reward`'s, with the whole reward booked under ``type`` and
    ``exact_match``; ``step`` accepts a :class:`~rewardgym.wrappers.PolicyOutput` too (its
    log-probabilities are not used: ``alpha`` is 0).

    Example:
        >>> import gymnasium as gym
        >>> import rewardgym
        >>> from rewardgym.wrappers import BinaryMatchReward
        >>> env = BinaryMatchReward(gym.make("rewardgym/ShopSession-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> _, reward, *_, info = env.step("not json at all")
        >>> reward, info["reward_terms"]["format"], info["reward_terms"]["total"]
        (0.0, 0.0, 0.0)
        >>> env.config == BINARY_MATCH_CONFIG
        True
    """

    def __init__(self, env: gym.Env[Any, str]) -> None:
        """Wrap a shopping env that puts the human's action into ``info["truth"]``."""
        # Recorded first, with no arguments, so env.spec rebuilds it as BinaryMatchReward(env).
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env, BINARY_MATCH_CONFIG)


__all__ = ["BINARY_MATCH_CONFIG", "BinaryMatchReward", "binary_match_reward"]
