"""COREN's structural QA bank builds on VirtualHome-v0, answered from the goal conditions."""

from __future__ import annotations

import rewardgym  # noqa: F401
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.wrappers.coren import build_qa_bank


def test_the_bank_answers_with_visible_goal_objects() -> None:
    bank = build_qa_bank(VIRTUALHOME_ID, hashing_embedder(), n_pairs=8)
    assert len(bank.pairs) == 8
    for pair in bank.pairs:
        named = set() if pair.answer == "none" else set(pair.answer.split(", "))
        assert named <= set(pair.visible), pair
