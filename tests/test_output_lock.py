"""One writer per output (issue 34, item 3): a claimed ``--out`` is locked while its run works.

A second process that claims the same folder (a suite's working directory, or the temporary
directory of an atomic output) is refused with :class:`OutputBusyError`, ``--overwrite`` or
not; once the first process is killed (SIGKILL: no clean-up of its own) the kernel has dropped
its lock and the next claim succeeds. In one process a claim is re-entrant, and
:func:`releases_outputs` lets go when the command's function returns.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from rewardgym.errors import OutputBusyError
from rewardgym.outputs import (
    OWNER_FILE,
    atomic_output,
    claim_output,
    prepare_output,
    release_output,
    releases_outputs,
)

HOLDER = """
import sys, time
from pathlib import Path
from rewardgym.outputs import atomic_output, claim_output
mode, outs = sys.argv[1], [Path(p) for p in sys.argv[2:]]
if mode == "claim":
    for out in outs:
        claim_output(out, "bench-shop", overwrite=False)
    print("held", flush=True)
    time.sleep(600)
with atomic_output(outs[0], "simulate-ab") as tmp:
    (tmp / "part.txt").write_text("half")
    print("held", flush=True)
    time.sleep(600)
"""
"""A second process: claims each folder (or enters one atomic output) and waits to be killed."""


@contextmanager
def held_elsewhere(mode: str, *outs: Path) -> Iterator[subprocess.Popen[str]]:
    """A subprocess holding ``outs`` (``mode`` claim or atomic) until the block ends or it is killed."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, mode, *map(str, outs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        line = holder.stdout.readline()
        assert line.strip() == "held", holder.stderr.read() if holder.stderr else line
        yield holder
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=30)


def _kill(holder: subprocess.Popen[str]) -> None:
    os.kill(holder.pid, signal.SIGKILL)
    assert holder.wait(timeout=30) == -signal.SIGKILL


@pytest.mark.parametrize("mode", ["claim", "atomic"])
def test_a_second_run_is_refused_until_the_first_is_killed(mode: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with held_elsewhere(mode, out) as holder:
        for attempt in (
            lambda: claim_output(out, "bench-shop", overwrite=False),
            lambda: claim_output(out, "bench-shop", overwrite=True),
            lambda: prepare_output(out, "simulate-ab", overwrite=True),
        ):
            with pytest.raises(OutputBusyError, match="another rewardgym run that is still going"):
                attempt()
        with pytest.raises(OutputBusyError), atomic_output(out, "simulate-ab", overwrite=True):
            pass
        _kill(holder)
        # The killed run left a folder holding only the marker (claim) or nothing but its
        # temporary sibling (atomic): either way the next run takes the output.
        assert claim_output(out, "bench-shop", overwrite=False) == out
        release_output(out)
    assert os.listdir(out) == [OWNER_FILE]


def test_a_claim_is_reentrant_in_one_process_and_released_when_the_command_returns(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"

    @releases_outputs
    def command() -> None:
        claim_output(out, "bench-shop", overwrite=False)
        claim_output(out, "bench-shop", overwrite=False)  # the same run claims it again

    command()
    # The lock went with the command: another run takes the output, and this one is refused.
    with held_elsewhere("claim", out), pytest.raises(OutputBusyError):
        claim_output(out, "bench-shop", overwrite=False)


PROBE = """
import sys
from rewardgym.errors import OutputBusyError
from rewardgym.outputs import prepare_output
try:
    prepare_output(sys.argv[1], sys.argv[2], overwrite=True)
except OutputBusyError:
    sys.exit(3)
"""
"""A second process asking for an output as a second run would: exit 3 when it is busy."""


def _busy_elsewhere(out: Path, kind: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), kind], capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 3), done.stderr[-2000:]
    return done.returncode == 3


def test_train_offline_and_eval_household_hold_their_out_while_they_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39 item 6: a second run on the same --out is refused at once, not after its work."""
    from rewardgym.agents.evaluation import household
    from rewardgym.agents.evaluation.commands import OUTPUT_KIND
    from rewardgym.agents.offline import agent as offline
    from rewardgym.cli import main
    from rewardgym.envs.trajectories import CollectConfig, collect_dataset

    collect_dataset(CollectConfig(episodes=2, seed=1)).save(tmp_path / "ds", minari=False)
    agent, evaluation = tmp_path / "agent", tmp_path / "eval"
    seen: list[bool] = []
    train, evaluate = offline.train_offline, household.evaluate_household

    def training(*args: object, **kwargs: object) -> object:
        seen.append(_busy_elsewhere(agent, offline.AGENT_KIND))
        return train(*args, **kwargs)  # type: ignore[arg-type]

    def evaluating(*args: object, **kwargs: object) -> object:
        seen.append(_busy_elsewhere(evaluation, OUTPUT_KIND))
        return evaluate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(offline, "train_offline", training)
    monkeypatch.setattr(household, "evaluate_household", evaluating)
    train_argv = ["--n-steps", "2", "--batch-size", "8", "algorithm:bc"]
    main(["train", "offline", "--dataset", str(tmp_path / "ds"), "--out", str(agent), *train_argv])
    main(
        [
            "eval", "household", "--agent", str(agent), "--out", str(evaluation),
            "--splits", "fine", "--tasks", "0", "--instructions-per-task", "1", "--samples", "10",
        ]
    )  # fmt: skip
    assert seen == [True, True]
    assert (agent / "agent.json").is_file() and (evaluation / "eval.json").is_file()
    # Both let go when they returned: the next run takes the output.
    assert not _busy_elsewhere(agent, offline.AGENT_KIND)
