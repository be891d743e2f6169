"""Shop-R1's evaluation metrics as pure functions: exact match, type accuracy, type macro-F1, per type.

Exact match compares names and texts in canonical form (:mod:`rewardgym.envs.shopping.canonical`).
``similar_text=True`` applies the paper protocol's rule to ``type_and_submit``: the typed text
need only "reproduce the similar meaning" of the human's, read here as ROUGE-L ``>= 0.75``
over canonical tokens (:func:`~rewardgym.envs.shopping.canonical.similar_text`), the threshold
at which the reward starts paying for the text; the element name must still match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rewardgym.envs.shopping.canonical import same_text
from rewardgym.envs.shopping.canonical import similar_text as texts_similar
from rewardgym.envs.shopping.schema import ACTION_TYPES, ShopAction, actions_match


@dataclass(frozen=True)
class ShopMetrics:
    """Percentages over a set of (prediction, truth) pairs, overall and by the truth's type."""

    n: int
    exact_match: float
    type_accuracy: float
    type_f1: float
    per_type_exact: dict[str, float] = field(default_factory=dict)
    per_type_accuracy: dict[str, float] = field(default_factory=dict)
    per_type_count: dict[str, int] = field(default_factory=dict)
    predicted_type_share: dict[str, float] = field(default_factory=dict)
    parse_rate: float = 0.0
    """Share of outputs (percent) that parsed into a valid action."""

    def to_dict(self) -> dict[str, object]:
        """A flat JSON-ready dict (``exact_match``, ``type_accuracy``, ``type_f1`` and per type)."""
        row: dict[str, object] = {
            "n": self.n,
            "exact_match": self.exact_match,
            "type_accuracy": self.type_accuracy,
            "type_f1": self.type_f1,
            "parse_rate": self.parse_rate,
        }
        for kind in ACTION_TYPES:
            row[f"exact_{kind}"] = self.per_type_exact.get(kind, 0.0)
            row[f"type_acc_{kind}"] = self.per_type_accuracy.get(kind, 0.0)
            row[f"count_{kind}"] = self.per_type_count.get(kind, 0)
            row[f"predicted_share_{kind}"] = self.predicted_type_share.get(kind, 0.0)
        return row


def _percent(num: float, den: float) -> float:
    return 100.0 * num / den if den else 0.0


def type_f1(predicted: Sequence[str | None], truth: Sequence[str]) -> float:
    """Macro F1 in percent over the three action types; an unparsed prediction is wrong for all."""
    scores = []
    for kind in ACTION_TYPES:
        tp = sum(1 for p, t in zip(predicted, truth, strict=True) if p == kind and t == kind)
        fp = sum(1 for p, t in zip(predicted, truth, strict=True) if p == kind and t != kind)
        fn = sum(1 for p, t in zip(predicted, truth, strict=True) if p != kind and t == kind)
        if tp + fp + fn == 0:
            continue
        scores.append(2 * tp / (2 * tp + fp + fn))
    return 100.0 * sum(scores) / len(scores) if scores else 0.0


def protocol_match(predicted: ShopAction | None, truth: ShopAction, *, similar: bool) -> bool:
    """Exact match, or with ``similar`` the paper's rule for typed texts (module docstring)."""
    if not similar or truth.type != "type_and_submit":
        return actions_match(predicted, truth)
    return (
        predicted is not None
        and predicted.type == truth.type
        and same_text(predicted.name, truth.name)
        and texts_similar(predicted.text, truth.text)
    )


def shop_metrics(
    predictions: Sequence[ShopAction | None],
    truths: Sequence[ShopAction],
    *,
    similar_text: bool = False,
) -> ShopMetrics:
    """All Table 2 and Table 3 metrics of Shop-R1 for aligned predictions and human actions."""
    if len(predictions) != len(truths):
        raise ValueError(f"{len(predictions)} predictions for {len(truths)} human actions")
    n = len(truths)
    exact = [
        protocol_match(p, t, similar=similar_text) for p, t in zip(predictions, truths, strict=True)
    ]
    pred_types = [p.type if p is not None else None for p in predictions]
    true_types = [t.type for t in truths]
    type_ok = [p == t for p, t in zip(pred_types, true_types, strict=True)]
    per_exact: dict[str, float] = {}
    per_acc: dict[str, float] = {}
    per_count: dict[str, int] = {}
    share: dict[str, float] = {}
    for kind in ACTION_TYPES:
        rows = [i for i, t in enumerate(true_types) if t == kind]
        per_count[kind] = len(rows)
        per_exact[kind] = _percent(sum(exact[i] for i in rows), len(rows))
        per_acc[kind] = _percent(sum(type_ok[i] for i in rows), len(rows))
        share[kind] = _percent(sum(1 for p in pred_types if p == kind), n)
    return ShopMetrics(
        n=n,
        exact_match=_percent(sum(exact), n),
        type_accuracy=_percent(sum(type_ok), n),
        type_f1=type_f1(pred_types, true_types),
        per_type_exact=per_exact,
        per_type_accuracy=per_acc,
        per_type_count=per_count,
        predicted_type_share=share,
        parse_rate=_percent(sum(1 for p in predictions if p is not None), n),
    )


__all__ = ["ShopMetrics", "protocol_match", "shop_metrics", "type_f1"]
