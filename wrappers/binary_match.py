"""The paper's binary baseline reward: 1 when the predicted action matches the human's exactly, else 0."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from rewardgym.envs.shopping.parsing import ParsedOutput
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers.policy_output import PolicyOutput, as_policy_output
from rewardgym.wrappers.shop_r1 import (
    RewardTerms,
    ShopR1Config,
    parsed_from_info,
    shop_r1_reward,
    truth_from_info,
)

BINARY_MATCH_CONFIG = ShopR1Config.binary_baseline()
"""Shop-R1's reward reduced to the exact-match term: no format, no rationale, v(a) in {0, 1}."""


def binary_match_reward(
    output_text: str, truth: ShopAction | Mapping[str, Any], parsed: ParsedOutput | None = None
) -> RewardTerms:
    """Terms of the binary reward: ``type`` (and ``total``) is 1.0 on an exact match, every other 0."""
    return shop_r1_reward(output_text, truth, config=BINARY_MATCH_CONFIG, parsed=parsed)


class BinaryMatchReward(
    gym.Wrapper[Any, str | PolicyOutput, Any, str], gym.utils.RecordConstructorArgs
):
    """Reward 1.0 for an exact match of the human's action (type, then normalised name and text), else 0.

    This is "RL (binary)" in Shop-R1 (arXiv 2507.17842): exact match as defined by
    :func:`rewardgym.envs.shopping.schema.actions_match` (canonical names and texts), judged
    against ``info["truth"]``.
    ``info["reward_terms"]`` has the same keys as :class:`~rewardgym.wrappers.ShopR1Reward`'s,
    with the whole reward booked under ``type`` and ``exact_match``; ``step`` accepts a
    :class:`~rewardgym.wrappers.PolicyOutput` too (its log-probabilities are not used).

    Example:
        >>> import gymnasium as gym
        >>> import rewardgym
        >>> from rewardgym.wrappers import BinaryMatchReward
        >>> env = BinaryMatchReward(gym.make("rewardgym/ShopSession-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> _, reward, *_, info = env.step("not json at all")
        >>> reward, info["reward_terms"]["format"], info["reward_terms"]["total"]
        (0.0, 0.0, 0.0)
    """

    def __init__(self, env: gym.Env[Any, str]) -> None:
        """Wrap a shopping env that puts the human's action into ``info["truth"]``."""
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def step(self, action: str | PolicyOutput) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the inner env with the text, then reward an exact match of ``info["truth"]``."""
        text = as_policy_output(action).text
        obs, _, terminated, truncated, info = self.env.step(text)
        terms = binary_match_reward(text, truth_from_info(info), parsed_from_info(info))
        info["reward_terms"] = terms.to_info()
        return obs, terms.total, terminated, truncated, info


__all__ = ["BINARY_MATCH_CONFIG", "BinaryMatchReward", "binary_match_reward"]
