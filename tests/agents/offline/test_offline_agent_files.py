"""Saved agents load without unpickling; d3rlpy's pickle format needs an explicit ``trust=True``.

Issue 12, item 3: ``OfflineAgent.load`` went through ``d3rlpy.load_learnable``, which
unpickles, so a crafted file ran code on load.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from rewardgym.agents.offline import OfflineAgent, OfflineConfig, train_offline
from rewardgym.agents.offline.agent import LEGACY_MODEL_FILE, META_FILE, WEIGHTS_FILE
from rewardgym.agents.offline.config import algorithm_settings
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.outputs import OWNER_FILE


@pytest.fixture(scope="module")
def data() -> TrajectoryDataset:
    return collect_dataset(CollectConfig(episodes=6, seed=4))


def _train(data: TrajectoryDataset, algorithm: str) -> OfflineAgent:
    config = OfflineConfig(
        algorithm=algorithm_settings(algorithm), n_steps=5, batch_size=16, hidden_units=(8,)
    )
    with contextlib.redirect_stdout(io.StringIO()):
        return train_offline(data, config, embedder=hashing_embedder(), progress=False)


def _actions(agent: OfflineAgent, data: TrajectoryDataset) -> np.ndarray:
    episode = data[0]
    observations = [episode.observation(t) for t in range(len(episode) + 1)]
    return agent.act_batch(observations, [episode.instruction] * len(observations))


@pytest.mark.parametrize("algorithm", ["iql", "cql", "bc"])
def test_agents_round_trip_through_safetensors_and_json(
    data: TrajectoryDataset, tmp_path: Path, algorithm: str
) -> None:
    agent = _train(data, algorithm)
    out = agent.save(tmp_path / "agent")
    assert sorted(p.name for p in out.iterdir()) == sorted([OWNER_FILE, META_FILE, WEIGHTS_FILE])
    assert json.loads((out / META_FILE).read_text())["d3rlpy"]["config"]["config"]["type"]
    loaded = OfflineAgent.load(out, embedder=hashing_embedder())
    np.testing.assert_array_equal(_actions(loaded, data), _actions(agent, data))
    assert loaded.config == agent.config and loaded.name == agent.name
    with pytest.raises(FileExistsError, match="overwrite"):
        agent.save(out)
    agent.save(out, overwrite=True)


class _Payload:
    """What an attacker pickles: unpickling it runs ``exec`` on code of their choosing."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"open({str(self.marker)!r}, 'w').write('code ran')",))


def test_a_pickle_is_never_loaded_without_trust(data: TrajectoryDataset, tmp_path: Path) -> None:
    out = _train(data, "bc").save(tmp_path / "agent")
    (out / WEIGHTS_FILE).unlink()  # an agent in the old format: agent.json + model.d3
    marker = tmp_path / "pwned"
    (out / LEGACY_MODEL_FILE).write_bytes(pickle.dumps(_Payload(marker)))
    with pytest.raises(PermissionError, match="trust=True"):
        OfflineAgent.load(out, embedder=hashing_embedder())
    assert not marker.exists()


def test_a_trusted_d3rlpy_file_still_loads(data: TrajectoryDataset, tmp_path: Path) -> None:
    agent = _train(data, "bc")
    out = agent.save(tmp_path / "agent")
    (out / WEIGHTS_FILE).unlink()
    agent.algo.save(str(out / LEGACY_MODEL_FILE))
    loaded = OfflineAgent.load(out, embedder=hashing_embedder(), trust=True)
    np.testing.assert_array_equal(_actions(loaded, data), _actions(agent, data))
    assert os.path.getsize(out / LEGACY_MODEL_FILE) > 0
