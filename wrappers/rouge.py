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

from rewardgym.envs.shopping.canonical import canonical_tokens, clear_token_cache, token_rouge_l

RougeFn = Callable[[str, str], float]
"""A ROUGE implementation: ``(prediction, reference) -> F-measure in [0, 1]``."""


rouge_tokenize = canonical_tokens
"""The canonical tokens ROUGE-L compares (``rouge-score``'s tokens on ASCII text); cached."""


def rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F-measure of ``prediction`` against ``reference`` over canonical tokens."""
    return token_rouge_l(prediction, reference)


def clear_rouge_cache() -> None:
    """Empty the tokenisation cache (for benchmarks that must time cold calls)."""
    clear_token_cache()


__all__ = ["RougeFn", "clear_rouge_cache", "rouge_l", "rouge_tokenize"]
