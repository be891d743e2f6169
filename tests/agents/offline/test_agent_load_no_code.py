"""A saved agent's ``agent.json`` never chooses code: its env id must be one rewardgym registers.

Issue 24, item 2: ``OfflineAgent.load`` passed the file's ``env_id`` to ``gym.make``, which
imports the module of a ``module:Env`` id (here one that writes a canary file when imported).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from rewardgym.agents.offline import OfflineAgent, OfflineConfig, train_offline
from rewardgym.agents.offline.agent import META_FILE
from rewardgym.agents.offline.config import algorithm_settings
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, collect_dataset

EVIL = 'import pathlib\npathlib.Path(__file__).with_name("canary").write_text("imported")\n'


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = collect_dataset(CollectConfig(episodes=4, seed=4))
    config = OfflineConfig(
        algorithm=algorithm_settings("bc"), n_steps=3, batch_size=8, hidden_units=(8,)
    )
    with contextlib.redirect_stdout(io.StringIO()):
        agent = train_offline(data, config, embedder=hashing_embedder(), progress=False)
    return agent.save(tmp_path_factory.mktemp("agents") / "agent")


@pytest.mark.parametrize("env_id", ["evil_mod:Env", "evil_mod:Env-v0", "CartPole-v1"])
def test_an_agent_naming_foreign_code_is_refused_on_load(
    saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env_id: str
) -> None:
    (tmp_path / "evil_mod.py").write_text(EVIL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    meta = json.loads((saved / META_FILE).read_text())
    meta["env_id"] = env_id
    (saved / META_FILE).write_text(json.dumps(meta))
    try:
        with pytest.raises(ValueError, match=rf"{saved / META_FILE}: env id '{env_id}' is not"):
            OfflineAgent.load(saved, embedder=hashing_embedder())
    finally:
        meta["env_id"] = "rewardgym/Household-v1"
        (saved / META_FILE).write_text(json.dumps(meta))
    assert not (tmp_path / "canary").exists(), "evil_mod was imported"
    assert OfflineAgent.load(saved, embedder=hashing_embedder()).env_id == "rewardgym/Household-v1"
