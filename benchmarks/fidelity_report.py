"""Rows, Markdown tables and plots of ``rewardgym bench fidelity``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardgym.agents.evaluation.fidelity import METRICS, FidelityReport
from rewardgym.agents.simulation.ab import EFFECTS, EffectComparison, json_number
from rewardgym.agents.simulation.visits import VisitRecord


def fidelity_row(
    policy: str, kind: str, report: FidelityReport, records: Sequence[VisitRecord]
) -> dict[str, Any]:
    """One ``fidelity`` row: every metric with its interval, the AUC, and how the outputs fared."""
    steps = sum(r.agent_steps for r in records) or 1
    row: dict[str, Any] = {"policy": policy, "kind": kind, "visits": len(records)}
    for name in METRICS:
        estimate = report.metrics[name]
        row[name], row[f"{name}_ci"] = estimate.value, list(estimate.ci)
    row["auc"], row["auc_ci"] = report.auc.value, list(report.auc.ci)
    row["exact_match"] = sum(r.matches for r in records) / steps
    row["unparsed_rate"] = sum(r.unparsed for r in records) / steps
    row["not_applied_rate"] = sum(r.not_applied for r in records) / steps
    row["truncated_rate"] = sum(r.truncated for r in records) / len(records)
    row["mean_length"] = report.simulated["mean_length"]
    row["purchase_rate"] = report.simulated["purchase_rate"]
    row["truth_purchase_rate"] = report.reference["purchase_rate"]
    return row


def ab_row(
    policy: str, kind: str, variant: str, visits: int, comparisons: Mapping[str, EffectComparison]
) -> dict[str, Any]:
    """One ``ab`` row: the conversion effect (the public fields) and the other effects beside it."""
    conversion = comparisons["conversion"]
    row: dict[str, Any] = {
        "policy": policy,
        "kind": kind,
        "variant": variant,
        "visits": visits,
        "conversion_effect": json_number(conversion.simulated.value),
        "conversion_effect_ci": [json_number(x) for x in conversion.simulated.ci],
        "truth_conversion_effect": json_number(conversion.truth.value),
        "truth_conversion_effect_ci": [json_number(x) for x in conversion.truth.ci],
        "direction_agrees": conversion.direction_agrees,
        "truth_in_ci": conversion.truth_in_ci,
        "truth_significant": conversion.truth_significant,
        "size_ratio": json_number(conversion.size_ratio),
    }
    for name in EFFECTS:
        if name == "conversion":
            continue
        c = comparisons[name]
        row[f"{name}_effect"] = json_number(c.simulated.value)
        row[f"{name}_effect_ci"] = [json_number(x) for x in c.simulated.ci]
        row[f"truth_{name}_effect"] = json_number(c.truth.value)
        row[f"{name}_direction_agrees"] = c.direction_agrees
    return row


def _num(value: Any, digits: int = 3, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _ci(values: Sequence[Any], digits: int = 3, signed: bool = False) -> str:
    return f"[{_num(values[0], digits, signed)}, {_num(values[1], digits, signed)}]"


def render_tables(fidelity: Sequence[Mapping[str, Any]], ab: Sequence[Mapping[str, Any]]) -> str:
    """The two tables (fidelity against the ground truth, A/B effects) and the direction summary."""
    lines = [
        "## Fidelity against the ground-truth shopper (base store, same intents)",
        "",
        "AUC: classifier two-sample test (0.5 = indistinguishable). JS: Jensen-Shannon divergence; "
        "W1: Wasserstein-1; gaps: absolute difference of rates. 95% bootstrap intervals. The "
        "`noise floor` rows are the ground-truth shopper with other seeds.",
        "",
        "| policy | visits | AUC | type JS | kind JS | length W1 | purchase gap | query vocab JS "
        "| transition JS | exact | unparsed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in fidelity:
        lines.append(
            f"| {r['policy']} | {r['visits']} | {_num(r['auc'])} {_ci(r['auc_ci'])} "
            f"| {_num(r['action_type_js'])} | {_num(r['action_kind_js'])} "
            f"| {_num(r['length_w1'], 2)} {_ci(r['length_w1_ci'], 2)} "
            f"| {_num(r['purchase_gap'])} {_ci(r['purchase_gap_ci'])} "
            f"| {_num(r['query_vocab_js'])} | {_num(r['transition_js'])} "
            f"| {_num(r['exact_match'], 2)} | {_num(r['unparsed_rate'], 2)} |"
        )
    lines += [
        "",
        "## A/B: conversion effect of each store change (B minus base, same intents)",
        "",
        "| policy | variant | visits | simulator | ground truth | direction agrees | truth in sim CI "
        "| truth significant | basket dir. | length dir. |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in ab:
        lines.append(
            f"| {r['policy']} | {r['variant']} | {r['visits']} "
            f"| {_num(r['conversion_effect'], signed=True)} {_ci(r['conversion_effect_ci'], signed=True)} "
            f"| {_num(r['truth_conversion_effect'], signed=True)} "
            f"{_ci(r['truth_conversion_effect_ci'], signed=True)} "
            f"| {'yes' if r['direction_agrees'] else 'no'} | {'yes' if r['truth_in_ci'] else 'no'} "
            f"| {'yes' if r['truth_significant'] else 'no'} "
            f"| {'yes' if r['basket_value_direction_agrees'] else 'no'} "
            f"| {'yes' if r['session_length_direction_agrees'] else 'no'} |"
        )
    lines += ["", "## Directions predicted (conversion), per policy", ""]
    for policy in dict.fromkeys(r["policy"] for r in ab):
        mine = [r for r in ab if r["policy"] == policy]
        agree = sum(r["direction_agrees"] for r in mine)
        significant = [r for r in mine if r["truth_significant"]]
        agree_sig = sum(r["direction_agrees"] for r in significant)
        lines.append(
            f"- {policy}: {agree}/{len(mine)} variants; {agree_sig}/{len(significant)} of those "
            "whose ground-truth effect is significant"
        )
    return "\n".join(lines)


def plot(
    fidelity: Sequence[Mapping[str, Any]], ab: Sequence[Mapping[str, Any]], out: Path
) -> list[Path]:
    """``fidelity.png`` (AUC and kind divergence per policy) and ``ab.png`` (conversion effects per variant)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    names = [r["policy"] for r in fidelity]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.45 * len(names) + 1.6), sharey=True)
    for ax, key, label in (
        (axes[0], "auc", "AUC (0.5 = indistinguishable)"),
        (axes[1], "action_kind_js", "action-kind JS"),
    ):
        values = [r[key] for r in fidelity]
        lows = [r[key] - r[f"{key}_ci"][0] for r in fidelity]
        highs = [r[f"{key}_ci"][1] - r[key] for r in fidelity]
        ax.errorbar(
            values,
            range(len(names)),
            xerr=[[max(0, x) for x in lows], [max(0, x) for x in highs]],
            fmt="o",
        )
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].axvline(0.5, color="grey", linestyle="--")
    axes[0].set_yticks(range(len(names)), names)
    axes[0].invert_yaxis()
    fig.tight_layout()
    paths.append(out / "fidelity.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    variants = list(dict.fromkeys(r["variant"] for r in ab))
    policies = list(dict.fromkeys(r["policy"] for r in ab))
    fig, axes = plt.subplots(
        1,
        len(variants),
        figsize=(3.6 * len(variants), 0.45 * len(policies) + 1.8),
        sharey=True,
        squeeze=False,
    )
    for ax, variant in zip(axes[0], variants, strict=True):
        rows = {r["policy"]: r for r in ab if r["variant"] == variant}
        truth = next(iter(rows.values()))
        tlo, thi = truth["truth_conversion_effect_ci"]
        if tlo is not None and thi is not None:
            ax.axvspan(tlo, thi, color="tab:green", alpha=0.2, label="ground truth 95% CI")
        ax.axvline(truth["truth_conversion_effect"] or 0.0, color="tab:green")
        ax.axvline(0.0, color="grey", linestyle=":")
        for y, policy in enumerate(policies):
            r = rows.get(policy)
            if r is None or r["conversion_effect"] is None:
                continue
            lo, hi = r["conversion_effect_ci"]
            value = r["conversion_effect"]
            ax.errorbar(
                [value],
                [y],
                xerr=[
                    [value - (lo if lo is not None else value)],
                    [(hi if hi is not None else value) - value],
                ],
                fmt="o",
                color="tab:blue" if r["direction_agrees"] else "tab:red",
            )
        ax.set_title(variant)
        ax.set_xlabel("conversion effect")
        ax.grid(alpha=0.3)
    axes[0][0].set_yticks(range(len(policies)), policies)
    axes[0][0].invert_yaxis()
    fig.tight_layout()
    paths.append(out / "ab.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths


__all__ = ["ab_row", "fidelity_row", "plot", "render_tables"]
