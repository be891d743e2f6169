"""Rows, tables, plots and the judge-as-policy baseline of ``bench embodied``.

``aggregate`` turns per-seed, per-episode results into the public rows of ``results.json``:
``algorithm``, ``reward``, ``split``, ``sr``, ``cgc``, ``plan`` (percent) and ``sr_ci`` (and
``cgc_ci``, ``plan_ci``), 95% intervals over seeds, tasks and episodes; ``vs``, each metric of
the row minus that of every row in :data:`PAIRED_REFERENCES` on the same episodes with its
paired interval and verdict (COREN's CQL row also minus its ablations of
:data:`ABLATION_REFERENCES`); and for COREN's CQL rows ``position``, where the row lands
between sparse CQL and each reference dense reward, undefined where that gap is noise. Its
figures come from the run's per-episode records (``rewardgym.benchmarks.embodied.stats``)
through ``rewardgym.benchmarks.embodied.paired``, as a reprint's do. ``tune_summary`` picks
each row's values on the validation split. The rest renders.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.benchmarks.embodied.curves import curves_section, write_curves_plot
from rewardgym.benchmarks.embodied.paired import (
    ABLATION_REFERENCES,
    PAIRED_NOTE,
    PAIRED_REFERENCES,
    REFERENCES,
    _row_stats,
    interval_rows,
    oracle_vs_sparse,
    paired_figures,
    render_intervals,
)
from rewardgym.benchmarks.embodied.stats import (
    SplitResamples,
    episode_records,
    resamples_from_records,
)
from rewardgym.benchmarks.tables import markdown_table
from rewardgym.bounds import undefined_as_null
from rewardgym.envs import HOUSEHOLD_ID

if TYPE_CHECKING:
    from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig, Row, Tuned


def aggregate(
    config: EmbodiedBenchConfig,
    assignment: Mapping[tuple[Row, Tuned, int], str],
    results: Mapping[str, Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """One public row per (row, split): metrics, intervals and paired differences.

    Every row's seeds are the config's seeds in order, so seed k of one row is paired with seed
    k of another; a row that did not play the same episodes as the others is an error. The
    hyperparameters of a row (lambda among them) are those its runs recorded
    (``results[key]["trained_with"]``), not recomputed from the config.
    """
    keys = {
        row.name: [key for (r, _, _), key in assignment.items() if r == row]
        for row in config.row_specs
    }
    columns = episode_records(config, assignment, results)
    by_split = resamples_from_records(columns, samples=config.bootstrap)
    rows = interval_rows(by_split, list(keys))
    for entry in rows:  # the run's facts between the intervals and the paired figures
        name = f"{entry['algorithm']}/{entry['reward']}"
        mine = keys[name]
        paired: dict[str, Any] = {k: entry.pop(k) for k in ("vs", "position") if k in entry}
        entry["seeds"] = len(mine)
        steps = [results[k]["splits"][entry["split"]]["steps"] for k in mine]
        entry["steps"] = float(np.mean(steps))
        entry.update(_trained_with(name, [results[k] for k in mine]))
        entry["train_seconds"] = float(np.mean([results[k]["train_seconds"] for k in mine]))
        entry.update(paired)
    return rows


def _trained_with(name: str, runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The hyperparameters every run of row ``name`` recorded (its seeds must agree)."""
    values = [dict(run["trained_with"]) for run in runs]
    if any(v != values[0] for v in values[1:]):
        raise ValueError(f"the seeds of row {name} trained with different values: {values}")
    return values[0]


def _rank(point: Mapping[str, Any]) -> tuple[float, float]:
    """A grid point's (SR, CGC) for choosing the best; an undefined (NaN) score ranks last.

    NaN compares false with everything, so a NaN point met first would never be replaced.
    """
    return tuple(  # type: ignore[return-value]
        x if isinstance(x, int | float) and math.isfinite(x) else -math.inf
        for x in (point["sr"], point["cgc"])
    )


def tune_summary(
    config: EmbodiedBenchConfig,
    assignment: Mapping[tuple[Row, Tuned, int], str],
    results: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """Every grid point's validation SR and CGC, and per row the best point (SR, then CGC)."""
    grid: list[dict[str, Any]] = []
    best: dict[str, dict[str, Any]] = {}
    points: dict[tuple[Row, Tuned], list[str]] = {}
    for (row, tuned, _), key in assignment.items():
        points.setdefault((row, tuned), []).append(key)
    for (row, tuned), keys in points.items():
        episodes = {row.name: [results[k]["episodes"]["validation"] for k in keys]}
        samples = SplitResamples.build("validation", episodes, samples=config.bootstrap)
        stats = _row_stats(samples, row.name)
        point = {**asdict(tuned), "sr": stats["sr"], "cgc": stats["cgc"], "sr_ci": stats["sr_ci"]}
        point["validation_sr"] = stats["sr"]
        point["episodes"] = stats["episodes"]
        grid.append(point)
        current = best.get(row.name)
        if current is None or _rank(point) > _rank(current):
            best[row.name] = point
    return {"grid": grid, "best": best}


def render_tune(payload: Mapping[str, Any]) -> str:
    """The chosen values per row, a ``Tuned(...)`` line each to paste into the preset, and the grid."""
    config = payload.get("config", {})
    validation = config.get("validation", {})
    episodes = payload["grid"][0].get("episodes") if payload["grid"] else None
    lines = [
        f"### Embodied suite tune ({config.get('name', '?')}): validation split only",
        "",
        "Every grid point trained on the suite's data and scored on the validation split "
        f"(training instructions on new episodes: {validation.get('instructions_per_task', '?')} "
        f"instructions x {validation.get('episodes_per_instruction', '?')} episodes per task, "
        f"{episodes or '?'} episodes per point); the held-out splits are not read. SR and CGC in "
        "percent, SR with its 95% interval.",
        "",
        "#### Chosen on validation (best SR, then CGC)",
        "",
    ]
    table = [{"row": name, **_shown(point)} for name, point in payload["best"].items()]
    columns = ["row", "dense_weight", "learning_rate", "cql_alpha", "iql_weight_temp", "sr", "cgc"]
    lines += [markdown_table(table, columns, digits=1), "", "```python"]
    for point in payload["best"].values():
        values = [
            f"{key}={point[key]}"
            for key in ("dense_weight", "learning_rate", "cql_alpha", "iql_weight_temp")
            if point.get(key) is not None
        ]
        lines.append(
            f"Tuned({point['algorithm']!r}, {point['reward']!r}, {', '.join(values)}, "
            f"validation_sr={point['sr']:.1f}),"
        )
    lines += ["```", "", "#### Every grid point", ""]
    grid = [
        {"row": f"{p['algorithm']}/{p['reward']}", **_shown(p), "sr_ci": _interval(p["sr_ci"])}
        for p in payload["grid"]
    ]
    lines.append(markdown_table(grid, ["row", *columns[1:5], "sr", "sr_ci", "cgc"], digits=1))
    return "\n".join(lines)


def _shown(point: Mapping[str, Any]) -> dict[str, Any]:
    """A grid point for a table: a learning rate as written (1e-3), a value a row has no use
    for as a dash."""
    out = dict(point)
    for key in ("dense_weight", "learning_rate", "cql_alpha", "iql_weight_temp"):
        value = out.get(key)
        out[key] = "-" if value is None else f"{value:g}"
    return out


def _interval(bounds: Sequence[float]) -> str:
    return f"[{bounds[0]:.1f}, {bounds[1]:.1f}]"


def _record_run(payload: dict[str, Any], *, preset: str) -> None:
    """Add to ``payload["meta"]`` what a results page reads: suite, preset, wall time, whether
    it is a smoke test, and the run's provenance (command, commit, machine)."""
    from rewardgym.benchmarks.provenance import run_provenance

    meta = payload["meta"]
    meta.setdefault("suite", "embodied")
    meta.setdefault("preset", preset)
    meta.setdefault("wall_seconds", meta.get("timings_seconds", {}).get("total"))
    meta["smoke_test"] = bool(payload["config"].get("smoke_test"))
    meta.update(run_provenance())


def write_tune(
    root: Path, payload: dict[str, Any], render: Callable[[Mapping[str, Any]], str] = render_tune
) -> None:
    """tune.json (``best``, ``meta``, ``config`` and the grid) and tune.md by ``render``, atomically."""
    from rewardgym.atomic import write_atomic, write_json_atomic

    root.mkdir(parents=True, exist_ok=True)
    _record_run(payload, preset="tune")
    write_json_atomic(root / "tune.json", undefined_as_null(payload))
    write_atomic(root / "tune.md", render(payload) + "\n")


def judge_baseline(config: EmbodiedBenchConfig) -> dict[str, Any]:
    """Latency, and SR on a held-out subset, of the judge picking every action (judge-as-policy)."""
    import gymnasium as gym

    from rewardgym.agents.evaluation.household import (
        EvalConfig,
        evaluate_household,
        measure_latency,
    )
    from rewardgym.agents.judge_policy import JudgePolicy
    from rewardgym.wrappers.coren.labelling import resolve_judge

    env_id = config.collect.env
    policy = JudgePolicy(
        resolve_judge(config.judge),
        n_prompts=config.n_prompts,
        env_id=env_id,
        action_names=tuple(gym.make(env_id).unwrapped.action_names),  # type: ignore[attr-defined]
    )
    latency = measure_latency(policy, env_id=env_id, steps=config.latency_steps)
    out: dict[str, Any] = {
        "judge": config.judge,
        "latency": latency,
        "requests_per_action": len(policy.action_names) * len(policy.prompts),
    }
    if config.judge_policy_instructions > 0:
        evaluation = EvalConfig(
            env_id=env_id,
            splits=("fine",),
            instructions_per_task=config.judge_policy_instructions,
        )
        out["metrics"] = {k: v.percent() for k, v in evaluate_household(policy, evaluation).items()}
    return out


CONSTANT = "n/a (one class or equal returns)"
"""What an undefined correlation says: held-out episodes all succeed, all fail or tie."""


def _row_values(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """Per row, the step budget and learning rate its runs recorded (first split's entry)."""
    out: dict[str, tuple[Any, ...]] = {}
    for r in rows:
        out.setdefault(
            f"{r['algorithm']}/{r['reward']}", (r.get("n_steps"), r.get("learning_rate"))
        )
    return out


def _budget(rows: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> str:
    """The header's step count: the shared one, or each row's own range when tuned apart."""
    steps = {v[0] for v in _row_values(rows).values() if v[0] is not None}
    if len(steps) <= 1:
        return f"{next(iter(steps), config['training']['n_steps'])} steps"
    return f"{min(steps)}-{max(steps)} steps by row (each row's below)"


def _trained_with_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """A table of each row's budget and learning rate, when the rows do not share them."""
    values = _row_values(rows)
    if len(set(values.values())) <= 1:
        return []
    lines = [
        {"row": name, "n_steps": steps, "learning_rate": f"{rate:g}" if rate else rate}
        for name, (steps, rate) in values.items()
    ]
    return [
        "Each row trained with (as its runs recorded):",
        "",
        markdown_table(lines, ["row", "n_steps", "learning_rate"]),
        "",
    ]


def render_markdown(payload: Mapping[str, Any]) -> str:
    """The suite's Markdown report: main and cross-domain tables, the check, data, timings."""
    rows, meta, config = payload["rows"], payload["meta"], payload["config"]
    data = payload["data"]
    env = str(data.get("env", HOUSEHOLD_ID)).removeprefix("rewardgym/")
    parts = [
        f"## Embodied suite ({config['name']}): {env}, {data['episodes']} trajectories "
        f"(success {data['success_rate']:.1f}%, expert {data['mean_expert_steps']:.1f} steps), "
        f"seeds {config['seeds']}, {_budget(rows, config)}, judge {config['judge']}",
        "",
        "SR [95% interval over seeds crossed with tasks and episodes] / CGC / Plan in percent "
        "on held-out instructions (COREN Tables 1, 3 and 5 in shape). Hyperparameters: "
        f"{meta.get('tuned_source', '')}.",
        "",
        *_trained_with_table(rows),
    ]
    if config.get("smoke_test"):
        parts += [
            f"> **SMOKE TEST, NOT A RESULT.** Preset `{config['name']}` only checks that every "
            "stage runs; its rows say nothing about the methods. For results run "
            "`--preset quick`, or read the recorded runs in docs/results/.",
            "",
        ]
    if learned_nothing(rows):
        parts += [
            f"> Every agent's SR is 0 on every split: at {config['training']['n_steps']} "
            f"training steps on {data['episodes']} trajectories no agent learned the tasks, so "
            "these rows check the plumbing, not the methods.",
            "",
        ]
    intervals = render_intervals(rows, config, env)
    if intervals:
        parts += [intervals, ""]
    if env == "VirtualHome-v0":
        parts += [*paper_table(), ""]
    if parts[-1] == "":
        parts.pop()
    diagnostics = meta.get("reward_diagnostics", {})
    if diagnostics:
        parts += ["", "### Dense rewards on the training data (mean per step, return)", ""]
        table = [{"reward": k, **v} for k, v in diagnostics.items()]
        parts.append(markdown_table(table, ["reward", *next(iter(diagnostics.values()))], digits=3))
    reports = meta.get("label", {}).get("reports", {})
    if reports:
        parts += ["", "### COREN labelling: held-out return-success correlation", ""]
        table = [
            {"ablation": k, "corr": v["heldout_correlation"], "judge_calls": v["judge_calls"]}
            for k, v in reports.items()
        ]
        parts.append(
            markdown_table(
                table,
                ["ablation", "corr", "judge_calls"],
                digits=3,
                undefined={"corr": CONSTANT},
            )
        )
    judges = payload.get("judges", {})
    if judges:
        parts += [
            "",
            "### Judges: quality on held-out abstract instructions (shares in %)",
            "",
            "Share of probe states whose expert next action is rated +2 and at least +1; "
            "top-rated executable action = expert's (ties broken uniformly); non-executable "
            "actions rated -2; held-out return-success correlation (labelling judge only).",
            "",
        ]
        shares = ("expert_next_top", "expert_next_supportive", "greedy_agreement", "nonexec_minus2")
        table = [
            {
                "judge": name,
                **{k: 100.0 * float(row[k]) for k in shares},
                "corr": row.get("return_success_corr", "n/a (labelling judge only)"),
                "states": row["probe_states"],
                "s/state": row["probe_seconds_per_state"],
            }
            for name, row in judges.items()
        ]
        why = {"corr": CONSTANT, "nonexec_minus2": "n/a (none rated)"}
        parts.append(markdown_table(table, list(table[0]), digits=2, undefined=why))
    latency = [{"policy": f"agent ({k})", **v} for k, v in meta.get("agent_latency", {}).items()]
    judge = meta.get("judge_policy", {})
    if judge:
        name = f"judge-as-policy ({judge['judge']}, {judge['requests_per_action']} ratings/action)"
        latency.append({"policy": name, **judge["latency"]})
    if latency:
        parts += ["", "### Per-action latency (one observation at a time)", ""]
        parts.append(
            markdown_table(latency, ["policy", "median_ms", "p90_ms", "mean_ms"], digits=2)
        )
    parts += curves_section(payload)
    timings = meta.get("timings_seconds", {})
    parts += ["", "### Wall time (seconds)", "", markdown_table([timings], list(timings), digits=1)]
    return "\n".join(parts)


def paper_table() -> list[str]:
    """COREN's own Table 1 figures as Markdown lines, said to be the paper's and not comparable."""
    from rewardgym.benchmarks.embodied.virtualhome_presets import PAPER_TABLE_1

    lines = [
        "### COREN's paper, Table 1 (its VirtualHome tasks; not comparable)",
        "",
        "The paper's own figures (arXiv 2411.17135, Tables 1, 3 and 5), quoted beside ours: its "
        "25 tasks use objects (salmon, cereal, ...) this scene lacks and its test instructions "
        "are not ours, so no row here measures the same thing.",
        "",
        "| paper's row | fine SR | fine CGC | fine Plan | abstract SR | abstract CGC | abstract Plan |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, (fine, abstract) in PAPER_TABLE_1.items():
        cells = ["n/a" if math.isnan(v) else f"{v:.1f}" for v in (*fine, *abstract)]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return lines


def learned_nothing(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every row's SR is 0 on every split (the run's agents learned nothing)."""
    return bool(rows) and all(float(r["sr"]) == 0.0 for r in rows)


def plot_results(
    rows: Sequence[Mapping[str, Any]], path: Path, *, title: str = "", smoke: bool = False
) -> Path:
    """SR with its 95% interval per row on the held-out fine and abstract splits (PNG).

    Bars are coloured by algorithm (one legend); a row not evaluated on a split shows "n/a".
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    names = list(dict.fromkeys(f"{r['algorithm']}/{r['reward']}" for r in rows))
    algorithms = list(dict.fromkeys(str(r["algorithm"]) for r in rows))
    palette = plt.get_cmap("tab10")
    colour = {a: palette(k % 10) for k, a in enumerate(algorithms)}
    x = np.arange(len(names))
    fig, axes = plt.subplots(1, 2, figsize=(max(10.0, len(names) * 0.9), 5.5), sharey=True)
    for ax, split in zip(axes, ("fine", "abstract"), strict=True):
        picked = {f"{r['algorithm']}/{r['reward']}": r for r in rows if r["split"] == split}
        for k, name in enumerate(names):
            row = picked.get(name)
            if row is None:
                ax.text(k, 1.0, "n/a", ha="center", va="bottom", fontsize=9, color="grey")
                continue
            low, high = row["sr_ci"]
            ax.bar(
                k,
                row["sr"],
                color=colour[str(row["algorithm"])],
                yerr=[[max(row["sr"] - low, 0.0)], [max(high - row["sr"], 0.0)]],
                capsize=3,
                error_kw={"linewidth": 0.9},
            )
            ax.text(k, high + 1.0, f"{row['sr']:.0f}", ha="center", va="bottom", fontsize=9)
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=40, ha="right", fontsize=10)
        ax.set_title(f"held-out {split} instructions, default layout", fontsize=12)
        ax.set_xlabel("algorithm / reward the agent learned from", fontsize=11)
        ax.set_xlim(-0.6, len(names) - 0.4)
        ax.set_ylim(0, 124)  # headroom for the legend above the 100% line
        ax.set_yticks(range(0, 101, 20))
        ax.tick_params(axis="y", labelsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("success rate, SR (%)", fontsize=11)
    handles = [Patch(color=colour[a], label=a) for a in algorithms]
    for ax in axes:
        ax.legend(handles=handles, fontsize=10, loc="upper center", ncol=min(4, len(handles)))
    fig.suptitle(
        (title + "\n" if title else "")
        + "bars: SR over seeds and episodes; whiskers: 95% interval over seeds, tasks and episodes",
        fontsize=12,
        y=0.995,
    )
    if learned_nothing(rows):
        for ax in axes:
            ax.text(0.5, 0.45, "every agent's SR is 0 here", transform=ax.transAxes,
                    ha="center", fontsize=12, color="dimgrey")  # fmt: skip
    fig.tight_layout(rect=(0, 0, 1, 0.9 if smoke else 1))
    if smoke:
        fig.text(
            0.5,
            0.86,
            "SMOKE TEST: these agents check the plumbing, they are not results",
            ha="center",
            fontsize=12,
            color="tab:red",
            weight="bold",
        )
    fig.savefig(path, dpi=100, format="png")
    plt.close(fig)
    return path


def write_all(root: Path, payload: dict[str, Any]) -> None:
    """results.json (``rows``, ``data``, ``meta``, ``config``), .csv, .md and the plot, atomically."""
    import csv
    import io
    import json

    from rewardgym.atomic import atomic_path, write_atomic, write_json_atomic
    from rewardgym.benchmarks.repro import table_digests

    root.mkdir(parents=True, exist_ok=True)
    meta = payload["meta"]
    meta["oracle_vs_sparse"] = oracle_vs_sparse(payload["rows"])
    meta["perfect_judge_vs_sparse"] = oracle_vs_sparse(payload["rows"], reference="perfect-judge")
    _record_run(payload, preset=payload["config"]["name"])
    markdown = render_markdown(payload)
    meta["table_digests"] = table_digests(markdown)
    write_json_atomic(root / "results.json", undefined_as_null(payload))
    columns: list[str] = []
    for row in payload["rows"]:
        columns.extend(k for k in row if k not in columns)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    for row in payload["rows"]:
        writer.writerow(
            {k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in row.items()}
        )
    write_atomic(root / "results.csv", buffer.getvalue())
    write_atomic(root / "results.md", markdown + "\n")
    config = payload["config"]
    title = (
        f"bench embodied ({config['name']}): {payload['data']['episodes']} training trajectories, "
        f"seeds {config['seeds']}, {config['training']['n_steps']} training steps per agent"
    )
    with atomic_path(root / "sr_by_row.png") as tmp:
        plot_results(payload["rows"], tmp, title=title, smoke=bool(config.get("smoke_test")))
    write_curves_plot(root, payload, f"bench embodied ({config['name']}): validation SR")


__all__ = [
    "ABLATION_REFERENCES",
    "PAIRED_NOTE",
    "PAIRED_REFERENCES",
    "REFERENCES",
    "aggregate",
    "interval_rows",
    "judge_baseline",
    "learned_nothing",
    "oracle_vs_sparse",
    "paired_figures",
    "paper_table",
    "plot_results",
    "render_intervals",
    "render_markdown",
    "render_tune",
    "tune_summary",
    "write_all",
]
