"""Issue 39 items 5, 7 and 22: hostile data sets and saved agents, and a training that diverges.

A damaged or crafted ``agent.json``, weights file or data set is one line naming the file and
the field (exit status 2), and a crafted config is checked against the weights' header before
any network is built; a data set whose rewards are NaN, infinite or beyond float32 is refused
at load, and a training whose weights become NaN stops with exit status 1, saving nothing.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from rewardgym.agents.offline import BCSettings, CQLSettings, OfflineAgent, OfflineConfig
from rewardgym.agents.offline.agent import META_FILE, WEIGHTS_FILE, train_offline
from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.errors import DataValidationError, TrainingDiverged


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny data set and the BC and CQL agents trained on it for two steps."""
    root = tmp_path_factory.mktemp("hostile")
    data = collect_dataset(CollectConfig(episodes=4, seed=1))
    data.save(root / "ds", minari=False)
    for algorithm in (BCSettings(), CQLSettings()):
        config = OfflineConfig(algorithm=algorithm, n_steps=2, batch_size=8)
        train_offline(data, config, progress=False).save(root / algorithm.name)
    return {"root": root, "ds": root / "ds", "bc": root / "bc", "cql": root / "cql"}


def _copy(source: Path, into: Path) -> Path:
    out = into / "agent"
    shutil.copytree(source, out)
    return out


def _edit_meta(agent: Path, change: Callable[[dict[str, Any]], None]) -> None:
    meta = json.loads((agent / META_FILE).read_text())
    change(meta)
    (agent / META_FILE).write_text(json.dumps(meta))


def _d3rlpy_params(meta: dict[str, Any]) -> dict[str, Any]:
    return meta["d3rlpy"]["config"]["config"]["params"]


def _layers(width: int) -> Callable[[dict[str, Any]], None]:
    def change(meta: dict[str, Any]) -> None:
        meta["config"]["hidden_units"] = [width, width]
        _d3rlpy_params(meta)["encoder_factory"]["params"]["hidden_units"] = [width, width]

    return change


# (row id, how the saved BC agent is damaged, words of the one line)
DAMAGES: list[tuple[str, Callable[[Path], None], tuple[str, ...]]] = [
    (
        "truncated",
        lambda a: (a / META_FILE).write_text('{"config": {"algo'),
        ("not readable JSON",),
    ),
    ("empty", lambda a: (a / META_FILE).write_text(""), ("not readable JSON",)),
    ("not-utf8", lambda a: (a / META_FILE).write_bytes(b'{"config": "\xff\xfe"}'), ("JSON",)),
    ("a-list", lambda a: (a / META_FILE).write_text("[1, 2]"), ("not an agent's metadata",)),
    ("config-a-number", lambda a: _edit_meta(a, lambda m: m.update(config=5)), ("'config'",)),
    (
        "config-wrong-type",
        lambda a: _edit_meta(a, lambda m: m["config"].update(n_steps="many")),
        ("'config'", "n_steps"),
    ),
    (
        "config-unknown-field",
        lambda a: _edit_meta(a, lambda m: m["config"].update(bogus=1)),
        ("'config'", "bogus"),
    ),
    (
        "env-not-ours",
        lambda a: _edit_meta(a, lambda m: m.update(env_id="evil_mod:Env")),
        ("evil_mod:Env",),
    ),
    (
        "d3rlpy-config-garbage",
        lambda a: _edit_meta(a, lambda m: m.update(d3rlpy={"config": 3})),
        ("'d3rlpy.config'",),
    ),
    (
        "cql-config-with-bc-weights",  # item 22: the wrong algorithm would be reported
        lambda a: _edit_meta(a, lambda m: m["config"].update(algorithm={"name": "cql"})),
        ("DiscreteBCConfig", "DiscreteCQL"),
    ),
    (
        "config-hidden-units-disagree",
        lambda a: _edit_meta(a, lambda m: m["config"].update(hidden_units=[64])),
        ("encoder_factory",),
    ),
    ("huge-layers", lambda a: _edit_meta(a, _layers(200_000)), ("hidden_units", "200000")),
    (
        "wide-layers-small-weights",  # 14 GB of networks, refused from the weights' header
        lambda a: _edit_meta(a, _layers(60_000)),
        ("model.safetensors", "not [60000]", "hidden units [60000, 60000]"),
    ),
    (
        "wrong-action-count",
        lambda a: _edit_meta(a, lambda m: m["d3rlpy"]["config"].update(action_size=3)),
        ("action count",),
    ),
    ("weights-empty", lambda a: (a / WEIGHTS_FILE).write_bytes(b""), ("model.safetensors",)),
    (
        "weights-bad-header",
        lambda a: (a / WEIGHTS_FILE).write_bytes(b"\xff" * 8 + b"{}"),
        ("model.safetensors", "not a readable safetensors"),
    ),
    (
        "weights-missing-tensor",
        lambda a: _drop_tensor(a / WEIGHTS_FILE, "imitator._fc.bias"),
        ("imitator._fc.bias", "missing"),
    ),
]


def _drop_tensor(path: Path, name: str) -> None:
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(path))
    del tensors[name]
    save_file(tensors, str(path))


@pytest.fixture
def no_real_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a network is built in memory (only torch's meta device is allowed)."""
    from d3rlpy.base import LearnableConfigWithShape

    create = LearnableConfigWithShape.create

    def guarded(self: Any, device: Any = False) -> Any:
        assert device == "meta", "a network was built before the weights were checked"
        return create(self, device=device)

    monkeypatch.setattr(LearnableConfigWithShape, "create", guarded)


@pytest.mark.parametrize(("damage", "words"), [d[1:] for d in DAMAGES], ids=[d[0] for d in DAMAGES])
@pytest.mark.usefixtures("no_real_build")
def test_a_damaged_agent_is_one_line_naming_its_file(
    damage: Callable[[Path], None], words: tuple[str, ...], saved: dict[str, Path], tmp_path: Path
) -> None:
    agent = _copy(saved["bc"], tmp_path)
    damage(agent)
    with pytest.raises(DataValidationError) as caught:
        OfflineAgent.load(agent)
    line = str(caught.value)
    assert "\n" not in line and str(agent) in line, line
    for word in words:
        assert word in line, f"{word!r} missing from: {line}"


def test_eval_of_a_damaged_agent_exits_2_in_one_line(
    saved: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = _copy(saved["bc"], tmp_path)
    (agent / META_FILE).write_text('{"config": ')
    with pytest.raises(SystemExit) as stop:
        main(["eval", "household", "--agent", str(agent), "--out", str(tmp_path / "eval")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "agent.json" in err
    assert not (tmp_path / "eval").exists()


def test_a_sound_agent_still_loads_and_acts_the_same(saved: dict[str, Path]) -> None:
    agent = OfflineAgent.load(saved["cql"])
    again = OfflineAgent.load(saved["cql"])
    data = TrajectoryDataset.from_dir(saved["ds"])
    obs = {k: v[:3] for k, v in data[0].observations.items()}
    rows = [{k: v[i] for k, v in obs.items()} for i in range(3)]
    names = [data[0].instruction] * 3
    assert agent.name == "DiscreteCQL"
    assert np.array_equal(agent.act_batch(rows, names), again.act_batch(rows, names))


def _with_steps(source: Path, into: Path, change: Callable[[pa.Table], pa.Table]) -> Path:
    out = into / "ds"
    shutil.copytree(source, out)
    with pa.memory_map(str(out / "steps.arrow"), "r") as f:
        table = pa.ipc.open_file(f).read_all()
    table = change(table)
    with (
        pa.OSFile(str(out / "steps.arrow"), "wb") as sink,
        pa.ipc.new_file(sink, table.schema) as writer,
    ):
        writer.write_table(table)
    return out


def _reward(value: float) -> Callable[[pa.Table], pa.Table]:
    def change(table: pa.Table) -> pa.Table:
        rewards = table.column("reward").to_numpy().astype(np.float64)
        rewards[5] = value
        i = table.column_names.index("reward")
        return table.set_column(i, "reward", pa.array(rewards))

    return change


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e308], ids=["nan", "inf", "1e308"])
def test_a_reward_that_is_not_finite_is_refused_at_load(
    value: float, saved: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _with_steps(saved["ds"], tmp_path, _reward(value))
    with pytest.raises(DataValidationError, match=r"steps\.arrow:row 5 field 'reward'"):
        TrajectoryDataset.from_dir(data)
    out = tmp_path / "agent"
    with pytest.raises(SystemExit) as stop:
        main(["train", "offline", "--dataset", str(data), "--out", str(out), "--n-steps", "2"])
    assert stop.value.code == 2 and "field 'reward'" in capsys.readouterr().err
    assert not out.exists()


def test_a_missing_or_mistyped_column_names_the_file(
    saved: dict[str, Path], tmp_path: Path
) -> None:
    gone = _with_steps(saved["ds"], tmp_path / "a", lambda t: t.drop_columns(["reward"]))
    with pytest.raises(DataValidationError, match=r"steps\.arrow: the column\(s\) reward"):
        TrajectoryDataset.from_dir(gone)

    def as_text(table: pa.Table) -> pa.Table:
        i = table.column_names.index("action")
        return table.set_column(i, "action", pa.array(["x"] * table.num_rows, pa.string()))

    mistyped = _with_steps(saved["ds"], tmp_path / "b", as_text)
    with pytest.raises(DataValidationError, match=r"steps\.arrow field 'action'"):
        TrajectoryDataset.from_dir(mistyped)


def test_a_diverging_training_exits_1_and_saves_nothing(
    saved: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "agent"
    argv = ["train", "offline", "--dataset", str(saved["ds"]), "--out", str(out)]
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--n-steps", "3", "--batch-size", "8", "--learning-rate", "1e300"])
    err = capsys.readouterr().err
    assert stop.value.code != 0 and stop.value.code != 2, err  # a failed run: status 1
    assert "diverged" in str(stop.value.code) and "nothing was saved" in str(stop.value.code)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_an_agent_with_nan_weights_is_never_saved(saved: dict[str, Path], tmp_path: Path) -> None:
    import torch

    agent = OfflineAgent.load(saved["bc"])
    with torch.no_grad():
        next(agent.algo.impl.modules.imitator.parameters()).fill_(float("nan"))
    with pytest.raises(TrainingDiverged, match="NaN or infinite"):
        agent.save(tmp_path / "agent")
    assert list(tmp_path.iterdir()) == []


def test_a_dense_weight_that_overflows_the_reward_is_refused(saved: dict[str, Path]) -> None:
    from rewardgym.agents.offline.training_reward import training_rewards
    from rewardgym.errors import UserError
    from rewardgym.wrappers.composition import RewardComposition, with_dense_labels

    data = TrajectoryDataset.from_dir(saved["ds"])
    dense = [np.full(len(ep), 10.0) for ep in data]
    labelled = with_dense_labels(data, dense, source="test", composition=RewardComposition(0.5))
    with pytest.raises(UserError, match=r"dense_weight=1e\+308.*not finite"):
        training_rewards(labelled, OfflineConfig(reward="composed", dense_weight=1e308))
