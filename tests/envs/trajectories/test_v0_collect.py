"""Each env's default collector is the one its figures were made with, chosen per env id.

Issue 24, item 11: ``rewardgym data collect --env rewardgym/Household-v0 --episodes 200 --out
DIR`` (the turn-one docs) failed with ``TypeError: HouseholdEnv has no expert_script()``
because the collector's default changed for Household-v1. Household-v0 and BabyAI default to
the first collector (commit 9af9235: the replanning expert, noise 0.6, no siblings), whose
episodes are pinned below as that collector wrote them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from rewardgym.cli import main
from rewardgym.envs import HOUSEHOLD_ID, HOUSEHOLD_V0_ID, babyai_text_id
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.config import DEFAULT_COLLECTORS

# The first five episodes (seed 0) and a digest of 200 that the turn-one collector wrote.
TURN_ONE_ACTIONS = [
    [1, 22, 12, 3, 34, 2, 15, 1, 11, 43, 12, 49, 52, 8, 55, 25, 0, 4, 6, 42],
    [0, 8, 4, 4, 9, 6, 9, 4, 9, 26, 5, 16, 4, 5, 34, 50, 39, 17, 7, 25],
    [1, 12, 11, 8, 3, 38, 21, 6, 21, 1, 13, 30, 12, 55, 11, 43],
    [1, 12, 12, 55],
    [0, 7, 4, 6, 2, 0, 21, 7, 34, 48, 7, 35, 32, 10, 27, 53, 6, 4, 29, 6],
]
TURN_ONE_SUCCESS = [False, False, True, True, False]
TURN_ONE_200_DIGEST = "8f839e7af856cb843040e7f0a0ab42c75b3ad51fde242df36c0c8e85518208c1"


def test_the_documented_v0_command_collects_with_v0s_collector(tmp_path: Path) -> None:
    out = tmp_path / "v0"
    main(["data", "collect", "--env", HOUSEHOLD_V0_ID, "--episodes", "5", "--out", str(out)])
    data = TrajectoryDataset.from_dir(out)
    assert data.env_id == HOUSEHOLD_V0_ID
    assert data.info["collector"] == {
        "expert": "replan",
        "noise": 0.6,
        "sibling_fraction": 0.0,
        "give_up": 0.0,
        "random_actions": "mixed",
        "experts": ["replan"],
    }
    assert [[int(a) for a in ep.actions] for ep in data] == TURN_ONE_ACTIONS
    assert [ep.success for ep in data] == TURN_ONE_SUCCESS


def test_v0_data_reproduce_the_turn_one_collector() -> None:
    data = collect_dataset(CollectConfig(env=HOUSEHOLD_V0_ID, episodes=200, seed=0))
    digest = hashlib.sha256()
    for ep in data:
        digest.update(np.asarray(ep.actions, dtype=np.int64).tobytes() + bytes([ep.success]))
    assert digest.hexdigest() == TURN_ONE_200_DIGEST
    assert data.success_rate == pytest.approx(0.57)


@pytest.mark.parametrize("env_id", list(DEFAULT_COLLECTORS))
def test_every_collectable_env_collects_with_its_defaults(env_id: str) -> None:
    data = collect_dataset(CollectConfig(env=env_id, episodes=2, seed=1))
    expected = DEFAULT_COLLECTORS[env_id]
    assert data.info["collector"]["expert"] == expected.expert
    assert data.info["collector"]["noise"] == expected.noise
    assert len(data) == 2


def test_defaults_are_per_env_and_explicit_settings_win() -> None:
    v1 = CollectConfig().collector()
    assert (v1.expert, v1.noise, v1.sibling_fraction) == ("script", 0.15, 0.5)
    replan = CollectConfig(env=HOUSEHOLD_ID, expert="replan").collector()
    assert (replan.expert, replan.noise, replan.sibling_fraction) == ("replan", 0.15, 0.0)
    babyai = CollectConfig(env=babyai_text_id("PickupLoc"), noise=0.2).collector()
    assert (babyai.expert, babyai.noise, babyai.sibling_fraction) == ("replan", 0.2, 0.0)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"env": HOUSEHOLD_V0_ID, "expert": "script"}, "has no expert 'script'"),
        (
            {"env": babyai_text_id("GoToLocal"), "expert": "script"},
            "collect it with expert 'replan'",
        ),
        ({"env": HOUSEHOLD_V0_ID, "sibling_fraction": 0.5}, "needs expert='script'"),
        ({"env": "rewardgym/ShopSession-v0"}, "not an env rewardgym can collect"),
        ({"seed": -1}, r"CollectConfig.seed=-1: must be a seed in \[0, "),
    ],
)
def test_impossible_collectors_are_refused_in_one_line(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words) as caught:
        CollectConfig(**kwargs)
    assert "\n" not in str(caught.value)
