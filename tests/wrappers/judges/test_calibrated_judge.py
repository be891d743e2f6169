"""The calibrated judge: the goal check's answers at ACC 1, the stated agreement at ACC a, errors correlated RHO."""

from __future__ import annotations

import copy
import math
from dataclasses import replace

import numpy as np
import pytest

from rewardgym.embeddings import shared_embedder
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.trajectories import collect_dataset
from rewardgym.envs.trajectories.config import CollectConfig
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.ensemble import candidate_actions
from rewardgym.wrappers.coren.grounding import episode_transitions
from rewardgym.wrappers.coren.judging import judge_dataset
from rewardgym.wrappers.coren.qa import build_qa_bank
from rewardgym.wrappers.judges import make_judge
from rewardgym.wrappers.judges.base import JudgeRequest, Transition, parse_rating
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.calibrated import CalibratedJudge, parse_calibrated
from rewardgym.wrappers.judges.factory import check_judge_spec
from rewardgym.wrappers.judges.goal_truth import GoalTruth, HouseholdTracker
from rewardgym.wrappers.judges.prompts import load_prompts
from rewardgym.wrappers.perfect_judge import perfect_judge_rating, perfect_judge_rewards

PROMPTS = tuple(replace(load_prompts(1)[0], name=f"p{i}") for i in range(40))
"""Many prompts: the judge reads only a prompt's name (its own draws)."""


@pytest.fixture(scope="module", params=["household", "virtualhome"])
def data(request: pytest.FixtureRequest):
    if request.param == "household":
        return collect_dataset(CollectConfig(episodes=16, seed=3))  # 4 successes
    return collect_dataset(CollectConfig(env=VIRTUALHOME_ID, episodes=16, seed=3))


@pytest.fixture(scope="module")
def truth(data) -> GoalTruth:
    return GoalTruth(data)


def logged_requests(data, prompts=PROMPTS) -> list[JudgeRequest]:
    steps = [s for ep in data for s in episode_transitions(ep, data.action_names, data.env_id)]
    return [JudgeRequest("rate", p, s) for s in steps for p in prompts]


def within(agree: float, expected: float, n: int) -> bool:
    """Whether ``agree`` is within 4 binomial standard deviations of ``expected`` over ``n``."""
    return abs(agree - expected) <= 4 * math.sqrt(expected * (1 - expected) / n) + 1e-9


def test_accuracy_one_is_the_perfect_judge_on_logged_steps(data, truth) -> None:
    judge = CalibratedJudge(1.0)  # labelling binds it to the data set
    config = CorenConfig(qa_pairs=4, probe_states=0)
    hashing = shared_embedder("hashing")
    judged = judge_dataset(
        data, judge, config, JudgeCache(None), load_prompts(5), embedder=hashing, progress=False
    )
    assert judge.truth is not None and judge.truth.fingerprint == truth.fingerprint
    votes = np.concatenate([s.votes for s in judged.scored])
    expected = np.concatenate(perfect_judge_rewards(data))
    assert votes.shape == (len(expected), 5)
    assert (votes == expected[:, None]).all()
    assert judged.judge_stats["failures"] == 0


def test_candidate_ratings_match_a_full_copy_of_the_episode(data, truth) -> None:
    episode = data[0]
    steps = episode_transitions(episode, data.action_names, data.env_id)
    asked = [candidate_actions(s, data.action_names, "grounded") for s in steps[:4]]
    ours = [
        truth.ratings_for([(truth.state(s), a) for a in acts])
        for s, acts in zip(steps[:4], asked, strict=True)
    ]
    tracker, _ = truth._start(episode)  # the reference: a deep copy of the whole episode
    for t, actions in enumerate(asked):
        reference = [perfect_judge_rating(copy.deepcopy(tracker).step(a)) for a in actions]
        assert ours[t] == reference
        tracker.step(int(episode.actions[t]))


def test_branching_leaves_the_episode_untouched() -> None:
    from rewardgym.envs.household.v1 import HouseholdV1Env
    from rewardgym.envs.household.v1.task_progress import ProgressTracker

    env = HouseholdV1Env()
    env.reset(seed=5)
    reference = copy.deepcopy(env)
    twin = HouseholdTracker(ProgressTracker(env)).branch()
    for action in range(0, 61, 3):
        twin.step(action)
    for action in env.expert_script():
        ours, theirs = env.step(action), reference.step(action)
        assert ours[1:4] == theirs[1:4] and ours[0]["text"] == theirs[0]["text"]
        assert all(np.array_equal(ours[0][k], theirs[0][k]) for k in ours[0])


def test_accuracy_one_answers_structural_as_the_qa_bank(data, truth) -> None:
    judge = CalibratedJudge(1.0, truth=truth)
    bank = build_qa_bank(
        data.env_id, shared_embedder("hashing"), n_pairs=8, seed=11, env_kwargs=data.env_kwargs
    )
    requests = [
        JudgeRequest("structural", PROMPTS[0], Transition(p.instruction, "", "", p.visible))
        for p in bank.pairs
    ]
    assert judge.complete(requests) == [p.answer for p in bank.pairs]


def test_accuracy_one_temporal_says_whether_the_plan_reaches_the_goal(data, truth) -> None:
    judge = CalibratedJudge(1.0, truth=truth)
    requests = [
        JudgeRequest(
            "temporal",
            PROMPTS[0],
            Transition(ep.instruction, "", ""),
            actions=tuple(data.action_names[a] for a in ep.actions.tolist()),
        )
        for ep in data
    ]
    assert judge.complete(requests) == ["yes" if ep.success else "no" for ep in data]
    assert any(ep.success for ep in data) and not all(ep.success for ep in data)
    first = requests[0]
    short = replace(first, actions=first.actions[:1])
    assert judge.complete([short]) == ["no"]


@pytest.mark.parametrize("accuracy", [0.25, 0.6])
def test_agreement_is_accuracy_plus_chance(data, truth, accuracy: float) -> None:
    requests = logged_requests(data)
    right = [str(int(r)) for r in np.concatenate(perfect_judge_rewards(data)) for _ in PROMPTS]
    answers = CalibratedJudge(accuracy, truth=truth).complete(requests)
    agree = float(np.mean([a == r for a, r in zip(answers, right, strict=True)]))
    assert within(agree, accuracy + (1 - accuracy) / 5, len(requests))
    assert {parse_rating(a) for a in answers} == {-2, -1, 0, 1, 2}


def test_structural_agreement_counts_every_subset_of_the_visible_objects(data, truth) -> None:
    steps = [s for ep in data for s in episode_transitions(ep, data.action_names, data.env_id)]
    distinct = list({(s.instruction, s.visible): s for s in steps if s.visible}.values())
    requests = [JudgeRequest("structural", p, s) for s in distinct for p in PROMPTS]
    exact = CalibratedJudge(1.0, truth=truth).complete(requests)
    noisy = CalibratedJudge(0.5, truth=truth).complete(requests)
    agree = float(np.mean([a == b for a, b in zip(exact, noisy, strict=True)]))
    expected = float(np.mean([0.5 + 0.5 / 2 ** len(r.transition.visible) for r in requests]))
    assert within(agree, expected, len(requests))


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_errors_are_correlated_rho_across_prompts(data, truth, rho: float) -> None:
    requests = logged_requests(data, PROMPTS[:2])
    right = np.repeat(np.concatenate(perfect_judge_rewards(data)), 2).reshape(-1, 2)
    errors = []
    for seed in range(30):  # each seed's draws are independent of every other's
        answers = CalibratedJudge(0.5, rho, seed=seed, truth=truth).complete(requests)
        ratings = np.array([parse_rating(a) for a in answers]).reshape(-1, 2)
        errors.append(ratings != right)
    both = np.concatenate(errors).astype(float)
    correlation = float(np.corrcoef(both[:, 0], both[:, 1])[0, 1])
    assert abs(correlation - rho) < 4 / math.sqrt(len(both))
    assert within(1 - both[:, 0].mean(), 0.5 + 0.5 / 5, len(both))


def test_answers_are_deterministic_per_seed(data, truth) -> None:
    requests = logged_requests(data, PROMPTS[:3])[:300]
    first = CalibratedJudge(0.5, truth=truth).complete(requests)
    assert CalibratedJudge(0.5, truth=truth).complete(requests) == first
    assert CalibratedJudge(0.5, seed=1, truth=truth).complete(requests) != first


def test_specs_parse_and_refuse() -> None:
    judge = make_judge("calibrated:0.75:0.3")
    assert isinstance(judge, CalibratedJudge)
    assert (judge.accuracy, judge.rho) == (0.75, 0.3)
    assert parse_calibrated("calibrated:1") == (1.0, 0.0)
    check_judge_spec("calibrated:0.25")
    for bad, says in [
        ("calibrated:1.5", "outside [0, 1]"),
        ("calibrated:x", "not a number"),
        ("calibrated", "calibrated:ACC"),
        ("calibrated:0.5:0.1:2", "calibrated:ACC"),
    ]:
        with pytest.raises(ValueError, match=says.replace("[", r"\[").replace("]", r"\]")):
            check_judge_spec(bad)


def test_an_unbound_judge_says_to_bind_it() -> None:
    prompt = load_prompts(1)[0]
    with pytest.raises(RuntimeError, match="bind it first"):
        CalibratedJudge(0.5).complete([JudgeRequest("rate", prompt, Transition("x", "", "a"))])


def test_a_spec_labels_a_data_set_and_probes_it(data, tmp_path) -> None:
    """``--judge calibrated:1``: labelling binds the judge built from the spec to its data."""
    from rewardgym.wrappers.coren.labelling import LabelConfig, label_dataset

    source = tmp_path / "data"
    data.save(source, minari=False)
    config = LabelConfig(
        judge="calibrated:1",
        coren=CorenConfig(n_prompts=2, qa_pairs=4, probe_states=6),
        cache=tmp_path / "cache.sqlite",
        minari=False,
    )
    report = label_dataset(
        source, tmp_path / "out", config, embedder=shared_embedder("hashing"), progress=False
    ).as_dict()
    assert report["judge_calls"] > 0 and report["failures"] == 0
    rows = list(report["judges"].values())  # Household-v1's held-out probe rates every action
    assert len(rows) == int(data.env_id != VIRTUALHOME_ID)
    assert all(r["probe_states"] == 6 and r["expert_next_top"] >= 0.5 for r in rows)
