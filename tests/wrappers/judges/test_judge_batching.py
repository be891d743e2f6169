"""The batched, de-duplicated, cached judge path gives exactly what one call at a time gives."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from rewardgym.embeddings import SimilarityTable, hashing_embedder, similarity
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.coren.grounding import episode_transitions, step_transition
from rewardgym.wrappers.coren.labelling import JudgedDataset, judge_dataset
from rewardgym.wrappers.judges import EmbeddingJudge, JudgeRequest
from rewardgym.wrappers.judges.cache import JudgeCache, request_key
from rewardgym.wrappers.judges.prompts import load_prompts


@pytest.fixture(scope="module")
def data() -> TrajectoryDataset:
    """A small perturbed-expert Household data set (successes and failures)."""
    return collect_dataset(CollectConfig(episodes=30, seed=5))


def _judge_both(data: TrajectoryDataset, tmp_path: Path) -> tuple[JudgedDataset, JudgedDataset]:
    embedder = hashing_embedder()
    judge = EmbeddingJudge(embedder)
    config = CorenConfig(batch_size=64, qa_pairs=20)

    def one_at_a_time(requests: Sequence[JudgeRequest]) -> list[str | None]:
        return [judge.complete([request])[0] for request in requests]

    single = judge_dataset(
        data, judge, config, None, embedder=embedder, progress=False, complete=one_at_a_time
    )
    cache = JudgeCache(tmp_path / "cache.sqlite")
    batched = judge_dataset(data, judge, config, cache, embedder=embedder, progress=False)
    cache.close()
    return single, batched


def test_batched_and_one_at_a_time_give_identical_terms_votes_and_counts(
    data: TrajectoryDataset, tmp_path: Path
) -> None:
    single, batched = _judge_both(data, tmp_path)
    assert np.array_equal(single.flat_terms(), batched.flat_terms())
    for a, b in zip(single.scored, batched.scored, strict=True):
        assert np.array_equal(a.votes, b.votes, equal_nan=True)
        for name in ("plan", "similarities", "failed"):
            x, y = getattr(a.answers, name), getattr(b.answers, name)
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
    assert single.counts == batched.counts
    assert batched.judge_stats["calls"] < single.judge_stats["calls"]  # de-duplicated
    assert np.unique(single.flat_terms()).size > 3  # the check is not vacuous


def test_cache_keys_keep_their_documented_format() -> None:
    judge = EmbeddingJudge(hashing_embedder())
    prompt = load_prompts(5)[4]
    step = step_transition({"text": "t"}, "Put the apple in the fridge.", "grab apple", [], "x")
    request = JudgeRequest("rate", prompt, step)
    material = json.dumps(
        [judge.identity, prompt.name, prompt.fingerprint, "rate", judge.cache_inputs(request)],
        sort_keys=True,
        default=list,
    )
    assert request_key(judge, request) == hashlib.sha256(material.encode("utf-8")).hexdigest()


def test_batch_cache_inputs_match_per_request_inputs(data: TrajectoryDataset) -> None:
    judge = EmbeddingJudge(hashing_embedder())
    steps = [t for ep in data for t in episode_transitions(ep, data.action_names, data.env_id)]
    for prompt in load_prompts(5):
        for kind in ("rate", "structural"):
            expected = [judge.cache_inputs(JudgeRequest(kind, prompt, t)) for t in steps]
            assert judge.batch_cache_inputs(kind, prompt, steps) == expected


def test_household_transitions_match_the_step_by_step_reading(data: TrajectoryDataset) -> None:
    for episode in data:
        done: list[str] = []
        expected = []
        for t, action_id in enumerate(episode.actions.tolist()):
            action = data.action_names[action_id]
            obs = {key: column[t] for key, column in episode.observations.items()}
            expected.append(step_transition(obs, episode.instruction, action, done, data.env_id))
            if bool(episode.executable[t]):
                done.append(action)
        assert episode_transitions(episode, data.action_names, data.env_id) == expected


def test_similarity_table_equals_the_plain_similarity_bit_for_bit() -> None:
    embedder = hashing_embedder()
    a, b = ("grab apple", "apple"), ("put the apple in the fridge", "fridge", "apple")
    table = SimilarityTable(embedder, [*a, *b[:2]])  # "apple" twice, one of b's strings missing
    assert np.array_equal(table.similarity(a, b), similarity(embedder, a, b))
    assert table.best(a, b) == float(similarity(embedder, a, b).max())
    assert table.similarity((), b).shape == (0, 3)
