"""``rewardgym data collect --env virtualhome``: training programs in turn, flags from the goal check."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.collect import failure_causes
from rewardgym.envs.trajectories.minari_io import load_minari
from rewardgym.envs.trajectories.variants import variant_config
from rewardgym.envs.virtualhome.programs import split_programs


@pytest.fixture(scope="module")
def data() -> TrajectoryDataset:
    return collect_dataset(CollectConfig(env="virtualhome", episodes=6, seed=0, give_up=0.5))


def test_training_programs_are_dealt_in_turn_with_perturbed_scripts(
    data: TrajectoryDataset,
) -> None:
    assert data.env_id == VIRTUALHOME_ID
    programs = [ep.extras["reset_options"]["program"] for ep in data]
    assert programs == list(split_programs("train")[:6])
    assert {ep.extras["gave_up"] for ep in data} == {True, False}
    assert any(ep.extras["perturbations"] for ep in data)
    assert all(ep.instruction_kind == "fine" and ep.instruction for ep in data)


def test_every_success_flag_is_the_goal_check_of_the_replayed_actions(
    data: TrajectoryDataset,
) -> None:
    env = gym.make(VIRTUALHOME_ID)
    for ep in data:
        env.reset(options=ep.extras["reset_options"])
        for action in ep.actions:
            info = env.step(int(action))[4]
        assert info["success"] == ep.success
        assert np.array_equal(ep.rewards[:-1], np.zeros(len(ep) - 1))
        assert ep.rewards[-1] == float(ep.success)


def test_held_out_programs_are_refused_for_training_data() -> None:
    with pytest.raises(ValueError, match="split='test'"):
        CollectConfig(env="virtualhome", env_kwargs={"split": "test"})


def test_the_data_set_round_trips_through_arrow_and_minari_and_replays(
    data: TrajectoryDataset, tmp_path: Path
) -> None:
    data.save(tmp_path / "vh", minari=True)
    minari_copy = load_minari(tmp_path / "vh")
    assert minari_copy.total_episodes == len(data)
    first = next(iter(minari_copy.iterate_episodes()))
    assert np.array_equal(first.actions, data[0].actions)
    loaded = TrajectoryDataset.from_dir(tmp_path / "vh")
    assert [ep.success for ep in loaded] == [ep.success for ep in data]
    env = gym.make("rewardgym/TrajectoryReplay-v0", dataset=str(tmp_path / "vh"))
    obs, info = env.reset(options={"episode": 1})
    assert obs["text"] == data[1].observations["text"][0]
    assert info["instruction"] == data[1].instruction


def test_the_command_collects_virtualhome_by_its_short_name(tmp_path: Path) -> None:
    from rewardgym.cli import main

    main(
        ["data", "collect", "--env", "virtualhome", "--episodes", "2", "--out", str(tmp_path / "d")]
    )
    loaded = TrajectoryDataset.from_dir(tmp_path / "d")
    assert loaded.env_id == VIRTUALHOME_ID and len(loaded) == 2
    assert loaded.info["collector"]["give_up"] == 0.3
    assert loaded.info["collector"]["random_actions"] == "executable"
    assert sum(loaded.info["failure_causes"].values()) == sum(not ep.success for ep in loaded)
    coren_argv = ["--variant", "coren", "--episodes", "2", "--out", str(tmp_path / "c")]
    main(["data", "collect", "--env", "virtualhome", *coren_argv, "--no-minari"])
    coren = TrajectoryDataset.from_dir(tmp_path / "c").info["collector"]
    assert (coren["random_actions"], coren["noise"], coren["give_up"]) == ("uniform", 0.2, 0.8)


def test_the_default_mix_fails_by_executed_wrong_actions_and_coren_s_by_giving_up() -> None:
    """Issue 47 item 4: random actions the simulator accepts make a real share of the failures.

    COREN's recipe draws from the whole action space, which the simulator mostly refuses, so
    its failures are give-ups; the default draws among the actions accepted at that state.
    """
    default = collect_dataset(CollectConfig(env="virtualhome", episodes=40, seed=0))
    coren = collect_dataset(variant_config("coren", env="virtualhome", episodes=40, seed=0))
    executed = [bool(np.all(ep.executable[~ep.expert])) for ep in default]
    assert all(executed)  # every inserted or wandering action was one the simulator accepted
    causes = default.info["failure_causes"]
    assert causes == failure_causes(default)
    assert causes["executed a wrong action"] >= 0.3 * sum(causes.values()) > 0
    assert causes["gave up"] > 0
    coren_causes = coren.info["failure_causes"]
    assert coren.info["collector"]["random_actions"] == "uniform"
    assert coren_causes["gave up"] >= 0.9 * sum(coren_causes.values())
    refused = sum(int(np.sum(~ep.executable & ~ep.expert)) for ep in coren)
    assert refused > 0.5 * sum(int(np.sum(~ep.expert)) for ep in coren)


def test_executable_draws_are_uniform_over_what_the_simulator_accepts() -> None:
    env = gym.make(VIRTUALHOME_ID).unwrapped
    env.reset(options={"program": env.programs[0]})
    accepted = env.executable_actions()
    assert 0 < len(accepted) < len(env.action_names) / 2
    rng = np.random.default_rng(0)
    drawn = [env.random_executable_action(rng) for _ in range(400)]
    assert set(drawn) <= set(accepted) and len(set(drawn)) > 0.8 * len(accepted)
    before = env.state
    assert env.executable_actions() == accepted and env.state is before  # nothing executed
