"""GRPO with TRL's ``GRPOTrainer``, rewarded by stepping the env and its wrapper stack.

The policy starts from a saved model (the SFT cold start, or the raw default model) whose path
also rebuilds TRL's frozen reference for the KL term (beta = 0.001, Shop-R1's). Each step
samples ``num_generations`` completions for each of ``prompts_per_step`` logged steps;
:class:`~rewardgym.agents.llm.rewards.EnvReward` scores them through the wrapper. When the
stack pays self-certainty, a ``rollout_func`` samples with the trainer's own model and records
the policy's per-token certainty from the logits of the very forward passes that sampled
(:mod:`rewardgym.agents.llm.generation`), so no extra forward pass is spent; with vLLM, one
no-grad forward pass of the trainer's model computes it instead. Checkpoints are written every
``save_steps``; a killed run resumes from the last one with the same data order (TRL's seeded
``RepeatSampler`` plus the Trainer's batch skipping and saved RNG states). With
``advantages="per-term"`` each reward term is its own TRL reward function and TRL normalises
each within its group before summing (GDPO). Every step's loss is logged, and a NaN or infinite
loss stops the run naming it and the step. Under ``accelerate launch`` every process builds its
own env and wrapper stack and scores its own completions; TRL gathers the rewards.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym

from rewardgym.agents.llm.config import GRPORunConfig, ModelKind
from rewardgym.agents.llm.dataset import DataArg, make_env
from rewardgym.agents.llm.generation import generate, rationale_positions
from rewardgym.agents.llm.model import bf16_available, load_tokenizer, offline, save_model
from rewardgym.agents.llm.rewards import EnvReward, WrapperFactory
from rewardgym.wrappers.self_certainty import CertaintyKind

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import TrainerCallback

ORDER_LOG = "data_order.jsonl"


@dataclass(frozen=True)
class GRPOResult:
    """The trained model's path, TRL's log history, and where the time went."""

    path: Path
    log_history: list[dict[str, Any]]
    seconds: float
    reward_seconds: float
    steps: int

    def series(self, key: str) -> list[float]:
        """One logged metric over the steps (e.g. ``reward`` or ``reward_terms/type``)."""
        return [float(r[key]) for r in self.log_history if key in r]


def make_rollout(kind: CertaintyKind | None) -> Any:
    """A TRL ``rollout_func`` sampling with the trainer's model (bf16 autocast when training in
    bf16), recording the rationale tokens' self-certainty when ``kind`` is set."""

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        import torch
        from trl.models import unwrap_model_for_generation

        tokenizer = trainer.processing_class
        prompt_ids = tokenizer(text=[str(p) for p in prompts], add_special_tokens=False)[
            "input_ids"
        ]
        with unwrap_model_for_generation(
            trainer.model_wrapped,
            trainer.accelerator,
            gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
        ) as model:
            device = next(model.parameters()).device.type
            with torch.autocast(device, dtype=torch.bfloat16, enabled=bool(trainer.args.bf16)):
                result = generate(
                    model, tokenizer, prompt_ids, trainer.generation_config, certainty=kind
                )
        out: dict[str, Any] = {
            "prompt_ids": prompt_ids,
            "completion_ids": result.completion_ids,
            "logprobs": None,
        }
        if kind is None:
            return out
        texts = tokenizer.batch_decode(result.completion_ids, skip_special_tokens=True)
        assert result.certainty is not None
        rationale = []
        for ids, text, values in zip(result.completion_ids, texts, result.certainty, strict=True):
            positions = rationale_positions(tokenizer, ids, text)
            rationale.append(values[positions[positions < len(values)]])
        out["rationale_certainty"] = rationale
        return out

    return rollout


def last_checkpoint(out: str | os.PathLike[str]) -> Path | None:
    """The newest ``checkpoint-N`` directory under ``out/trainer`` (transformers' rule), or None."""
    from transformers.trainer_utils import get_last_checkpoint

    root = Path(out) / "trainer"
    found = get_last_checkpoint(str(root)) if root.is_dir() else None
    return Path(found) if found else None


def train_grpo(
    model_path: str | os.PathLike[str],
    dataset: Dataset,
    out: str | os.PathLike[str],
    wrapper: WrapperFactory | None = None,
    config: GRPORunConfig | None = None,
    *,
    data: DataArg = None,
    env_kwargs: Mapping[str, Any] | None = None,
    resume: bool = True,
    progress: bool = True,
    use_vllm: bool = False,
    callbacks: Sequence[TrainerCallback] = (),
    desc: str = "",
    model_kind: ModelKind = "scratch",
) -> GRPOResult:
    """Train with GRPO from ``model_path`` on ``dataset`` rows; save the policy under ``out/model``.

    ``wrapper`` wraps a fresh training-split env (None keeps the env's own exact-match reward);
    ``dataset`` holds ``prompt``, ``session`` and ``step`` columns (extra columns are ignored).
    ``desc`` names the run in progress bars and errors.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env: gym.Env = make_env(data, "train", env_kwargs or {})
    env = wrapper(env) if wrapper is not None else env
    reward = EnvReward(env, order_log=out / ORDER_LOG)
    rollout = make_rollout(reward.kind) if not use_vllm else None
    try:
        return run_grpo(
            model_path,
            dataset,
            out,
            reward,
            rollout,
            config,
            resume=resume,
            progress=progress,
            use_vllm=use_vllm,
            callbacks=callbacks,
            desc=desc,
            model_kind=model_kind,
        )
    finally:
        env.close()


def run_grpo(
    model_path: str | os.PathLike[str],
    dataset: Dataset,
    out: str | os.PathLike[str],
    reward: EnvReward,
    rollout: Any,
    config: GRPORunConfig | None = None,
    *,
    resume: bool = True,
    progress: bool = True,
    use_vllm: bool = False,
    callbacks: Sequence[TrainerCallback] = (),
    desc: str = "",
    model_kind: ModelKind = "scratch",
) -> GRPOResult:
    """Run TRL's ``GRPOTrainer`` with ``reward`` (an :class:`EnvReward`) and ``rollout`` (a TRL ``rollout_func`` or None).

    The one place the trainer is configured: :func:`train_grpo` (replayed sessions) and the
    live-store GRPO of :mod:`rewardgym.agents.simulation.live_grpo` both come through here.
    """
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from rewardgym.agents.llm.callbacks import CompactProgress, LossGuard, quiet

    offline()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    config = config or GRPORunConfig()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = load_tokenizer(model_path)
    columns = [c for c in dataset.column_names if c not in ("prompt", "session", "step")]
    train = dataset.remove_columns(columns)
    args = GRPOConfig(
        output_dir=str(out / "trainer"),
        max_steps=config.steps,
        learning_rate=config.rate(model_kind),
        beta=config.beta,
        num_generations=config.num_generations,
        per_device_train_batch_size=config.prompts_per_step * config.num_generations,
        gradient_accumulation_steps=1,
        max_completion_length=config.max_completion_tokens,
        temperature=config.temperature,
        top_p=1.0,
        scale_rewards=config.scale_rewards,
        multi_objective_aggregation=(
            "normalize_then_sum" if config.advantages == "per-term" else "sum_then_normalize"
        ),
        loss_type="grpo",
        save_strategy="steps",
        save_steps=config.save_steps,
        logging_steps=1,
        report_to="none",
        seed=config.seed,
        data_seed=config.seed,
        use_cpu=not torch.cuda.is_available(),
        disable_tqdm=True,
        use_vllm=use_vllm,
        bf16=config.bf16 and bf16_available(),
        activation_checkpointing=config.checkpointing(model_kind),
        model_init_kwargs={"dtype": "float32"},
    )
    funcs: list[Any] = reward.term_functions() if config.advantages == "per-term" else [reward]
    trainer = GRPOTrainer(
        model=str(model_path),
        reward_funcs=[cast(Any, f) for f in funcs],
        args=args,
        train_dataset=train,
        processing_class=tokenizer,
        rollout_func=rollout,
        callbacks=[LossGuard(f"GRPO {desc}".strip()), *callbacks],
    )
    policy: Any = trainer.model
    reward.bind_model(policy, tokenizer)
    quiet(trainer, CompactProgress(f"GRPO {desc}", ("reward", "kl"), enabled=progress))
    checkpoint = last_checkpoint(out) if resume else None
    start = time.perf_counter()
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    seconds = time.perf_counter() - start
    path = save_model(policy, tokenizer, out / "model")
    return GRPOResult(
        path,
        list(trainer.state.log_history),
        seconds,
        reward.seconds,
        int(trainer.state.global_step),
    )


__all__ = [
    "ORDER_LOG",
    "GRPOResult",
    "last_checkpoint",
    "make_rollout",
    "run_grpo",
    "train_grpo",
]
