"""Reward wrappers: Shop-R1's hybrid reward, binary exact match, COREN, the oracle, and their maths.

Every wrapper here subclasses ``gym.Wrapper`` (its reward depends on the action) and puts each
reward term into ``info["reward_terms"]``; the maths live in pure functions next to it. A named
Shop-R1 reward (``full``, an ablation, ``binary``, ...) is a config of ``ShopR1Reward`` chosen by
name with :func:`reward_config`.
"""

from __future__ import annotations

from rewardgym.wrappers.binary_match import BinaryMatchReward, binary_match_reward
from rewardgym.wrappers.coren.wrapper import CorenReward
from rewardgym.wrappers.oracle import OracleProgressReward
from rewardgym.wrappers.policy_output import PolicyOutput, rationale_char_span
from rewardgym.wrappers.rouge import rouge_l
from rewardgym.wrappers.self_certainty import self_certainty, token_self_certainty
from rewardgym.wrappers.shop_r1 import (
    RewardTerms,
    ShopR1Config,
    ShopR1Reward,
    action_reward,
    format_reward,
    reward_config,
    shop_r1_reward,
)

__all__ = [
    "BinaryMatchReward",
    "CorenReward",
    "OracleProgressReward",
    "PolicyOutput",
    "RewardTerms",
    "ShopR1Config",
    "ShopR1Reward",
    "action_reward",
    "binary_match_reward",
    "format_reward",
    "rationale_char_span",
    "reward_config",
    "rouge_l",
    "self_certainty",
    "shop_r1_reward",
    "token_self_certainty",
]
