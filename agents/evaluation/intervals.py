"""95% bootstrap intervals of the shopping metrics, resampling test sessions (not steps).

Steps of one session are not independent (one shopper, one intent), so the unit resampled is
the session: each bootstrap sample draws as many sessions as were scored, with replacement,
and recomputes every metric from the drawn sessions' steps, pooled over all the runs of a row
(training seeds x sampling seeds, scored on the same sessions), with the weights of
:func:`rewardgym.agents.evaluation.bootstrap.cluster_weights`. The interval is the 2.5th and
97.5th percentile of the bootstrap distribution (percentile bootstrap, Efron and Tibshirani
1993, ch. 13). Type macro-F1 is recomputed from per-session confusion counts, so its interval
is exact for that (non-additive) statistic too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rewardgym.agents.evaluation.bootstrap import CONFIDENCE, cluster_weights
from rewardgym.agents.evaluation.shopping import Protocol, StepRecord, protocol_records
from rewardgym.envs.shopping.metrics import protocol_match
from rewardgym.envs.shopping.schema import ACTION_TYPES

BOOTSTRAP_SAMPLES = 2000


def _counts(runs: Sequence[Sequence[StepRecord]], protocol: Protocol) -> dict[str, np.ndarray]:
    """Per-session sums (rows: sessions) of every count a metric needs."""
    chosen = [protocol_records(run, protocol) for run in runs]
    sessions = sorted({r.session for run in chosen for r in run})
    where = {s: i for i, s in enumerate(sessions)}
    k = len(ACTION_TYPES)
    shape = (len(sessions),)
    out = {
        "n": np.zeros(shape),
        "exact": np.zeros(shape),
        "type_ok": np.zeros(shape),
        "count": np.zeros((*shape, k)),
        "exact_by": np.zeros((*shape, k)),
        "tp": np.zeros((*shape, k)),
        "fp": np.zeros((*shape, k)),
        "fn": np.zeros((*shape, k)),
    }
    for run in chosen:
        for record in run:
            i = where[record.session]
            truth = ACTION_TYPES.index(record.truth.type)
            pred = record.prediction
            guess = ACTION_TYPES.index(pred.type) if pred is not None else -1
            exact = protocol_match(pred, record.truth, similar=protocol == "paper")
            out["n"][i] += 1
            out["exact"][i] += exact
            out["type_ok"][i] += guess == truth
            out["count"][i, truth] += 1
            out["exact_by"][i, truth] += exact
            if guess == truth:
                out["tp"][i, truth] += 1
            else:
                out["fn"][i, truth] += 1
                if guess >= 0:
                    out["fp"][i, guess] += 1
    return out


def _macro_f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    denominator = 2 * tp + fp + fn
    present = denominator > 0
    f1 = np.where(present, 2 * tp / np.where(present, denominator, 1), 0.0)
    return 100.0 * f1.sum(axis=-1) / np.maximum(present.sum(axis=-1), 1)


def bootstrap_intervals(
    runs: Sequence[Sequence[StepRecord]],
    protocol: Protocol = "natural",
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
) -> dict[str, list[float]]:
    """``[lo, hi]`` (percent) of exact match, type accuracy, type F1, per-type exact match and
    the share of steps on which the row predicted each action type."""
    counts = _counts(runs, protocol)
    n_sessions = len(counts["n"])
    if n_sessions == 0:
        return {}
    weights = cluster_weights(n_sessions, samples=samples, seed=seed)
    steps = weights @ counts["n"]
    values = {
        "exact_match": 100.0 * (weights @ counts["exact"]) / steps,
        "type_accuracy": 100.0 * (weights @ counts["type_ok"]) / steps,
        "type_f1": _macro_f1(
            weights @ counts["tp"], weights @ counts["fp"], weights @ counts["fn"]
        ),
    }
    per_type = weights @ counts["count"]
    per_exact = weights @ counts["exact_by"]
    predicted = weights @ (counts["tp"] + counts["fp"])  # steps the row predicted each type on
    for k, kind in enumerate(ACTION_TYPES):
        if counts["count"][:, k].sum() > 0:
            denominator = np.where(per_type[:, k] > 0, per_type[:, k], np.nan)
            values[f"exact_{kind}"] = 100.0 * per_exact[:, k] / denominator
        values[f"predicted_share_{kind}"] = 100.0 * predicted[:, k] / steps
    tail = 100.0 * (1 - CONFIDENCE) / 2
    return {
        key: [float(np.nanpercentile(v, tail)), float(np.nanpercentile(v, 100 - tail))]
        for key, v in values.items()
    }


__all__ = ["BOOTSTRAP_SAMPLES", "CONFIDENCE", "bootstrap_intervals"]
