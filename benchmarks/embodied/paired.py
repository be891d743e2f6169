"""A page's intervals and paired differences: each row's figures from a split's draws, and their tables.

``interval_rows`` gives every row, on every split, its SR, CGC and Plan with 95% intervals over
training seeds, tasks and episodes (``rewardgym.benchmarks.embodied.stats.SplitResamples``),
its paired differences (``vs``) and, for COREN's CQL rows, its position between sparse CQL and
each reference dense reward. ``render_intervals`` is the part of a page that shows them: the
main and cross-domain tables, the paired tables, COREN against its ablations, and the check
of whether a good dense reward matters. A page and its reprint from the kept per-episode
results (``python -m rewardgym.benchmarks.embodied.stats``) both print through it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rewardgym.agents.evaluation.bootstrap import format_difference, is_real, verdict
from rewardgym.benchmarks.embodied.stats import METRIC_FIELDS, SplitResamples
from rewardgym.benchmarks.provenance import PACKAGE_ROOT
from rewardgym.benchmarks.tables import markdown_table

PAIRED_REFERENCES: tuple[str, ...] = ("cql/sparse", "bc/none")
"""The rows every other row is compared with, episode by episode (each row's ``vs``)."""
ABLATION_REFERENCES: dict[str, tuple[str, ...]] = {
    "cql/coren": ("cql/single-prompt", "cql/average")
}
"""COREN's row minus its ensemble ablations (one prompt: Table 5; the mean of C, S, T instead
of the orchestrator: Table 3), in its ``vs`` beside :data:`PAIRED_REFERENCES`."""
REFERENCES: tuple[str, ...] = ("oracle", "perfect-judge")
"""The dense references a COREN row is placed against: potential shaping and the perfect judge."""


def _row_stats(samples: SplitResamples, name: str) -> dict[str, Any]:
    """A row's metrics, their 95% intervals and per-seed spread, from the split's draws."""
    out: dict[str, Any] = {}
    for metric in METRIC_FIELDS:
        out[metric] = samples.mean(name, metric)
        out[f"{metric}_ci"] = samples.interval(name, metric)
        out[f"{metric}_seed_std"] = samples.seed_std(name, metric)
    out["episodes"] = int(samples.scores[name]["sr"].size)
    return out


def paired_figures(samples: SplitResamples, name: str) -> dict[str, Any]:
    """``vs`` and ``position`` of one row: its paired differences and its place between rows.

    ``vs[reference][metric]`` is ``{"diff", "ci", "verdict"}`` for every reference of
    :data:`PAIRED_REFERENCES` and of its :data:`ABLATION_REFERENCES` the split has, the row
    itself excepted. A CQL row on a COREN scheme gets ``position[reference] = {"value",
    "ci"}``: ``(row - sparse) / (reference - sparse)`` in SR, for every reward of
    :data:`REFERENCES` trained with CQL; where reference - sparse is noise (its paired interval
    holds 0) the position is undefined: NaN, with ``undefined`` saying why.
    """
    out: dict[str, Any] = {}
    vs: dict[str, dict[str, Any]] = {}
    for reference in (*PAIRED_REFERENCES, *ABLATION_REFERENCES.get(name, ())):
        if reference == name or reference not in samples.scores:
            continue
        vs[reference] = {}
        for metric in METRIC_FIELDS:
            point, interval = samples.difference(name, reference, metric)
            vs[reference][metric] = {"diff": point, "ci": interval, "verdict": verdict(interval)}
    if vs:
        out["vs"] = vs
    algorithm, _, reward = name.partition("/")
    sparse = "cql/sparse"
    if algorithm == "cql" and reward not in ("sparse", *REFERENCES) and sparse in samples.scores:
        position: dict[str, Any] = {}
        for reference in REFERENCES:
            high = f"cql/{reference}"
            if high not in samples.scores:
                continue
            gap, gap_ci = samples.difference(high, sparse, "sr")
            if is_real(gap_ci):
                value, interval = samples.position(name, sparse, high)
                position[reference] = {"value": value, "ci": interval}
            else:
                why = f"{high} - {sparse} is noise: {format_difference(gap, gap_ci)}"
                position[reference] = {"value": math.nan, "ci": [math.nan] * 2, "undefined": why}
        if position:
            out["position"] = position
    return out


def interval_rows(
    by_split: Mapping[str, SplitResamples], names: Sequence[str]
) -> list[dict[str, Any]]:
    """Per row, then per split: its metrics, intervals and paired figures from the split's draws."""
    rows = []
    for name in names:
        algorithm, _, reward = name.partition("/")
        for split, samples in by_split.items():
            entry: dict[str, Any] = {"algorithm": algorithm, "reward": reward, "split": split}
            entry.update(_row_stats(samples, name))
            entry.update(paired_figures(samples, name))
            rows.append(entry)
    return rows


def oracle_vs_sparse(
    rows: Sequence[Mapping[str, Any]], split: str = "fine", reference: str = "oracle"
) -> dict[str, Any]:
    """CQL on a reference dense reward against sparse CQL and BC on one split: the setting's check.

    ``reference`` is ``oracle`` (potential shaping) or ``perfect-judge`` (the simulator rating
    every step on COREN's scale); the keys keep the ``oracle_`` names either way, and
    ``reference`` says which it was. ``oracle_minus_sparse`` and ``oracle_minus_bc`` are paired
    SR differences (the rows' ``vs``) with ``_ci`` and ``_verdict``; ``coren_position`` places
    each COREN scheme between sparse (0) and the reference (1) CQL, ``coren_position_ci`` its
    interval from the same draws.
    """
    by = {(r["algorithm"], r["reward"]): r for r in rows if r["split"] == split}
    oracle, sparse, bc = (
        by.get(("cql", reference)),
        by.get(("cql", "sparse")),
        by.get(("bc", "none")),
    )
    if oracle is None or sparse is None:
        return {}
    against = oracle.get("vs", {})
    if "cql/sparse" not in against:
        raise ValueError(
            f"row cql/{reference} on split {split!r} has no paired difference from cql/sparse "
            "('vs'): build the rows with rewardgym.benchmarks.embodied.report.aggregate"
        )
    out: dict[str, Any] = {
        "split": split,
        "reference": reference,
        "oracle_sr": oracle["sr"],
        "sparse_sr": sparse["sr"],
    }
    compared = [("sparse", "cql/sparse")] + ([("bc", "bc/none")] if bc is not None else [])
    for short, name in compared:
        if short == "bc":
            out["bc_sr"] = bc["sr"]  # type: ignore[index]
        if name in against:
            paired = against[name]["sr"]
            out[f"oracle_minus_{short}"] = paired["diff"]
            out[f"oracle_minus_{short}_ci"] = paired["ci"]
            out[f"oracle_minus_{short}_verdict"] = paired["verdict"]
    placed = {
        r["reward"]: r["position"][reference]
        for (alg, _), r in by.items()
        if alg == "cql" and reference in r.get("position", {})
    }
    out["coren_position"] = {k: v["value"] for k, v in placed.items()}
    out["coren_position_ci"] = {k: v["ci"] for k, v in placed.items()}
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


def _paired_table(rows: Sequence[Mapping[str, Any]], splits: Sequence[str]) -> str:
    """Each row's SR minus every paired reference's on ``splits`` ("" when nothing is paired)."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    references = [ref for ref in PAIRED_REFERENCES if any(ref in r.get("vs", {}) for r in rows)]
    if not references:
        return ""
    for r in rows:
        if r["split"] not in splits:
            continue
        entry = table.setdefault((r["algorithm"], r["reward"]), {"algorithm": r["algorithm"]})
        entry["reward"] = r["reward"]
        for reference in references:
            paired = r.get("vs", {}).get(reference, {}).get("sr")
            cell = "(the reference)" if f"{r['algorithm']}/{r['reward']}" == reference else ""
            if paired is not None:
                cell = format_difference(paired["diff"], paired["ci"])
            entry[f"{r['split']} - {reference}"] = cell
    columns = ["algorithm", "reward"]
    for split in splits:
        columns += [f"{split} - {reference}" for reference in references]
    return markdown_table(list(table.values()), columns)


def _ablation_table(rows: Sequence[Mapping[str, Any]], splits: Sequence[str]) -> str:
    """COREN's row minus each of its ablations of :data:`ABLATION_REFERENCES` on ``splits``."""
    lines: dict[str, dict[str, Any]] = {}
    for r in rows:
        name = f"{r['algorithm']}/{r['reward']}"
        if r["split"] not in splits:
            continue
        for reference in ABLATION_REFERENCES.get(name, ()):
            paired = r.get("vs", {}).get(reference, {}).get("sr")
            if paired is not None:
                line = lines.setdefault(reference, {"difference": f"{name} - {reference}"})
                line[r["split"]] = format_difference(paired["diff"], paired["ci"])
    if not lines:
        return ""
    return markdown_table(list(lines.values()), ["difference", *splits])


def _position_cells(check: Mapping[str, Any], reward: str) -> dict[str, Any]:
    """A COREN scheme's position and interval cells, or why they are undefined."""
    if check.get("oracle_minus_sparse") == 0.0:
        return {"position": TIED, "95% interval": TIED}
    if check.get("oracle_minus_sparse_verdict") == "noise":
        return {"position": NOISY_GAP, "95% interval": NOISY_GAP}
    low, high = check.get("coren_position_ci", {}).get(reward, (math.nan,) * 2)
    undefined = low is None or high is None or np.isnan(low) or np.isnan(high)
    value = check["coren_position"][reward]
    return {
        "position": math.nan if value is None else value,
        "95% interval": TIED if undefined else f"[{low:.2f}, {high:.2f}]",
    }


PAIRED_NOTE = (
    "Each row minus cql/sparse and minus bc/none, in SR points, on the very same held-out "
    "episodes; [95% interval] of the paired crossed bootstrap (training seeds drawn with "
    "replacement and, shared by every seed since every seed plays the same episodes, tasks "
    "then episodes; seed k of a row paired with seed k of the reference); real: the interval "
    "excludes 0, noise: it does not."
)
"""The sentence under every paired table."""


def _indicative(config: Mapping[str, Any]) -> list[str]:
    """The lines that say a preset's differences are indicative (empty unless it says so)."""
    if not config.get("indicative"):
        return []
    from rewardgym.benchmarks.embodied.virtualhome_presets import ENV_PRESETS

    env = "virtualhome" if str(config["name"]).startswith("virtualhome-") else "household"
    full = ENV_PRESETS[env]["full"]
    page = "embodied-full" if env == "household" else f"embodied-{full.name}"
    recorded = (PACKAGE_ROOT / "docs" / "results" / f"{page}.md").is_file()  # named only if it is
    where = f", docs/results/{page}.md" if recorded else ""
    return [
        f"> Indicative: at this preset's {len(config['seeds'])} training seeds these differences "
        f"are indicative only; the full preset ({len(full.seeds)} seeds{where}) settles them.",
        "",
    ]


TIED = "n/a (reference SR = sparse SR)"
"""What an undefined position between sparse and reference CQL says."""
NOISY_GAP = "undefined (reference - sparse is noise)"
"""What the position says where reference - sparse CQL is noise (its interval holds 0): a
ratio over a gap that may be 0 places nothing."""
ABLATION_NOTE = (
    "COREN's row minus its ensemble ablations (one prompt: COREN's Table 5; the mean of C, S, T "
    "instead of the orchestrator: Table 3), in SR points on the very same held-out episodes, "
    "with the paired interval as above."
)
"""The sentence under the ablation table."""


def render_intervals(rows: Sequence[Mapping[str, Any]], config: Mapping[str, Any], env: str) -> str:
    """The intervals of a page: main, paired and ablation tables per layout, then the checks.

    ``config`` needs the preset's ``name``, ``seeds`` and ``indicative``; ``env`` is the env's
    name without its namespace (VirtualHome-v0 titles its held-out split differently).
    """
    parts: list[str] = []
    played = {r["split"] for r in rows}
    indicative = _indicative(config)
    held_out = "Held-out test programs" if env == "VirtualHome-v0" else "Default layout"
    for title, splits in (
        (held_out, ("fine", "abstract")),
        ("Shifted layout (cross-domain)", ("shifted-fine", "shifted-abstract")),
    ):
        shown = tuple(split for split in splits if split in played)
        if not shown:
            continue
        parts += [f"### {title}", "", _split_table(rows, shown), ""]
        paired = _paired_table(rows, shown)
        if paired:
            parts += [f"#### {title}: paired differences in SR", "", PAIRED_NOTE, ""]
            parts += [*indicative, paired, ""]
        ablations = _ablation_table(rows, shown)
        if ablations:
            parts += [f"#### {title}: COREN minus its ablations in SR", "", ABLATION_NOTE, ""]
            parts += [*indicative, ablations, ""]
    for reference in REFERENCES:
        check = oracle_vs_sparse(rows, reference=reference)
        if not check:
            continue
        parts += [
            f"### Does a good dense reward matter here? (CQL, {reference} vs sparse, held-out fine)",
            "",
            "Differences are paired SR points (the rows' paired differences above).",
            "",
            *indicative,
        ]
        name = reference.replace("-", "_")
        line: dict[str, Any] = {"split": check["split"]}
        for key in ("oracle_sr", "sparse_sr", "oracle_minus_sparse", "bc_sr", "oracle_minus_bc"):
            if key not in check:
                continue
            value = check[key]
            if key.startswith("oracle_minus"):
                value = format_difference(value, check[f"{key}_ci"])
            line[key.replace("oracle", name)] = value
        parts += [markdown_table([line], list(line), digits=1), ""]
        if check["coren_position"]:
            parts += [
                f"COREN schemes between sparse (0) and {reference} (1), "
                "(scheme - sparse) / (reference - sparse) in SR, with its 95% interval from the "
                f"same draws; undefined where {reference} - sparse is noise:",
                "",
            ]
            table = [{"reward": k, **_position_cells(check, k)} for k in check["coren_position"]]
            columns = ["reward", "position", "95% interval"]
            parts += [markdown_table(table, columns, digits=2, undefined={"position": TIED}), ""]
    return "\n".join(parts).rstrip("\n")
