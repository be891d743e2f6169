"""Callbacks of every training run: a compact progress bar, and a guard against diverged losses.

The Trainer's own callbacks print every logged dict (dozens of keys per GRPO step); a benchmark
that trains a dozen models needs one bar per run instead. The logs themselves stay in
``trainer.state.log_history``. :class:`LossGuard` makes sure the loss is logged at the first
and the last step whatever ``logging_steps`` is, and stops the run with
:class:`TrainingDiverged`, naming the run and the step, as soon as a logged loss is NaN or
infinite, or as soon as training ends with NaN or infinite weights, so that a wrecked model
never becomes a row of zeros and is never saved.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from transformers import TrainerCallback

from rewardgym.errors import TrainingDiverged


class CompactProgress(TrainerCallback):
    """A tqdm bar over the optimiser steps showing the latest values of ``keys`` (or nothing)."""

    def __init__(self, desc: str, keys: Sequence[str] = ("loss",), enabled: bool = True) -> None:
        self.desc = desc
        self.keys = tuple(keys)
        self.enabled = enabled
        self.bar: Any = None

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Open the bar at the step training starts from (a resumed run starts past 0)."""
        if self.enabled:
            from rewardgym.progress import progress_bar as tqdm

            self.bar = tqdm(total=state.max_steps, initial=state.global_step, desc=self.desc)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Advance the bar to the trainer's step."""
        if self.bar is not None:
            self.bar.update(state.global_step - self.bar.n)

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kw: Any
    ) -> None:
        """Show the latest logged values of the chosen keys."""
        if self.bar is not None and logs:
            shown = {k: f"{float(logs[k]):.3g}" for k in self.keys if k in logs}
            if shown:
                self.bar.set_postfix(shown, refresh=False)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class LossGuard(TrainerCallback):
    """Log the first and the last step's loss; stop the run when a logged loss is not finite,
    or when training ends with a weight that is not.

    The loss a step logs was computed before that step's update, so the last update's damage
    shows only in the weights; the run's ``TrainingArguments`` must keep NaN and infinite
    losses in the log (``logging_nan_inf_filter=False``), or they are logged as a false finite
    value.
    """

    def __init__(self, run: str, keys: Sequence[str] = ("loss",)) -> None:
        self.run = run
        self.keys = tuple(keys)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        """Ask for a log line at the first and the last optimiser step."""
        if state.global_step in (1, state.max_steps):
            control.should_log = True
        return control

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kw: Any
    ) -> None:
        """Raise :class:`TrainingDiverged` on a NaN or infinite loss."""
        for key in self.keys:
            value = (logs or {}).get(key)
            if value is not None and not math.isfinite(float(value)):
                raise TrainingDiverged(
                    f"{self.run}: the training {key} is {float(value)} at step "
                    f"{state.global_step} of {state.max_steps}; lower the learning rate (for a "
                    "pretrained model, pretrained_learning_rate) or check the data"
                )

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Raise :class:`TrainingDiverged` when a weight of the trained model is NaN or infinite."""
        import torch

        model = kwargs.get("model")
        if model is None:
            return
        with torch.no_grad():
            broken = [
                name for name, p in model.named_parameters() if not bool(torch.isfinite(p).all())
            ]
        if broken:
            raise TrainingDiverged(
                f"{self.run}: after step {state.global_step} of {state.max_steps}, {len(broken)} "
                f"weight tensors hold NaN or infinite values ({broken[0]} first); nothing was "
                "saved: lower the learning rate (for a pretrained model, "
                "pretrained_learning_rate) or check the data"
            )


def quiet(trainer: Any, progress: CompactProgress) -> None:
    """Replace a Trainer's printing callbacks with ``progress``."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
    trainer.add_callback(progress)


__all__ = ["CompactProgress", "LossGuard", "TrainingDiverged", "quiet"]
