"""LLM shopper policies: the default small Qwen2-style model, prompts, SFT and GRPO (Shop-R1).

A policy is any local Hugging Face causal LM (or the few-million-parameter default built here
with a tokenizer trained on the session corpus); it answers ``rewardgym/ShopSession-v0``
observations with the paper's JSON output. ``train_sft`` is the supervised cold start and
``train_grpo`` the RL stage (on logged sessions, ``ReplayEnv``, or the live store), whose reward
comes from stepping the env and its reward wrapper.
Heavy libraries (torch, transformers, trl) load only when a model is built or trained.
"""

from __future__ import annotations

from rewardgym.agents.llm.config import (
    GRPORunConfig,
    ModelConfig,
    PromptConfig,
    SamplingConfig,
    SFTRunConfig,
)
from rewardgym.agents.llm.dataset import StepRow, step_rows, to_dataset
from rewardgym.agents.llm.grpo import GRPOOptions, GRPOResult, ReplayEnv, train_grpo
from rewardgym.agents.llm.model import build_model, create_default_model, load_model, save_model
from rewardgym.agents.llm.policy import LLMPolicy
from rewardgym.agents.llm.prompt import PromptBuilder, build_prompt
from rewardgym.agents.llm.rewards import EnvReward, certainty_kind
from rewardgym.agents.llm.sft import SFTResult, train_sft
from rewardgym.agents.llm.tokenizer import train_tokenizer

__all__ = [
    "EnvReward",
    "GRPOOptions",
    "GRPOResult",
    "GRPORunConfig",
    "LLMPolicy",
    "ModelConfig",
    "PromptBuilder",
    "PromptConfig",
    "ReplayEnv",
    "SFTResult",
    "SFTRunConfig",
    "SamplingConfig",
    "StepRow",
    "build_model",
    "build_prompt",
    "certainty_kind",
    "create_default_model",
    "load_model",
    "save_model",
    "step_rows",
    "to_dataset",
    "train_grpo",
    "train_sft",
    "train_tokenizer",
]
