"""Settings of ``rewardgym bench shop``: the suite's config and its presets.

``tiny`` is for tests, ``quick`` for 2 CPU cores (within 15 minutes), ``paper`` for a GPU and
a real model with Shop-R1's hyperparameters (arXiv 2507.17842, Sec. 4).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from rewardgym.agents.llm.config import (
    GRPORunConfig,
    ModelConfig,
    PromptConfig,
    SamplingConfig,
    SFTRunConfig,
)

PresetName = Literal["tiny", "quick", "paper"]


@dataclass(frozen=True)
class BenchConfig:
    """Everything ``rewardgym bench shop`` needs: model, prompt, training runs, evaluation sizes."""

    name: str = "quick"
    """Preset name, recorded in ``results.json``."""
    model: ModelConfig = field(default_factory=ModelConfig)
    """The default model's size (ignored when a model path is given)."""
    prompt: PromptConfig = field(default_factory=PromptConfig)
    """Prompt construction."""
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    """Evaluation sampling."""
    sft: SFTRunConfig = field(default_factory=SFTRunConfig)
    """The SFT cold start shared by every SFT row."""
    grpo: GRPORunConfig = field(default_factory=GRPORunConfig)
    """Every GRPO row's run."""
    train_sessions: int | None = None
    """Training-split sessions read into prompt-completion rows; None reads them all."""
    eval_sessions: int | None = None
    """Test sessions scored per row; None scores the whole test split."""
    seeds: tuple[int, ...] = (0,)
    """Training seeds; each row reports the mean and std over them."""
    eval_seeds: tuple[int, ...] = (0,)
    """Sampling seeds per trained model at evaluation."""
    temperatures: tuple[float, ...] = (0.2, 1.0)
    """Extra evaluation temperatures of the Shop-R1 model (the sweep; 0.6 is the main row)."""
    separate_latest_sft: bool = False
    """Train a separate SFT model on latest-page prompts for the latest-context row."""


def _quick() -> BenchConfig:
    return BenchConfig(
        name="quick",
        model=ModelConfig(),
        prompt=PromptConfig(max_context_chars=2000, max_prompt_tokens=352),
        sampling=SamplingConfig(max_new_tokens=56, batch_size=64),
        sft=SFTRunConfig(epochs=1.0, learning_rate=3e-3, batch_size=16, max_examples=4000),
        grpo=GRPORunConfig(
            steps=20,
            learning_rate=5e-5,
            num_generations=8,
            prompts_per_step=2,
            max_completion_tokens=56,
            save_steps=10,
        ),
        train_sessions=600,
        eval_sessions=20,
        seeds=(0,),
        eval_seeds=(0, 1),
        temperatures=(0.2, 1.0),
    )


def _tiny() -> BenchConfig:
    return BenchConfig(
        name="tiny",
        model=ModelConfig(
            vocab_size=1024,
            hidden_size=32,
            num_layers=1,
            num_heads=2,
            num_kv_heads=1,
            intermediate_size=64,
            max_positions=512,
            tokenizer_sessions=30,
        ),
        prompt=PromptConfig(max_context_chars=1200, max_prompt_tokens=224),
        sampling=SamplingConfig(max_new_tokens=24, batch_size=32),
        sft=SFTRunConfig(epochs=1.0, learning_rate=1e-2, batch_size=8, max_examples=64),
        grpo=GRPORunConfig(
            steps=2,
            learning_rate=1e-4,
            num_generations=2,
            prompts_per_step=2,
            max_completion_tokens=24,
            save_steps=2,
        ),
        train_sessions=12,
        eval_sessions=2,
        seeds=(0,),
        eval_seeds=(0,),
        temperatures=(1.0,),
    )


def _paper() -> BenchConfig:
    return BenchConfig(
        name="paper",
        prompt=PromptConfig(max_context_chars=None, max_prompt_tokens=30_000),
        sampling=SamplingConfig(max_new_tokens=256, batch_size=64),
        sft=SFTRunConfig(),
        grpo=GRPORunConfig(max_completion_tokens=256),
        eval_sessions=None,
        seeds=(0, 1, 2),
        eval_seeds=(0,),
        temperatures=(0.2, 0.4, 0.8, 1.0),
        separate_latest_sft=True,
    )


PRESETS: dict[str, BenchConfig] = {"tiny": _tiny(), "quick": _quick(), "paper": _paper()}
"""The suite's named configs: ``tiny`` (tests), ``quick`` (<= 15 min on 2 CPU cores), ``paper``."""


def preset(name: str) -> BenchConfig:
    """The named preset (see :data:`PRESETS`)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; expected one of {tuple(PRESETS)}")
    return PRESETS[name]


def replace(config: BenchConfig, **changes: object) -> BenchConfig:
    """A copy of ``config`` with top-level fields changed (a typed ``dataclasses.replace``)."""
    return dataclasses.replace(config, **changes)  # type: ignore[arg-type]


__all__ = ["PRESETS", "BenchConfig", "PresetName", "preset", "replace"]
