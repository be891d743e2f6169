"""COREN's judges: one interface (``Judge``) and the embedding, hf and openai backends."""

from __future__ import annotations

from rewardgym.wrappers.judges.base import (
    REQUEST_KINDS,
    Judge,
    JudgeRequest,
    JudgeStats,
    Transition,
    parse_object_list,
    parse_rating,
    parse_yes_no,
)
from rewardgym.wrappers.judges.embedding import EmbeddingJudge, action_object, goal_phrases
from rewardgym.wrappers.judges.factory import JUDGE_SPECS, make_judge

__all__ = [
    "JUDGE_SPECS",
    "REQUEST_KINDS",
    "EmbeddingJudge",
    "Judge",
    "JudgeRequest",
    "JudgeStats",
    "Transition",
    "action_object",
    "goal_phrases",
    "make_judge",
    "parse_object_list",
    "parse_rating",
    "parse_yes_no",
]
