"""A file's contents (or a command-line ``--env``) never choose code: only rewardgym's own env ids.

Issue 24, item 2: ``rewardgym_dataset.json``'s ``env_id`` reached ``gym.make``, which imports
the module of a ``module:Env`` id, so an id naming a module in the working directory imported
and ran it. Here that module writes a canary file when imported; every path must refuse the
id with an error naming the file and the id, and the canary must never appear.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.envs.registration import register, registry

from rewardgym.agents.evaluation.household import EvalConfig
from rewardgym.cli import main
from rewardgym.envs import HOUSEHOLD_ID, TRAJECTORY_REPLAY_ID, babyai_text_id
from rewardgym.envs.registration import check_registered, is_rewardgym_id, make_registered
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.layout import METADATA_FILE

EVIL = """
import pathlib
pathlib.Path(__file__).with_name("canary").write_text("imported")
import gymnasium as gym
class Env(gym.Env):
    pass
"""

FOREIGN_ID = "rewardgym/Evil-v0"


@pytest.fixture
def evil_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working directory (on ``sys.path``, as ``python -m`` puts it) holding ``evil_mod.py``."""
    (tmp_path / "evil_mod.py").write_text(EVIL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    register(id=FOREIGN_ID, entry_point="evil_mod:Env")  # in rewardgym's namespace, not its code
    register(id="BabyAI-Evil-v0", entry_point="evil_mod:Env")  # a "level" that is not minigrid's
    yield tmp_path
    del registry[FOREIGN_ID], registry["BabyAI-Evil-v0"]
    assert not (tmp_path / "canary").exists(), "evil_mod was imported"


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sets") / "set"
    collect_dataset(CollectConfig(episodes=2, seed=0)).save(out, minari=False)
    return out


def with_env_id(source: Path, target: Path, env_id: object) -> Path:
    """A copy of data set ``source`` whose metadata names ``env_id``."""
    target.mkdir()
    for name in ("episodes.arrow", "steps.arrow"):
        (target / name).write_bytes((source / name).read_bytes())
    meta = json.loads((source / METADATA_FILE).read_text())
    meta["env_id"] = env_id
    (target / METADATA_FILE).write_text(json.dumps(meta))
    return target


HOSTILE_IDS = ["evil_mod:Env", "evil_mod:Env-v0", FOREIGN_ID, "rewardgym/Nope-v9", "CartPole-v1"]


@pytest.mark.parametrize("env_id", HOSTILE_IDS)
def test_a_data_set_naming_foreign_code_is_refused_on_load(
    evil_cwd: Path, saved: Path, env_id: str
) -> None:
    bad = with_env_id(saved, evil_cwd / "bad", env_id)
    message = rf"{bad / METADATA_FILE}: env id '{env_id}' is not an environment rewardgym registers"
    with pytest.raises(ValueError, match=message):
        TrajectoryDataset.from_dir(bad)
    with pytest.raises(ValueError, match=message):  # replaying loads it the same way
        gym.make(TRAJECTORY_REPLAY_ID, dataset=str(bad))


def test_other_metadata_that_could_steer_a_make_is_refused(saved: Path, tmp_path: Path) -> None:
    for i, env_id in enumerate([None, 7, ["rewardgym/Household-v1"], TRAJECTORY_REPLAY_ID]):
        with pytest.raises(ValueError, match=str(tmp_path / str(i) / METADATA_FILE)):
            TrajectoryDataset.from_dir(with_env_id(saved, tmp_path / str(i), env_id))
    bad = with_env_id(saved, tmp_path / "kwargs", HOUSEHOLD_ID)
    meta = json.loads((bad / METADATA_FILE).read_text())
    meta["env_kwargs"] = ["layout", "default"]
    (bad / METADATA_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="env_kwargs must be an object"):
        TrajectoryDataset.from_dir(bad)


def test_short_action_names_are_refused_at_load_naming_the_counts(
    saved: Path, tmp_path: Path
) -> None:
    """Issue 24, item 9: it loaded, then replay failed with an IndexError."""
    bad = with_env_id(saved, tmp_path / "short", HOUSEHOLD_ID)
    meta = json.loads((bad / METADATA_FILE).read_text())
    meta["action_names"] = meta["action_names"][:3]
    (bad / METADATA_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"lists 3 action_names but steps.arrow holds action ids"):
        TrajectoryDataset.from_dir(bad)


@pytest.mark.parametrize("env_id", HOSTILE_IDS)
def test_a_command_line_env_naming_foreign_code_is_refused(
    evil_cwd: Path, env_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises((SystemExit, ValueError)):
        main(["data", "collect", "--env", env_id, "--episodes", "1", "--out", "out"])
    assert not (evil_cwd / "out").exists()
    with pytest.raises(ValueError, match="not an env rewardgym can collect"):
        CollectConfig(env=env_id)
    with pytest.raises(
        ValueError, match=r"EvalConfig\.env_id"
    ):  # bench embodied --evaluation.env-id
        EvalConfig(env_id=env_id)


def test_the_gate_accepts_only_rewardgym_code(evil_cwd: Path) -> None:
    assert is_rewardgym_id(HOUSEHOLD_ID)
    assert not any(is_rewardgym_id(env_id) for env_id in HOSTILE_IDS)
    with pytest.raises(ValueError, match=r"^--env: env id 'evil_mod:Env' .* use one of: "):
        check_registered("evil_mod:Env", source="--env")
    with pytest.raises(ValueError, match="rewardgym/Household-v1"):  # the message lists the ids
        make_registered(FOREIGN_ID, source="x.json")
    assert make_registered(HOUSEHOLD_ID, source="code").spec.id == HOUSEHOLD_ID  # type: ignore[union-attr]


def test_a_babyai_level_from_env_kwargs_is_minigrids_own(evil_cwd: Path) -> None:
    """A data set's ``env_kwargs`` reach the env: ``level`` must name one of minigrid's levels."""
    for level in ("Evil", "evil_mod:Env", 3):
        with pytest.raises(ValueError, match="unknown BabyAI level"):
            gym.make(babyai_text_id("GoToLocal"), level=level)
