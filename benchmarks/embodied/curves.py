"""Validation learning curves of the embodied suite: collected per row and seed, tabled and plotted.

A run trained with ``training.eval_every = K`` scores each agent on the validation split every K
steps (``rewardgym.agents.offline.curve``); ``run_task`` returns the points and the step whose
weights the agent kept. ``row_curves`` gathers them into ``results.json``'s ``curves``
(row -> seed -> ``[[step, SR, CGC], ...]``, percent) and ``selected_steps``; ``curves_section``
tables the mean over seeds at every step, and ``plot_curves`` draws them
(``validation_curves.png`` beside the page).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.benchmarks.tables import markdown_table

if TYPE_CHECKING:
    from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig, Row, Tuned

PLOT_FILE = "validation_curves.png"
"""The plot of the validation curves, beside results.md / tune.md."""


def row_curves(
    config: EmbodiedBenchConfig,
    assignment: Mapping[tuple[Row, Tuned, int], str],
    results: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """``{"curves": row -> seed -> points, "selected_steps": row -> seed -> step}``; empty without curves."""
    curves: dict[str, dict[str, list[list[float]]]] = {}
    selected: dict[str, dict[str, int]] = {}
    for (row, _, seed), key in assignment.items():
        result = results[key]
        if not result.get("curve"):
            continue
        curves.setdefault(row.name, {})[str(seed)] = [list(p) for p in result["curve"]]
        selected.setdefault(row.name, {})[str(seed)] = int(result["selected_step"])
    if not curves:
        return {}
    return {
        "curves": curves,
        "selected_steps": selected,
        "checkpoint": config.training.checkpoint,
        "eval_every": config.training.eval_every,
    }


def mean_curve(by_seed: Mapping[str, Sequence[Sequence[float]]]) -> list[dict[str, float]]:
    """The mean SR and CGC over seeds at every step all seeds scored, in step order.

    Example:
        >>> mean_curve({"0": [[100, 10.0, 20.0], [200, 30.0, 40.0]], "1": [[100, 20.0, 30.0]]})
        [{'step': 100, 'sr': 15.0, 'cgc': 25.0, 'seeds': 2}]
    """
    steps = set.intersection(*({int(p[0]) for p in points} for points in by_seed.values()))
    out = []
    for step in sorted(steps):
        at = [next(p for p in points if int(p[0]) == step) for points in by_seed.values()]
        out.append(
            {
                "step": step,
                "sr": float(np.mean([p[1] for p in at])),
                "cgc": float(np.mean([p[2] for p in at])),
                "seeds": len(at),
            }
        )
    return out


def curves_section(payload: Mapping[str, Any]) -> list[str]:
    """Markdown lines of the validation curves of a final run (none when it kept no curves)."""
    curves = payload.get("curves")
    if not curves:
        return []
    selected = payload.get("selected_steps", {})
    rule = payload.get("checkpoint", "final")
    table = []
    for name, by_seed in curves.items():
        steps = ", ".join(str(selected.get(name, {}).get(seed, "?")) for seed in by_seed)
        for point in mean_curve(by_seed):
            table.append({"row": name, **point, "kept steps (per seed)": steps})
            steps = ""
    return [
        "",
        "### Validation curves (mean over seeds)",
        "",
        f"Each agent scored on the validation split every {payload.get('eval_every', '?')} "
        f"steps of its one training run; checkpoint rule `{rule}` (`final`: the last step's "
        "weights; `validation-best`: the step with the best validation SR, the earlier on a "
        f"tie), the same for every row; the test splits used the kept weights. Plot: "
        f"`{PLOT_FILE}`.",
        "",
        markdown_table(
            table, ["row", "step", "sr", "cgc", "seeds", "kept steps (per seed)"], digits=1
        ),
    ]


def plot_curves(
    panels: Mapping[str, Mapping[str, Sequence[Mapping[str, float]]]],
    path: Path,
    *,
    title: str = "",
    marks: Mapping[str, Mapping[str, int]] | None = None,
) -> Path:
    """Validation SR against training steps: one panel per key, one line per label (PNG).

    ``panels[panel][label]`` is a mean curve (``mean_curve``); ``marks[panel][label]`` a step
    to circle on that line (the chosen budget or kept checkpoint).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    count = len(panels)
    columns = min(count, 3)
    rows = -(-count // columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(5.0 * columns, 3.8 * rows), squeeze=False, sharey=True
    )
    for ax, (panel, lines) in zip(axes.flat, panels.items(), strict=False):
        for label, curve in lines.items():
            steps = [p["step"] for p in curve]
            (drawn,) = ax.plot(steps, [p["sr"] for p in curve], marker=".", label=label)
            mark = (marks or {}).get(panel, {}).get(label)
            at = [p for p in curve if p["step"] == mark]
            if at:
                ax.plot(mark, at[0]["sr"], "o", markersize=11, fillstyle="none",
                        color=drawn.get_color())  # fmt: skip
        ax.set_ylim(0.0, max(ax.get_ylim()[1], 5.0))
        ax.set_title(panel, fontsize=11)
        ax.set_xlabel("training steps", fontsize=10)
        ax.grid(alpha=0.3)
        if len(lines) > 1:
            ax.legend(fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("validation SR (%)", fontsize=10)
    for ax in list(axes.flat)[count:]:
        ax.set_visible(False)
    fig.suptitle(
        (title + "\n" if title else "") + "lines: mean over seeds; circles: the step chosen",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100, format="png")
    plt.close(fig)
    return path


def write_curves_plot(root: Path, payload: Mapping[str, Any], title: str) -> None:
    """``validation_curves.png`` of a final run's curves, atomically (nothing without curves)."""
    from rewardgym.atomic import atomic_path

    curves = payload.get("curves")
    if not curves:
        return
    panels = {"every row": {name: mean_curve(by_seed) for name, by_seed in curves.items()}}
    with atomic_path(root / PLOT_FILE) as tmp:
        plot_curves(panels, tmp, title=title)


__all__ = [
    "PLOT_FILE",
    "curves_section",
    "mean_curve",
    "plot_curves",
    "row_curves",
    "write_curves_plot",
]
