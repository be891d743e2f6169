"""Typed configs of the LLM shopper policy: model, prompt, sampling, SFT and GRPO, with presets.

Defaults are Shop-R1's (arXiv 2507.17842, Sec. 4 "Implementation details"): SFT for 4 epochs at
learning rate 2e-5; GRPO for 500 steps at learning rate 1e-7 with a global batch of 64
completions, KL weight beta = 0.001 against the SFT model, sampling temperature 0.6. Group
size 8 is the GRPO default of TRL and of DeepSeekMath (arXiv 2402.03300). The default model is
a small Qwen2-style decoder built here from :class:`ModelConfig`; the suite's presets live in
``rewardgym.benchmarks.shop.config``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from rewardgym.bounds import (
    AT_LEAST_1,
    NON_NEGATIVE,
    POSITIVE,
    PROBABILITY,
    SEED,
    Range,
    check_fields,
)
from rewardgym.envs.shopping.context import ContextMode, check_context_limits

if TYPE_CHECKING:
    from peft import LoraConfig

Decoding = Literal["free", "constrained"]
"""Free sampling, or sampling constrained to the page's actions (``SamplingConfig.decoding``)."""
ModelKind = Literal["scratch", "pretrained"]
"""The default model built here (``scratch``) or a model with pretrained weights."""
AdvantageMode = Literal["summed", "per-term"]
"""How GRPO normalises rewards into advantages (``GRPORunConfig.advantages``)."""


@dataclass(frozen=True)
class ModelConfig:
    """Size of the default Qwen2-style decoder and of the BPE vocabulary trained for it."""

    vocab_size: Annotated[int, AT_LEAST_1] = 2048
    """BPE vocabulary trained on the session corpus (special tokens included)."""
    hidden_size: Annotated[int, AT_LEAST_1] = 128
    """Width of the residual stream."""
    num_layers: Annotated[int, AT_LEAST_1] = 4
    """Number of decoder blocks."""
    num_heads: Annotated[int, AT_LEAST_1] = 4
    """Attention heads (query)."""
    num_kv_heads: Annotated[int, AT_LEAST_1] = 2
    """Key/value heads (grouped-query attention as in Qwen2)."""
    intermediate_size: Annotated[int, AT_LEAST_1] = 384
    """Width of the MLP's hidden layer."""
    max_positions: Annotated[int, AT_LEAST_1] = 1024
    """Longest sequence (prompt + completion) the model accepts."""
    tokenizer_sessions: Annotated[int, AT_LEAST_1] = 150
    """Training sessions whose pages, actions and rationales train the BPE vocabulary."""
    split_names: bool = False
    """Pre-tokenize element names into their words (snake_case, camelCase, digits) so a rare
    name shares tokens with common ones. Off: each name stays one word for BPE."""

    def __post_init__(self) -> None:
        """Refuse sizes that build no model, and key/value heads that do not divide the heads."""
        check_fields(self)
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"ModelConfig.num_kv_heads={self.num_kv_heads}: must divide "
                f"num_heads={self.num_heads} (each key/value head serves a group of query heads)"
            )


@dataclass(frozen=True)
class PromptConfig:
    """How an observation becomes a prompt: context mode, budgets, chat template."""

    context: ContextMode = "compact"
    """compact = the session reduced to what a predictor needs (every action and rationale,
    one line per past page, the current page tag-free); session = every page in full (the
    paper's layout); latest = the current page only (the paper's ablation)."""
    max_context_chars: Annotated[int, AT_LEAST_1] | None = None
    """Character budget the env applies to the context (None: the env's 2**26 cap only)."""
    max_prompt_tokens: Annotated[int, AT_LEAST_1] = 448
    """Token budget of the whole prompt. The env cuts the context to fit it by the context
    mode's own rules (counted with the policy's tokenizer); a context still too long is cut
    from its left, oldest, side."""
    instructions: bool = True
    """State the task and the action space before the context. An instruct model needs them; a
    model trained from scratch learns nothing from a constant prefix, and the suite always adds
    them for a pretrained model."""
    chat_template: Literal["auto", "never"] = "auto"
    """auto: prompt through the tokenizer's chat template when it has one (instruct models);
    never: plain text (the default model has no template)."""
    element_ids: bool = False
    """List the current page's elements as [i] name and train the policy to name an element by
    its id ("name": "[3]"); the env resolves an id to the element's name before scoring, so
    the metric and the reward stay the paper's. Off: the paper's format (names only)."""
    persona: bool = False
    """Open the context with the shopper's persona, the session log's description of who
    shops (OPeRA's user table, the synthetic shopper's habits and tastes); counted in the
    budget. Off: the paper's prompt."""
    action_first: bool = False
    """Train and ask for the action before the rationale ({"action": A, "rationale": R});
    parsing, the reward and constrained decoding follow. Off: Shop-R1's order, rationale first."""
    lookup_hint: bool = False
    """Add one line to the prompt with the lookup baseline's (baseline/frequency, fitted on the
    training sessions only) predicted action for the step, inside the token budget. Off: the
    paper's prompt."""

    def __post_init__(self) -> None:
        """Refuse budgets that are not positive (None is no limit)."""
        check_fields(self)
        check_context_limits(self.max_context_chars, None)


@dataclass(frozen=True)
class SamplingConfig:
    """Sampling parameters of the policy at evaluation time."""

    temperature: Annotated[float, NON_NEGATIVE] = 0.6
    """Sampling temperature (paper: 0.6); 0 means greedy decoding."""
    top_p: Annotated[float, Range(gt=0, le=1)] = 1.0
    """Nucleus sampling mass."""
    max_new_tokens: Annotated[int, AT_LEAST_1] = 72
    """Longest completion in tokens."""
    batch_size: Annotated[int, AT_LEAST_1] = 48
    """Prompts generated together."""
    bf16: bool = True
    """Generate in bfloat16 on CPUs with bf16 support (AMX, AVX512-BF16) and on GPUs."""
    decoding: Decoding = "free"
    """free: sample any text (Shop-R1's setting: its format reward scores whether the output
    parses); constrained: only Shop-R1's JSON naming an action the current page allows, so
    every output parses (agents/llm/constrained.py; the rationale is cut to what
    max_new_tokens leaves after the page's longest action)."""

    def __post_init__(self) -> None:
        """Refuse a temperature, nucleus mass or size outside its range, naming the field."""
        check_fields(self)


class PerModelKind:
    """What a training run's settings decide by the model's kind (learning rate, checkpointing),
    and whether it trains LoRA adapters instead of every weight.

    Mixed into :class:`SFTRunConfig` and :class:`GRPORunConfig`, which declare the fields
    ``learning_rate``, ``pretrained_learning_rate``, ``gradient_checkpointing``, ``lora_rank``
    and ``lora_alpha`` with their own defaults.
    """

    learning_rate: float
    pretrained_learning_rate: float
    gradient_checkpointing: bool | None
    lora_rank: int | None
    lora_alpha: int | None

    def __post_init__(self) -> None:
        """Refuse numbers outside their range (every field), and a LoRA alpha without a rank."""
        check_fields(self)
        name = type(self).__name__
        unset = {"lora_rank": "None trains every weight", "lora_alpha": "None means 2 x lora_rank"}
        for field_name, meaning in unset.items():
            value = getattr(self, field_name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"{name}.{field_name} must be an integer >= 1, got {value!r} ({meaning})"
                )
        if self.lora_alpha is not None and self.lora_rank is None:
            raise ValueError(
                f"{name}.lora_alpha is {self.lora_alpha} but lora_rank is None (full fine-tuning): "
                "set lora_rank too, or leave lora_alpha unset"
            )

    def lora(self) -> LoraConfig | None:
        """PEFT's ``LoraConfig`` for this run (every linear layer but the LM head, alpha 2 x rank
        unless set), or None when the run trains every weight."""
        if self.lora_rank is None:
            return None
        from peft import LoraConfig

        alpha = self.lora_alpha if self.lora_alpha is not None else 2 * self.lora_rank
        return LoraConfig(
            r=self.lora_rank, lora_alpha=alpha, target_modules="all-linear", task_type="CAUSAL_LM"
        )

    def rate(self, kind: ModelKind) -> float:
        """The learning rate for a model of this kind."""
        return self.learning_rate if kind == "scratch" else self.pretrained_learning_rate

    def checkpointing(self, kind: ModelKind) -> bool:
        """Whether a model of this kind trains with gradient checkpointing."""
        return (
            kind == "pretrained"
            if self.gradient_checkpointing is None
            else self.gradient_checkpointing
        )


@dataclass(frozen=True)
class SFTRunConfig(PerModelKind):
    """Supervised cold start on (context -> rationale + action JSON), loss on the completion only."""

    epochs: Annotated[float, POSITIVE] = 4.0
    """Passes over the training steps (paper: 4)."""
    learning_rate: Annotated[float, POSITIVE] = 2e-5
    """Peak learning rate of a model trained from scratch (the default model)."""
    pretrained_learning_rate: Annotated[float, POSITIVE] = 2e-5
    """Peak learning rate of a pretrained model (paper: 2e-5)."""
    batch_size: Annotated[int, AT_LEAST_1] = 8
    """Examples per optimiser step."""
    max_examples: Annotated[int, AT_LEAST_1] | None = None
    """Cap on training examples (sampled with the seed); None uses every training step."""
    warmup_ratio: Annotated[float, PROBABILITY] = 0.03
    """Fraction of the steps spent warming the learning rate up."""
    logging_steps: Annotated[int, AT_LEAST_1] = 1
    """Log the loss every this many steps (the first and the last step are always logged)."""
    bf16: bool = True
    """bfloat16 autocast where the hardware has it (AMX / AVX512-BF16 CPUs, GPUs)."""
    gradient_checkpointing: bool | None = None
    """Recompute activations in the backward pass instead of keeping them (less memory, about a
    third more compute; the gradients are the same). None: off for the default model, whose
    activations are small, on for a pretrained model (TRL's default)."""
    completion_only_loss: bool = True
    """Loss on the completion only (Shop-R1); False: on the prompt too, so the model also learns
    next-token prediction on the sessions' pages and histories, as a pass of pretraining on the
    corpus would (every position then carries a label: slower on a CPU)."""
    label_positions_only: bool = True
    """Project only the positions that carry a label (the completion) through the LM head, as
    TRL does on CUDA and XPU; elsewhere TRL scores every position, prompt and padding included.
    The loss and its gradients are the same; on a CPU the head is most of an SFT step."""
    group_by_length: bool = False
    """Batch examples of similar length together (transformers' group_by_length sampler) so
    that less of each batch is padding; changes which examples share a step."""
    lora_rank: Annotated[int, AT_LEAST_1] | None = None
    """Train LoRA adapters of this rank on every linear layer but the LM head (PEFT, through
    TRL's peft_config) instead of every weight; the saved model has them merged in, so it
    loads without PEFT. None: full fine-tuning."""
    lora_alpha: Annotated[int, AT_LEAST_1] | None = None
    """LoRA's scaling numerator (the update is scaled by alpha / rank); None: 2 x lora_rank."""
    seed: Annotated[int, SEED] = 0
    """Seed of the data order and of the initialisation."""


@dataclass(frozen=True)
class GRPORunConfig(PerModelKind):
    """Group-relative policy optimisation against the env's reward wrapper (TRL ``GRPOTrainer``)."""

    steps: Annotated[int, AT_LEAST_1] = 500
    """Optimiser steps (paper: 500)."""
    learning_rate: Annotated[float, POSITIVE] = 1e-7
    """Learning rate of a model trained from scratch (the default model)."""
    pretrained_learning_rate: Annotated[float, POSITIVE] = 1e-7
    """Learning rate of a pretrained model (paper: 1e-7)."""
    beta: Annotated[float, NON_NEGATIVE] = 0.001
    """KL weight against the reference (SFT) model (paper: 0.001)."""
    num_generations: Annotated[int, Range(ge=2)] = 8
    """Completions sampled per prompt: the group GRPO normalises within."""
    prompts_per_step: Annotated[int, AT_LEAST_1] = 8
    """Prompts per step; prompts x group = global batch (paper: 64 completions)."""
    temperature: Annotated[float, POSITIVE] = 0.6
    """Sampling temperature while training (paper: 0.6)."""
    max_completion_tokens: Annotated[int, AT_LEAST_1] = 72
    """Longest sampled completion in tokens."""
    scale_rewards: Literal["group", "batch", "none"] = "group"
    """How TRL scales advantages: by the group's std (GRPO), the batch's, or not at all."""
    advantages: AdvantageMode = "summed"
    """summed: normalise the total reward within each group (GRPO, TRL's default);
    per-term: normalise each reward term within its group, then sum and normalise over the
    batch (GDPO, arXiv 2601.05242; TRL's normalize_then_sum)."""
    bf16: bool = True
    """bfloat16 autocast where the hardware has it (AMX / AVX512-BF16 CPUs, GPUs)."""
    gradient_checkpointing: bool | None = None
    """Recompute activations in the backward pass (less memory, more compute, same gradients).
    None: off for the default model, on for a pretrained model (TRL's default)."""
    lora_rank: Annotated[int, AT_LEAST_1] | None = None
    """Train LoRA adapters of this rank on every linear layer but the LM head (PEFT, through
    TRL's peft_config; the KL reference is the starting model, adapters off) instead of every weight; the saved model has them merged in, so it
    loads without PEFT. None: full fine-tuning."""
    lora_alpha: Annotated[int, AT_LEAST_1] | None = None
    """LoRA's scaling numerator (the update is scaled by alpha / rank); None: 2 x lora_rank."""
    save_steps: Annotated[int, AT_LEAST_1] = 50
    """Checkpoint every this many steps; a killed run resumes from the last one."""
    max_examples: Annotated[int, AT_LEAST_1] | None = None
    """Cap on training prompts (sampled with the seed); None uses every training step."""
    seed: Annotated[int, SEED] = 0
    """Seed of the data order and of sampling."""


__all__ = [
    "AdvantageMode",
    "Decoding",
    "GRPORunConfig",
    "ModelConfig",
    "ModelKind",
    "PerModelKind",
    "PromptConfig",
    "SFTRunConfig",
    "SamplingConfig",
]
