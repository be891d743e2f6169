"""A GRPO run killed (SIGKILL) right after a checkpoint resumes from it with the same data order."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

from rewardgym.agents.llm.dataset import to_dataset
from rewardgym.agents.llm.grpo import (
    ORDER_LOG,
    GRPOOptions,
    ReplayEnv,
    last_checkpoint,
    train_grpo,
)
from rewardgym.agents.llm.prompt import env_kwargs
from rewardgym.wrappers import BinaryMatchReward

KILLED_RUN = textwrap.dedent(
    """
    import os, signal, sys
    from dataclasses import replace
    from datasets import load_from_disk
    from transformers import TrainerCallback
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.agents.llm.grpo import GRPOOptions, ReplayEnv, train_grpo
    from rewardgym.agents.llm.prompt import env_kwargs
    from rewardgym.wrappers import BinaryMatchReward

    class KillAfterCheckpoint(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            if state.global_step == 2:
                os.kill(os.getpid(), signal.SIGKILL)

    model, rows, out, store = sys.argv[1:5]
    tiny = preset("tiny")
    config = replace(tiny.grpo, steps=4, save_steps=2, num_generations=2, learning_rate=1e-3)
    env = ReplayEnv(load_from_disk(rows), store, env_kwargs(tiny.prompt))
    options = GRPOOptions(progress=False, callbacks=[KillAfterCheckpoint()])
    train_grpo(model, env, out, BinaryMatchReward, config, options)
    """
)


def _order(path: Path) -> dict[int, list]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return {line["step"]: line["rows"] for line in lines}


def test_killed_run_resumes_with_the_same_data_order(
    tiny_model: Path, shop_store: Path, tiny_rows, tiny_config, tmp_path: Path
) -> None:
    dataset = to_dataset(tiny_rows)
    dataset.save_to_disk(str(tmp_path / "rows"))
    killed = tmp_path / "killed"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRL_EXPERIMENTAL_SILENCE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_RUN]
        + [str(p) for p in (tiny_model, tmp_path / "rows", killed, shop_store)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    checkpoint = last_checkpoint(killed)
    assert checkpoint is not None and checkpoint.name == "checkpoint-2"
    assert not (killed / "model").exists()

    config = replace(tiny_config.grpo, steps=4, save_steps=2, num_generations=2, learning_rate=1e-3)
    replay = ReplayEnv(dataset, shop_store, env_kwargs(tiny_config.prompt))
    quiet = GRPOOptions(progress=False)
    resumed = train_grpo(tiny_model, replay, killed, BinaryMatchReward, config, quiet)
    straight = train_grpo(
        tiny_model, replay, tmp_path / "straight", BinaryMatchReward, config, quiet
    )
    assert resumed.steps == straight.steps == 4
    # The killed process logged steps 0-1, the resumed one only 2-3, fed the straight run's rows.
    logged = [json.loads(line)["step"] for line in (killed / ORDER_LOG).read_text().splitlines()]
    assert logged == [0, 1, 2, 3]
    assert _order(killed / ORDER_LOG) == _order(tmp_path / "straight" / ORDER_LOG)


def test_resume_skips_a_checkpoint_cut_off_and_stops_before_the_last_step(tmp_path: Path) -> None:
    """Issue 39, items 3 and 4: a partial checkpoint is skipped, none at or past the last step."""
    root = tmp_path / "trainer"
    for step in (1, 2, 3):
        (root / f"checkpoint-{step}").mkdir(parents=True)
        (root / f"checkpoint-{step}" / "trainer_state.json").write_text(
            json.dumps({"global_step": step})
        )
    (root / "checkpoint-4").mkdir()  # killed before its trainer_state.json
    (root / "checkpoint-5").mkdir()
    (root / "checkpoint-5" / "trainer_state.json").write_text('{"global_st')  # cut mid-write
    (root / "checkpoint-6").write_text("a file, not a checkpoint")
    assert last_checkpoint(tmp_path) == root / "checkpoint-3"
    assert last_checkpoint(tmp_path, before=3) == root / "checkpoint-2"
    assert last_checkpoint(tmp_path, before=1) is None
    assert last_checkpoint(tmp_path / "elsewhere") is None
