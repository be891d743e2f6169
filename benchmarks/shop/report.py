"""Aggregate ``bench shop`` runs into rows, render Shop-R1's Tables 2-5 with intervals, plot, write.

A row pools every run of one method (training seeds x sampling seeds, scored on the same test
sessions): its metrics are computed over the pooled steps and its 95% intervals come from the
session bootstrap of :mod:`rewardgym.agents.evaluation.intervals`; ``<metric>_std`` is the
spread over runs. Figures are percentages. Both protocols are computed; ``rows`` follow the
configured one and ``protocol_rows`` holds both.

Every model row other than ``sft`` carries ``diff_vs_sft`` and ``diff_vs_sft_ci`` (points of
exact match, :func:`paired_difference`): the row minus the ``sft`` row on the very test steps
both scored, with a paired session bootstrap, so a difference is real when its interval
excludes 0 even where the two rows' own intervals overlap.

``rewards`` in ``results.json`` holds, for every model row, each weight of the Shop-R1 reward its
model was trained with (:func:`row_rewards`), so a run says what it rewarded, not just its name.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.agents.baselines.shopper_reference import REFERENCE_ROWS
from rewardgym.agents.evaluation.bootstrap import (
    cluster_weights,
    format_difference,
    is_real,
    percentile_interval,
)
from rewardgym.agents.evaluation.intervals import bootstrap_intervals
from rewardgym.agents.evaluation.shopping import (
    PROTOCOLS,
    Protocol,
    StepRecord,
    protocol_metrics,
    protocol_records,
)
from rewardgym.atomic import atomic_path, write_atomic, write_json_atomic
from rewardgym.benchmarks.provenance import run_provenance
from rewardgym.benchmarks.repro import table_digests
from rewardgym.benchmarks.shop.config import CONSTRAINED_SUFFIX, BenchConfig, constrained_name
from rewardgym.benchmarks.shop.rows import BASELINES, Method
from rewardgym.benchmarks.tables import markdown_table
from rewardgym.bounds import undefined_as_null
from rewardgym.envs.shopping.metrics import protocol_match, shop_metrics
from rewardgym.wrappers.shop_r1 import RewardTerms


class SuiteRun(typing.Protocol):
    """What the report reads of a finished ``bench shop`` run (``suite.Suite`` holds it)."""

    config: BenchConfig
    out: Path
    records: dict[str, list[list[StepRecord]]]
    """Every scored run's step records, by row."""
    runs: list[dict[str, Any]]
    grpo_logs: dict[str, list[list[dict[str, Any]]]]
    losses: dict[str, list[float]]
    timings: dict[str, float]
    temperature: float
    choice: dict[str, Any] | None
    reference_skipped: str | None

    def ablation_sessions(self) -> int | None:
        """Test sessions of an ablation row."""
        ...


MAIN = ("zero-shot", "rl-binary", "sft", "sft+rl-binary", "shop-r1")
PERSONA = ("sft/persona",)
"""SFT on prompts that open with the shopper's persona: Table 2, beside the rows it is paired with."""
ABLATIONS = (
    "shop-r1",
    "shop-r1/no-sft",
    "shop-r1/no-format",
    "shop-r1/no-rationale",
    "shop-r1/no-dars",
    "shop-r1/binary-action",
    "shop-r1/gdpo",
    "shop-r1/kang",
)
TYPES = ("click", "type_and_submit", "terminate")
HEADLINE = ("exact_match", "type_accuracy", "type_f1")
TERMS = (*RewardTerms.SUMMED, "total")
REFERENCE = "sft"
"""The row every other model row is compared with, step by step (``diff_vs_sft``)."""


def type_shares(records: Sequence[StepRecord]) -> dict[str, dict[str, float]]:
    """Percent of ``records`` whose prediction, and whose truth, is each action type."""
    n = max(1, len(records))
    return {
        "predicted": {
            t: 100.0 * sum(1 for r in records if r.prediction and r.prediction.type == t) / n
            for t in TYPES
        },
        "truth": {t: 100.0 * sum(1 for r in records if r.truth.type == t) / n for t in TYPES},
    }


def _shares_note(choice: Mapping[str, Any] | None) -> str | None:
    """The sft row's predicted action-type shares beside the truth's on the validation steps."""
    found = (choice or {}).get("type_shares")
    if not found:
        return None
    cells = [
        f"T {t}: "
        + ", ".join(f"{k} {v['predicted'][k]:.1f} (true {v['truth'][k]:.1f})" for k in TYPES)
        for t, v in found.items()
    ]
    return (
        "Predicted action-type shares of sft (seed 0) on validation, %: " + "; ".join(cells) + "."
    )


def _item_exact(
    runs: Sequence[Sequence[StepRecord]], protocol: Protocol
) -> dict[tuple[int, int], float]:
    """Exact match (0 or 1) of each scored (session, step), averaged over the runs that scored it."""
    hits: dict[tuple[int, int], list[float]] = {}
    for run in runs:
        for r in protocol_records(run, protocol):
            match = protocol_match(r.prediction, r.truth, similar=protocol == "paper")
            hits.setdefault((r.session, r.step), []).append(float(match))
    return {key: sum(v) / len(v) for key, v in hits.items()}


def paired_difference(
    runs: Sequence[Sequence[StepRecord]],
    baseline_runs: Sequence[Sequence[StepRecord]],
    protocol: Protocol = "natural",
    *,
    samples: int = 2000,
    seed: int = 0,
) -> tuple[float, list[float]] | None:
    """Exact match of ``runs`` minus that of ``baseline_runs`` (points) and its 95% ``[lo, hi]``.

    Paired: only the (session, step) items both sides scored count, each side's value of an
    item averaged over its runs; the bootstrap resamples sessions (``samples`` draws, seeded by
    ``seed``) and recomputes the difference of the drawn sessions' pooled steps, so session
    effects shared by both rows cancel. None when the two sides share no item.
    """
    mine, theirs = _item_exact(runs, protocol), _item_exact(baseline_runs, protocol)
    common = sorted(set(mine) & set(theirs))
    if not common:
        return None
    sessions = sorted({session for session, _ in common})
    where = {s: i for i, s in enumerate(sessions)}
    delta, steps = np.zeros(len(sessions)), np.zeros(len(sessions))
    for key in common:
        delta[where[key[0]]] += mine[key] - theirs[key]
        steps[where[key[0]]] += 1
    point = 100.0 * float(delta.sum() / steps.sum())
    weights = cluster_weights(len(sessions), samples=samples, seed=seed)
    return point, percentile_interval(100.0 * (weights @ delta) / (weights @ steps))


def difference_note(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """One sentence naming which rows differ from ``sft`` for real and which within noise."""
    found: dict[bool, list[str]] = {True: [], False: []}
    for row in rows:
        if "diff_vs_sft" in row:
            lo, hi = row["diff_vs_sft_ci"]
            found[is_real((lo, hi))].append(
                f"{row['method']} {float(row['diff_vs_sft']):+.1f} [{lo:+.1f}, {hi:+.1f}]"
            )
    if not found[True] and not found[False]:
        return None
    parts = [
        f"{label}: {'; '.join(found[real])}"
        for real, label in ((True, "real (interval excludes 0)"), (False, "within noise"))
        if found[real]
    ]
    return (
        "Exact match minus sft's, in points, paired over the test steps both scored (95% "
        "session bootstrap): " + "; ".join(parts) + "."
    )


CLAIM_PAIRS: tuple[tuple[str, str], ...] = (
    ("shop-r1", "sft+rl-binary"),
    ("shop-r1", "baseline/frequency"),
    ("sft", "baseline/frequency"),
)
"""Pairs the suite's claims read beside ``diff_vs_sft``: Shop-R1's hybrid reward against
binary RL (the paper's Table 2 ordering) and the learned rows against the lookup."""


def claim_pairs(
    records: Mapping[str, Sequence[Sequence[Any]]],
    protocol: Protocol,
    *,
    samples: int = 2000,
) -> list[dict[str, Any]]:
    """Paired exact-match differences of :data:`CLAIM_PAIRS` and of every model row decoded
    constrained against the same model decoded free (rows without records are skipped)."""
    twins = [
        (name, name.removesuffix(CONSTRAINED_SUFFIX))
        for name in records
        if name.endswith(CONSTRAINED_SUFFIX)
    ]
    found = []
    for row, other in (*CLAIM_PAIRS, *twins):
        if row in records and other in records:
            paired = paired_difference(records[row], records[other], protocol, samples=samples)
            if paired is not None:
                found.append({"row": row, "minus": other, "diff": paired[0], "ci": paired[1]})
    return found


def claim_note(pairs: Sequence[Mapping[str, Any]]) -> str | None:
    """One sentence listing :func:`claim_pairs` with their intervals and verdicts."""
    if not pairs:
        return None
    return (
        "Other paired differences of exact match, in points (95% session bootstrap over the "
        "steps both scored): "
        + "; ".join(
            f"{p['row']} minus {p['minus']} {format_difference(p['diff'], p['ci'])}" for p in pairs
        )
        + "."
    )


def build_rows(
    records: Mapping[str, Sequence[Sequence[Any]]],
    runs: Sequence[Mapping[str, Any]],
    order: Sequence[str],
    protocol: Protocol,
    *,
    samples: int = 2000,
) -> list[dict[str, Any]]:
    """One row per method in ``order`` (methods without records are skipped)."""
    rows = []
    for method in order:
        if method not in records:
            continue
        # The protocol picks its steps within each run, so runs on the same sessions agree.
        pooled = [r for run in records[method] for r in protocol_records(run, protocol)]
        metrics = shop_metrics(
            [r.prediction for r in pooled],
            [r.truth for r in pooled],
            similar_text=protocol == "paper",
        ).to_dict()
        row: dict[str, Any] = {"method": method, "runs": len(records[method])}
        row.update(metrics)
        row["n_steps"] = len({(r.session, r.step) for r in pooled})
        for kind in TYPES:
            hits = sum(1 for r in pooled if r.truth.type == kind)
            row[f"truth_share_{kind}"] = 100.0 * hits / len(pooled) if pooled else 0.0
        for key, interval in bootstrap_intervals(
            records[method], protocol, samples=samples
        ).items():
            row[f"{key}_ci"] = interval
        per_run = [protocol_metrics(run, protocol).to_dict() for run in records[method]]
        for key in HEADLINE:
            values = [float(m[key]) for m in per_run]  # type: ignore[arg-type]
            row[f"{key}_std"] = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
        temps = [
            float(run["temperature"])
            for run in runs
            if run["method"] == method and run.get("temperature") is not None
        ]
        if temps:
            row["temperature"] = temps[0]
        if _compared(method) and REFERENCE in records:
            paired = paired_difference(
                records[method], records[REFERENCE], protocol, samples=samples
            )
            if paired is not None:
                row["diff_vs_sft"], row["diff_vs_sft_ci"] = paired
        rows.append(row)
    return rows


def _compared(method: str) -> bool:
    """A model row compared with ``sft`` (not sft itself, a baseline or a reference)."""
    return method != REFERENCE and not method.startswith(("baseline/", "reference/"))


def _cell(row: Mapping[str, Any], key: str) -> str:
    if key not in row:
        return ""
    if key == "diff_vs_sft":
        return format_difference(float(row[key]), row["diff_vs_sft_ci"])
    interval = row.get(f"{key}_ci")
    if interval is None:
        return f"{float(row[key]):.1f}"
    return f"{float(row[key]):.1f} [{interval[0]:.1f}, {interval[1]:.1f}]"


def _table(rows: Sequence[Mapping[str, Any]], keys: Sequence[str], heads: Sequence[str]) -> str:
    shown = [
        {"method": r["method"], "n": r.get("n_steps", ""), **{k: _cell(r, k) for k in keys}}
        for r in rows
    ]
    return markdown_table(shown, ["method", "n", *keys], headers=["method", "steps", *heads])


def _pick(rows: Sequence[Mapping[str, Any]], methods: Sequence[str]) -> list[Mapping[str, Any]]:
    by_method = {r["method"]: r for r in rows}
    return [by_method[m] for m in methods if m in by_method]


SMOKE_NOTE = (
    "_Smoke test: the model rows below check the plumbing (their models trained for seconds); "
    "they are not results._"
)
"""Written under every table heading of a smoke-test preset's report."""


def smoke_banner(config: Any) -> str:
    """The banner of a smoke-test preset's report (empty for a preset meant to give results)."""
    if not getattr(config, "smoke_test", False):
        return ""
    model = (
        f"the {config.default_model.hidden_size}-wide default model"
        if config.model is None
        else f"model {config.model}"
    )
    return (
        f"> **SMOKE TEST, NOT A RESULT.** Preset `{config.name}` only checks that every stage "
        f"runs: it trains on {config.train_sessions or 'all'} sessions "
        f"({config.sft.max_examples} SFT examples, {config.grpo.steps} GRPO steps, {model}) "
        f"and scores {config.eval_sessions or 'all'} test sessions, so its model rows "
        "(zero-shot, SFT, GRPO, ablations) say nothing about the methods and its baseline rows "
        "rest on a handful of steps. For results run `--preset quick`, or read the recorded "
        "runs in docs/results/."
    )


def unparsed_rows(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Model rows none of whose outputs parse: their zeros measure no method."""
    return [
        str(r["method"])
        for r in rows
        if not str(r["method"]).startswith("baseline/") and float(r.get("parse_rate", 1.0)) == 0.0
    ]


def render_tables(
    rows: Sequence[Mapping[str, Any]], protocol: str, *, note: str | None = None
) -> str:
    """Tables 2-5 (main results, per type and predicted type shares beside the truth's,
    ablations, context and temperature) as Markdown.

    ``note`` (e.g. :data:`SMOKE_NOTE`) is written under every table's heading.
    """
    heads = ["exact %", "type acc %", "type F1 %"]
    paired = ["exact vs sft (paired, points)"] if any("diff_vs_sft" in r for r in rows) else []
    compared = [*HEADLINE, "diff_vs_sft"] if paired else list(HEADLINE)
    methods = [r["method"] for r in rows]
    main = [n for m in (*MAIN, *PERSONA) for n in (m, constrained_name(m))]
    context_rows = [m for m in methods if m in ("shop-r1", "shop-r1/latest-context")]
    temp_rows = [m for m in methods if m.startswith("shop-r1/temp-")]
    per_type = [f"exact_{t}" for t in TYPES] + [f"type_acc_{t}" for t in TYPES]
    share = [f"predicted_share_{t}" for t in TYPES]
    per_type_heads = [
        "click exact", "type exact", "terminate exact",
        "click type acc", "type type acc", "terminate type acc",
        "pred click %", "pred type %", "pred terminate %", "parses %",
    ]  # fmt: skip
    sections = [
        (
            "Table 2: main results",
            [*BASELINES, *REFERENCE_ROWS, *main],
            compared,
            heads + paired,
        ),
        (
            "Table 3: per action type (exact and type accuracy, %; share of predicted types)",
            [m for m in methods if not m.startswith("shop-r1/temp-")],
            [*per_type, *share, "parse_rate"],
            per_type_heads,
        ),
        (
            "Table 3b: predicted action-type shares beside the truth's (% of the row's steps)",
            [m for m in methods if not m.startswith("shop-r1/temp-")],
            [k for t in TYPES for k in (f"predicted_share_{t}", f"truth_share_{t}")],
            [h for t in ("click", "type", "terminate") for h in (f"pred {t} %", f"true {t} %")],
        ),
        ("Table 4: ablations", ABLATIONS, compared, heads + paired),
        (
            "Table 5: context (compact session vs latest page) and sampling temperature",
            [*context_rows, *temp_rows],
            list(HEADLINE),
            heads,
        ),
    ]
    parts = [f"## Protocol: {protocol}"]
    for title, wanted, keys, head in sections:
        picked = _pick(rows, wanted)
        if picked:
            under = f"{note}\n\n" if note else ""
            parts.append(f"### {title}\n\n{under}" + _table(picked, keys, head))
    return "\n\n".join(parts)


def row_rewards(wanted: Sequence[Method]) -> dict[str, dict[str, Any] | None]:
    """Every weight of the reward each model row's GRPO run trained with; None: no GRPO.

    A row that trains nothing of its own on top of another row (``shop-r1/temp-T`` starts from
    ``shop-r1``) records that row's reward: the one its model was trained with.
    """
    rows = {m.method: m for m in wanted}
    found: dict[str, dict[str, Any] | None] = {}
    for method in wanted:
        row = method
        while row.reward is None and row.start not in ("base", "sft") and row.start in rows:
            row = rows[row.start]
        found[method.method] = asdict(row.reward) if row.reward is not None else None
    return found


def term_series(logs: Sequence[Sequence[Mapping[str, Any]]], term: str) -> list[float]:
    """Mean of one reward term per GRPO step, averaged over the runs (seeds) of a row."""
    series = [
        [float(r[f"reward_terms/{term}"]) for r in log if f"reward_terms/{term}" in r]
        for log in logs
    ]
    series = [s for s in series if s]
    if not series:
        return []
    steps = min(len(s) for s in series)
    return [float(np.mean([s[k] for s in series])) for k in range(steps)]


SMOKE_STAMP = "SMOKE TEST: model rows check the plumbing, they are not results"
"""Written under the title of a smoke-test preset's plots."""


def _stamp(fig: Any, smoke: bool, y: float) -> None:
    """A red line at height ``y`` (figure fraction) under the title of a smoke-test plot."""
    if smoke:
        fig.text(0.5, y, SMOKE_STAMP, ha="center", fontsize=12, color="tab:red", weight="bold")


def plot_reward_terms(
    grpo_logs: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]],
    out: Path,
    *,
    smoke: bool = False,
) -> Path:
    """Each reward term's mean per GRPO step, one line per RL row, one shared legend (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(2, 3, figsize=(15, 9))
    colours = plt.get_cmap("tab10")
    styles = ("-", "--", ":", "-.")
    legend: dict[str, Any] = {}
    for panel, term in zip(axes.flat, TERMS, strict=True):
        seen: set[float] = set()
        for k, (method, logs) in enumerate(grpo_logs.items()):
            values = term_series(logs, term)
            if values:
                seen.update(values)
                (legend[method],) = panel.plot(
                    range(1, len(values) + 1),
                    values,
                    label=method,
                    linewidth=1.5,
                    color=colours(k % 10),
                    linestyle=styles[(k // 10) % len(styles)],
                    marker="o",
                    markersize=3,
                )
        if len(seen) == 1:
            panel.text(
                0.5,
                0.85,
                f"every row: {seen.pop():g} at every step (the lines overlap)",
                transform=panel.transAxes,
                ha="center",
                fontsize=10,
                color="dimgrey",
            )
        panel.set_title(f"{term}" + (" (sum of the terms)" if term == "total" else ""), fontsize=12)
        panel.xaxis.set_major_locator(MaxNLocator(integer=True))
        panel.set_xlabel("GRPO step", fontsize=11)
        panel.set_ylabel(f"mean {term} reward per completion", fontsize=10)
        panel.tick_params(labelsize=10)
        panel.grid(alpha=0.3)
    if legend:
        fig.legend(
            list(legend.values()),
            list(legend),
            loc="lower center",
            ncol=min(4, len(legend)),
            fontsize=10,
            title="RL row (mean over its training seeds)",
            title_fontsize=10,
        )
    else:
        fig.text(0.5, 0.06, "no GRPO row in this run: nothing to plot", ha="center", fontsize=12)
    fig.suptitle(
        "bench shop: each reward term during GRPO (mean over the step's completions; "
        "binary rows book their whole reward under type)",
        fontsize=13,
        y=0.99,
    )
    fig.tight_layout(rect=(0, 0.12, 1, 0.96 if smoke else 1))
    _stamp(fig, smoke, 0.935)
    path = out / "reward_terms.png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=100, format="png")
    plt.close(fig)
    return path


def plot_rows(rows: Sequence[Mapping[str, Any]], out: Path, *, smoke: bool = False) -> Path:
    """Bar charts of the headline metrics and the per-type exact match, with 95% intervals (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = [str(r["method"]) for r in rows]
    unparsed = set(unparsed_rows(rows))
    x = np.arange(len(methods))
    fig, axes = plt.subplots(2, 1, figsize=(max(9.0, 0.9 * len(methods)), 9.0), sharex=True)
    width = 0.27
    panels = (
        (
            axes[0],
            HEADLINE,
            ("exact match", "type accuracy", "type F1"),
            "headline metrics on every test step",
            "score (%)",
        ),
        (
            axes[1],
            [f"exact_{t}" for t in TYPES],
            TYPES,
            "exact match by the human's action type",
            "exact match (%)",
        ),
    )
    for panel, keys, labels, title, ylabel in panels:
        for k, (key, label) in enumerate(zip(keys, labels, strict=True)):
            values = np.array([float(r.get(key, 0.0)) for r in rows])
            cis = [r.get(f"{key}_ci", [v, v]) for r, v in zip(rows, values, strict=True)]
            errors = np.array([[v - c[0] for v, c in zip(values, cis, strict=True)],
                               [c[1] - v for v, c in zip(values, cis, strict=True)]])  # fmt: skip
            panel.bar(
                x + (k - 1) * width,
                values,
                width,
                yerr=np.maximum(errors, 0),
                label=label,
                capsize=2,
                error_kw={"linewidth": 0.8},
            )
        for k, row in enumerate(rows):
            if str(row["method"]) in unparsed:
                panel.text(k, 3, "no output parses", rotation=90, ha="center", va="bottom",
                           fontsize=9, color="dimgrey")  # fmt: skip
        panel.set_title(title, fontsize=12)
        panel.set_ylabel(ylabel, fontsize=11)
        panel.set_ylim(0, 118)  # headroom for the legend above the 100% line
        panel.set_yticks(range(0, 101, 20))
        panel.tick_params(axis="y", labelsize=10)
        panel.legend(loc="upper right", fontsize=10, ncol=3, framealpha=0.9)
        panel.grid(axis="y", alpha=0.3)
    fig.suptitle(
        "bench shop: next-step prediction on held-out test sessions\n"
        "bars: all runs of a row pooled; whiskers: 95% session-bootstrap interval",
        fontsize=13,
        y=0.995,
    )
    axes[1].set_xticks(x, methods, rotation=35, ha="right", fontsize=10)
    axes[1].set_xlabel("row (baselines first, then the trained models)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.96 if smoke else 1))
    _stamp(fig, smoke, 0.905)
    path = out / "results.png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=100, format="png")
    plt.close(fig)
    return path


def rationale_term(
    grpo_logs: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]],
) -> dict[str, float]:
    """Measured mean ``alpha * s(r)`` over every GRPO step of the rows that pay it."""
    found = {}
    for method in ("shop-r1", "shop-r1/kang"):
        values = term_series(grpo_logs.get(method, []), "rationale")
        if values:
            found[method] = float(np.mean(values))
    return found


def _csv(rows: Sequence[Mapping[str, Any]]) -> str:
    import csv
    import io
    import json

    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=columns)
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in row.items()}
        )
    return stream.getvalue()


def write_report(
    suite: SuiteRun, wanted: Sequence[Method], coverage: Mapping[str, float]
) -> dict[str, Any]:
    """Write ``results.json`` / ``.csv`` / ``.md`` and the plots under the suite's ``out``."""
    config = suite.config
    # Each model row is followed by its constrained-decoding twin (scored only for main rows).
    models = [n for m in wanted for n in (m.method, constrained_name(m.method))]
    order = [*BASELINES, *REFERENCE_ROWS, *models]
    protocol_rows = {
        p: build_rows(suite.records, suite.runs, order, p, samples=config.bootstrap_samples)  # type: ignore[arg-type]
        for p in PROTOCOLS
    }
    rows = protocol_rows[config.protocol]
    other = next(p for p in PROTOCOLS if p != config.protocol)
    certainty = rationale_term(suite.grpo_logs)
    pairs = claim_pairs(suite.records, config.protocol, samples=config.bootstrap_samples)
    differences = [n for n in (difference_note(rows), claim_note(pairs)) if n]
    notes = _notes(suite, coverage, certainty, unparsed_rows(rows), differences)
    banner = smoke_banner(config)
    note = SMOKE_NOTE if banner else None
    markdown = "\n\n".join(
        [
            f"# bench shop ({config.name})",
            *([banner] if banner else []),
            notes,
            render_tables(rows, config.protocol, note=note),
            render_tables(protocol_rows[other], other, note=note),
            *([banner] if banner else []),  # again under the tables, where a terminal ends
        ]
    )
    results = {
        "rows": rows,
        "protocol_rows": protocol_rows,
        "paired": pairs,
        "prompt_coverage": dict(coverage),
        "rationale_term": certainty,
        "rewards": row_rewards(wanted),
        "temperature_choice": suite.choice,
        "sft_losses": suite.losses,
        "meta": {
            "suite": "shop",
            "preset": config.name,
            "protocol": config.protocol,
            "config": asdict(config),
            "model": config.model or "default",
            "smoke_test": bool(banner),
            "phase_seconds": suite.timings,
            "wall_seconds": suite.timings.get("total", 0.0),
            **run_provenance(),
            "table_digests": table_digests(markdown),
            "runs": suite.runs,
        },
    }
    out = suite.out
    write_json_atomic(out / "results.json", undefined_as_null(results))
    write_atomic(out / "results.csv", _csv(rows))
    write_atomic(out / "results.md", markdown + "\n")
    plot_rows(rows, out, smoke=bool(banner))
    plot_reward_terms(suite.grpo_logs, out, smoke=bool(banner))
    return {**results, "markdown": markdown}


def _notes(
    suite: SuiteRun,
    coverage: Mapping[str, float],
    certainty: Mapping[str, float],
    unparsed: Sequence[str] = (),
    differences: Sequence[str] = (),
) -> str:
    config = suite.config
    main = ", ".join(str(s) for s in config.seeds)
    ablation = config.ablation_seeds if config.ablation_seeds is not None else config.seeds
    split = (
        " (each seed scores its own share of them)"
        if config.split_test_across_seeds and len(config.seeds) > 1
        else ""
    )
    lines = [
        f"Model: {config.model or 'default (built here, from scratch)'}. Main rows: training "
        f"seeds {main}, {config.eval_sessions or 'all'} test sessions{split}; ablation and temperature "
        f"rows: seeds {', '.join(str(s) for s in ablation)}, "
        f"{suite.ablation_sessions() or 'all'} test sessions. Intervals: 95% bootstrap over "
        "test sessions, pooling the row's runs.",
        f"Evaluation temperature {suite.temperature:g}, chosen on {suite.choice['steps'] if suite.choice else 0} "
        f"validation steps ({', '.join(f'{t:g}: {s:.1f}%' for t, s in (suite.choice or {}).get('candidates', {}).items())}).",
    ]
    shares = _shares_note(suite.choice)
    if shares:
        lines.append(shares)
    if coverage:
        lines.append(
            "Prompt coverage over the test prompts: "
            + ", ".join(f"{k} {v:.3f}" for k, v in coverage.items() if k != "prompts")
            + f" ({int(coverage.get('prompts', 0))} prompts)."
        )
    if unparsed:
        models = [m for m in suite.records if not m.startswith("baseline/")]
        named = "any model row" if set(unparsed) >= set(models) else ", ".join(unparsed)
        lines.append(
            f"No output of {named} parses (the model has not learned the JSON format): "
            "those rows' zeros measure the training budget, not the method."
        )
    fits = coverage.get("completion_fits")
    if fits is not None and fits < 0.5:
        lines.append(
            f"{100 * fits:.0f}% of the human answers fit in {config.sampling.max_new_tokens} "
            "generated tokens (completion_fits): most outputs are cut before their JSON closes, "
            "whatever the model learned; raise sampling.max_new_tokens for real rows."
        )
    lines.extend(differences)
    if any(m.startswith("reference/") for m in suite.records):
        lines.append(
            "Reference rows read what no model sees (the session's hidden intent and the "
            "shopper's state): reference/shopper-argmax is the synthetic shopper's most frequent "
            f"action over {config.reference_resamples} fresh draws per step, the ceiling of exact "
            "match; reference/shopper-resample is one fresh draw, a second identical shopper."
        )
    elif suite.reference_skipped:
        lines.append(suite.reference_skipped)
    if certainty:
        lines.append(
            "Measured mean alpha x s(r) over GRPO steps: "
            + ", ".join(f"{m} {v:.3g}" for m, v in certainty.items())
            + "."
        )
    return "\n".join(f"- {line}" for line in lines)


__all__ = [
    "ABLATIONS",
    "CLAIM_PAIRS",
    "HEADLINE",
    "MAIN",
    "PERSONA",
    "TYPES",
    "SuiteRun",
    "build_rows",
    "claim_note",
    "claim_pairs",
    "difference_note",
    "is_real",
    "paired_difference",
    "plot_reward_terms",
    "plot_rows",
    "rationale_term",
    "render_tables",
    "row_rewards",
    "smoke_banner",
    "term_series",
    "type_shares",
    "unparsed_rows",
    "write_report",
]
