"""The calibrated-judge page: its tables (markdown) and its figure of each row minus sparse CQL against ACC."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

SPARSE = "cql/sparse"
"""The reference every row is paired with."""
PERFECT = "cql/perfect-judge"
"""COREN's ceiling: the simulator as a perfect judge."""
NOTE = (
    "SR in percent over seeds and held-out episodes; [95% interval] over training seeds, tasks "
    "and episodes, paired on the same episodes for the differences; *: the interval excludes 0. "
    "A calibrated judge answers as the env's goal check with probability ACC, else uniformly at "
    "random (ACC 0: chance); RHO: its errors' correlation across prompts."
)


def _cell(value: float, ci: Sequence[float]) -> str:
    star = "*" if ci[0] > 0 or ci[1] < 0 else ""
    return f"{value:+.1f} [{ci[0]:+.1f}, {ci[1]:+.1f}]{star}"


def smallest_paying_accuracy(rows: Sequence[Mapping[str, Any]], split: str) -> float | None:
    """The smallest ACC (uncorrelated judges) at which COREN - sparse CQL excludes 0 above it."""
    paying = [
        float(r["accuracy"])
        for r in rows
        if r["split"] == split
        and r["scheme"] == "coren"
        and r["rho"] == 0.0
        and r["minus_sparse_ci"][0] > 0
    ]
    return min(paying) if paying else None


def budgets(env: Mapping[str, Any]) -> str:
    """The training steps and learning rates of an env's rows, in words (one value if shared)."""
    training = env.get("training") or {}
    values = {
        name: (v["n_steps"], v["learning_rate"], v["target_update_interval"])
        for name, v in training.items()
    }
    if len(set(values.values())) <= 1:
        steps, rate, target = next(iter(values.values()), (env["n_steps"], None, None))
        text = f"{steps} training steps per agent"
        return text if rate is None else f"{text} at learning rate {rate:g} (target every {target})"
    parts = [
        f"{name}: {steps} steps at learning rate {rate:g} (target every {target})"
        for name, (steps, rate, target) in values.items()
        if " @ " not in name
    ]
    dense = {v for name, v in values.items() if " @ " in name}
    if len(dense) == 1:
        steps, rate, target = dense.pop()
        parts.append(f"every calibrated row: {steps} steps at learning rate {rate:g}")
    source = env.get("tuned_source")
    return "; ".join(parts) + (f" (chosen on validation: {source})" if source else "")


def render_env(name: str, env: Mapping[str, Any]) -> str:
    """One env's section: its settings, measured judge accuracies and a table per split."""
    lines = [
        f"## {env['env']} ({env['preset']})",
        "",
        f"{env['episodes']} training trajectories, {budgets(env)}, "
        f"seeds {env['seeds']}; {env['meta']['agents']} agents in "
        f"{env['meta']['seconds'] / 60:.1f} min.",
        "",
    ]
    for spec, measured in env["measured_accuracy"].items():
        lines.append(
            f"Judge `{spec}` measured: rates {100 * measured['agreement']:.1f}% of "
            f"{measured['steps']} logged steps as the goal check does, the agreement of a "
            f"calibrated judge at ACC {measured['accuracy']:.2f} (a judge that always gives "
            f"the commonest rating: {measured['constant_accuracy']:.2f})."
        )
    lines.append("")
    for split in env["splits"]:
        rows = [r for r in env["rows"] if r["split"] == split]
        lines += [
            f"### {split}",
            "",
            "| row | ACC | RHO | SR | - sparse CQL | - perfect judge |",
            "|---|---|---|---|---|---|",
        ]
        for r in rows:
            acc = "" if r["accuracy"] is None else f"{r['accuracy']:g}"
            rho = "" if r["rho"] is None else f"{r['rho']:g}"
            sr = f"{r['sr']:.1f} [{r['sr_ci'][0]:.1f}, {r['sr_ci'][1]:.1f}]"
            lines.append(
                f"| {r['row']} | {acc} | {rho} | {sr} | "
                f"{_cell(r['minus_sparse'], r['minus_sparse_ci'])} | "
                f"{_cell(r['minus_perfect_judge'], r['minus_perfect_judge_ci'])} |"
            )
        paying = smallest_paying_accuracy(rows, split)
        lines += [
            "",
            "Smallest ACC at which COREN - sparse CQL excludes 0: "
            + (f"{paying:g}." if paying is not None else "none of the accuracies run."),
            "",
        ]
    return "\n".join(lines)


def render_page(payload: Mapping[str, Any]) -> str:
    """The page's markdown."""
    config = payload["config"]
    command = (
        "python -m rewardgym.benchmarks.embodied.judge_sweep --preset "
        f"{config['preset']} --envs {' '.join(config['envs'])}"
    )
    parts = [
        "# Judges of known quality: COREN against the accuracy of its judge",
        "",
        f"`{command}`: {payload['seconds'] / 60:.1f} min in all. {NOTE}",
        "",
        "![each row minus sparse CQL against ACC](judges.png)",
        "",
    ]
    parts += [render_env(name, env) for name, env in payload["envs"].items()]
    return "\n".join(parts)


def plot_page(payload: Mapping[str, Any], path: Path) -> Path:
    """Each COREN row minus sparse CQL against ACC, one panel per env and split (PNG).

    Lines: the uncorrelated judges per scheme with 95% whiskers; hollow markers: the judge
    with correlated errors; dashed line and band: the perfect judge minus sparse; dotted
    vertical lines: the measured accuracy of each judge of ``accuracy_judges``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    envs = list(payload["envs"].values())
    cols = max(len(env["splits"]) for env in envs)
    fig, axes = plt.subplots(
        len(envs), cols, figsize=(max(6.5, 4.2 * cols), 3.8 * len(envs) + 0.6), squeeze=False
    )
    palette = plt.get_cmap("tab10")
    for i, env in enumerate(envs):
        schemes = list(dict.fromkeys(r["scheme"] for r in env["rows"] if r["judge"]))
        for j in range(cols):
            ax = axes[i][j]
            if j >= len(env["splits"]):
                ax.axis("off")
                continue
            split = env["splits"][j]
            rows = [r for r in env["rows"] if r["split"] == split]
            ax.axhline(0.0, color="black", linewidth=0.8)
            perfect = next(r for r in rows if r["row"] == PERFECT)
            ax.axhline(perfect["minus_sparse"], color="grey", linestyle="--", linewidth=1)
            ax.axhspan(*perfect["minus_sparse_ci"], color="grey", alpha=0.15)
            for k, scheme in enumerate(schemes):
                mine = [r for r in rows if r["scheme"] == scheme and r["judge"]]
                plain = sorted((r for r in mine if r["rho"] == 0.0), key=lambda r: r["accuracy"])
                shift = (k - (len(schemes) - 1) / 2) * 0.012
                x = np.array([r["accuracy"] for r in plain]) + shift
                y = np.array([r["minus_sparse"] for r in plain])
                err = np.array([[r["minus_sparse"] - r["minus_sparse_ci"][0] for r in plain],
                                [r["minus_sparse_ci"][1] - r["minus_sparse"] for r in plain]])  # fmt: skip
                colour = palette(k % 10)
                ax.errorbar(x, y, yerr=np.maximum(err, 0), marker="o", capsize=3,
                            color=colour, label=scheme)  # fmt: skip
                for r in (r for r in mine if r["rho"] > 0):
                    ax.errorbar(r["accuracy"] + shift, r["minus_sparse"], capsize=3,
                                yerr=[[max(r["minus_sparse"] - r["minus_sparse_ci"][0], 0)],
                                      [max(r["minus_sparse_ci"][1] - r["minus_sparse"], 0)]],
                                marker="s", mfc="white", color=colour,
                                label=f"{scheme}, RHO {r['rho']:g}")  # fmt: skip
            for spec, measured in env["measured_accuracy"].items():
                at = float(np.clip(measured["accuracy"], 0.0, 1.0))
                ax.axvline(at, color="tab:purple", linestyle=":", linewidth=1.2)
                ax.text(at, ax.get_ylim()[1], f" {spec}", rotation=90, va="top",
                        fontsize=8, color="tab:purple")  # fmt: skip
            ax.set_xlim(-0.05, 1.05)
            ax.set_title(f"{env['env']}: {split}", fontsize=10)
            ax.set_xlabel("judge accuracy ACC")
            ax.set_ylabel("SR minus sparse CQL (points)")
            ax.grid(alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(
        "each row minus sparse CQL, 95% paired intervals\n"
        "dashed and band: perfect judge; dotted: a judge's measured accuracy (within [0, 1])",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100, format="png")
    plt.close(fig)
    return path


def write_page(root: Path, payload: dict[str, Any]) -> str:
    """results.json, results.md and judges.png under ``root``, atomically; returns the markdown."""
    from rewardgym.atomic import atomic_path, write_atomic, write_json_atomic
    from rewardgym.bounds import undefined_as_null

    markdown = render_page(payload)
    write_json_atomic(root / "results.json", undefined_as_null(payload))
    write_atomic(root / "results.md", markdown + "\n")
    with atomic_path(root / "judges.png") as tmp:
        plot_page(payload, tmp)
    return markdown


__all__ = [
    "NOTE",
    "PERFECT",
    "SPARSE",
    "budgets",
    "plot_page",
    "render_page",
    "smallest_paying_accuracy",
    "write_page",
]
