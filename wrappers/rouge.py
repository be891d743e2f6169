"""ROUGE-L F-measure over the project's canonical tokens: ``rouge-score``'s ``rougeL`` on ASCII text.

The reward and the exact-match metric read names and texts the same way
(:mod:`rewardgym.envs.shopping.canonical`): NFKC, case-folded, split into maximal runs of
letters and digits. On ASCII text that is exactly ``rouge_score.rouge_scorer.RougeScorer(
["rougeL"], use_stemmer=False)``'s tokeniser (lower-case, maximal ``[a-z0-9]+`` runs), and the
F-measure ``2PR / (P + R)`` with ``P = LCS / len(prediction)``, ``R = LCS / len(reference)``
(0 when either side has no token) is computed with the same floating-point operations, so the
values agree bit for bit. On other scripts ``rouge-score`` drops every non-ASCII letter (a
Japanese query scores 0 against itself); here those letters are tokens, so a query the metric
calls an exact match also earns the full ROUGE-L. The LCS length comes from rapidfuzz's
bit-parallel C++ ``LCSseq`` over the token tuples.
"""

from __future__ import annotations

from collections.abc import Callable

from rewardgym.envs.conventions import brief
from rewardgym.envs.shopping.canonical import canonical_tokens, clear_token_cache, token_rouge_l

RougeFn = Callable[[str, str], float]
"""A ROUGE implementation: ``(prediction, reference) -> F-measure in [0, 1]``."""


rouge_tokenize = canonical_tokens
"""The canonical tokens ROUGE-L compares (``rouge-score``'s tokens on ASCII text); cached."""


def rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F-measure of ``prediction`` against ``reference`` over canonical tokens."""
    return token_rouge_l(prediction, reference)


ROUGE_METRICS: dict[str, RougeFn] = {"rouge_l": rouge_l}
"""The ROUGE implementations a wrapper's ``env.spec`` names: a spec records a name, never a function
(Gymnasium's ``EnvSpec.to_json`` cannot hold one)."""


def rouge_metric(rouge: RougeFn | str) -> RougeFn:
    """``rouge`` itself when it is a function, else the metric of :data:`ROUGE_METRICS` it names.

    Example:
        >>> rouge_metric("rouge_l") is rouge_l
        True
    """
    if callable(rouge):
        return rouge
    if isinstance(rouge, str) and rouge in ROUGE_METRICS:
        return ROUGE_METRICS[rouge]
    raise ValueError(
        f"rouge {brief(rouge)} is neither a function nor a metric rewardgym names "
        f"({', '.join(ROUGE_METRICS)}); a spec records your own function by its name only, "
        "so pass the function itself again (ShopR1Reward(env, rouge=my_rouge))"
    )


def rouge_name(rouge: RougeFn | str) -> str:
    """The name ``env.spec`` records for ``rouge``: its :data:`ROUGE_METRICS` key, else its qualified name.

    Example:
        >>> rouge_name(rouge_l), rouge_name(str.count)
        ('rouge_l', 'builtins.str.count')
    """
    if isinstance(rouge, str):
        return rouge
    for name, metric in ROUGE_METRICS.items():
        if metric is rouge:
            return name
    module = getattr(rouge, "__module__", None) or type(rouge).__module__
    return f"{module}.{getattr(rouge, '__qualname__', type(rouge).__qualname__)}"


def clear_rouge_cache() -> None:
    """Empty the tokenisation cache (for benchmarks that must time cold calls)."""
    clear_token_cache()


__all__ = [
    "ROUGE_METRICS",
    "RougeFn",
    "clear_rouge_cache",
    "rouge_l",
    "rouge_metric",
    "rouge_name",
    "rouge_tokenize",
]
