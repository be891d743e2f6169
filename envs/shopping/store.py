"""The session store: sessions as one memory-mapped Arrow IPC file with random access by (session, step).

On disk a store is a directory holding ``steps.arrow`` (one row per logged step, rows of a session
contiguous and in order) and ``sessions.arrow`` (one row per session: id, first row, length).
Opening a store maps the files and reads nothing else, so a 52,137-session corpus opens in
milliseconds and only the pages a caller touches are paged in.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from rewardgym.envs.shopping.schema import DataValidationError, ShopAction, ShopSession, ShopStep

STEPS_FILE = "steps.arrow"
SESSIONS_FILE = "sessions.arrow"

STEP_SCHEMA = pa.schema(
    [
        pa.field("session_id", pa.string(), nullable=False),
        pa.field("step", pa.int32(), nullable=False),
        pa.field("page", pa.large_string(), nullable=False),
        pa.field("action_type", pa.string(), nullable=False),
        pa.field("action_name", pa.string(), nullable=False),
        pa.field("action_text", pa.string(), nullable=False),
        pa.field("rationale", pa.string(), nullable=True),
        pa.field("timestamp", pa.float64(), nullable=False),
        pa.field("meta", pa.string(), nullable=False),
    ]
)
"""Our own step-table schema: the Arrow store and the Parquet format users may bring."""

SESSION_SCHEMA = pa.schema(
    [
        pa.field("session_id", pa.string(), nullable=False),
        pa.field("start", pa.int64(), nullable=False),
        pa.field("length", pa.int32(), nullable=False),
    ]
)


@dataclass(frozen=True)
class StoreSummary:
    """What writing a store produced: counts and bytes on disk."""

    path: Path
    sessions: int
    steps: int
    bytes_on_disk: int


def _step_rows(session: ShopSession) -> dict[str, list[Any]]:
    steps = session.steps
    return {
        "session_id": [session.session_id] * len(steps),
        "step": list(range(len(steps))),
        "page": [s.page for s in steps],
        "action_type": [s.action.type for s in steps],
        "action_name": [s.action.name for s in steps],
        "action_text": [s.action.text for s in steps],
        "rationale": [s.rationale for s in steps],
        "timestamp": [float(s.timestamp) for s in steps],
        "meta": [json.dumps(s.meta, sort_keys=True, ensure_ascii=False) for s in steps],
    }


def write_store(
    sessions: Iterable[ShopSession],
    out_dir: str | os.PathLike[str],
    *,
    batch_steps: int = 8192,
    progress: Any | None = None,
) -> StoreSummary:
    """Stream sessions into a new store at ``out_dir`` atomically, in bounded memory.

    ``progress`` is any callable taking the number of sessions just written (a rich or tqdm
    update hook). The store is written to a temporary sibling and renamed into place, so a
    killed build never leaves a half-written store behind.
    """
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    ids: list[str] = []
    starts: list[int] = []
    lengths: list[int] = []
    seen: set[str] = set()
    buffer: dict[str, list[Any]] = {name: [] for name in STEP_SCHEMA.names}
    rows = 0
    try:
        with (
            pa.OSFile(str(tmp / STEPS_FILE), "wb") as sink,
            pa.ipc.new_file(sink, STEP_SCHEMA) as writer,
        ):
            for session in sessions:
                if not session.steps:
                    raise DataValidationError(
                        "a session needs at least one step",
                        field_name="steps",
                        value=session.session_id,
                    )
                if session.session_id in seen:
                    raise DataValidationError(
                        "duplicate session id", field_name="session_id", value=session.session_id
                    )
                seen.add(session.session_id)
                ids.append(session.session_id)
                starts.append(rows)
                lengths.append(len(session.steps))
                rows += len(session.steps)
                for key, values in _step_rows(session).items():
                    buffer[key].extend(values)
                if len(buffer["step"]) >= batch_steps:
                    writer.write_batch(pa.record_batch(buffer, schema=STEP_SCHEMA))
                    buffer = {name: [] for name in STEP_SCHEMA.names}
                if progress is not None:
                    progress(1)
            if buffer["step"]:
                writer.write_batch(pa.record_batch(buffer, schema=STEP_SCHEMA))
        index = pa.table({"session_id": ids, "start": starts, "length": lengths}, SESSION_SCHEMA)
        with (
            pa.OSFile(str(tmp / SESSIONS_FILE), "wb") as sink,
            pa.ipc.new_file(sink, SESSION_SCHEMA) as writer,
        ):
            writer.write_table(index)
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(f.stat().st_size for f in out.iterdir())
    return StoreSummary(out, len(ids), rows, size)


def _map_table(path: Path) -> pa.Table:
    source = pa.memory_map(str(path), "r")
    return pa.ipc.open_file(source).read_all()


class SessionStore:
    """Read-only, memory-mapped access to the sessions of one store directory."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        for name in (STEPS_FILE, SESSIONS_FILE):
            if not (self.path / name).is_file():
                raise FileNotFoundError(
                    f"{self.path}: not a rewardgym session store (missing {name}); build one "
                    "with `rewardgym data shop --out DIR` or rewardgym.envs.shopping.write_store"
                )
        self._steps = _map_table(self.path / STEPS_FILE)
        index = _map_table(self.path / SESSIONS_FILE)
        self.session_ids: list[str] = index.column("session_id").to_pylist()
        self._starts: list[int] = index.column("start").to_pylist()
        self._lengths: list[int] = index.column("length").to_pylist()
        self._position = {sid: i for i, sid in enumerate(self.session_ids)}

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Memory maps do not pickle; a store pickles as its path and re-maps on load.
        return (SessionStore, (str(self.path),))

    def __len__(self) -> int:
        return len(self.session_ids)

    @property
    def num_steps(self) -> int:
        """Total number of logged steps over all sessions."""
        return self._steps.num_rows

    def index_of(self, session_id: str) -> int:
        """Position of the session named ``session_id``."""
        try:
            return self._position[session_id]
        except KeyError:
            raise KeyError(f"{self.path}: no session with id {session_id!r}") from None

    def session_length(self, index: int) -> int:
        """Number of steps in the ``index``-th session."""
        return self._lengths[index]

    def step(self, index: int, step: int) -> ShopStep:
        """The ``step``-th logged step of the ``index``-th session, read from the mapped file."""
        length = self._lengths[index]
        if not 0 <= step < length:
            raise IndexError(
                f"session {self.session_ids[index]!r} has {length} steps, not {step + 1}"
            )
        row = self._steps.slice(self._starts[index] + step, 1).to_pylist()[0]
        return _row_to_step(row)

    def session(self, index: int) -> ShopSession:
        """The ``index``-th session with all its steps."""
        start, length = self._starts[index], self._lengths[index]
        rows = self._steps.slice(start, length).to_pylist()
        return ShopSession(self.session_ids[index], tuple(_row_to_step(r) for r in rows))

    def __iter__(self) -> Iterator[ShopSession]:
        for i in range(len(self)):
            yield self.session(i)

    def action_counts(self) -> dict[str, int]:
        """How many logged steps have each action type."""
        counts: dict[str, int] = {}
        for value in self._steps.column("action_type").to_pylist():
            counts[value] = counts.get(value, 0) + 1
        return counts


def _row_to_step(row: dict[str, Any]) -> ShopStep:
    action = ShopAction(row["action_type"], row["action_name"], row["action_text"])
    return ShopStep(
        page=row["page"],
        action=action,
        rationale=row["rationale"],
        timestamp=row["timestamp"],
        meta=json.loads(row["meta"]),
    )


__all__ = ["SESSION_SCHEMA", "STEP_SCHEMA", "SessionStore", "StoreSummary", "write_store"]
