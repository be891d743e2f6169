"""COREN (arXiv 2411.17135): the consistency-guided dense reward and its Gym wrapper.

The judges (``rewardgym.wrappers.judges``) rate every step with N prompts; the contextual,
structural and temporal consistencies turn the votes into three terms; an orchestrator
weighs them. ``CorenReward`` applies the scoring online; ``labelling.label_dataset``
relabels whole data sets offline with the same scoring. See ``docs/coren.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rewardgym.lazy import lazy_exports

if TYPE_CHECKING:
    from rewardgym.wrappers.coren.config import ABLATIONS, TERMS, CorenConfig
    from rewardgym.wrappers.coren.ensemble import (
        Ensemble,
        EnsembleCounts,
        ScoredTrajectory,
        score_trajectories,
    )
    from rewardgym.wrappers.coren.orchestrator import Orchestrator, OrchestratorSpec
    from rewardgym.wrappers.coren.qa import QABank, QAPair, build_qa_bank
    from rewardgym.wrappers.coren.scoring import (
        TrajectoryAnswers,
        combine_terms,
        trajectory_rewards,
    )
    from rewardgym.wrappers.coren.wrapper import CorenReward

__getattr__ = lazy_exports(
    __name__,
    {
        "ABLATIONS": "config",
        "TERMS": "config",
        "CorenConfig": "config",
        "CorenReward": "wrapper",
        "Ensemble": "ensemble",
        "EnsembleCounts": "ensemble",
        "ScoredTrajectory": "ensemble",
        "score_trajectories": "ensemble",
        "Orchestrator": "orchestrator",
        "OrchestratorSpec": "orchestrator",
        "QABank": "qa",
        "QAPair": "qa",
        "build_qa_bank": "qa",
        "TrajectoryAnswers": "scoring",
        "combine_terms": "scoring",
        "trajectory_rewards": "scoring",
    },
)

__all__ = [
    "ABLATIONS",
    "TERMS",
    "CorenConfig",
    "CorenReward",
    "Ensemble",
    "EnsembleCounts",
    "Orchestrator",
    "OrchestratorSpec",
    "QABank",
    "QAPair",
    "ScoredTrajectory",
    "TrajectoryAnswers",
    "build_qa_bank",
    "combine_terms",
    "score_trajectories",
    "trajectory_rewards",
]
