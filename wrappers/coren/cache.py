"""An on-disk cache of judge answers, keyed by judge, prompt and inputs, safe to resume.

Answers live in one SQLite table (``key -> answer``). Every batch is committed as soon as it
is answered, so a run killed at any point keeps everything it had paid for, and a rerun asks
the judge only for what is missing. Backend failures (``None``) are never stored.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.wrappers.coren.judges.base import Judge, JudgeRequest

_CHUNK = 500  # SQLite's default limit on bound variables is 999


def request_key(judge: Judge, request: JudgeRequest) -> str:
    """The cache key of ``request`` for ``judge``: a hash of judge, prompt, kind and inputs."""
    prompt = request.prompt
    material = json.dumps(
        [
            judge.identity,
            prompt.name,
            prompt.fingerprint,
            request.kind,
            judge.cache_inputs(request),
        ],
        sort_keys=True,
        default=list,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


@dataclass
class CacheStats:
    """How many answers came from the cache and how many were asked from the judge."""

    hits: int = 0
    misses: int = 0


class JudgeCache:
    """A SQLite file of judge answers; ``path=None`` keeps them in memory only."""

    def __init__(self, path: str | Path | None = None) -> None:
        """Open (or create) the cache at ``path``."""
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(self.path) if self.path else ":memory:")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT)"
            )
            self._db.commit()
        except sqlite3.DatabaseError as err:
            raise RuntimeError(
                f"judge cache {self.path}: cannot open it as SQLite ({err}); delete the file "
                "or pass another --cache path"
            ) from err
        self.stats = CacheStats()

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        """The stored answers among ``keys``."""
        found: dict[str, str] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), _CHUNK):
            chunk = unique[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, answer FROM answers WHERE key IN ({marks})", chunk
            )
            found.update(rows.fetchall())
        return found

    def put_many(self, items: dict[str, str]) -> None:
        """Store answers and commit them at once."""
        self._db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?)", list(items.items()))
        self._db.commit()

    def __len__(self) -> int:
        """The number of stored answers."""
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()


def _freeze(value: Any) -> Any:
    """A hashable copy of nested lists and tuples, for de-duplicating requests in memory."""
    if isinstance(value, str | tuple):
        return value
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def cached_complete(
    judge: Judge,
    requests: Sequence[JudgeRequest],
    cache: JudgeCache | None,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> list[str | None]:
    """Answer ``requests`` from ``cache`` where possible and from ``judge`` in batches otherwise.

    Equal requests (same judge inputs) are asked once; each answered batch is committed
    before the next is sent, so an interrupted call loses at most one batch. ``on_batch``
    is called with the number of requests each answered batch stood for.
    """
    if cache is None:
        cache = JudgeCache(None)
    slots: dict[Any, int] = {}
    owners: list[JudgeRequest] = []
    index = []
    for request in requests:
        local = (request.kind, request.prompt.name, _freeze(judge.cache_inputs(request)))
        slot = slots.setdefault(local, len(owners))
        if slot == len(owners):
            owners.append(request)
        index.append(slot)
    weight = np.bincount(np.asarray(index, dtype=np.int64), minlength=len(owners))
    keys = [request_key(judge, r) for r in owners]
    found: dict[str, str] = cache.get_many(keys)
    hit = [k in found for k in keys]
    cache.stats.hits += int(sum(w for w, h in zip(weight, hit, strict=True) if h))
    if on_batch is not None and any(hit):
        on_batch(int(weight[np.asarray(hit)].sum()))
    pending = [i for i, h in enumerate(hit) if not h]
    cache.stats.misses += len(pending)
    for start in range(0, len(pending), batch_size):
        chunk = pending[start : start + batch_size]
        answers = judge.complete([owners[i] for i in chunk])
        fresh = {keys[i]: a for i, a in zip(chunk, answers, strict=True) if a is not None}
        cache.put_many(fresh)
        found.update(fresh)
        if on_batch is not None:
            on_batch(int(weight[chunk].sum()))
    return [found.get(keys[slot]) for slot in index]


__all__ = ["CacheStats", "JudgeCache", "cached_complete", "request_key"]
