"""Tables, plots and diagnostics of the embodied suite (``rewardgym bench embodied``).

Besides rendering, this module gathers the evidence behind the suite's honest question, does
COREN's dense reward beat the sparse one with the same algorithm: per-scheme reward statistics
on expert, perturbed and impossible steps, and whether failed trajectories out-earn successful
ones (a dense reward that pays per step can make a long failure worth more than a quick
success).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.benchmarks.tables import markdown_table

if TYPE_CHECKING:
    from rewardgym.benchmarks.embodied_config import EmbodiedBenchConfig


def reward_diagnostics(dirs: dict[str, Path]) -> dict[str, dict[str, float]]:
    """Per scheme: mean reward of expert, perturbed and impossible steps, and return by outcome."""
    from rewardgym.envs.trajectories import TrajectoryDataset

    out: dict[str, dict[str, float]] = {}
    cache: dict[Path, dict[str, float]] = {}
    for scheme, path in dirs.items():
        if path not in cache:
            data = TrajectoryDataset.from_dir(path)
            rewards = np.concatenate([ep.rewards for ep in data])
            expert = np.concatenate([ep.expert for ep in data])
            executable = np.concatenate([ep.executable for ep in data])
            returns = np.array([float(ep.rewards.sum()) for ep in data])
            success = np.array([ep.success for ep in data])
            best_success = returns[success].mean() if success.any() else float("nan")
            cache[path] = {
                "expert_step": float(rewards[expert].mean()),
                "perturbed_step": float(rewards[~expert & executable].mean()),
                "impossible_step": float(rewards[~executable].mean()),
                "return_success": float(best_success),
                "return_failure": float(returns[~success].mean())
                if (~success).any()
                else float("nan"),
                "failures_out_earning_mean_success": float(
                    (returns[~success] > best_success).mean()
                )
                if (~success).any()
                else 0.0,
                "success_rate": float(success.mean()),
            }
        out[scheme] = cache[path]
    return out


def judge_baseline(config: EmbodiedBenchConfig) -> dict[str, Any]:
    """Latency, and SR on a held-out subset, of the judge picking every action (judge-as-policy)."""
    from rewardgym.agents.evaluation.household import (
        EvalConfig,
        evaluate_household,
        measure_latency,
    )
    from rewardgym.agents.judge_policy import JudgePolicy
    from rewardgym.agents.labelling.coren import resolve_judge

    policy = JudgePolicy(resolve_judge(config.judge), n_prompts=config.n_prompts)
    latency = measure_latency(policy, steps=config.latency_steps)
    out: dict[str, Any] = {
        "judge": config.judge,
        "latency": latency,
        "requests_per_action": len(policy.action_names) * len(policy.prompts),
    }
    if config.judge_policy_instructions > 0:
        evaluation = EvalConfig(
            instructions_per_task=config.judge_policy_instructions, layouts=("default",)
        )
        out["metrics"] = evaluate_household(policy, evaluation)
    return out


def sparse_vs_coren(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per algorithm: held-out SR of the sparse and the COREN reward, averaged over settings."""
    out: dict[str, dict[str, float]] = {}
    for algorithm in dict.fromkeys(r["algorithm"] for r in rows):
        by_scheme = {r["scheme"]: r for r in rows if r["algorithm"] == algorithm}
        if "sparse" not in by_scheme or "coren" not in by_scheme:
            continue
        entry = {}
        for scheme in ("sparse", "coren"):
            row = by_scheme[scheme]
            srs = [v for k, v in row.items() if k.endswith("/sr")]
            entry[f"{scheme}_sr"] = float(np.mean(srs))
        entry["coren_minus_sparse"] = entry["coren_sr"] - entry["sparse_sr"]
        out[algorithm] = entry
    return out


def _metric_columns(layout: str) -> tuple[list[str], list[str]]:
    columns, headers = [], []
    for kind, short in (("fine-grained", "fine"), ("abstract", "abstr")):
        for metric in ("sr", "cgc", "plan"):
            columns.append(f"{kind}/{layout}/{metric}")
            headers.append(f"{short} {metric.upper() if metric == 'sr' else metric.title()}")
    return columns, headers


def render_markdown(rows: Sequence[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The suite's Markdown report: main and cross-domain tables, labelling, latency, timings."""
    config = meta["config"]
    parts = [
        f"## Embodied suite ({config['name']}): Household, {config['episodes']} trajectories, "
        f"seeds {config['seeds']}, {config['n_steps']} steps, judge {config['judge']}",
        "",
        "SR / CGC / Plan in percent on held-out instructions, mean over seeds "
        "(COREN Tables 1 and 3 in shape). `shared` names the row whose agents were reused "
        "(identical rewards; DiscreteBC ignores rewards).",
    ]
    for layout, title in (
        ("default", "Default layout"),
        ("shifted", "Shifted layout (cross-domain, Table 5)"),
    ):
        columns, headers = _metric_columns(layout)
        if not rows or f"fine-grained/{layout}/sr" not in rows[0]:
            continue
        parts += ["", f"### {title}", ""]
        parts.append(
            markdown_table(
                rows,
                ["algorithm", "scheme", *columns, "shared_with"],
                headers=["algorithm", "reward", *headers, "shared"],
                digits=1,
            )
        )
    comparison = meta.get("sparse_vs_coren", {})
    if comparison:
        parts += ["", "### COREN vs sparse reward (SR, mean over the four held-out settings)", ""]
        table = [{"algorithm": k, **v} for k, v in comparison.items()]
        parts.append(
            markdown_table(
                table,
                ["algorithm", "sparse_sr", "coren_sr", "coren_minus_sparse"],
                headers=["algorithm", "sparse SR", "COREN SR", "COREN - sparse"],
                digits=1,
            )
        )
    reports = meta.get("label_reports", {})
    if reports:
        parts += [
            "",
            "### Labelling: held-out correlation of the normalised return with success",
            "",
        ]
        table = [
            {
                "ablation": k,
                "corr": v["heldout_correlation"],
                "calls": v["judge_calls"],
                "hits": v["cache_hits"],
            }
            for k, v in reports.items()
        ]
        parts.append(markdown_table(table, ["ablation", "corr", "calls", "hits"], digits=3))
    diagnostics = meta.get("reward_diagnostics", {})
    if diagnostics:
        parts += ["", "### Reward diagnostics on the training data", ""]
        table = [{"scheme": k, **v} for k, v in diagnostics.items()]
        parts.append(
            markdown_table(
                table,
                [
                    "scheme",
                    "expert_step",
                    "perturbed_step",
                    "impossible_step",
                    "return_success",
                    "return_failure",
                    "failures_out_earning_mean_success",
                ],
                headers=[
                    "scheme",
                    "expert step",
                    "perturbed step",
                    "impossible step",
                    "return (success)",
                    "return (failure)",
                    "failures > mean success",
                ],
                digits=2,
            )
        )
    parts += ["", "### Per-action latency (one observation at a time)", ""]
    latency_rows = [
        {"policy": f"trained agent ({key})", **value}
        for key, value in meta.get("agent_latency", {}).items()
    ]
    judge = meta.get("judge_policy", {})
    if judge:
        latency_rows.append(
            {
                "policy": f"judge-as-policy ({judge['judge']}, {judge['requests_per_action']} ratings/action)",
                **judge["latency"],
            }
        )
    parts.append(
        markdown_table(latency_rows, ["policy", "median_ms", "p90_ms", "mean_ms"], digits=2)
    )
    if judge.get("metrics"):
        table = [{"setting": k, **v} for k, v in judge["metrics"].items()]
        parts += ["", "Judge-as-policy in the simulator:", ""]
        parts.append(markdown_table(table, ["setting", "sr", "cgc", "plan", "n"], digits=1))
    timings = meta.get("timings_seconds", {})
    parts += ["", "### Wall time (seconds)", ""]
    parts.append(markdown_table([timings], list(timings), digits=1))
    return "\n".join(parts)


def plot_results(rows: Sequence[dict[str, Any]], meta: dict[str, Any], out: Path) -> list[Path]:
    """Bar charts: held-out SR per scheme and algorithm (default layout), and latency (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    algorithms = list(dict.fromkeys(r["algorithm"] for r in rows))
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    width = 0.8 / max(len(algorithms), 1)
    for ax, kind in zip(axes, ("fine-grained", "abstract"), strict=True):
        for i, algorithm in enumerate(algorithms):
            values = [
                next(
                    (
                        r.get(f"{kind}/default/sr", 0.0)
                        for r in rows
                        if r["scheme"] == s and r["algorithm"] == algorithm
                    ),
                    0.0,
                )
                for s in schemes
            ]
            ax.bar(np.arange(len(schemes)) + i * width, values, width, label=algorithm)
        ax.set_xticks(np.arange(len(schemes)) + width * (len(algorithms) - 1) / 2)
        ax.set_xticklabels(schemes, rotation=45, ha="right")
        ax.set_title(f"held-out {kind}, default layout")
        ax.set_ylabel("SR (%)")
    axes[0].legend()
    fig.tight_layout()
    paths.append(out / "sr_by_scheme.png")
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    latency = {k.split(",")[0]: v["median_ms"] for k, v in meta.get("agent_latency", {}).items()}
    if meta.get("judge_policy"):
        latency["judge-as-policy"] = meta["judge_policy"]["latency"]["median_ms"]
    if latency:
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.bar(list(latency), list(latency.values()))
        ax.set_yscale("log")
        ax.set_ylabel("median ms per action")
        fig.tight_layout()
        paths.append(out / "latency.png")
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
    return paths


__all__ = [
    "judge_baseline",
    "plot_results",
    "render_markdown",
    "reward_diagnostics",
    "sparse_vs_coren",
]
