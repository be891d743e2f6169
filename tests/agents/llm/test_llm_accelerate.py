"""GRPO through ``accelerate launch`` with 2 CPU processes (gloo): each steps its own env stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rewardgym.agents.llm.dataset import to_dataset

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from dataclasses import replace
    import torch.distributed as dist
    from datasets import load_from_disk
    from rewardgym.agents.llm.grpo import GRPOOptions, ReplayEnv, train_grpo
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.wrappers import BinaryMatchReward

    model, rows, out, store = sys.argv[1:5]
    tiny = preset("tiny")
    config = replace(tiny.grpo, steps=2, save_steps=100, num_generations=2, prompts_per_step=2)
    env = ReplayEnv(load_from_disk(rows), store, {"context": "latest"})
    result = train_grpo(model, env, out, BinaryMatchReward, config,
                        GRPOOptions(progress=False, resume=False))
    rank = dist.get_rank() if dist.is_initialized() else -1
    report = {"rank": rank, "world": dist.get_world_size() if dist.is_initialized() else 1,
              "backend": dist.get_backend() if dist.is_initialized() else None,
              "pid": os.getpid(), "steps": result.steps}
    with open(os.path.join(out, f"rank{rank}.json"), "w") as handle:
        json.dump(report, handle)
    """
)


@pytest.mark.slow
def test_grpo_runs_under_accelerate_launch_with_two_cpu_processes(
    tiny_model: Path, shop_store: Path, tiny_rows, tmp_path: Path
) -> None:
    to_dataset(tiny_rows).save_to_disk(str(tmp_path / "rows"))
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRL_EXPERIMENTAL_SILENCE": "1",
        "OMP_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    command = [
        sys.executable, "-m", "accelerate.commands.launch",
        "--num_processes", "2", "--num_machines", "1", "--multi_gpu",
        "--mixed_precision", "no", "--dynamo_backend", "no",
        str(script), str(tiny_model), str(tmp_path / "rows"), str(out), str(shop_store),
    ]  # fmt: skip
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    reports = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert {r["world"] for r in reports} == {2} and {r["backend"] for r in reports} == {"gloo"}
    assert reports[0]["pid"] != reports[1]["pid"] and all(r["steps"] == 2 for r in reports)
    # Each process scored its own completions through its own env and wrapper stack.
    lines = [json.loads(line) for line in (out / "data_order.jsonl").read_text().splitlines()]
    assert len(lines) == 4
    by_step: dict[int, list] = {}
    for line in lines:
        by_step.setdefault(line["step"], []).append(line["rows"])
    assert all(len(parts) == 2 for parts in by_step.values())
