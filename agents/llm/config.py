"""Typed configs of the LLM shopper policy: model, prompt, sampling, SFT and GRPO, with presets.

Defaults are Shop-R1's (arXiv 2507.17842, Sec. 4 "Implementation details"): SFT for 4 epochs at
learning rate 2e-5; GRPO for 500 steps at learning rate 1e-7 with a global batch of 64
completions, KL weight beta = 0.001 against the SFT model, sampling temperature 0.6. Group
size 8 is the GRPO default of TRL and of DeepSeekMath (arXiv 2402.03300). The default model is
a small Qwen2-style decoder built here from :class:`ModelConfig`; :func:`preset` holds the
sizes used by ``rewardgym bench shop`` (``tiny`` for tests, ``quick`` for 2 CPU cores,
``paper`` for a GPU and a real model).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal, get_args

ContextMode = Literal["session", "latest"]
PresetName = Literal["tiny", "quick", "paper"]
PRESETS: tuple[str, ...] = get_args(PresetName)


@dataclass(frozen=True)
class ModelConfig:
    """Size of the default Qwen2-style decoder and of the BPE vocabulary trained for it."""

    vocab_size: int = 2048
    """BPE vocabulary trained on the session corpus (special tokens included)."""
    hidden_size: int = 128
    """Width of the residual stream."""
    num_layers: int = 4
    """Number of decoder blocks."""
    num_heads: int = 4
    """Attention heads (query)."""
    num_kv_heads: int = 2
    """Key/value heads (grouped-query attention as in Qwen2)."""
    intermediate_size: int = 384
    """Width of the MLP's hidden layer."""
    max_positions: int = 1024
    """Longest sequence (prompt + completion) the model accepts."""
    tokenizer_sessions: int = 150
    """Training sessions whose pages, actions and rationales train the BPE vocabulary."""


@dataclass(frozen=True)
class PromptConfig:
    """How an observation becomes a prompt: context mode and budgets (oldest text goes first)."""

    context: ContextMode = "session"
    """``session`` = the whole session so far (paper default); ``latest`` = current page only."""
    max_context_chars: int | None = 6000
    """Character budget the env applies to the context (oldest pages are dropped first)."""
    max_prompt_tokens: int = 448
    """Token budget of the whole prompt; the context is cut from its left (oldest) side."""


@dataclass(frozen=True)
class SamplingConfig:
    """Sampling parameters of the policy at evaluation time."""

    temperature: float = 0.6
    """Sampling temperature (paper: 0.6); 0 means greedy decoding."""
    top_p: float = 1.0
    """Nucleus sampling mass."""
    max_new_tokens: int = 72
    """Longest completion in tokens."""
    batch_size: int = 48
    """Prompts generated together."""


@dataclass(frozen=True)
class SFTRunConfig:
    """Supervised cold start on (context -> rationale + action JSON), loss on the completion only."""

    epochs: float = 4.0
    """Passes over the training steps (paper: 4)."""
    learning_rate: float = 2e-5
    """Peak learning rate (paper: 2e-5)."""
    batch_size: int = 8
    """Examples per optimiser step."""
    max_examples: int | None = None
    """Cap on training examples (sampled with the seed); None uses every training step."""
    warmup_ratio: float = 0.03
    """Fraction of the steps spent warming the learning rate up."""
    seed: int = 0
    """Seed of the data order and of the initialisation."""


@dataclass(frozen=True)
class GRPORunConfig:
    """Group-relative policy optimisation against the env's reward wrapper (TRL ``GRPOTrainer``)."""

    steps: int = 500
    """Optimiser steps (paper: 500)."""
    learning_rate: float = 1e-7
    """Learning rate (paper: 1e-7)."""
    beta: float = 0.001
    """KL weight against the reference (SFT) model (paper: 0.001)."""
    num_generations: int = 8
    """Completions sampled per prompt: the group GRPO normalises within."""
    prompts_per_step: int = 8
    """Prompts per step; prompts x group = global batch (paper: 64 completions)."""
    temperature: float = 0.6
    """Sampling temperature while training (paper: 0.6)."""
    max_completion_tokens: int = 72
    """Longest sampled completion in tokens."""
    scale_rewards: Literal["group", "batch", "none"] = "group"
    """How TRL scales advantages: by the group's std (GRPO), the batch's, or not at all."""
    save_steps: int = 50
    """Checkpoint every this many steps; a killed run resumes from the last one."""
    max_examples: int | None = None
    """Cap on training prompts (sampled with the seed); None uses every training step."""
    seed: int = 0
    """Seed of the data order and of sampling."""


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


def preset(name: str) -> BenchConfig:
    """The named preset: ``tiny`` (tests), ``quick`` (<= 15 min on 2 CPU cores) or ``paper``."""
    builders = {"tiny": _tiny, "quick": _quick, "paper": _paper}
    if name not in builders:
        raise ValueError(f"unknown preset {name!r}; expected one of {PRESETS}")
    return builders[name]()


def replace(config: BenchConfig, **changes: object) -> BenchConfig:
    """A copy of ``config`` with top-level fields changed (a typed ``dataclasses.replace``)."""
    return dataclasses.replace(config, **changes)  # type: ignore[arg-type]


__all__ = [
    "PRESETS",
    "BenchConfig",
    "ContextMode",
    "GRPORunConfig",
    "ModelConfig",
    "PresetName",
    "PromptConfig",
    "SFTRunConfig",
    "SamplingConfig",
    "preset",
    "replace",
]
