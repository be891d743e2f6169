"""Aggregate ``bench shop`` runs into rows and render Shop-R1's Table 2-5-shaped tables and a plot.

Each run is one trained model evaluated with one sampling seed; a row is the mean (and the
standard deviation, over training and sampling seeds) of every metric of one method. Figures
are percentages as :func:`rewardgym.envs.shopping.metrics.shop_metrics` returns them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.benchmarks.tables import markdown_table

MAIN = ("zero-shot", "rl-binary", "sft", "sft+rl-binary", "shop-r1")
ABLATIONS = (
    "shop-r1",
    "shop-r1/no-sft",
    "shop-r1/no-format",
    "shop-r1/no-rationale",
    "shop-r1/no-dars",
    "shop-r1/binary-action",
)
TYPES = ("click", "type_and_submit", "terminate")
HEADLINE = ("exact_match", "type_accuracy", "type_f1")


def aggregate(runs: Sequence[Mapping[str, Any]], order: Sequence[str]) -> list[dict[str, Any]]:
    """One row per method (in ``order``): mean of every numeric metric over runs, ``<key>_std`` too."""
    grouped: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for run in runs:
        grouped[str(run["method"])].append(run)
    rows = []
    for method in order:
        group = grouped.get(method)
        if not group:
            continue
        row: dict[str, Any] = {"method": method, "runs": len(group)}
        keys = [k for k, v in group[0].items() if isinstance(v, int | float) and k != "seed"]
        for key in keys:
            values = np.array([float(r[key]) for r in group if key in r], dtype=float)
            row[key] = float(values.mean())
            if key in HEADLINE or key.startswith(("exact_", "type_acc_")):
                row[f"{key}_std"] = float(values.std(ddof=1)) if len(values) > 1 else 0.0
        rows.append(row)
    return rows


def _with_std(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    shown = []
    for row in rows:
        out: dict[str, Any] = {"method": row["method"]}
        for key in keys:
            if key not in row:
                out[key] = ""
            elif row.get("runs", 1) > 1 and f"{key}_std" in row:
                out[key] = f"{row[key]:.2f} ± {row[f'{key}_std']:.2f}"
            else:
                out[key] = float(row[key])
        shown.append(out)
    return shown


def _pick(rows: Sequence[Mapping[str, Any]], methods: Sequence[str]) -> list[Mapping[str, Any]]:
    by_method = {r["method"]: r for r in rows}
    return [by_method[m] for m in methods if m in by_method]


def render_tables(rows: Sequence[Mapping[str, Any]]) -> str:
    """Tables 2-5 (main results, per-type, ablations, context and temperature) as Markdown."""
    headline_heads = ["method", "exact %", "type acc %", "type F1 %"]
    methods = [r["method"] for r in rows]
    context_rows = [m for m in methods if m in ("shop-r1", "shop-r1/latest-context")]
    temp_rows = [m for m in methods if m == "shop-r1" or m.startswith("shop-r1/temp-")]
    per_type_keys = [f"exact_{t}" for t in TYPES] + [f"type_acc_{t}" for t in TYPES]
    share_keys = [f"predicted_share_{t}" for t in TYPES]
    per_type_heads = [
        "method",
        "click exact",
        "type exact",
        "terminate exact",
        "click type acc",
        "type type acc",
        "terminate type acc",
        "pred click %",
        "pred type %",
        "pred terminate %",
    ]
    sections = [
        ("Table 2: main results", _pick(rows, MAIN), list(HEADLINE), headline_heads),
        (
            "Table 3: per action type (exact and type accuracy, %; share of predicted types)",
            _pick(rows, [m for m in methods if not m.startswith("shop-r1/temp-")]),
            per_type_keys + share_keys,
            per_type_heads,
        ),
        ("Table 4: ablations", _pick(rows, ABLATIONS), list(HEADLINE), headline_heads),
        (
            "Table 5: context (whole session vs latest page) and sampling temperature",
            _pick(rows, context_rows + [m for m in temp_rows if m != "shop-r1"]),
            list(HEADLINE),
            headline_heads,
        ),
    ]
    parts = []
    for title, picked, keys, heads in sections:
        if not picked:
            continue
        parts.append(
            f"### {title}\n\n"
            + markdown_table(_with_std(picked, keys), ["method", *keys], headers=heads)
        )
    return "\n\n".join(parts)


def plot_rows(rows: Sequence[Mapping[str, Any]], out: Path) -> Path:
    """Bar charts of the headline metrics and the per-type exact match of every method (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = [str(r["method"]) for r in rows]
    x = np.arange(len(methods))
    fig, axes = plt.subplots(2, 1, figsize=(max(8.0, 0.9 * len(methods)), 8.0), sharex=True)
    width = 0.27
    for panel, keys, labels in (
        (axes[0], HEADLINE, ("exact", "type acc", "type F1")),
        (axes[1], [f"exact_{t}" for t in TYPES], ("click exact", "type exact", "terminate exact")),
    ):
        for k, (key, label) in enumerate(zip(keys, labels, strict=True)):
            values = [float(r.get(key, 0.0)) for r in rows]
            errors = [float(r.get(f"{key}_std", 0.0)) for r in rows]
            panel.bar(x + (k - 1) * width, values, width, yerr=errors, label=label, capsize=2)
        panel.set_ylabel("%")
        panel.legend(loc="upper left", fontsize=8)
        panel.grid(axis="y", alpha=0.3)
    axes[0].set_title("bench shop: held-out test sessions")
    axes[1].set_xticks(x, methods, rotation=40, ha="right", fontsize=8)
    fig.tight_layout()
    path = out / "results.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["ABLATIONS", "HEADLINE", "MAIN", "TYPES", "aggregate", "plot_rows", "render_tables"]
