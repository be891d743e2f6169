"""COREN (arXiv 2411.17135): a consistency-guided LLM-judge ensemble that labels dense rewards.

Judges (``embedding``, ``hf``, ``openai``) rate every logged step with N prompts; the
contextual, structural and temporal consistencies turn the votes into three terms; an
orchestrator weighs them; ``label_dataset`` writes a relabelled data set and ``CorenReward``
applies the same model online. See ``docs/coren.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rewardgym.wrappers.coren.cache import JudgeCache, cached_complete, request_key
    from rewardgym.wrappers.coren.config import ABLATIONS, RUBRIC, TERMS, CorenConfig
    from rewardgym.wrappers.coren.embeddings import hashing_embedder, shared_embedder
    from rewardgym.wrappers.coren.ensemble import (
        EnsembleCounts,
        ScoredTrajectory,
        combine_terms,
        score_trajectories,
    )
    from rewardgym.wrappers.coren.judges import (
        EmbeddingJudge,
        Judge,
        JudgeRequest,
        Transition,
        make_judge,
    )
    from rewardgym.wrappers.coren.labeling import (
        JudgedDataset,
        LabelReport,
        dense_rewards,
        judge_dataset,
        label_ablations,
        label_dataset,
        point_biserial,
    )
    from rewardgym.wrappers.coren.orchestrator import Orchestrator, OrchestratorSpec
    from rewardgym.wrappers.coren.prompts import Prompt, load_prompts, parse_prompt
    from rewardgym.wrappers.coren.qa import QABank
    from rewardgym.wrappers.coren.wrapper import CorenReward

_LAZY: dict[str, str] = {
    "ABLATIONS": "rewardgym.wrappers.coren.config",
    "CorenConfig": "rewardgym.wrappers.coren.config",
    "CorenReward": "rewardgym.wrappers.coren.wrapper",
    "EmbeddingJudge": "rewardgym.wrappers.coren.judges",
    "EnsembleCounts": "rewardgym.wrappers.coren.ensemble",
    "Judge": "rewardgym.wrappers.coren.judges",
    "JudgeCache": "rewardgym.wrappers.coren.cache",
    "JudgeRequest": "rewardgym.wrappers.coren.judges",
    "JudgedDataset": "rewardgym.wrappers.coren.labeling",
    "LabelReport": "rewardgym.wrappers.coren.labeling",
    "Orchestrator": "rewardgym.wrappers.coren.orchestrator",
    "OrchestratorSpec": "rewardgym.wrappers.coren.orchestrator",
    "Prompt": "rewardgym.wrappers.coren.prompts",
    "QABank": "rewardgym.wrappers.coren.qa",
    "RUBRIC": "rewardgym.wrappers.coren.config",
    "ScoredTrajectory": "rewardgym.wrappers.coren.ensemble",
    "TERMS": "rewardgym.wrappers.coren.config",
    "Transition": "rewardgym.wrappers.coren.judges",
    "cached_complete": "rewardgym.wrappers.coren.cache",
    "combine_terms": "rewardgym.wrappers.coren.ensemble",
    "dense_rewards": "rewardgym.wrappers.coren.labeling",
    "hashing_embedder": "rewardgym.wrappers.coren.embeddings",
    "judge_dataset": "rewardgym.wrappers.coren.labeling",
    "label_ablations": "rewardgym.wrappers.coren.labeling",
    "label_dataset": "rewardgym.wrappers.coren.labeling",
    "load_prompts": "rewardgym.wrappers.coren.prompts",
    "make_judge": "rewardgym.wrappers.coren.judges",
    "parse_prompt": "rewardgym.wrappers.coren.prompts",
    "point_biserial": "rewardgym.wrappers.coren.labeling",
    "request_key": "rewardgym.wrappers.coren.cache",
    "score_trajectories": "rewardgym.wrappers.coren.ensemble",
    "shared_embedder": "rewardgym.wrappers.coren.embeddings",
}


def __getattr__(name: str) -> Any:
    """Import public names on first use, so the CLI and ``import rewardgym`` stay light."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ABLATIONS",
    "RUBRIC",
    "TERMS",
    "CorenConfig",
    "CorenReward",
    "EmbeddingJudge",
    "EnsembleCounts",
    "Judge",
    "JudgeCache",
    "JudgeRequest",
    "JudgedDataset",
    "LabelReport",
    "Orchestrator",
    "OrchestratorSpec",
    "Prompt",
    "QABank",
    "ScoredTrajectory",
    "Transition",
    "cached_complete",
    "combine_terms",
    "dense_rewards",
    "hashing_embedder",
    "judge_dataset",
    "label_ablations",
    "label_dataset",
    "load_prompts",
    "make_judge",
    "parse_prompt",
    "point_biserial",
    "request_key",
    "score_trajectories",
    "shared_embedder",
]
