"""``rewardgym label coren``: relabel a trajectory data set with COREN's dense reward.

Kept light at import time: the labelling machinery (torch, the judges) loads only when the
command runs. The options are ``LabelConfig``'s, flattened, so each default lives in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.wrappers.coren.label_config import LabelConfig


@dataclass(frozen=True)
class LabelCoren:
    """Relabel every step of DATASET with COREN's dense reward and write the copy to OUT."""

    dataset: Path
    """Input data set directory (only read, never modified)."""
    out: Path
    """Directory of the relabelled data set."""
    label: Annotated[LabelConfig, tyro.conf.arg(name="")] = field(default_factory=LabelConfig)

    def run(self) -> None:
        """Label, write and print the report.

        OUT is checked before the first judge call (new, empty, or with --overwrite a data set
        rewardgym wrote, and never inside DATASET; anything else is refused in one line, exit
        status 2, and left untouched) and appears only once complete. A key variable that is
        unset is refused the same way; a run whose judge never answers, or whose judge calls
        all fail, stops with a :class:`~rewardgym.errors.LabellingError` (one line, exit
        status 1) and writes nothing.
        """
        from rich.console import Console

        from rewardgym.errors import JudgeUnavailableError, LabellingError
        from rewardgym.wrappers.coren.labelling import label_dataset

        try:
            report = label_dataset(self.dataset, self.out, self.label)
        except (LabellingError, JudgeUnavailableError) as err:
            raise LabellingError(f"stopped, nothing written: {err}") from err
        Console().print(report.summary(), markup=False, highlight=False)


__all__ = ["LabelCoren"]
