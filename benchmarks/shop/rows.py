"""The rows of ``bench shop``: the baselines' names, and each model row's start, reward and context.

Both the suite (which trains and scores them) and the report (which orders and labels them)
read these, so they live in neither.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.agents.llm.config import AdvantageMode
from rewardgym.benchmarks.shop.config import BenchConfig
from rewardgym.envs.shopping.context import ContextMode
from rewardgym.wrappers.shop_r1 import ShopR1Config, reward_config

BASE = "base"
"""The name of the base model: the default model built per seed, or the named pretrained one."""

BASELINES = (
    "baseline/frequency",
    "baseline/random",
    "baseline/always-terminate",
    "baseline/first-element",
)
"""The baseline rows, scored on the same test steps as the models (on top of every table)."""


@dataclass(frozen=True)
class Method:
    """One row of the suite: where training starts, which reward, which context, which temperature."""

    method: str
    start: str
    """``base`` (the untrained model), ``sft`` (the cold start) or another method's name."""
    reward: ShopR1Config | None = None
    """The Shop-R1 reward its GRPO run trains with, every weight; None: no GRPO."""
    context: ContextMode | None = None
    """None: the preset's context mode."""
    temperature: float | None = None
    """Evaluation temperature; None: the one chosen on the validation split."""
    main: bool = False
    """A main row: every training seed, every main test session."""
    advantages: AdvantageMode = "summed"
    persona: bool = False
    """Prompts open with the shopper's persona (its own SFT cold start)."""


def methods(config: BenchConfig) -> list[Method]:
    """Every model row of the suite in table order (the baselines come on top of these).

    A GRPO row's reward is ``config.reward`` changed as the registered name it picks says
    (:func:`~rewardgym.wrappers.shop_r1.reward_config`), so a weight set in the config reaches
    every row whose name leaves that weight alone.
    """

    def reward(name: str) -> ShopR1Config:
        return reward_config(name, config.reward)

    full = reward("full")
    rows = [
        Method("zero-shot", BASE, main=True),
        Method("rl-binary", BASE, reward("binary"), main=True),
        Method("sft", "sft", main=True),
        Method("sft+rl-binary", "sft", reward("binary"), main=True),
        Method("shop-r1", "sft", full, main=True),
        Method("shop-r1/no-sft", BASE, full),
        Method("shop-r1/no-format", "sft", reward("no-format")),
        Method("shop-r1/no-rationale", "sft", reward("no-rationale")),
        Method("shop-r1/no-dars", "sft", reward("no-dars")),
        Method("shop-r1/binary-action", "sft", reward("binary-action")),
        Method("shop-r1/gdpo", "sft", full, advantages="per-term"),
        Method("shop-r1/kang", "sft", reward("kang")),
        Method("shop-r1/latest-context", "sft", full, context="latest"),
        Method("sft/persona", "sft", persona=True),
    ]
    rows += [Method(f"shop-r1/temp-{t:g}", "shop-r1", temperature=t) for t in config.temperatures]
    return rows


__all__ = ["BASE", "BASELINES", "Method", "methods"]
