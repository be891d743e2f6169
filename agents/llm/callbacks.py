"""A compact progress bar for TRL trainers: one line per run, the latest loss or reward as postfix.

The Trainer's own callbacks print every logged dict (dozens of keys per GRPO step); a benchmark
that trains a dozen models needs one bar per run instead. The logs themselves stay in
``trainer.state.log_history``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transformers import TrainerCallback


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
            from tqdm.auto import tqdm

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


def quiet(trainer: Any, progress: CompactProgress) -> None:
    """Replace a Trainer's printing callbacks with ``progress``."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
    trainer.add_callback(progress)


__all__ = ["CompactProgress", "quiet"]
