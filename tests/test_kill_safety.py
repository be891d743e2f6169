"""SIGKILL ``data collect``, ``label coren`` and ``data shop`` at random instants: never half an output.

Issue 12, item 9 and the atomic-write property. Each command runs once to completion (the
reference and its duration ``D``), then is started again and killed with SIGKILL: twice at a
random instant of ``[0.2 D, 1.1 D]``, twice at a random instant after its temporary output
appeared (inside the write). After each kill the output is either absent or complete and
loads; when absent, the same command without ``--overwrite`` succeeds, gives the reference's
result, and leaves no temporary behind. Sizes are tiny, so the whole file takes well under a
minute or two; every wait is bounded.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import rewardgym
from rewardgym.atomic import OLD_PREFIX, TMP_PREFIX
from rewardgym.envs.shopping.session_log import SessionLog
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.minari_io import load_minari

ROOT = Path(rewardgym.__file__).resolve().parent.parent
KILLS_AT_RANDOM = 2
KILLS_IN_WRITE = 2


def _start(args: list[str], cwd: Path, home: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "REWARDGYM_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "rewardgym.cli", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _run(args: list[str], cwd: Path, home: Path) -> float:
    start = time.monotonic()
    proc = _start(args, cwd, home)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()[-2000:]
    return time.monotonic() - start


def _temps(parent: Path) -> list[str]:
    """Hidden entries beside the outputs: temporaries of a write (ours or an older version's)."""
    return [p.name for p in parent.iterdir() if p.name.startswith(".")]


def _ours(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith((TMP_PREFIX, OLD_PREFIX))]


def _kill_at(proc: subprocess.Popen[bytes], delay: float, out: Path, in_write: bool) -> None:
    """SIGKILL ``proc`` ``delay`` s after its start, or after its temporary output appeared."""
    deadline = time.monotonic() + 60.0
    if in_write:
        while not _ours(out.parent) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


def _exercise(
    name: str,
    args: Callable[[str], list[str]],
    check: Callable[[Path], object],
    tmp_path: Path,
    seed: int,
) -> list[str]:
    """The reference run, then the kills; returns what each kill left (for the failure text)."""
    work, home = tmp_path / name, tmp_path / "home"
    work.mkdir()
    duration = _run(args("reference"), work, home)
    expected = check(work / "reference")
    rng = random.Random(seed)
    seen = []
    for i in range(KILLS_AT_RANDOM + KILLS_IN_WRITE):
        out = work / f"killed{i}"
        in_write = i >= KILLS_AT_RANDOM
        delay = rng.uniform(0.0, 0.5 * duration) if in_write else rng.uniform(0.2, 1.1) * duration
        _kill_at(_start(args(out.name), work, home), delay, out, in_write)
        if out.exists():
            assert check(out) == expected, f"{name}: kill {i} left an output that differs"
            seen.append(f"complete after {delay:.2f} s")
            continue
        seen.append(f"absent after {delay:.2f} s{' (in the write)' if in_write else ''}")
        _run(args(out.name), work, home)  # no --overwrite: the killed run left nothing to refuse
        assert check(out) == expected, f"{name}: the rerun after kill {i} differs"
        assert _temps(work) == [], f"{name}: leftovers after the rerun: {_temps(work)}"
    print(f"{name}: reference {duration:.2f} s; kills: {'; '.join(seen)}")  # shown with -s
    return seen


def test_killed_data_collect_leaves_nothing_or_everything(tmp_path: Path) -> None:
    def check(out: Path) -> tuple[int, int, float]:
        data = TrajectoryDataset.from_dir(out)
        assert load_minari(out).total_episodes == len(data) == 300
        return len(data), data.n_steps, round(float(sum(ep.rewards.sum() for ep in data)), 3)

    seen = _exercise(
        "collect",
        lambda out: ["data", "collect", "--out", out, "--episodes", "300"],
        check,
        tmp_path,
        seed=1,
    )
    assert len(seen) == KILLS_AT_RANDOM + KILLS_IN_WRITE


def test_killed_label_coren_leaves_nothing_or_everything(tmp_path: Path) -> None:
    episodes = 40
    source = tmp_path / "source"
    collect_dataset(CollectConfig(episodes=episodes, seed=3)).save(source, minari=False)

    def check(out: Path) -> bytes:
        data = TrajectoryDataset.from_dir(out)
        assert data.info["dense_reward_source"] == "coren:CST"
        assert (out / "coren" / "report.json").is_file()
        assert load_minari(out).total_episodes == len(data) == episodes
        return np.concatenate([ep.dense_rewards for ep in data]).tobytes()

    args = ["label", "coren", "--dataset", str(source), "--judge", "embedding:hashing"]
    # Two prompts and no judge-quality probe: the kills test the write, not the ensemble.
    args += ["--n-prompts", "2", "--probe-states", "0"]
    seen = _exercise(
        "label",
        lambda out: [*args, "--out", out, "--epochs", "20"],
        check,
        tmp_path,
        seed=2,
    )
    assert len(seen) == KILLS_AT_RANDOM + KILLS_IN_WRITE


@pytest.mark.parametrize("sessions", [400])
def test_killed_data_shop_leaves_nothing_or_everything(tmp_path: Path, sessions: int) -> None:
    def check(out: Path) -> tuple[int, int]:
        store = SessionLog(out)
        assert len(store) == sessions
        return len(store), store.num_steps

    seen = _exercise(
        "shop",
        lambda out: ["data", "shop", "--out", out, "--sessions", str(sessions)],
        check,
        tmp_path,
        seed=3,
    )
    assert len(seen) == KILLS_AT_RANDOM + KILLS_IN_WRITE
