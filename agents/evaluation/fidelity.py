"""Session fidelity: how far a simulator's sessions are from reference sessions, as divergences with intervals.

Every metric compares two sets of :class:`~rewardgym.envs.shopping.schema.ShopSession` (a
simulator's visits vs held-out logged or ground-truth visits), reads only the sessions
(pages, actions, metadata), and comes with a 95% percentile-bootstrap interval that resamples
the sessions of both sets independently. Divergences of finite samples are biased upwards,
so a table should also show the ground-truth shopper against itself with other seeds (the
noise floor). The metrics:

* ``action_type_js`` / ``action_kind_js``: Jensen-Shannon divergence (base 2, in [0, 1]) of the
  pooled step shares of the 3 action types and of the store's action kinds
  (:data:`~rewardgym.envs.shopping.synthetic.pages.ACTION_KINDS`: search, listing, filter, ...);
* ``length_w1``: Wasserstein-1 distance of the session-length distributions, in steps;
* ``add_to_cart_gap`` / ``purchase_gap``: absolute difference of the share of sessions that
  add to the cart (``add_to_cart`` or ``buy_now``) / place an order (total variation of a
  Bernoulli), an action counting only when its element is on its page;
* ``query_length_w1``: Wasserstein-1 distance of the search queries' lengths, in words;
* ``query_vocab_js``: Jensen-Shannon divergence of the queries' word frequencies;
* ``transition_js``: Jensen-Shannon divergence of the page-to-page transitions (page type of
  step t to page type of step t+1, the last step to ``end``), i.e. of the transition matrix
  weighted by how often each row is used;
* ``auc``: a classifier two-sample test: the cross-validated ROC AUC of a logistic regression
  telling simulated from reference sessions by their features (0.5: indistinguishable).

Example:
    >>> from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig, generate_sessions
    >>> a = list(generate_sessions(SyntheticShopperConfig(sessions=60, seed=0)))
    >>> report = session_fidelity(a[:30], a[30:], n_boot=20)
    >>> 0.0 <= report.metrics["action_type_js"].value < 0.05
    True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rewardgym.envs.shopping.schema import ACTION_TYPES, ShopSession
from rewardgym.envs.shopping.synthetic.pages import ACTION_KINDS, SEARCH_INPUT, action_kind

METRICS: tuple[str, ...] = (
    "action_type_js",
    "action_kind_js",
    "length_w1",
    "add_to_cart_gap",
    "purchase_gap",
    "query_length_w1",
    "query_vocab_js",
    "transition_js",
)
"""The divergence metrics of :func:`session_fidelity`, in table order (``auc`` comes on top)."""

_TOTAL = re.compile(r"<p>Total: \$([0-9]+(?:\.[0-9]+)?)</p>")
_WORD = re.compile(r"[a-z0-9$'-]+")


@dataclass(frozen=True)
class SessionSummary:
    """What the fidelity metrics read from one session."""

    length: int
    types: tuple[int, ...]
    """Steps per action type, in ``ACTION_TYPES`` order."""
    kinds: tuple[int, ...]
    """Steps per action kind, in ``ACTION_KINDS`` order."""
    queries: tuple[str, ...]
    """The texts typed into the search box."""
    transitions: tuple[tuple[str, str], ...]
    """(page type, next page type) of every step; the last step's next is ``end``."""
    added: bool
    purchased: bool
    order_value: float
    """The total of the order placed (0 when none)."""


def _on_page(name: str, page: str) -> bool:
    return f'name="{name}"' in page


def summarize(session: ShopSession) -> SessionSummary:
    """The :class:`SessionSummary` of ``session``; an action counts as done only when its element is on its page."""
    types: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    queries: list[str] = []
    added = purchased = False
    value = 0.0
    for step in session.steps:
        action = step.action
        types[action.type] += 1
        kinds[action_kind(action)] += 1
        done = action.type == "terminate" or _on_page(action.name, step.page)
        if action.type == "type_and_submit" and action.name == SEARCH_INPUT and done:
            queries.append(action.text)
        if action.type == "click" and done:
            added |= action.name in ("add_to_cart", "buy_now")
            if action.name == "place_order":
                purchased = True
                found = _TOTAL.search(step.page)
                value += float(found.group(1)) if found else 0.0
    kinds_seen = [str(s.meta.get("page_type", "unknown")) for s in session.steps]
    transitions = tuple(zip(kinds_seen, [*kinds_seen[1:], "end"], strict=True))
    return SessionSummary(
        length=len(session.steps),
        types=tuple(types[t] for t in ACTION_TYPES),
        kinds=tuple(kinds[k] for k in ACTION_KINDS),
        queries=tuple(queries),
        transitions=transitions,
        added=added,
        purchased=purchased,
        order_value=value,
    )


def js_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen-Shannon divergence (base 2, in [0, 1]) of two count or probability vectors; 0 when either is empty."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if p.sum() <= 0 or q.sum() <= 0:
        return 0.0
    p, q = p / p.sum(), q / q.sum()
    m = (p + q) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        kl_p = np.where(p > 0, p * np.log2(p / m), 0.0).sum()
        kl_q = np.where(q > 0, q * np.log2(q / m), 0.0).sum()
    return float(max(0.0, (kl_p + kl_q) / 2))


def w1_from_histograms(a: np.ndarray, b: np.ndarray) -> float:
    """Wasserstein-1 distance of two histograms over the same unit-spaced integer support."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.sum() <= 0 or b.sum() <= 0:
        return 0.0
    return float(np.abs(np.cumsum(a / a.sum()) - np.cumsum(b / b.sum())).sum())


def type_shares(sessions: Sequence[ShopSession]) -> dict[str, float]:
    """The share of all steps that each action type takes."""
    counts: Counter[str] = Counter(step.action.type for s in sessions for step in s.steps)
    total = sum(counts.values()) or 1
    return {t: counts[t] / total for t in ACTION_TYPES}


@dataclass(frozen=True)
class Estimate:
    """A point value with its 95% bootstrap interval."""

    value: float
    ci: tuple[float, float]

    def as_list(self) -> list[float]:
        """``[value, lo, hi]``, for tables."""
        return [self.value, *self.ci]


@dataclass
class _Features:
    """Per-session count matrices over a shared vocabulary, so that a resample is a row sum."""

    types: np.ndarray
    kinds: np.ndarray
    lengths: np.ndarray
    added: np.ndarray
    purchased: np.ndarray
    query_lengths: np.ndarray
    query_words: np.ndarray
    transitions: np.ndarray
    extra: np.ndarray


def _features(
    summaries: Sequence[SessionSummary],
    *,
    max_length: int,
    max_query: int,
    words: dict[str, int],
    pairs: dict[tuple[str, str], int],
) -> _Features:
    n = len(summaries)
    lengths = np.zeros((n, max_length + 1))
    query_lengths = np.zeros((n, max_query + 1))
    query_words = np.zeros((n, len(words)))
    transitions = np.zeros((n, len(pairs)))
    for i, s in enumerate(summaries):
        lengths[i, min(s.length, max_length)] = 1
        for query in s.queries:
            tokens = _WORD.findall(query.lower())
            query_lengths[i, min(len(tokens), max_query)] += 1
            for token in tokens:
                query_words[i, words[token]] += 1
        for pair in s.transitions:
            transitions[i, pairs[pair]] += 1
    n_queries = query_lengths.sum(axis=1)
    mean_query = (query_lengths * np.arange(max_query + 1)).sum(axis=1) / np.maximum(n_queries, 1)
    extra = np.column_stack(
        [
            [s.length for s in summaries],
            n_queries,
            mean_query,
            [s.order_value / 100 for s in summaries],
        ]
    )
    return _Features(
        types=np.array([s.types for s in summaries], dtype=float).reshape(n, len(ACTION_TYPES)),
        kinds=np.array([s.kinds for s in summaries], dtype=float).reshape(n, len(ACTION_KINDS)),
        lengths=lengths,
        added=np.array([s.added for s in summaries], dtype=float),
        purchased=np.array([s.purchased for s in summaries], dtype=float),
        query_lengths=query_lengths,
        query_words=query_words,
        transitions=transitions,
        extra=extra,
    )


def _metric_values(a: _Features, b: _Features, ia: np.ndarray, ib: np.ndarray) -> list[float]:
    def total(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return x[idx].sum(axis=0)

    return [
        js_divergence(total(a.types, ia), total(b.types, ib)),
        js_divergence(total(a.kinds, ia), total(b.kinds, ib)),
        w1_from_histograms(total(a.lengths, ia), total(b.lengths, ib)),
        abs(float(a.added[ia].mean() - b.added[ib].mean())),
        abs(float(a.purchased[ia].mean() - b.purchased[ib].mean())),
        w1_from_histograms(total(a.query_lengths, ia), total(b.query_lengths, ib)),
        js_divergence(total(a.query_words, ia), total(b.query_words, ib)),
        js_divergence(total(a.transitions, ia), total(b.transitions, ib)),
    ]


def _matrix(f: _Features) -> np.ndarray:
    blocks = [f.types, f.kinds, f.transitions, f.extra, f.added[:, None], f.purchased[:, None]]
    return np.hstack(blocks)


def classifier_auc(
    simulated: np.ndarray,
    reference: np.ndarray,
    *,
    folds: int = 5,
    n_boot: int = 200,
    seed: int = 0,
    paired: bool = False,
) -> Estimate:
    """Cross-validated AUC of a logistic regression telling ``simulated`` rows from ``reference`` rows.

    With ``paired`` (row i of both sides comes from the same intent) both rows of a pair stay
    in the same fold: a model that saw one of them, labelled the other way, would otherwise
    score the other below chance. The interval resamples the out-of-fold scores (it holds the
    fitted models fixed). With fewer than ``folds`` rows on a side the test cannot run and
    reports 0.5 with a [0, 1] interval.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedGroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if min(len(simulated), len(reference)) < folds:
        return Estimate(0.5, (0.0, 1.0))
    if paired and len(simulated) != len(reference):
        raise ValueError(
            f"paired rows need equal counts (got {len(simulated)} and {len(reference)})"
        )
    x = np.vstack([simulated, reference])
    y = np.concatenate([np.ones(len(simulated)), np.zeros(len(reference))])
    groups = np.concatenate([np.arange(len(simulated))] * 2) if paired else np.arange(len(y))
    scores = np.zeros(len(y))
    splitter = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed)
    for train, test in splitter.split(x, y, groups):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))
        model.fit(x[train], y[train])
        scores[test] = model.predict_proba(x[test])[:, 1]
    value = float(roc_auc_score(y, scores))
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    boots = []
    for _ in range(n_boot):
        idx = np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))])
        boots.append(roc_auc_score(y[idx], scores[idx]))
    lo, hi = np.percentile(boots, [2.5, 97.5]) if boots else (value, value)
    return Estimate(value, (float(lo), float(hi)))


@dataclass(frozen=True)
class FidelityReport:
    """Every fidelity metric of one simulator against one reference set, with 95% intervals."""

    metrics: dict[str, Estimate]
    auc: Estimate
    simulated: dict[str, float]
    """Plain statistics of the simulated sessions (means, rates, type shares)."""
    reference: dict[str, float]
    """The same statistics of the reference sessions."""

    def row(self) -> dict[str, object]:
        """A flat JSON-ready row: each metric and its ``_ci``, ``auc`` and ``auc_ci``, then both sides' statistics."""
        out: dict[str, object] = {}
        for name, est in self.metrics.items():
            out[name], out[f"{name}_ci"] = est.value, list(est.ci)
        out["auc"], out["auc_ci"] = self.auc.value, list(self.auc.ci)
        out["simulated"], out["reference"] = dict(self.simulated), dict(self.reference)
        return out


def session_statistics(summaries: Sequence[SessionSummary]) -> dict[str, float]:
    """Mean length, conversion rates, mean order value and the action-type shares of ``summaries``."""
    n = max(len(summaries), 1)
    steps = sum(s.length for s in summaries) or 1
    buyers = [s.order_value for s in summaries if s.purchased]
    stats = {
        "sessions": float(len(summaries)),
        "mean_length": sum(s.length for s in summaries) / n,
        "add_to_cart_rate": sum(s.added for s in summaries) / n,
        "purchase_rate": sum(s.purchased for s in summaries) / n,
        "mean_order_value": sum(buyers) / len(buyers) if buyers else 0.0,
    }
    for i, kind in enumerate(ACTION_TYPES):
        stats[f"share_{kind}"] = sum(s.types[i] for s in summaries) / steps
    return stats


def session_fidelity(
    simulated: Sequence[ShopSession],
    reference: Sequence[ShopSession],
    *,
    n_boot: int = 200,
    seed: int = 0,
    folds: int = 5,
    paired: bool = False,
) -> FidelityReport:
    """Compare ``simulated`` sessions with ``reference`` sessions on every metric of the module docstring.

    ``paired``: session i of both sets comes from the same intent (see :func:`classifier_auc`).
    """
    if not simulated or not reference:
        raise ValueError(
            f"session_fidelity needs sessions on both sides (got {len(simulated)} simulated, "
            f"{len(reference)} reference)"
        )
    sa = [summarize(s) for s in simulated]
    sb = [summarize(s) for s in reference]
    both = [*sa, *sb]
    words = sorted({w for s in both for q in s.queries for w in _WORD.findall(q.lower())})
    pairs = sorted({p for s in both for p in s.transitions})
    max_query = max((len(_WORD.findall(q.lower())) for s in both for q in s.queries), default=0)

    def features(summaries: list[SessionSummary]) -> _Features:
        return _features(
            summaries,
            max_length=max(s.length for s in both),
            max_query=max_query,
            words={w: i for i, w in enumerate(words)},
            pairs={p: i for i, p in enumerate(pairs)},
        )

    fa, fb = features(sa), features(sb)
    ia, ib = np.arange(len(sa)), np.arange(len(sb))
    point = _metric_values(fa, fb, ia, ib)
    rng = np.random.default_rng(seed)
    boots = np.array(
        [
            _metric_values(
                fa, fb, rng.integers(len(sa), size=len(sa)), rng.integers(len(sb), size=len(sb))
            )
            for _ in range(n_boot)
        ]
    ).reshape(n_boot, len(METRICS))
    metrics = {}
    for j, name in enumerate(METRICS):
        lo, hi = np.percentile(boots[:, j], [2.5, 97.5]) if n_boot else (point[j], point[j])
        metrics[name] = Estimate(float(point[j]), (float(lo), float(hi)))
    auc = classifier_auc(
        _matrix(fa), _matrix(fb), folds=folds, n_boot=n_boot, seed=seed, paired=paired
    )
    return FidelityReport(metrics, auc, session_statistics(sa), session_statistics(sb))


__all__ = [
    "METRICS",
    "Estimate",
    "FidelityReport",
    "SessionSummary",
    "classifier_auc",
    "js_divergence",
    "session_fidelity",
    "session_statistics",
    "summarize",
    "type_shares",
    "w1_from_histograms",
]
