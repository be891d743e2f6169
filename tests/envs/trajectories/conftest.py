"""Shared fixtures: an isolated cache root, a small Household data set, a cheap embedder."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    home = tmp_path_factory.getbasetemp() / "rewardgym-home"
    monkeypatch.setenv("REWARDGYM_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def small_dataset() -> TrajectoryDataset:
    return collect_dataset(CollectConfig(episodes=60, seed=0))


def _hash_encode(texts: list[str]) -> np.ndarray:
    out = np.zeros((len(texts), 16), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in text.lower().split():
            out[row, hashlib.blake2b(word.encode(), digest_size=2).digest()[0] % 16] += 1.0
    return out + 1e-3


@pytest.fixture
def fake_embedder() -> CachedEmbedder:
    return CachedEmbedder(_hash_encode, name="hash-16", persist=False)
