"""``rewardgym label coren``: relabel a trajectory data set with COREN's dense reward.

Kept light at import time: the labelling machinery (torch, the judges) loads only when the
command runs. Every default comes from the config it belongs to (``CorenConfig``,
``OpenAIJudgeConfig``), so each one lives in one place.
"""

from __future__ import annotations

import json
import math
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
    """Judge: embedding | embedding:hashing | hf:smollm2-135m | hf:PATH | openai:URL."""
    coren: Annotated[CorenConfig, tyro.conf.arg(name="")] = field(default_factory=CorenConfig)
    openai: OpenAIJudgeConfig = field(default_factory=OpenAIJudgeConfig)
    """Settings of an openai:URL judge (refused for other judges)."""
    cache: Path | None = None
    """Judge cache file (default: one per OUT under $REWARDGYM_HOME/judge-cache, kept across runs)."""
    prompts: Path | None = None
    """Directory of prompt *.txt files (default: the shipped ones)."""
    qa: Path | None = None
    """JSONL QA file for envs without ground truth."""
    minari: bool = True
    """Also write the Minari copy."""
    overwrite: bool = False
    """Replace a relabelled data set that an earlier run wrote to OUT."""

    def run(self) -> None:
        """Label, write and print the report.

        OUT is checked before the first judge call (new, empty, or with --overwrite a data set
        rewardgym wrote; anything else is refused and left untouched) and appears only once
        complete. A run whose judge calls all fail, or whose key variable is unset, stops with
        a non-zero exit status and writes nothing.
        """
        from rich.console import Console

        from rewardgym.agents.labelling.coren import LabellingError, label_dataset
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
        cold = report.cold_seconds_per_1k_calls
        cost = (
            f"cold cost {cold:.1f} s per 1,000 judge calls"
            if cold is not None
            else "cold cost n/a: the cache answered every request"
        )
        console = Console()
        console.print(
            f"relabelled {report.episodes:,} episodes / {report.steps:,} steps ({report.ablation}) "
            f"in {report.total_seconds:.1f} s (judging {report.judge_seconds:.1f} s): "
            f"{report.requests:,} requests, {report.cache_hits:,} answered from the cache, "
            f"{report.judge_calls:,} judge calls ({cost}), {report.failures:,} failures, "
            f"abstentions {json.dumps(report.abstentions)}"
        )
        console.print(
            f"held-out point-biserial correlation of the dense return with success: "
            f"{_figure(report.heldout_correlation, '.3f', CONSTANT)} over "
            f"{report.heldout_episodes} episodes; written to {report.out}; judge cache {report.cache}"
        )
        for name, row in report.judges.items():
            console.print(
                f"judge {name}: expert's next action rated +2 {row['expert_next_top']:.1%}, "
                f">= +1 {row['expert_next_supportive']:.1%}; top-rated = expert's "
                f"{row['greedy_agreement']:.1%}; non-executable rated -2 "
                f"{_figure(row['nonexec_minus2'], '.1%', 'no such action was rated')} "
                f"({row['probe_states']} held-out states); {row['calls_per_1k_steps']:.0f} judge "
                f"calls per 1,000 steps after the cache, {cost}"
            )


CONSTANT = "the held-out episodes all succeed, all fail, or share one return"
"""Why a point-biserial correlation is undefined (a constant side)."""


def _figure(value: float, spec: str, undefined: str) -> str:
    """``value`` formatted with ``spec``, or ``n/a (why)`` where it is undefined (NaN)."""
    return f"n/a ({undefined})" if math.isnan(value) else format(value, spec)


__all__ = ["LabelCoren"]
