"""An on-disk cache of judge answers, keyed by judge, prompt and inputs, safe to resume.

Answers live in one SQLite table (``key -> answer``). Every batch is committed as soon as it
is answered, so a run killed at any point keeps everything it had paid for, and a rerun asks
the judge only for what is missing. Backend failures (``None``) are never stored.

Only a file rewardgym created is a cache: a new cache carries :data:`APPLICATION_ID` in its
SQLite header, and an existing file without it (a database of the user's, any other file) is
refused with :class:`NotACacheError` before it is opened for writing, so it is never changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.errors import NotACacheError
from rewardgym.wrappers.judges.base import Judge, JudgeRequest, freeze_inputs
from rewardgym.wrappers.judges.prompts import Prompt

_SURROGATE = re.compile("[\ud800-\udfff]")
_CHUNK = 500  # SQLite before 3.32 binds at most 999 variables per statement

APPLICATION_ID = 0x52474A43
"""``PRAGMA application_id`` of every judge cache ("RGJC"): how a file is known to be one."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLE_SQL = "CREATE TABLE answers (key TEXT PRIMARY KEY, answer TEXT)"
_LEGACY_SCHEMA = {("table", "answers", _TABLE_SQL), ("index", "sqlite_autoindex_answers_1", None)}


def is_cache_file(path: str | Path) -> bool:
    """Whether ``path`` is a judge cache rewardgym created; False for a new path or an empty file.

    Raises :class:`NotACacheError` for anything else: a directory, a file that is not SQLite,
    or a SQLite database without :data:`APPLICATION_ID`. Only the header is read, and a
    database without the id (a cache written before the id existed) is opened read-only and
    immutable to compare its schema with the cache's, so nothing is ever written to it.
    """
    path = Path(path)
    if not path.exists():
        return False
    if not path.is_file():
        raise _not_ours(path, "not a regular file")
    with path.open("rb") as handle:
        header = handle.read(100)
    if not header:  # an empty file holds nothing to lose (a run killed while creating it)
        return False
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise _not_ours(path, "not a SQLite database")
    application_id = int.from_bytes(header[68:72], "big", signed=True)
    if application_id == APPLICATION_ID or (application_id == 0 and _legacy_cache(path)):
        return True
    raise _not_ours(path, "a SQLite database without the judge cache's application id")


def _legacy_cache(path: Path) -> bool:
    """Whether the database at ``path`` holds exactly the cache's table (read-only, immutable)."""
    uri = path.absolute().as_uri() + "?mode=ro&immutable=1"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            rows = db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError:
        return False
    return {(kind, name, sql) for kind, name, sql in rows} == _LEGACY_SCHEMA


def _not_ours(path: Path, reason: str) -> NotACacheError:
    return NotACacheError(
        f"judge cache {path}: the file exists and is not a cache rewardgym created ({reason}); "
        "nothing there is touched: pass a new file to --cache (cache_path), or leave it out "
        "for one under $REWARDGYM_HOME/judge-cache"
    )


_ENCODER = json.JSONEncoder(sort_keys=True, default=list)


@lru_cache(maxsize=1024)
def _key_prefix(identity: str, prompt: str, fingerprint: str, kind: str) -> str:
    """The JSON text of the key material up to the inputs, shared by every request of a kind."""
    return _ENCODER.encode([identity, prompt, fingerprint, kind])[:-1] + ", "


def inputs_key(judge: Judge, kind: str, prompt: Prompt, inputs: Any) -> str:
    """The cache key of a ``kind`` request under ``prompt`` whose ``judge.cache_inputs`` are ``inputs``.

    It is the SHA-256 of ``json.dumps([identity, prompt name, fingerprint, kind, inputs],
    sort_keys=True, default=list)``; only the inputs are encoded per request.
    """
    prefix = _key_prefix(judge.identity, prompt.name, prompt.fingerprint, kind)
    material = prefix + _ENCODER.encode(inputs) + "]"
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def request_key(judge: Judge, request: JudgeRequest) -> str:
    """The cache key of ``request`` for ``judge``: a hash of judge, prompt, kind and inputs."""
    return inputs_key(judge, request.kind, request.prompt, judge.cache_inputs(request))


@dataclass
class CacheStats:
    """How many answers came from the cache and how many were asked from the judge."""

    hits: int = 0
    misses: int = 0


class JudgeCache:
    """A SQLite file of judge answers; ``path=None`` keeps them in memory only."""

    def __deepcopy__(self, memo: dict[int, Any]) -> JudgeCache:
        """The cache itself: one store of answers, shared by a copied env spec."""
        return self

    def __init__(self, path: str | Path | None = None) -> None:
        """Open the cache at ``path``, or create it there when the path is new.

        An existing file that is not a cache rewardgym created raises :class:`NotACacheError`
        and is left as it was (see :func:`is_cache_file`).
        """
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            is_cache_file(self.path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(self.path) if self.path else ":memory:")
            self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            self._db.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL still survives a killed process (only power loss can drop the
            # last commits) and spares one fsync per committed batch.
            self._db.execute("PRAGMA synchronous=NORMAL")
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
        """The stored answers among ``keys``; a row that is not text counts as missing.

        Such a row (a NULL or a blob, from a damaged file or another program) is asked
        again and replaced, instead of reaching the answer parsers.
        """
        found: dict[str, str] = {}
        unique = list(dict.fromkeys(keys))
        with self._reporting("read"):
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, answer FROM answers WHERE key IN ({marks})", chunk
                )
                found.update((k, a) for k, a in rows.fetchall() if isinstance(a, str))
        return found

    def put_many(self, items: dict[str, str]) -> None:
        """Store answers and commit them at once (lone surrogates are stored as U+FFFD)."""
        rows = [(key, storable_text(answer)) for key, answer in items.items()]
        with self._reporting("write"):
            self._db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?)", rows)
            self._db.commit()

    @contextlib.contextmanager
    def _reporting(self, action: str) -> Iterator[None]:
        """Name the cache file in SQLite's errors (a damaged file, a full disk)."""
        try:
            yield
        except sqlite3.DatabaseError as err:
            raise RuntimeError(
                f"judge cache {self.path or ':memory:'}: cannot {action} it ({err}); delete "
                "the file to start a fresh cache, or pass another --cache path"
            ) from err

    def __len__(self) -> int:
        """The number of stored answers."""
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()


def storable_text(value: str) -> str:
    """``value`` with every lone surrogate (an unpaired ``\\ud800``) replaced by U+FFFD.

    SQLite stores UTF-8, which cannot hold a lone surrogate; a judge answer may carry one
    (an LLM server can escape one into its JSON).
    """
    return value if value.isascii() else _SURROGATE.sub("\ufffd", value)


def answer_unique(
    judge: Judge,
    requests: Sequence[JudgeRequest],
    keys: Sequence[str],
    cache: JudgeCache,
    weight: np.ndarray,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> list[str | None]:
    """Answer distinct ``requests`` (cache ``keys``) from ``cache``, else from ``judge`` in batches.

    ``weight[i]`` is how many original requests ``requests[i]`` stands for: it is what the
    cache hits and ``on_batch`` count. Each answered batch is committed before the next is
    sent, so an interrupted call loses at most one batch.
    """
    found: dict[str, str] = cache.get_many(keys)
    hit = np.fromiter((k in found for k in keys), dtype=bool, count=len(keys))
    hits = int(weight[hit].sum())
    cache.stats.hits += hits
    if on_batch is not None and hits:
        on_batch(hits)
    pending = np.flatnonzero(~hit).tolist()
    cache.stats.misses += len(pending)
    for start in range(0, len(pending), batch_size):
        chunk = pending[start : start + batch_size]
        answers = judge.complete([requests[i] for i in chunk])
        fresh = {
            keys[i]: storable_text(a) for i, a in zip(chunk, answers, strict=True) if a is not None
        }
        cache.put_many(fresh)
        found.update(fresh)
        if on_batch is not None:
            on_batch(int(weight[chunk].sum()))
    return [found.get(key) for key in keys]


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
    keys: list[str] = []
    index = []
    for request in requests:
        inputs = freeze_inputs(judge.cache_inputs(request))
        local = (request.kind, request.prompt.name, inputs)
        slot = slots.setdefault(local, len(owners))
        if slot == len(owners):
            owners.append(request)
            keys.append(inputs_key(judge, request.kind, request.prompt, inputs))
        index.append(slot)
    weight = np.bincount(np.asarray(index, dtype=np.int64), minlength=len(owners))
    answers = answer_unique(judge, owners, keys, cache, weight, batch_size, on_batch)
    return [answers[slot] for slot in index]


__all__ = [
    "APPLICATION_ID",
    "CacheStats",
    "JudgeCache",
    "NotACacheError",
    "answer_unique",
    "cached_complete",
    "inputs_key",
    "is_cache_file",
    "request_key",
    "storable_text",
]
