"""ROUGE-L F-measure equal to ``rouge-score``'s ``rougeL`` (default tokeniser, no stemming), but fast.

``rouge_score.rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)`` tokenises a text by
lower-casing it with :meth:`str.lower`, replacing every run of characters outside ``[a-z0-9]``
with a space, splitting on whitespace and keeping the tokens that match ``^[a-z0-9]+$``. That
is exactly the list of maximal ``[a-z0-9]+`` runs of the lower-cased text, which is what
:func:`rouge_tokenize` returns, as ASCII bytes cut with ``bytes.translate`` (twice as fast as
a regex; ``str.lower`` is kept, so ``"İ"`` and the Kelvin sign behave as they do there).
The score is ``2PR / (P + R)`` with ``P = LCS / len(prediction)`` and
``R = LCS / len(reference)``, and 0 when either side has no token, computed with the same
floating-point operations so the values agree bit for bit. The LCS length comes from
rapidfuzz's bit-parallel C++ ``LCSseq`` over the token tuples instead of a Python DP table.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from rapidfuzz.distance import LCSseq

RougeFn = Callable[[str, str], float]
"""A ROUGE implementation: ``(prediction, reference) -> F-measure in [0, 1]``."""

# Bytes that are not [a-z0-9] become spaces; text is lower-cased first and non-ASCII characters
# are encoded as "?", so they become separators too, as rouge-score's regex makes them.
_SEPARATE = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))
# Names and typed texts repeat across a session and across GRPO samples of one prompt, so
# tokenisation is worth caching; 2**16 entries of short tuples stay within a few MiB.
_CACHE_SIZE = 1 << 16


@lru_cache(maxsize=_CACHE_SIZE)
def rouge_tokenize(text: str) -> tuple[bytes, ...]:
    """The tokens ``rouge-score``'s default tokeniser (no stemming) gives, as ASCII bytes."""
    return tuple(text.lower().encode("ascii", "replace").translate(_SEPARATE).split())


def rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F-measure of ``prediction`` against ``reference``, as ``rouge-score`` computes it."""
    pred = rouge_tokenize(prediction)
    ref = rouge_tokenize(reference)
    if not pred or not ref:
        return 0.0
    # rapidfuzz compares the tokens by their 64-bit (per-process salted) hashes: a false match
    # needs a hash collision, probability ~2**-64 per pair of distinct tokens.
    lcs = LCSseq.similarity(pred, ref)
    precision = lcs / len(pred)
    recall = lcs / len(ref)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def clear_rouge_cache() -> None:
    """Empty the tokenisation cache (for benchmarks that must time cold calls)."""
    rouge_tokenize.cache_clear()


__all__ = ["RougeFn", "clear_rouge_cache", "rouge_l", "rouge_tokenize"]
