"""GRPO with TRL's ``GRPOTrainer``, rewarded by stepping an env and its wrapper stack: the one entry point.

:func:`train_grpo` trains on a :class:`GRPOEnv`, which says where the prompts, the rollouts
and the rewards come from: :class:`ReplayEnv` replays logged sessions in ``ShopSession-v0``
(teacher forcing: each row's session is reset and the human's earlier steps replayed), and
:class:`~rewardgym.agents.simulation.live_grpo.LiveEnv` lets the policy act on the live store
``ShopStore-v0`` for several turns before the group is sampled. Everything else is shared.

The policy starts from a saved model (the SFT cold start, or the raw default model) whose path
also rebuilds TRL's frozen reference for the KL term (beta = 0.001, Shop-R1's). Each step
samples ``num_generations`` completions for each of ``prompts_per_step`` rows;
:class:`~rewardgym.agents.llm.rewards.EnvReward` scores them through the wrapper. When the
stack pays self-certainty, a ``rollout_func`` samples with the trainer's own model and records
the policy's per-token certainty from the logits of the very forward passes that sampled
(:mod:`rewardgym.agents.llm.generation`), so no extra forward pass is spent; with vLLM, one
no-grad forward pass of the trainer's model computes it instead. Checkpoints are written every
``save_steps``; a killed run resumes from the last complete one before its last step with the
same data order (TRL's seeded ``RepeatSampler`` plus the Trainer's batch skipping and saved RNG
states). With
``advantages="per-term"`` each reward term is its own TRL reward function and TRL normalises
each within its group before summing (GDPO). Every step's loss is logged, and a NaN or infinite
loss stops the run naming it and the step. With ``lora_rank`` set, TRL trains LoRA adapters
(PEFT) and its KL reference is the starting model with the adapters off; the saved policy has them
merged in (a plain transformers folder). Under ``accelerate launch`` every process builds its
own env and wrapper stack and scores its own completions; TRL gathers the rewards.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import gymnasium as gym

from rewardgym.agents.llm.config import GRPORunConfig, ModelKind
from rewardgym.agents.llm.dataset import DataArg, make_env
from rewardgym.agents.llm.generation import Generation, generate, token_char_ends
from rewardgym.agents.llm.model import bf16_available, load_tokenizer, offline, save_model
from rewardgym.agents.llm.rewards import EnvReward, WrapperFactory
from rewardgym.wrappers.self_certainty import CertaintyKind

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedTokenizerBase, TrainerCallback

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


@dataclass(frozen=True)
class GRPOOptions:
    """How one GRPO run is carried out, beside its hyperparameters (:class:`GRPORunConfig`)."""

    resume: bool = True
    """Resume from the newest checkpoint under ``out/trainer`` when there is one."""
    progress: bool = True
    """Show a one-line progress bar."""
    use_vllm: bool = False
    """Generate with vLLM (TRL's ``use_vllm``); self-certainty then costs one forward pass."""
    callbacks: Sequence[TrainerCallback] = ()
    """Extra ``transformers`` trainer callbacks."""
    desc: str = ""
    """Names the run in progress bars and errors."""
    model_kind: ModelKind = "scratch"
    """The default model (``scratch``) or a pretrained one: picks the learning rate."""


@dataclass
class GRPOSetup:
    """What a :class:`GRPOEnv` hands the trainer: its rows, its reward and its rollout."""

    rows: Dataset
    """Training rows with ``prompt``, ``session`` and ``step`` columns (others are dropped)."""
    reward: EnvReward
    """The TRL reward function stepping the env and its wrapper stack."""
    rollout: Any
    """A TRL ``rollout_func``, or None for TRL's own generation."""
    close: Callable[[], None] = lambda: None
    """Releases the env once training ends."""


class GRPOEnv(Protocol):
    """Where a GRPO run's rows, rollouts and rewards come from (:class:`ReplayEnv`, ``LiveEnv``)."""

    def setup(
        self, wrapper: WrapperFactory | None, config: GRPORunConfig, out: Path, options: GRPOOptions
    ) -> GRPOSetup:
        """Build the rows, the reward (``wrapper`` around the env; None: the env's own default)
        and the rollout for a run of ``config`` writing under ``out``."""
        ...


def trl_rollout(
    tokenizer: PreTrainedTokenizerBase, prompt_ids: list[list[int]], result: Generation
) -> dict[str, Any]:
    """TRL's ``rollout_func`` result for ``result``; with recorded certainty, every token's value
    and character end (``token_certainty``, ``token_ends``: :class:`EnvReward` columns)."""
    out: dict[str, Any] = {
        "prompt_ids": prompt_ids,
        "completion_ids": result.completion_ids,
        "logprobs": None,
    }
    if result.certainty is not None:
        out["token_certainty"] = result.certainty
        out["token_ends"] = [token_char_ends(tokenizer, ids) for ids in result.completion_ids]
    return out


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
        return trl_rollout(tokenizer, prompt_ids, result)

    return rollout


@dataclass(frozen=True)
class ReplayEnv:
    """GRPO on logged steps: ``ShopSession-v0`` replays each row's session up to its step.

    ``rows`` hold ``prompt``, ``session`` and ``step`` columns (``to_dataset(step_rows(...))``);
    the reward resets a training-split env of ``data`` (built with ``env_kwargs``) to the row's
    session, replays the human's earlier steps and steps the completion.
    """

    rows: Dataset
    data: DataArg = None
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)

    def setup(
        self, wrapper: WrapperFactory | None, config: GRPORunConfig, out: Path, options: GRPOOptions
    ) -> GRPOSetup:
        """A training-split env wrapped by ``wrapper`` (None keeps its exact-match reward)."""
        env: gym.Env = make_env(self.data, "train", dict(self.env_kwargs))
        env = wrapper(env) if wrapper is not None else env
        reward = EnvReward(env, order_log=out / ORDER_LOG)
        rollout = make_rollout(reward.kind) if not options.use_vllm else None
        return GRPOSetup(self.rows, reward, rollout, env.close)


def checkpoint_step(folder: Path) -> int | None:
    """The step of a complete ``checkpoint-N`` folder (N), or None for any other or a partial one.

    The Trainer writes ``trainer_state.json`` last, after the weights, optimizer and RNG states;
    a folder whose state is missing, unreadable or for another step was cut off mid-write.
    """
    name, _, number = folder.name.partition("-")
    if name != "checkpoint" or not number.isdigit() or not folder.is_dir():
        return None
    try:
        state = json.loads((folder / "trainer_state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    step = state.get("global_step") if isinstance(state, dict) else None
    return int(number) if step == int(number) else None


def last_checkpoint(out: str | os.PathLike[str], before: int | None = None) -> Path | None:
    """The newest complete ``checkpoint-N`` directory under ``out/trainer``, or None.

    A checkpoint a kill cut off is skipped (:func:`checkpoint_step`), so the run resumes from
    the one before it. With ``before``, only checkpoints of an earlier step than it count: a
    run of ``before`` steps never resumes past its last step (the Trainer would take one more).
    """
    root = Path(out) / "trainer"
    if not root.is_dir():
        return None
    found = {step: path for path in root.iterdir() if (step := checkpoint_step(path)) is not None}
    steps = [step for step in found if before is None or step < before]
    return found[max(steps)] if steps else None


def train_grpo(
    model_path: str | os.PathLike[str],
    env: GRPOEnv,
    out: str | os.PathLike[str],
    wrapper: WrapperFactory | None = None,
    config: GRPORunConfig | None = None,
    options: GRPOOptions | None = None,
) -> GRPOResult:
    """Train with GRPO from ``model_path`` on ``env``'s rows; save the policy under ``out/model``.

    ``env`` is a :class:`ReplayEnv` (logged sessions) or a
    :class:`~rewardgym.agents.simulation.live_grpo.LiveEnv` (the live store); ``wrapper`` wraps
    its env (None: the replay env's exact-match reward, the live store's ``ShopR1Reward``).
    With ``config.lora_rank`` set only LoRA adapters train; the saved policy has them merged in.
    """
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from rewardgym.agents.llm.callbacks import CompactProgress, LossGuard, quiet

    offline()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    config = config or GRPORunConfig()
    options = options or GRPOOptions()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    setup = env.setup(wrapper, config, out, options)
    try:
        tokenizer = load_tokenizer(model_path)
        columns = [c for c in setup.rows.column_names if c not in ("prompt", "session", "step")]
        train = setup.rows.remove_columns(columns)
        kind = options.model_kind
        args = GRPOConfig(
            output_dir=str(out / "trainer"),
            max_steps=config.steps,
            learning_rate=config.rate(kind),
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
            logging_nan_inf_filter=False,  # LossGuard must see a NaN loss, not a false 0
            report_to="none",
            seed=config.seed,
            data_seed=config.seed,
            use_cpu=not torch.cuda.is_available(),
            disable_tqdm=True,
            use_vllm=options.use_vllm,
            bf16=config.bf16 and bf16_available(),
            activation_checkpointing=config.checkpointing(kind),
            model_init_kwargs={"dtype": "float32"},
        )
        reward = setup.reward
        funcs: list[Any] = reward.term_functions() if config.advantages == "per-term" else [reward]
        desc = f"GRPO {options.desc}".strip()
        trainer = GRPOTrainer(
            model=str(model_path),
            reward_funcs=[cast(Any, f) for f in funcs],
            args=args,
            train_dataset=train,
            processing_class=tokenizer,
            rollout_func=setup.rollout,
            callbacks=[LossGuard(desc), *options.callbacks],
            peft_config=config.lora(),
        )
        policy: Any = trainer.model
        reward.bind_model(policy, tokenizer)
        quiet(trainer, CompactProgress(desc, ("reward", "kl"), enabled=options.progress))
        checkpoint = last_checkpoint(out, before=config.steps) if options.resume else None
        start = time.perf_counter()
        trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
        seconds = time.perf_counter() - start
        path = save_model(policy, tokenizer, out / "model")
    finally:
        setup.close()
    return GRPOResult(
        path,
        list(trainer.state.log_history),
        seconds,
        reward.seconds,
        int(trainer.state.global_step),
    )


__all__ = [
    "ORDER_LOG",
    "GRPOEnv",
    "GRPOOptions",
    "GRPOResult",
    "GRPOSetup",
    "ReplayEnv",
    "checkpoint_step",
    "last_checkpoint",
    "make_rollout",
    "train_grpo",
    "trl_rollout",
]
