"""Rows, intervals, tables, plots and the judge-as-policy baseline of the embodied suite.

``aggregate`` turns per-seed, per-episode results into the public rows of ``results.json``:
``algorithm``, ``reward``, ``split``, ``sr``, ``cgc``, ``plan`` (percent) and ``sr_ci`` (and
``cgc_ci``, ``plan_ci``), 95% intervals over seeds and episodes
(``rewardgym.benchmarks.embodied_stats``). ``tune_summary`` picks each row's values on the
validation split. The rest renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.benchmarks.embodied_stats import intervals_overlap, seed_episode_interval
from rewardgym.benchmarks.tables import markdown_table

if TYPE_CHECKING:
    from rewardgym.benchmarks.embodied_config import EmbodiedBenchConfig, Row, Tuned

_FIELDS = {"sr": "success", "cgc": "cgc", "plan": "plan"}


def _row_stats(per_seed: Sequence[Mapping[str, Sequence[float]]], resamples: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for metric, field in _FIELDS.items():
        groups = [np.asarray(run[field], dtype=np.float64) for run in per_seed]
        out[metric] = 100.0 * float(np.mean(np.concatenate(groups)))
        low, high = seed_episode_interval(groups, resamples=resamples)
        out[f"{metric}_ci"] = [100.0 * low, 100.0 * high]
        out[f"{metric}_seed_std"] = 100.0 * float(np.std([g.mean() for g in groups]))
    out["episodes"] = int(sum(len(run["success"]) for run in per_seed))
    return out


def aggregate(
    config: EmbodiedBenchConfig,
    assignment: Mapping[tuple[Row, Tuned, int], str],
    results: Mapping[str, Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """One public row per (row, split): metrics over seeds and episodes with 95% intervals."""
    rows = []
    for row in config.row_specs:
        keys = [key for (r, _, _), key in assignment.items() if r == row]
        tuned = config.tuned_for(row)
        for split in config.evaluation.splits:
            per_seed = [results[key]["episodes"][split] for key in keys]
            entry: dict[str, Any] = {"algorithm": row.algorithm, "reward": row.reward}
            entry["split"] = split
            entry.update(_row_stats(per_seed, config.bootstrap))
            entry["seeds"] = len(keys)
            entry["steps"] = float(np.mean([results[k]["splits"][split]["steps"] for k in keys]))
            entry["dense_weight"] = tuned.dense_weight
            entry["learning_rate"] = tuned.learning_rate
            if row.algorithm == "cql":
                entry["cql_alpha"] = tuned.cql_alpha
            if row.algorithm == "iql":
                entry["iql_weight_temp"] = tuned.iql_weight_temp
            entry["train_seconds"] = float(np.mean([results[k]["train_seconds"] for k in keys]))
            rows.append(entry)
    return rows


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
        episodes = [results[k]["episodes"]["validation"] for k in keys]
        stats = _row_stats(episodes, config.bootstrap)
        point = {**asdict(tuned), "sr": stats["sr"], "cgc": stats["cgc"], "sr_ci": stats["sr_ci"]}
        point["validation_sr"] = stats["sr"]
        grid.append(point)
        current = best.get(row.name)
        if current is None or (point["sr"], point["cgc"]) > (current["sr"], current["cgc"]):
            best[row.name] = point
    return {"grid": grid, "best": best}


def render_tune(payload: Mapping[str, Any]) -> str:
    """The chosen values per row, and a ``Tuned(...)`` line to paste into the preset."""
    table = [{"row": name, **point} for name, point in payload["best"].items()]
    columns = ["row", "dense_weight", "learning_rate", "cql_alpha", "iql_weight_temp", "sr", "cgc"]
    lines = ["### Chosen on validation (best SR, then CGC)", "", markdown_table(table, columns)]
    lines += ["", "```python"]
    for point in payload["best"].values():
        lines.append(
            f"Tuned({point['algorithm']!r}, {point['reward']!r}, "
            f"dense_weight={point['dense_weight']}, learning_rate={point['learning_rate']}, "
            f"cql_alpha={point['cql_alpha']}, iql_weight_temp={point['iql_weight_temp']}, "
            f"validation_sr={point['sr']:.1f}),"
        )
    lines.append("```")
    return "\n".join(lines)


def judge_baseline(config: EmbodiedBenchConfig) -> dict[str, Any]:
    """Latency, and SR on a held-out subset, of the judge picking every action (judge-as-policy)."""
    from rewardgym.agents.evaluation.household import (
        EvalConfig,
        evaluate_household,
        measure_latency,
    )
    from rewardgym.agents.judge_policy import JudgePolicy
    from rewardgym.agents.labelling.coren import resolve_judge
    from rewardgym.envs.household.v1 import ACTION_NAMES

    env_id = config.collect.env
    policy = JudgePolicy(
        resolve_judge(config.judge),
        n_prompts=config.n_prompts,
        env_id=env_id,
        action_names=ACTION_NAMES,
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


def oracle_vs_sparse(rows: Sequence[Mapping[str, Any]], split: str = "fine") -> dict[str, Any]:
    """CQL on the oracle reward against sparse CQL and BC on one split: the setting's check."""
    by = {(r["algorithm"], r["reward"]): r for r in rows if r["split"] == split}
    oracle, sparse, bc = (
        by.get(("cql", "oracle")),
        by.get(("cql", "sparse")),
        by.get(("bc", "none")),
    )
    if oracle is None or sparse is None:
        return {}
    out: dict[str, Any] = {
        "split": split,
        "oracle_sr": oracle["sr"],
        "sparse_sr": sparse["sr"],
        "oracle_minus_sparse": oracle["sr"] - sparse["sr"],
        "intervals_overlap": intervals_overlap(oracle["sr_ci"], sparse["sr_ci"]),
    }
    if bc is not None:
        out["bc_sr"] = bc["sr"]
        out["oracle_minus_bc"] = oracle["sr"] - bc["sr"]
    span = oracle["sr"] - sparse["sr"]
    coren = {
        r["reward"]: (r["sr"] - sparse["sr"]) / span if span else float("nan")
        for (alg, _), r in by.items()
        if alg == "cql" and r["reward"] not in ("sparse", "oracle")
    }
    out["coren_position"] = coren
    """Where each COREN scheme lands between sparse (0) and oracle (1) CQL."""
    return out


def _split_table(rows: Sequence[Mapping[str, Any]], splits: Sequence[str]) -> str:
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        if r["split"] not in splits:
            continue
        entry = table.setdefault((r["algorithm"], r["reward"]), {"algorithm": r["algorithm"]})
        entry["reward"] = r["reward"]
        lo, hi = r["sr_ci"]
        entry[f"{r['split']} SR"] = f"{r['sr']:.1f} [{lo:.1f}, {hi:.1f}]"
        entry[f"{r['split']} CGC"] = r["cgc"]
        entry[f"{r['split']} Plan"] = r["plan"]
    columns = ["algorithm", "reward"]
    for split in splits:
        columns += [f"{split} SR", f"{split} CGC", f"{split} Plan"]
    return markdown_table(list(table.values()), columns, digits=1)


CONSTANT = "n/a (one class or equal returns)"
"""What an undefined correlation says: held-out episodes all succeed, all fail or tie."""
TIED = "n/a (oracle SR = sparse SR)"
"""What an undefined position between sparse and oracle CQL says."""


def render_markdown(payload: Mapping[str, Any]) -> str:
    """The suite's Markdown report: main and cross-domain tables, the check, data, timings."""
    rows, meta, config = payload["rows"], payload["meta"], payload["config"]
    data = payload["data"]
    parts = [
        f"## Embodied suite ({config['name']}): Household-v1, {data['episodes']} trajectories "
        f"(success {data['success_rate']:.1f}%, expert {data['mean_expert_steps']:.1f} steps), "
        f"seeds {config['seeds']}, {config['training']['n_steps']} steps, judge {config['judge']}",
        "",
        "SR [95% interval over seeds and episodes] / CGC / Plan in percent on held-out "
        "instructions (COREN Tables 1, 3 and 5 in shape). Hyperparameters: "
        f"{meta.get('tuned_source', '')}.",
        "",
        "### Default layout",
        "",
        _split_table(rows, ("fine", "abstract")),
        "",
        "### Shifted layout (cross-domain)",
        "",
        _split_table(rows, ("shifted-fine", "shifted-abstract")),
    ]
    check = oracle_vs_sparse(rows)
    if check:
        parts += ["", "### Does a good dense reward matter here? (CQL, held-out fine)", ""]
        line = {k: v for k, v in check.items() if k != "coren_position"}
        parts.append(markdown_table([line], list(line), digits=1))
        if check["coren_position"]:
            parts += ["", "COREN schemes between sparse (0) and oracle (1):", ""]
            table = [{"reward": k, "position": v} for k, v in check["coren_position"].items()]
            parts.append(
                markdown_table(
                    table, ["reward", "position"], digits=2, undefined={"position": TIED}
                )
            )
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
    timings = meta.get("timings_seconds", {})
    parts += ["", "### Wall time (seconds)", "", markdown_table([timings], list(timings), digits=1)]
    return "\n".join(parts)


def plot_results(rows: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """A bar chart of SR with its interval per row, on the fine and abstract splits."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(f"{r['algorithm']}/{r['reward']}" for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(max(8, len(names) * 0.6), 4), sharey=True)
    for ax, split in zip(axes, ("fine", "abstract"), strict=True):
        picked = {f"{r['algorithm']}/{r['reward']}": r for r in rows if r["split"] == split}
        values = [picked[n]["sr"] if n in picked else 0.0 for n in names]
        errors = np.array(
            [
                [v - picked[n]["sr_ci"][0], picked[n]["sr_ci"][1] - v] if n in picked else [0, 0]
                for n, v in zip(names, values, strict=True)
            ]
        ).T
        ax.bar(np.arange(len(names)), values, yerr=errors, capsize=3)
        ax.set_xticks(np.arange(len(names)))
        ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
        ax.set_title(f"held-out {split}, default layout")
        ax.set_ylabel("SR (%)")
    fig.tight_layout()
    fig.savefig(path, dpi=100, format="png")
    plt.close(fig)
    return path


def write_all(root: Path, payload: dict[str, Any]) -> None:
    """results.json (``rows``, ``data``, ``meta``, ``config``), .csv, .md and the plot, atomically."""
    import csv
    import io
    import json

    from rewardgym.benchmarks.provenance import run_provenance
    from rewardgym.runtime import atomic_path, write_atomic, write_json_atomic

    root.mkdir(parents=True, exist_ok=True)
    meta = payload["meta"]
    meta["oracle_vs_sparse"] = oracle_vs_sparse(payload["rows"])
    meta.setdefault("suite", "embodied")
    meta.setdefault("preset", payload["config"]["name"])
    meta.setdefault("wall_seconds", meta.get("timings_seconds", {}).get("total"))
    meta.update(run_provenance())
    write_json_atomic(root / "results.json", payload)
    columns: list[str] = []
    for row in payload["rows"]:
        columns.extend(k for k in row if k not in columns)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    for row in payload["rows"]:
        writer.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()})
    write_atomic(root / "results.csv", buffer.getvalue())
    write_atomic(root / "results.md", render_markdown(payload) + "\n")
    with atomic_path(root / "sr_by_row.png") as tmp:
        plot_results(payload["rows"], tmp)


__all__ = [
    "aggregate",
    "judge_baseline",
    "oracle_vs_sparse",
    "plot_results",
    "render_markdown",
    "render_tune",
    "tune_summary",
    "write_all",
]
