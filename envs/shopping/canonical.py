"""One canonical form of element names and typed texts, shared by the exact-match metric and the reward.

A name or text is read as its **canonical tokens**: the text is NFKC-normalised and case-folded,
then split into maximal runs of letters and digits (of any script); everything else (spaces,
punctuation, ``_``, ``-``, emoji) only separates tokens. So ``PRODUCT-3-TITLE``,
``product_3_title`` and ``Product 3 Title`` are the same name, and ``"Red  Shoes!"`` is the
same text as ``"red shoes"``. On ASCII text the tokens are exactly those of ``rouge-score``'s
default tokeniser (lower-case, maximal ``[a-z0-9]+`` runs); on other scripts this module keeps
the letters that ``rouge-score`` throws away, so ``"日本"`` and ``"中国"`` stay different.

* exact match (:func:`same_text`): equal canonical token sequences; a value with no token at all
  (``"---"``) falls back to its lower-cased, whitespace-collapsed string, so it matches only
  itself.
* ROUGE-L (:func:`token_rouge_l`): the F-measure of the longest common subsequence of the two
  canonical token sequences, ``2PR / (P + R)``, 0 when either side has no token. This is the
  reward's ROUGE-L (:func:`rewardgym.wrappers.rouge.rouge_l`) and the paper protocol's
  "similar meaning" rule for typed texts (:func:`similar_text`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from rapidfuzz.distance import LCSseq

SIMILAR_TEXT_THRESHOLD = 0.75
"""ROUGE-L at which two typed texts count as the same query under the paper protocol (the
reward's ROUGE threshold, Shop-R1 Sec. 3.3)."""

# Bytes that are not [a-z0-9] become spaces (the ASCII fast path; text is lower-cased first).
_SEPARATE = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))
_WORD = re.compile(r"[^\W_]+")
_SPACES = re.compile(r"\s+")
# Names and typed texts repeat across a session and across GRPO samples of one prompt.
_CACHE_SIZE = 1 << 16


@lru_cache(maxsize=_CACHE_SIZE)
def canonical_tokens(text: str) -> tuple[str, ...]:
    """The canonical tokens of ``text`` (module docstring): case-folded letter and digit runs."""
    if text.isascii():
        return tuple(text.lower().encode("ascii").translate(_SEPARATE).decode("ascii").split())
    folded = unicodedata.normalize("NFKC", text).casefold()
    return tuple(_WORD.findall(folded))


def canonical_text(text: str) -> str:
    """The canonical form exact match compares: tokens joined by one space (see the fallback)."""
    tokens = canonical_tokens(text)
    if tokens:
        return " ".join(tokens)
    return _SPACES.sub(" ", text).strip().lower()


def same_text(predicted: str, truth: str) -> bool:
    """Whether two names or texts are equal in canonical form."""
    return canonical_text(predicted) == canonical_text(truth)


def token_rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F-measure of ``prediction`` against ``reference`` over their canonical tokens."""
    pred = canonical_tokens(prediction)
    ref = canonical_tokens(reference)
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


def similar_text(predicted: str, truth: str, threshold: float = SIMILAR_TEXT_THRESHOLD) -> bool:
    """The paper protocol's rule for a typed text: equal, or ROUGE-L ``>= threshold``."""
    return same_text(predicted, truth) or token_rouge_l(predicted, truth) >= threshold - 1e-12


def clear_token_cache() -> None:
    """Empty the tokenisation cache (for benchmarks that time cold calls)."""
    canonical_tokens.cache_clear()


__all__ = [
    "SIMILAR_TEXT_THRESHOLD",
    "canonical_text",
    "canonical_tokens",
    "clear_token_cache",
    "same_text",
    "similar_text",
    "token_rouge_l",
]
