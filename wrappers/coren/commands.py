"""``rewardgym label coren``: relabel a trajectory data set with COREN's dense reward.

Kept light at import time: the labelling machinery (torch, the judges) loads only when the
command runs. Every default comes from the config it belongs to (``CorenConfig``,
``OpenAIJudgeConfig``), so each one lives in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.judges.openai import OpenAIJudgeConfig


@dataclass(frozen=True)
class LabelCoren:
    """Relabel every step of DATASET with COREN's dense reward and write the copy to OUT."""

    dataset: Path
    """Input data set directory (only read, never modified)."""
    out: Path
    """Directory of the relabelled data set."""
    judge: str = "embedding"
    """Judge: embedding (MiniLM sentence embeddings), embedding:hashing (fast, no model),
    hf:smollm2-135m (the shipped small LLM), hf:PATH (a local model folder) or openai:URL (an
    OpenAI-compatible server, e.g. openai:http://127.0.0.1:8000/v1)."""
    coren: Annotated[CorenConfig, tyro.conf.arg(name="")] = field(default_factory=CorenConfig)
    openai: OpenAIJudgeConfig = field(default_factory=OpenAIJudgeConfig)
    """Settings of an openai:URL judge (refused for other judges)."""
    cache: Path | None = None
    """Judge cache file; None: one per OUT under $REWARDGYM_HOME/judge-cache, kept across runs."""
    prompts: Path | None = None
    """Directory of prompt *.txt files; None: the shipped ones."""
    qa: Path | None = None
    """JSONL file of structural question-answer pairs, for envs without ground truth; None: drawn
    from the simulator."""
    minari: bool = True
    """Also write the Minari copy."""
    overwrite: bool = False
    """Replace a relabelled data set that an earlier run wrote to OUT."""

    def __post_init__(self) -> None:
        """Refuse a judge that names nothing, listing the valid forms (nothing is loaded)."""
        from rewardgym.wrappers.judges.factory import check_judge_spec

        check_judge_spec(self.judge)

    def run(self) -> None:
        """Label, write and print the report.

        OUT is checked before the first judge call (new, empty, or with --overwrite a data set
        rewardgym wrote; anything else is refused and left untouched) and appears only once
        complete. A run whose judge calls all fail, or whose key variable is unset, stops with
        a non-zero exit status and writes nothing.
        """
        from rich.console import Console

        from rewardgym.wrappers.coren.labelling import LabellingError, label_dataset
        from rewardgym.wrappers.judges.openai import JudgeUnavailableError

        is_openai = self.judge.startswith("openai:")
        if not is_openai and self.openai != OpenAIJudgeConfig():
            raise SystemExit(f"--openai.* settings apply to openai:URL judges, not {self.judge!r}")
        try:
            report = label_dataset(
                self.dataset,
                self.out,
                judge=self.judge,
                config=self.coren,
                cache_path=self.cache,
                prompts_dir=self.prompts,
                qa_file=self.qa,
                overwrite=self.overwrite,
                minari=self.minari,
                openai=self.openai if is_openai else None,
            )
        except (FileExistsError, NotADirectoryError, PermissionError) as err:
            raise SystemExit(f"rewardgym label coren: {err}") from err
        except (LabellingError, JudgeUnavailableError) as err:
            raise SystemExit(f"rewardgym label coren stopped, nothing written: {err}") from err
        Console().print(report.summary(), markup=False, highlight=False)


__all__ = ["LabelCoren"]
