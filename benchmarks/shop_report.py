"""Aggregate ``bench shop`` runs into rows, render Shop-R1's Tables 2-5 with intervals, plot, write.

A row pools every run of one method (training seeds x sampling seeds, scored on the same test
sessions): its metrics are computed over the pooled steps and its 95% intervals come from the
session bootstrap of :mod:`rewardgym.agents.evaluation.intervals`; ``<metric>_std`` is the
spread over runs. Figures are percentages. Both protocols are computed; ``rows`` follow the
configured one and ``protocol_rows`` holds both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.agents.evaluation.intervals import bootstrap_intervals
from rewardgym.agents.evaluation.shopping import (
    PROTOCOLS,
    Protocol,
    protocol_metrics,
    protocol_records,
)
from rewardgym.benchmarks.provenance import run_provenance
from rewardgym.benchmarks.tables import markdown_table
from rewardgym.envs.shopping.metrics import shop_metrics
from rewardgym.runtime import atomic_path, write_atomic, write_json_atomic

if TYPE_CHECKING:
    from rewardgym.benchmarks.shop import Method, Suite

BASELINES = (
    "baseline/frequency",
    "baseline/random",
    "baseline/always-terminate",
    "baseline/first-element",
)
MAIN = ("zero-shot", "rl-binary", "sft", "sft+rl-binary", "shop-r1")
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
TERMS = ("format", "rationale", "type", "attribute", "value", "total")


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
        rows.append(row)
    return rows


def _cell(row: Mapping[str, Any], key: str) -> str:
    if key not in row:
        return ""
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


def render_tables(rows: Sequence[Mapping[str, Any]], protocol: str) -> str:
    """Tables 2-5 (main results, per type, ablations, context and temperature) as Markdown."""
    heads = ["exact %", "type acc %", "type F1 %"]
    methods = [r["method"] for r in rows]
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
        ("Table 2: main results", [*BASELINES, *MAIN], list(HEADLINE), heads),
        (
            "Table 3: per action type (exact and type accuracy, %; share of predicted types)",
            [m for m in methods if not m.startswith("shop-r1/temp-")],
            [*per_type, *share, "parse_rate"],
            per_type_heads,
        ),
        ("Table 4: ablations", ABLATIONS, list(HEADLINE), heads),
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
            parts.append(f"### {title}\n\n" + _table(picked, keys, head))
    return "\n\n".join(parts)


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


def plot_reward_terms(
    grpo_logs: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]], out: Path
) -> Path:
    """Each reward term's mean per GRPO step, one line per RL row (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    colours = plt.get_cmap("tab20")
    styles = ("-", "--", ":", "-.")
    for panel, term in zip(axes.flat, TERMS, strict=True):
        for k, (method, logs) in enumerate(grpo_logs.items()):
            values = term_series(logs, term)
            if values:
                panel.plot(
                    range(1, len(values) + 1),
                    values,
                    label=method,
                    linewidth=1.3,
                    color=colours(k % 20),
                    linestyle=styles[k % len(styles)],
                    marker=".",
                )
        panel.set_title(f"reward term: {term}")
        panel.set_xlabel("GRPO step")
        panel.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("bench shop: mean of each reward term per GRPO step (mean over seeds)")
    fig.tight_layout()
    path = out / "reward_terms.png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=100, format="png")
    plt.close(fig)
    return path


def plot_rows(rows: Sequence[Mapping[str, Any]], out: Path) -> Path:
    """Bar charts of the headline metrics and the per-type exact match, with 95% intervals (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = [str(r["method"]) for r in rows]
    x = np.arange(len(methods))
    fig, axes = plt.subplots(2, 1, figsize=(max(8.0, 0.8 * len(methods)), 8.0), sharex=True)
    width = 0.27
    for panel, keys, labels in (
        (axes[0], HEADLINE, ("exact", "type acc", "type F1")),
        (axes[1], [f"exact_{t}" for t in TYPES], ("click exact", "type exact", "terminate exact")),
    ):
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
            )
        panel.set_ylabel("%")
        panel.legend(loc="upper left", fontsize=8)
        panel.grid(axis="y", alpha=0.3)
    axes[0].set_title("bench shop: held-out test sessions (95% session-bootstrap intervals)")
    axes[1].set_xticks(x, methods, rotation=40, ha="right", fontsize=8)
    fig.tight_layout()
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
    suite: Suite, wanted: Sequence[Method], coverage: Mapping[str, float]
) -> dict[str, Any]:
    """Write ``results.json`` / ``.csv`` / ``.md`` and the plots under the suite's ``out``."""
    config = suite.config
    order = [*BASELINES, *(m.method for m in wanted)]
    protocol_rows = {
        p: build_rows(suite.records, suite.runs, order, p, samples=config.bootstrap_samples)  # type: ignore[arg-type]
        for p in PROTOCOLS
    }
    rows = protocol_rows[config.protocol]
    other = next(p for p in PROTOCOLS if p != config.protocol)
    certainty = rationale_term(suite.grpo_logs)
    notes = _notes(suite, coverage, certainty)
    markdown = "\n\n".join(
        [
            f"# bench shop ({config.name})",
            notes,
            render_tables(rows, config.protocol),
            render_tables(protocol_rows[other], other),
        ]
    )
    results = {
        "rows": rows,
        "protocol_rows": protocol_rows,
        "prompt_coverage": dict(coverage),
        "rationale_term": certainty,
        "temperature_choice": suite.choice,
        "sft_losses": suite.losses,
        "meta": {
            "suite": "shop",
            "preset": config.name,
            "protocol": config.protocol,
            "config": asdict(config),
            "model": config.model or "default",
            "phase_seconds": suite.timings,
            "wall_seconds": suite.timings.get("total", 0.0),
            **run_provenance(),
            "runs": suite.runs,
        },
    }
    out = suite.out
    write_json_atomic(out / "results.json", results)
    write_atomic(out / "results.csv", _csv(rows))
    write_atomic(out / "results.md", markdown + "\n")
    plot_rows(rows, out)
    plot_reward_terms(suite.grpo_logs, out)
    return {**results, "markdown": markdown}


def _notes(suite: Suite, coverage: Mapping[str, float], certainty: Mapping[str, float]) -> str:
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
    if coverage:
        lines.append(
            "Prompt coverage over the test prompts: "
            + ", ".join(f"{k} {v:.3f}" for k, v in coverage.items() if k != "prompts")
            + f" ({int(coverage.get('prompts', 0))} prompts)."
        )
    if certainty:
        lines.append(
            "Measured mean alpha x s(r) over GRPO steps: "
            + ", ".join(f"{m} {v:.3g}" for m, v in certainty.items())
            + "."
        )
    return "\n".join(f"- {line}" for line in lines)


__all__ = [
    "ABLATIONS",
    "BASELINES",
    "HEADLINE",
    "MAIN",
    "TYPES",
    "build_rows",
    "plot_reward_terms",
    "plot_rows",
    "rationale_term",
    "render_tables",
    "term_series",
    "write_report",
]
