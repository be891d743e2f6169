"""Rows, Markdown tables and plots of ``rewardgym bench fidelity``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardgym.agents.evaluation.effect_metrics import FieldScores
from rewardgym.agents.evaluation.fidelity import METRICS, FidelityReport
from rewardgym.agents.simulation.ab import EFFECTS, EffectComparison, json_number
from rewardgym.agents.simulation.visits import VisitRecord

_PANELS_PER_ROW = 5
"""Store changes per row of ``ab.png``'s grid of panels."""
NO_PAIR = "n/a (no visit pair completed)"
"""An A/B cell of a simulator none of whose visit pairs parsed to the end: it has no effect."""


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
    row["ended_rate"] = sum(not (r.truncated or r.failed) for r in records) / len(records)
    row["parse_rate"] = sum(not r.failed for r in records) / len(records)
    row["mean_length"] = report.simulated["mean_length"]
    row["purchase_rate"] = report.simulated["purchase_rate"]
    row["truth_purchase_rate"] = report.reference["purchase_rate"]
    return row


def ab_row(
    policy: str,
    kind: str,
    variant: str,
    keep: Sequence[bool],
    comparisons: Mapping[str, EffectComparison],
) -> dict[str, Any]:
    """One ``ab`` row: the conversion effect (the public fields) and the other effects beside it.

    ``keep`` flags the intents whose visits to both stores completed (the pairs the simulator's
    effects count); their share is the row's ``parse_rate``.
    """
    conversion = comparisons["conversion"]
    row: dict[str, Any] = {
        "policy": policy,
        "kind": kind,
        "variant": variant,
        "visits": len(keep),
        "pairs": sum(keep),
        "parse_rate": sum(keep) / len(keep),
        "conversion_effect": json_number(conversion.simulated.value),
        "conversion_effect_ci": [json_number(x) for x in conversion.simulated.ci],
        "truth_conversion_effect": json_number(conversion.truth.value),
        "truth_conversion_effect_ci": [json_number(x) for x in conversion.truth.ci],
        "conversion_error": json_number(conversion.error.value),
        "conversion_error_ci": [json_number(x) for x in conversion.error.ci],
        "agrees": conversion.agrees,
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
        row[f"truth_{name}_effect_ci"] = [json_number(x) for x in c.truth.ci]
        row[f"{name}_error"] = json_number(c.error.value)
        row[f"{name}_error_ci"] = [json_number(x) for x in c.error.ci]
        row[f"{name}_agrees"] = c.agrees
        row[f"{name}_direction_agrees"] = c.direction_agrees
    return row


def field_row(
    policy: str, kind: str, effect: str, scores: FieldScores, agrees: int, visits: int
) -> dict[str, Any]:
    """One ``field`` row: a policy's scores on one effect over every store change, on its first ``visits`` intents, with today's agreement count beside them."""
    return {
        "policy": policy,
        "kind": kind,
        "effect": effect,
        "visits": visits,
        **scores.as_dict(),
        "agrees": agrees,
    }


_DIGITS: dict[str, int] = {"conversion": 3, "basket_value": 2, "session_length": 2}
"""Decimals of a mean absolute effect error: a rate difference, dollars, steps."""


def _num(value: Any, digits: int = 3, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _ci(values: Sequence[Any], digits: int = 3, signed: bool = False) -> str:
    return f"[{_num(values[0], digits, signed)}, {_num(values[1], digits, signed)}]"


def _effect(value: Any, ci: Sequence[Any], undefined: str = "n/a") -> str:
    """A signed effect with its interval, or ``undefined`` (n/a and why) when it could not be measured."""
    if value is None:
        return undefined
    return f"{_num(value, signed=True)} {_ci(ci, signed=True)}"


def render_field(
    field: Sequence[Mapping[str, Any]], learned_intents: Sequence[Mapping[str, Any]] = ()
) -> list[str]:
    """The field's-terms table (one row per policy and effect) and the noise floor's interval half-widths.

    ``learned_intents`` holds the noise-floor and baseline rows scored again on the learned
    rows' intents: a second table shows them beside the learned rows of ``field``.
    """
    if not field:
        return []
    changes = field[0]["changes"]
    lines = [
        f"## A/B in the field's terms: every effect over the {changes} store changes",
        "",
        "`alignment`: share of the changes whose true effect is significant (their count in "
        "brackets) where the simulator's effect has the truth's sign; a predicted 0 or undefined "
        "effect is not aligned (SimGym reports 77% of 50 real A/B tests, SimAB 67% of 47). "
        "`Pearson` / `Spearman`: correlation of simulated with true effects over all changes "
        "(0 for a simulator whose effects do not vary; SimGym: r = 0.55). `MAE`: mean absolute "
        "effect error, in the effect's unit (conversion: purchase-rate difference; basket: $; "
        "length: steps). `agrees`: changes agreed on by the rule of the A/B table above. "
        "`visits`: intents per store, the first ones of the same list for every row, each row "
        "against the ground truth's visits of those intents. 95% intervals resample intents, "
        "jointly across the changes, holding the significant set.",
        "",
        *_field_table(field),
    ]
    if learned_intents:
        k = learned_intents[0]["visits"]
        learned = [r for r in field if r["kind"] == "learned"]
        lines += [
            "",
            f"## A/B in the field's terms on the learned rows' intents: the first {k} of every store",
            "",
            f"The noise-floor and baseline rows scored again on the first {k} intents only, the "
            "ones the learned rows visited, beside the learned rows: the same intents and the "
            "same ground-truth visits (its significant changes counted on them), so a learned "
            "row's intervals compare like for like with the noise floor's and the baselines'.",
            "",
            *_field_table([*learned_intents, *learned]),
        ]
    return lines


def _field_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One field's-terms table, then the half-widths of its noise-floor rows' intervals."""
    lines = [
        "| policy | visits | effect | alignment | Pearson | Spearman | MAE | agrees |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        digits = _DIGITS.get(r["effect"], 3)
        lines.append(
            f"| {r['policy']} | {r['visits']} | {r['effect']} "
            f"| {_num(r['alignment'], 2)} {_ci(r['alignment_ci'], 2)} ({r['aligned']}/{r['counted']}) "
            f"| {_num(r['pearson'], 2)} {_ci(r['pearson_ci'], 2)} "
            f"| {_num(r['spearman'], 2)} {_ci(r['spearman_ci'], 2)} "
            f"| {_num(r['mae'], digits)} {_ci(r['mae_ci'], digits)} "
            f"| {r['agrees']}/{r['changes']} |"
        )
    floor = [r for r in rows if r["kind"] == "noise floor"]
    if floor:
        lines += ["", "Noise floor, 95% interval half-widths (what the metrics can resolve):", ""]
        for r in floor:
            widths = ", ".join(
                f"{name} +/-{_num(_half_width(r[f'{key}_ci']), 3)}"
                for key, name in (
                    ("alignment", "alignment"),
                    ("pearson", "Pearson"),
                    ("spearman", "Spearman"),
                )
            )
            lines.append(f"- {r['policy']}, {r['effect']}, {r['visits']} visits: {widths}")
    return lines


def _half_width(ci: Sequence[Any]) -> float | None:
    lo, hi = ci
    return None if lo is None or hi is None else (hi - lo) / 2


def render_tables(
    fidelity: Sequence[Mapping[str, Any]],
    ab: Sequence[Mapping[str, Any]],
    field: Sequence[Mapping[str, Any]] = (),
    field_learned_intents: Sequence[Mapping[str, Any]] = (),
    learned_minus_floor: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The tables (fidelity against the ground truth, A/B effects, the field's terms, also on the
    learned rows' intents, learned minus noise floor paired) and the direction summary."""
    lines = [
        "## Fidelity against the ground-truth shopper (base store, same intents)",
        "",
        "AUC: classifier two-sample test (0.5 = indistinguishable). JS: Jensen-Shannon divergence; "
        "W1: Wasserstein-1; gaps: absolute difference of rates. 95% bootstrap intervals. The "
        "`noise floor` rows are the ground-truth shopper with other seeds.",
        "",
        "| policy | visits | parsed | ended | AUC | type JS | kind JS | length W1 | purchase gap "
        "| query vocab JS | transition JS | exact | unparsed |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in fidelity:
        lines.append(
            f"| {r['policy']} | {r['visits']} | {_num(r['parse_rate'], 2)} "
            f"| {_num(r.get('ended_rate'), 2)} | {_num(r['auc'])} {_ci(r['auc_ci'])} "
            f"| {_num(r['action_type_js'])} | {_num(r['action_kind_js'])} "
            f"| {_num(r['length_w1'], 2)} {_ci(r['length_w1_ci'], 2)} "
            f"| {_num(r['purchase_gap'])} {_ci(r['purchase_gap_ci'])} "
            f"| {_num(r['query_vocab_js'])} | {_num(r['transition_js'])} "
            f"| {_num(r['exact_match'], 2)} | {_num(r['unparsed_rate'], 2)} |"
        )
    lines += [
        "",
        "`parsed`: share of visits in which every output parsed (a visit ends as failed at the "
        "first output that does not); `ended`: share of visits the simulator ended itself, by a "
        "terminate, before `max_steps` cut them; `unparsed`: share of outputs.",
        "",
        "## A/B: conversion effect of each store change (B minus base, same intents)",
        "",
        "Conversion effects are differences of purchase rates (0.050 = 5 percentage points). `parsed`: share of intents whose "
        "visits to both stores parsed to the end; the simulator's effect counts only those. "
        "`error`: simulator minus ground truth, 95% interval from the same resampled intents. "
        "`agrees`: where the truth's effect is significant (its interval excludes 0), same sign "
        "with an interval that excludes 0 or holds the truth's effect; "
        "elsewhere only a predicted no-effect (the simulator's interval holds 0) whose interval "
        "holds the truth's effect.",
        "",
        "| policy | variant | visits | parsed | simulator | ground truth | error (sim - truth) "
        "| truth significant | agrees | basket agrees | length agrees |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in ab:
        lines.append(
            f"| {r['policy']} | {r['variant']} | {r['visits']} | {_num(r['parse_rate'], 2)} "
            f"| {_effect(r['conversion_effect'], r['conversion_effect_ci'], NO_PAIR)} "
            f"| {_effect(r['truth_conversion_effect'], r['truth_conversion_effect_ci'])} "
            f"| {_effect(r['conversion_error'], r['conversion_error_ci'], NO_PAIR)} "
            f"| {'yes' if r['truth_significant'] else 'no'} | {'yes' if r['agrees'] else 'no'} "
            f"| {'yes' if r['basket_value_agrees'] else 'no'} "
            f"| {'yes' if r['session_length_agrees'] else 'no'} |"
        )
    lines += ["", "## Agreement on conversion, per policy", ""]
    for policy in dict.fromkeys(r["policy"] for r in ab):
        lines.append(f"- {policy}: {agreement_summary([r for r in ab if r['policy'] == policy])}")
    field_lines = render_field(field, field_learned_intents)
    if field_lines:
        lines += ["", *field_lines]
    if learned_minus_floor:
        lines += ["", *render_learned_minus_floor(learned_minus_floor)]
    return "\n".join(lines)


def render_learned_minus_floor(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The paired table: each learned row's field scores minus a noise-floor row's, same intents."""
    k = rows[0]["visits"]
    lines = [
        f"## Learned minus noise floor, paired: the field's scores on the first {k} intents",
        "",
        "Each learned row's alignment, correlations and mean absolute error minus a noise-floor "
        "row's (the ground-truth shopper with another seed), both on the same intents and "
        "scored against the same ground-truth visits; the 95% interval is the percentile "
        "interval of the difference over the same resamples of intents (a paired bootstrap). "
        "An interval below 0 (above 0 for MAE) is a simulator measurably worse than a second "
        "run of the true shopper.",
        "",
        "| policy | minus | effect | alignment | Pearson | Spearman | MAE |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        digits = _DIGITS.get(r["effect"], 3)
        lines.append(
            f"| {r['policy']} | {r['floor']} | {r['effect']} "
            f"| {_num(r['alignment'], 2, True)} {_ci(r['alignment_ci'], 2, True)} "
            f"| {_num(r['pearson'], 2, True)} {_ci(r['pearson_ci'], 2, True)} "
            f"| {_num(r['spearman'], 2, True)} {_ci(r['spearman_ci'], 2, True)} "
            f"| {_num(r['mae'], digits, True)} {_ci(r['mae_ci'], digits, True)} |"
        )
    return lines


def agreement_summary(rows: Sequence[Mapping[str, Any]]) -> str:
    """How many variants a policy's ``ab`` rows agree on, split by whether the truth's effect is significant."""
    significant = [r for r in rows if r["truth_significant"]]
    null = [r for r in rows if not r["truth_significant"]]
    agree = sum(r["agrees"] for r in rows)
    return (
        f"agrees on {agree}/{len(rows)} variants "
        f"({sum(r['agrees'] for r in significant)}/{len(significant)} by direction where the "
        f"truth's effect is significant, {sum(r['agrees'] for r in null)}/{len(null)} by a "
        "no-effect interval holding the truth's elsewhere)"
    )


def plot(
    fidelity: Sequence[Mapping[str, Any]], ab: Sequence[Mapping[str, Any]], out: Path
) -> list[Path]:
    """``fidelity.png`` (AUC and kind divergence per policy) and ``ab.png`` (conversion effects per variant)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    paths = []
    names = [r["policy"] for r in fidelity]
    height = 0.45 * len(names) + 2.4
    fig, axes = plt.subplots(1, 2, figsize=(11, height), sharey=True)
    for ax, key, label in (
        (
            axes[0],
            "auc",
            "classifier AUC, simulated vs ground-truth visits (0.5 = indistinguishable)",
        ),
        (axes[1], "action_kind_js", "action-kind Jensen-Shannon divergence (bits; 0 = same mix)"),
    ):
        values = [r[key] for r in fidelity]
        lows = [r[key] - r[f"{key}_ci"][0] for r in fidelity]
        highs = [r[f"{key}_ci"][1] - r[key] for r in fidelity]
        ax.errorbar(
            values,
            range(len(names)),
            xerr=[[max(0, x) for x in lows], [max(0, x) for x in highs]],
            fmt="o",
            color="tab:blue",
            label="estimate, 95% bootstrap interval",
        )
        ax.set_xlabel(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].axvline(0.5, color="grey", linestyle="--", label="chance (AUC 0.5)")
    axes[0].set_yticks(range(len(names)), names)
    axes[0].set_ylabel("simulator")
    axes[0].invert_yaxis()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.35 / height, 1, 1))
    paths.append(out / "fidelity.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    variants = list(dict.fromkeys(r["variant"] for r in ab))
    policies = list(dict.fromkeys(r["policy"] for r in ab))
    columns = min(len(variants), _PANELS_PER_ROW)
    rows_of_panels = -(-len(variants) // columns)
    panel = 0.45 * len(policies) + 1.6
    height = panel * rows_of_panels + 1.0
    fig, grid = plt.subplots(
        rows_of_panels,
        columns,
        figsize=(3.8 * columns + 1.5, height),
        sharey=True,
        squeeze=False,
    )
    panels = [ax for row in grid for ax in row]
    for ax in panels[len(variants) :]:
        ax.remove()

    def points(x: Any) -> float | None:
        return None if x is None else 100.0 * x

    for ax, variant in zip(panels, variants, strict=False):
        rows = {r["policy"]: r for r in ab if r["variant"] == variant}
        truth = next(iter(rows.values()))
        tlo, thi = (points(x) for x in truth["truth_conversion_effect_ci"])
        if tlo is not None and thi is not None:
            ax.axvspan(tlo, thi, color="tab:green", alpha=0.2)
        ax.axvline(points(truth["truth_conversion_effect"]) or 0.0, color="tab:green")
        ax.axvline(0.0, color="grey", linestyle=":")
        for y, policy in enumerate(policies):
            r = rows.get(policy)
            if r is None:
                continue
            value = points(r["conversion_effect"])
            if value is None:
                ax.plot([0.0], [y], marker="x", color="grey", linestyle="none")
                continue
            lo, hi = (points(x) for x in r["conversion_effect_ci"])
            ax.errorbar(
                [value],
                [y],
                xerr=[
                    [value - (lo if lo is not None else value)],
                    [(hi if hi is not None else value) - value],
                ],
                fmt="o",
                color="tab:blue" if r["agrees"] else "tab:red",
            )
        ax.set_title(f"{variant} vs base", fontsize=10)
        ax.set_xlabel("change in purchase rate (percentage points)", fontsize=9)
        ax.grid(alpha=0.3)
    for row in grid:
        row[0].set_yticks(range(len(policies)), policies)
        row[0].set_ylabel("simulator")
    grid[0][0].invert_yaxis()
    legend = [
        Line2D([], [], color="tab:blue", marker="o", label="simulator agrees (95% CI)"),
        Line2D([], [], color="tab:red", marker="o", label="simulator disagrees (95% CI)"),
        Line2D([], [], color="grey", marker="x", linestyle="none", label="no completed visits"),
        Line2D([], [], color="tab:green", label="ground-truth effect"),
        Patch(color="tab:green", alpha=0.2, label="ground-truth 95% CI"),
        Line2D([], [], color="grey", linestyle=":", label="no effect"),
    ]
    fig.legend(handles=legend, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.7 / height, 1, 1))  # room for the legend's two rows
    paths.append(out / "ab.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths


__all__ = [
    "ab_row",
    "agreement_summary",
    "fidelity_row",
    "field_row",
    "plot",
    "render_field",
    "render_learned_minus_floor",
    "render_tables",
]
