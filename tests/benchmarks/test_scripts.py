"""Every script in ``benchmarks/`` runs from its command line at a tiny budget, and lists its config.

A script is a module with a ``__main__`` block, named by its module path under ``benchmarks/``
(``perf.coren_label`` is ``python -m rewardgym.benchmarks.perf.coren_label``); each one must have
an entry below, so a new script without a smoke run fails this test. Every script's tyro
dataclass is called ``Config`` (the module namespaces it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

TINY: dict[str, tuple[list[str], str]] = {
    "perf.coren_label": (
        ["--episodes", "3", "--embedder", "hashing"],
        "ratio batched/one-at-a-time",
    ),
    "perf.embodied_envs": (
        [
            "--household-steps",
            "200",
            "--babyai-steps",
            "50",
            "--collect-episodes",
            "4",
            "--no-save",
        ],
        "Household / BabyAI-GoToLocal",
    ),
    "embodied.virtualhome_replay": (
        ["--programs", "2", "--split", "validation", "--random-steps", "2", "--no-word-pieces"],
        "2 of 2 programs succeed",
    ),
    "perf.iql_vs_cql": (["--batch", "8", "--steps", "3", "--rounds", "1"], "DiscreteIQL"),
    "embodied.variants": (
        [
            "--episodes",
            "8",
            "--train",
            "--n-steps",
            "4",
            "--instructions-per-task",
            "1",
        ],
        "| cql/perfect-judge |",
    ),
    "perf.shop_data": (
        ["--sessions", "30", "--env-steps", "40", "--lookups", "50"],
        "random access",
    ),
    "perf.shop_r1_reward": (["--pairs", "200", "--repeats", "1", "--profile-rows", "2"], "(c)"),
    "perf.sft_throughput": (
        ["--examples", "16", "--rounds", "1", "--sessions", "20"],
        "ratio new/old",
    ),
    "embodied.judge_quality": (
        ["--judges", "embedding:hashing", "--episodes", "2", "--states", "6"],
        "expert next +2",
    ),
    "fidelity.action_mix": (
        ["--sessions", "40", "--visits", "20", "--seeds", "1", "--n-boot", "20"],
        "largest action-type gap",
    ),
    "perf.grpo_reward": (
        ["--rounds", "1", "--steps", "2", "--size", "tiny"],
        "overhead vs trivial",
    ),
    "perf.vector_envs": (["--num-envs", "2", "--steps", "3"], "async/sync"),
    "perf.openenv_serve": (
        [
            "--rows",
            "shop-600k",
            "--obs-chars",
            "20000",
            "--rounds",
            "1",
            "--clients",
            "1",
            "2",
            "--episodes",
            "1",
            "--steps",
            "3",
        ],
        "| shop-600k | rewardgym/ShopSession-v0 + shop-r1 | 2 | 8 | ",
    ),
    "perf.constrained_decoding": (
        ["--size", "tiny", "--steps", "6", "--max-new-tokens", "16", "--no-xgrammar"],
        "constrained / free CPU per token",
    ),
    "perf.learned_visits": (
        ["--size", "tiny", "--visits", "3", "--max-steps", "4", "--temperature", "0"],
        "greedy outputs identical in both runs: yes",
    ),
}
"""Script name -> (tiny-budget arguments, a line fragment its output must hold)."""

COVERED: dict[str, tuple[list[str], str]] = {
    "embodied.stats": (["PAGE_FOLDER"], "tests/benchmarks/embodied/test_embodied_reprint.py"),
    "embodied.judge_sweep": (
        ["--accuracies", "--rho", "--schemes", "--runner", "--resume"],
        "tests/benchmarks/embodied/test_judge_sweep.py",
    ),
    "fidelity.suite": (["--preset", "tiny"], "tests/benchmarks/fidelity/test_bench_fidelity.py"),
    "perf.hf_judge": (["--states", "--n-prompts"], "tests/benchmarks/perf/test_perf_hf_judge.py"),
    "perf.embodied_agent_cost": (
        ["--steps", "--agents", "--episodes"],
        "tests/benchmarks/perf/test_perf_embodied_agent_cost.py",
    ),
    "perf.runner_overhead": (
        ["--suites", "--presets", "--workers", "--nodes"],
        "tests/benchmarks/perf/test_perf_runner_overhead.py",
    ),
    "perf.served_visits": (["--url", "--concurrency"], "tests/agents/llm/test_served_policy.py"),
    "record_results": (["--docs", "--overwrite"], "tests/benchmarks/test_record_results.py"),
    "shop.sensitivity_probe": (["--model"], "tests/benchmarks/shop/test_shop_breakdown.py"),
    "shop.stopping_probe": (["--model"], "tests/benchmarks/shop/test_shop_breakdown.py"),
    "repro": (["FIRST", "SECOND"], "tests/benchmarks/test_repro.py"),
    "shop.advantage_probe": (
        ["--prompts", "--group"],
        "tests/benchmarks/shop/test_shop_advantage_probe.py",
    ),
    "shop.sweep": (
        ["--candidates", "--extra", "--validation-sessions", "--runner", "--ray.address"],
        "tests/benchmarks/shop/test_shop_sweep.py",
    ),
    "shop.breakdown": (
        ["--sweep", "--candidates", "--temperature"],
        "tests/benchmarks/shop/test_shop_breakdown.py",
    ),
}
"""Scripts whose run needs a model or a store and is tested in their own module (by ``run``):
here only their ``--help`` is checked, for the flags listed."""


SUITE_COMMANDS = {"fidelity.suite": "BenchFidelity"}
"""Suites whose ``__main__`` runs their ``bench`` command class (the CLI's, kept by name)."""


def scripts() -> list[str]:
    """Modules of ``benchmarks/`` and its suites' packages that run as scripts, as dotted names."""
    return sorted(
        ".".join(path.relative_to(BENCHMARKS).with_suffix("").parts)
        for path in BENCHMARKS.rglob("*.py")
        if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8")
    )


def test_every_script_config_is_called_config() -> None:
    for name in scripts():
        path = (BENCHMARKS / Path(*name.split("."))).with_suffix(".py")
        source = path.read_text(encoding="utf-8")
        called = re.findall(
            r"(?:tyro\.cli\(|parse_args\(\s*(?:\"[^\"]*\"|[A-Z_]+),)\s*(\w+)", source
        )
        assert called == [SUITE_COMMANDS.get(name, "Config")], (
            f"{path}: tyro.cli({', '.join(called)}); name a script's tyro dataclass Config"
        )


def _run(name: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", f"rewardgym.benchmarks.{name}", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )


def test_every_script_has_a_smoke_run() -> None:
    assert set(scripts()) == set(TINY) | set(COVERED)
    for _, module in COVERED.values():
        assert (BENCHMARKS.parent / module).is_file(), module


@pytest.mark.parametrize("name", sorted({*TINY, *COVERED}))
def test_script_help_lists_its_config(name: str) -> None:
    result = _run(name, ["--help"])
    assert result.returncode == 0, result.stderr
    for flag in (TINY.get(name) or COVERED[name])[0]:
        if flag.startswith("--"):
            assert flag in result.stdout, f"{name} --help does not list {flag}"


@pytest.mark.parametrize("name", sorted(TINY))
def test_script_runs_at_a_tiny_budget(name: str) -> None:
    args, expected = TINY[name]
    result = _run(name, args)
    assert result.returncode == 0, result.stderr[-3000:]
    assert expected in result.stdout, result.stdout[-3000:]
