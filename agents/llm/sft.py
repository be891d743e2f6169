"""Supervised cold start: TRL's ``SFTTrainer`` on (context -> rationale + action JSON), loss on the completion.

The dataset is the prompt-completion rows of :mod:`rewardgym.agents.llm.dataset`; TRL appends
EOS to every completion and masks the prompt's tokens out of the loss
(``completion_only_loss=True``). Defaults (4 epochs, learning rate 2e-5) are Shop-R1's; the
learning rate is the config's rate for the model's kind (from scratch or pretrained). The loss
is logged every ``logging_steps`` and always at the first and the last step; a NaN or infinite
loss stops the run (:class:`~rewardgym.agents.llm.callbacks.TrainingDiverged`). The trained
model is saved with ``save_pretrained`` so that GRPO can rebuild it as its reference. With
``lora_rank`` set, TRL trains LoRA adapters (PEFT) on every linear layer but the LM head, and they
are merged into the weights before saving, so the saved folder is a plain transformers model.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardgym.agents.llm.config import ModelKind, SFTRunConfig
from rewardgym.agents.llm.model import bf16_available, load_model, offline, save_model

if TYPE_CHECKING:
    from datasets import Dataset
    from trl import SFTConfig


@dataclass(frozen=True)
class SFTResult:
    """Where the fine-tuned model was saved, its loss curve and how long training took."""

    path: Path
    losses: list[float]
    seconds: float
    steps: int
    log_history: list[dict[str, Any]] = field(default_factory=list)
    """Every logged record of the Trainer (loss, learning rate, ...)."""

    @property
    def first_loss(self) -> float:
        """Training loss logged first."""
        return self.losses[0] if self.losses else float("nan")

    @property
    def last_loss(self) -> float:
        """Training loss logged last."""
        return self.losses[-1] if self.losses else float("nan")


def sft_args(
    config: SFTRunConfig,
    output_dir: str | os.PathLike[str],
    *,
    max_length: int = 1024,
    model_kind: ModelKind = "scratch",
) -> SFTConfig:
    """TRL's ``SFTConfig`` for ``config`` and a model of ``model_kind`` (the one place it is built).

    Gradient checkpointing follows :meth:`SFTRunConfig.checkpointing` (TRL turns it on by
    default; the default model trains faster without it and has the memory to spare).
    """
    import torch
    from trl import SFTConfig

    return SFTConfig(
        output_dir=str(output_dir),
        num_train_epochs=config.epochs,
        learning_rate=config.rate(model_kind),
        per_device_train_batch_size=config.batch_size,
        # transformers 5 reads a warmup_steps below 1 as a ratio of the training steps (it has no
        # warmup_ratio any more); pyproject pins transformers>=5 for that reason.
        warmup_steps=config.warmup_ratio,
        lr_scheduler_type="cosine",
        max_length=max_length,
        completion_only_loss=config.completion_only_loss,
        packing=False,
        activation_checkpointing=config.checkpointing(model_kind),
        train_sampling_strategy="group_by_length" if config.group_by_length else "random",
        save_strategy="no",
        logging_steps=config.logging_steps,
        logging_first_step=True,
        logging_nan_inf_filter=False,  # LossGuard must see a NaN loss, not a false 0
        bf16=config.bf16 and bf16_available(),
        report_to="none",
        seed=config.seed,
        data_seed=config.seed,
        use_cpu=not torch.cuda.is_available(),
        disable_tqdm=True,
        dataloader_num_workers=0,
    )


@contextmanager
def label_positions_only() -> Iterator[None]:
    """Make TRL's fused LM head score only the positions that carry a label, on every device.

    TRL 1.16 (``trl.trainer.utils.add_fused_lm_head``) keeps only the label positions where Triton
    runs (CUDA, XPU) and scores every position elsewhere, so that Neuron compiles one shape; on a
    CPU most positions are prompt and padding. Same per-token log-probabilities, so the same loss
    (tests/agents/llm/test_sft_settings.py); 2x the examples per second on the quick model. A TRL
    without that switch is left as it is.
    """
    from trl.trainer import utils

    original = getattr(utils, "_use_triton", None)
    if original is None:
        yield
        return
    utils._use_triton = lambda device: True  # only chooses compact scoring, not the kernel
    try:
        yield
    finally:
        utils._use_triton = original


def train_sft(
    model_path: str | os.PathLike[str],
    dataset: Dataset,
    out: str | os.PathLike[str],
    config: SFTRunConfig | None = None,
    *,
    max_length: int = 1024,
    progress: bool = True,
    model_kind: ModelKind = "scratch",
    run: str = "sft",
) -> SFTResult:
    """Fine-tune the model at ``model_path`` on ``dataset``; save it under ``out/model``.

    With ``config.lora_rank`` set only LoRA adapters train; the saved model has them merged in.

    ``run`` names the run in errors (a diverged loss names it and the step).
    """
    import time

    from trl import SFTTrainer

    from rewardgym.agents.llm.callbacks import CompactProgress, LossGuard, quiet

    offline()
    config = config or SFTRunConfig()
    model, tokenizer = load_model(model_path)
    tokenizer.padding_side = "right"
    out = Path(out)
    args = sft_args(config, out / "trainer", max_length=max_length, model_kind=model_kind)
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        callbacks=[LossGuard(run)],
        peft_config=config.lora(),
    )
    quiet(trainer, CompactProgress(run, ("loss",), enabled=progress))
    start = time.perf_counter()
    with label_positions_only() if config.label_positions_only else nullcontext():
        trainer.train()
    seconds = time.perf_counter() - start
    tokenizer.padding_side = "left"
    trained: Any = trainer.model
    path = save_model(trained, tokenizer, out / "model")
    losses = [float(r["loss"]) for r in trainer.state.log_history if "loss" in r]
    history = list(trainer.state.log_history)
    return SFTResult(path, losses, seconds, int(trainer.state.global_step), history)


def completion_loss(
    model_path: str | os.PathLike[str], dataset: Dataset, *, max_length: int = 1024, limit: int = 64
) -> float:
    """Mean token loss of the model on the completions of the first ``limit`` rows (prompt masked)."""
    import torch

    model, tokenizer = load_model(model_path)
    total, count = 0.0, 0
    rows: list[dict[str, Any]] = [dataset[i] for i in range(min(limit, len(dataset)))]
    with torch.no_grad():
        for row in rows:
            prompt = tokenizer(row["prompt"], add_special_tokens=False)["input_ids"]
            completion = tokenizer(row["completion"], add_special_tokens=False)["input_ids"]
            ids = (prompt + completion + [tokenizer.eos_token_id])[-max_length:]
            labels = list(ids)
            cut = max(0, len(ids) - len(completion) - 1)
            labels[:cut] = [-100] * cut
            out = model(input_ids=torch.tensor([ids]), labels=torch.tensor([labels]))
            total += float(out.loss) * (len(ids) - cut - 1)
            count += len(ids) - cut - 1
    return total / max(count, 1)


__all__ = ["SFTResult", "completion_loss", "label_positions_only", "sft_args", "train_sft"]
