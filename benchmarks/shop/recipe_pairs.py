"""Paired recipe comparison of a shop sweep: each candidate minus a reference, seed k with seed k, on the same validation steps.

A sweep run over several seeds (:mod:`rewardgym.benchmarks.shop.sweep`, ``--seeds``) scores every
candidate's SFT model of seed ``k`` on the same validation steps. :func:`seed_paired_difference`
compares two such rows step by step: for each seed both scored, the exact match of the
candidate's seed-``k`` model minus the reference's seed-``k`` model on the steps both scored
(the lookup, which has no seed, is its own reference at every seed). The point is the mean over
every (seed, step) pair; the 95% interval is a two-stage bootstrap
(:func:`~rewardgym.agents.evaluation.bootstrap.cluster_weights`: seeds drawn with replacement,
then the validation sessions within each drawn seed), so it holds both the training seed's
spread and the sessions'. :func:`choose_winner` names the candidate with the largest gain over
the reference among those whose interval excludes 0, and none when no gain does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rewardgym.agents.evaluation.bootstrap import (
    cluster_weights,
    format_difference,
    is_real,
    percentile_interval,
)
from rewardgym.benchmarks.shop.config import CONSTRAINED_SUFFIX, constrained_name
from rewardgym.benchmarks.tables import markdown_table

Hits = Mapping[tuple[int, int], float]
"""Exact match (0 or 1) of each scored (session, step) of one model."""
LOOKUP = "lookup"
"""How the paired lines name ``baseline/frequency`` as the reference."""


def hits_of(items: Sequence[Sequence[int]]) -> dict[tuple[int, int], float]:
    """A row's ``[session, step, hit]`` triples (as ``sweep.json`` keeps them) as :data:`Hits`."""
    return {(int(s), int(j)): float(h) for s, j, h in items}


def seed_paired_difference(
    mine: Mapping[int, Hits],
    theirs: Mapping[int, Hits],
    *,
    samples: int = 2000,
    seed: int = 0,
) -> dict[str, Any] | None:
    """Exact match of ``mine`` minus ``theirs`` in points, seed ``k`` against seed ``k``.

    ``mine`` and ``theirs`` map a training seed to its model's :data:`Hits`. Only seeds and
    (session, step) items both sides scored count. Returns the point difference, its 95%
    interval (two-stage bootstrap: seeds, then sessions within each seed; ``samples`` draws
    seeded by ``seed``), each seed's own difference, the seeds and the paired steps; None when
    the two sides share no item.
    """
    units: list[tuple[int, int]] = []
    delta: list[float] = []
    steps: list[float] = []
    per_seed: dict[int, float] = {}
    for k in sorted(set(mine) & set(theirs)):
        common = set(mine[k]) & set(theirs[k])
        if not common:
            continue
        by_session: dict[int, list[float]] = {}
        for key in common:
            by_session.setdefault(key[0], []).append(mine[k][key] - theirs[k][key])
        for session, values in sorted(by_session.items()):
            units.append((k, session))
            delta.append(sum(values))
            steps.append(len(values))
        per_seed[k] = 100.0 * sum(sum(v) for v in by_session.values()) / len(common)
    if not units:
        return None
    d, n = np.asarray(delta), np.asarray(steps)
    labels = [k for k, _ in units]
    weights = cluster_weights(len(units), [labels], samples=samples, seed=seed)
    draws = 100.0 * (weights @ d) / (weights @ n)
    return {
        "diff": 100.0 * float(d.sum() / n.sum()),
        "ci": percentile_interval(draws),
        "per_seed": per_seed,
        "seeds": sorted(per_seed),
        "steps": int(n.sum()),
    }


def paired_lines(
    rows: Sequence[Mapping[str, Any]],
    lookup: Hits,
    reference: str | None,
    *,
    samples: int = 2000,
) -> list[dict[str, Any]]:
    """Every candidate row group (candidate, temperature; its seeds pooled) minus the reference
    candidate at the same temperature (when ``reference`` is given) and minus the lookup.

    ``rows`` are a sweep's rows: each carries ``candidate``, ``temperature``, ``seed`` and
    ``hits`` (``[session, step, hit]`` triples). A constrained row is paired with the
    reference's constrained row.
    """
    groups: dict[tuple[str, float], dict[int, Hits]] = {}
    for row in rows:
        key = (str(row["candidate"]), float(row["temperature"]))
        groups.setdefault(key, {})[int(row["seed"])] = hits_of(row["hits"])
    lines = []
    for (name, temperature), mine in groups.items():
        others: list[tuple[str, Mapping[int, Hits]]] = []
        match = None if reference is None else _reference_row(name, reference)
        if match is not None and match != name and (match, temperature) in groups:
            others.append((match, groups[(match, temperature)]))
        others.append((LOOKUP, {k: lookup for k in mine}))
        for other, theirs in others:
            found = seed_paired_difference(mine, theirs, samples=samples)
            if found is not None:
                lines.append(
                    {"candidate": name, "temperature": temperature, "minus": other, **found}
                )
    return lines


def _reference_row(name: str, reference: str) -> str:
    """The reference's row decoded as ``name`` is (``X/constrained`` against ``REF/constrained``)."""
    return constrained_name(reference) if name.endswith(CONSTRAINED_SUFFIX) else reference


def choose_winner(
    lines: Sequence[Mapping[str, Any]], reference: str | None
) -> dict[str, Any] | None:
    """The line with the largest paired gain over ``reference`` whose interval excludes 0 (and
    is above it); None when no candidate's gain does."""
    if reference is None:
        return None
    gains = [
        line
        for line in lines
        if line["minus"] != LOOKUP and is_real(line["ci"]) and float(line["ci"][0]) > 0
    ]
    return dict(max(gains, key=lambda line: float(line["diff"]))) if gains else None


def render_pairs(
    lines: Sequence[Mapping[str, Any]], reference: str | None, winner: Mapping[str, Any] | None
) -> str:
    """The paired table and the winner's sentence, as Markdown."""
    rows = [
        {
            "candidate": line["candidate"],
            "temperature": line["temperature"],
            "minus": line["minus"],
            "seeds": len(line["seeds"]),
            "steps": line["steps"],
            "diff": format_difference(float(line["diff"]), line["ci"]),
            "per_seed": ", ".join(f"{k}: {v:+.1f}" for k, v in line["per_seed"].items()),
        }
        for line in lines
    ]
    table = markdown_table(
        rows,
        ["candidate", "temperature", "minus", "seeds", "steps", "diff", "per_seed"],
        headers=[
            "candidate",
            "T",
            "minus",
            "seeds",
            "paired steps",
            "exact match difference, points [95% CI]",
            "per seed",
        ],
        digits=1,
    )
    if reference is None:
        verdict = "No reference candidate: no winner is chosen (pass --reference)."
    elif winner is None:
        verdict = (
            f"No candidate's paired gain over {reference} excludes 0: {reference} stays the recipe."
        )
    else:
        verdict = (
            f"Winner: {winner['candidate']} (T {winner['temperature']:g}), "
            f"{format_difference(float(winner['diff']), winner['ci'])} points over {reference}."
        )
    return (
        "Paired exact-match differences: seed k against seed k on the same validation steps; "
        "95% two-stage bootstrap (seeds, then sessions within each seed).\n\n"
        + table
        + "\n\n"
        + verdict
        + "\n"
    )


__all__ = [
    "LOOKUP",
    "Hits",
    "choose_winner",
    "hits_of",
    "paired_lines",
    "render_pairs",
    "seed_paired_difference",
]
