"""What a relabelling run is told: the judge, COREN's settings, its input files and outputs.

``LabelConfig`` is the one config of ``label_dataset`` / ``label_ablations`` and the options of
``rewardgym label coren`` (flattened into ``LabelCoren``). Kept light at import time: no judge
or model is loaded. Every default comes from the config it belongs to (``CorenConfig``,
``OpenAIJudgeConfig``, ``RewardComposition``), so each one lives in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.wrappers.composition import RewardComposition
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.judges.openai import OpenAIJudgeConfig


@dataclass(frozen=True)
class LabelConfig:
    """How to relabel a data set: which judge, COREN's settings, where the cache and inputs are.

    Example:
        >>> LabelConfig(coren=CorenConfig(ablation="ST"), minari=False).coren.ablation
        'ST'
        >>> LabelConfig(judge="embeding")
        Traceback (most recent call last):
        ...
        ValueError: --judge 'embeding': no such judge; ...
    """

    judge: str = "embedding"
    """Judge: embedding (MiniLM sentence embeddings), embedding:hashing (fast, no model),
    hf:smollm2-135m (the shipped small LLM), hf:PATH (a local model folder), openai:URL (an
    OpenAI-compatible server, e.g. openai:http://127.0.0.1:8000/v1), or calibrated:ACC or
    calibrated:ACC:RHO (the env's goal check, right with probability ACC, errors correlated
    RHO across prompts: a judge of known quality)."""
    coren: Annotated[CorenConfig, tyro.conf.arg(name="")] = field(default_factory=CorenConfig)
    openai: OpenAIJudgeConfig = field(default_factory=OpenAIJudgeConfig)
    """Settings of an openai:URL judge (refused for other judges)."""
    composition: RewardComposition = field(default_factory=RewardComposition)
    """The reward the labels are made for, success_weight x success + dense_weight x dense:
    recorded in OUT's metadata, where offline training reads it (dense_weight is lambda)."""
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
        """Refuse a judge that names nothing (listing the valid forms) and misplaced openai settings.

        Nothing is loaded: the spec is only checked (``check_judge_spec``).
        """
        from rewardgym.wrappers.judges.factory import check_judge_spec

        check_judge_spec(self.judge)
        if not self.is_openai and self.openai != OpenAIJudgeConfig():
            raise ValueError(
                f"--openai.* settings apply to openai:URL judges, not {self.judge!r}: "
                "drop them or pick an openai:URL judge"
            )

    @property
    def is_openai(self) -> bool:
        """Whether the judge is an openai:URL server (the only one ``openai`` applies to)."""
        return self.judge.startswith("openai:")


__all__ = ["LabelConfig"]
