"""The session log: sessions as one memory-mapped Arrow IPC file with random access by (session, step).

On disk a session log is a directory holding ``steps.arrow`` (one row per logged step, rows of a session
contiguous and in order) and ``sessions.arrow`` (one row per session: id, first row, length, and
the persona of the shopper behind it or null). A log written before the persona column existed
opens as before, every persona None.
Opening a session log maps the files and reads nothing else, so a 52,137-session corpus opens in
milliseconds and only the pages a caller touches are paged in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from rewardgym.atomic import absolute
from rewardgym.envs.shopping.schema import DataValidationError, ShopAction, ShopSession, ShopStep
from rewardgym.errors import SessionLogError
from rewardgym.outputs import atomic_output

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
"""Our own step-table schema: the Arrow session log and the Parquet format users may bring."""

SESSION_SCHEMA = pa.schema(
    [
        pa.field("session_id", pa.string(), nullable=False),
        pa.field("start", pa.int64(), nullable=False),
        pa.field("length", pa.int32(), nullable=False),
        pa.field("persona", pa.string(), nullable=True),
    ]
)
"""One row per session; ``persona`` is the shopper's description (null: none is known)."""

LEGACY_SESSION_SCHEMA = pa.schema(SESSION_SCHEMA.remove(SESSION_SCHEMA.get_field_index("persona")))
"""The session table of logs written before personas: read as before, every persona None."""


@dataclass(frozen=True)
class SessionLogSummary:
    """What writing a session log produced: counts and bytes on disk."""

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


SESSION_LOG_KIND = "shop-store"
"""The :data:`rewardgym.outputs.OWNER_FILE` kind of a directory written by :func:`write_session_log`
(still ``shop-store``, its name before the rename, so session logs written earlier open and are
replaced as before)."""


def write_session_log(
    sessions: Iterable[ShopSession],
    out_dir: str | os.PathLike[str],
    *,
    batch_steps: int = 8192,
    progress: Any | None = None,
    overwrite: bool = False,
) -> SessionLogSummary:
    """Stream sessions into a new session log at ``out_dir`` atomically, in bounded memory.

    ``progress`` is any callable taking the number of sessions just written (a rich or tqdm
    update hook). The session log is written to a temporary sibling and renamed into place, so a
    killed build leaves the previous state (and the next write removes its leftovers). A
    directory that holds anything but a session log this function wrote is never touched; a session log
    it wrote is replaced only with ``overwrite=True``.
    """
    with atomic_output(out_dir, SESSION_LOG_KIND, overwrite=overwrite) as tmp:
        summary = fill_session_log(tmp, sessions, batch_steps=batch_steps, progress=progress)
    out = absolute(out_dir)
    size = sum(f.stat().st_size for f in out.iterdir())
    return SessionLogSummary(out, summary.sessions, summary.steps, size)


def fill_session_log(
    directory: Path,
    sessions: Iterable[ShopSession],
    *,
    batch_steps: int = 8192,
    progress: Any | None = None,
) -> SessionLogSummary:
    """Write the session log files of ``sessions`` into the existing, empty ``directory``.

    The building block of :func:`write_session_log` and of the cached conversions, which make the
    directory a temporary sibling of their target (:mod:`rewardgym.atomic`).
    """
    ids: list[str] = []
    starts: list[int] = []
    lengths: list[int] = []
    personas: list[str | None] = []
    seen: set[str] = set()
    buffer: dict[str, list[Any]] = {name: [] for name in STEP_SCHEMA.names}
    rows = 0
    with (
        pa.OSFile(str(directory / STEPS_FILE), "wb") as sink,
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
            personas.append(session.persona)
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
    columns = {"session_id": ids, "start": starts, "length": lengths, "persona": personas}
    index = pa.table(columns, SESSION_SCHEMA)
    with (
        pa.OSFile(str(directory / SESSIONS_FILE), "wb") as sink,
        pa.ipc.new_file(sink, SESSION_SCHEMA) as writer,
    ):
        writer.write_table(index)
    size = sum(f.stat().st_size for f in directory.iterdir())
    return SessionLogSummary(directory, len(ids), rows, size)


def _map_table(path: Path) -> pa.Table:
    try:
        source = pa.memory_map(str(path), "r")
        return pa.ipc.open_file(source).read_all()
    except (pa.ArrowException, OSError) as err:
        raise SessionLogError(
            f"{path}: not a readable Arrow file ({err}); build the session log again "
            "(`rewardgym data shop --out DIR`, or delete a cached one under $REWARDGYM_HOME)"
        ) from err


class SessionLog:
    """Read-only, memory-mapped access to the sessions of one session-log directory."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        for name in (STEPS_FILE, SESSIONS_FILE):
            if not (self.path / name).is_file():
                raise FileNotFoundError(
                    f"{self.path}: not a rewardgym session log (missing {name}); build one "
                    "with `rewardgym data shop --out DIR` or rewardgym.envs.shopping.write_session_log"
                )
        self._steps = _map_table(self.path / STEPS_FILE)
        index = _map_table(self.path / SESSIONS_FILE)
        if self._steps.schema != STEP_SCHEMA or index.schema not in (
            SESSION_SCHEMA,
            LEGACY_SESSION_SCHEMA,
        ):
            raise SessionLogError(
                f"{self.path}: the session log's tables do not have rewardgym's schema"
            )
        self.session_ids: list[str] = index.column("session_id").to_pylist()
        self._starts: list[int] = index.column("start").to_pylist()
        self._lengths: list[int] = index.column("length").to_pylist()
        self._personas: list[str | None] = (
            index.column("persona").to_pylist()
            if "persona" in index.column_names
            else [None] * len(index)
        )
        self._position = {sid: i for i, sid in enumerate(self.session_ids)}
        if sum(self._lengths) != self._steps.num_rows or len(self._position) != len(index):
            raise SessionLogError(
                f"{self.path}: {SESSIONS_FILE} describes {sum(self._lengths)} steps of "
                f"{len(index)} sessions but {STEPS_FILE} has {self._steps.num_rows} rows; "
                "the session log is damaged: build it again"
            )

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Memory maps do not pickle; a session log pickles as its path and re-maps on load.
        return (SessionLog, (str(self.path),))

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

    def persona(self, index: int) -> str | None:
        """The persona of the ``index``-th session's shopper, or None when the data has none."""
        return self._personas[index]

    @property
    def has_personas(self) -> bool:
        """Whether any session of the log carries a persona."""
        return any(p is not None for p in self._personas)

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
        steps = tuple(_row_to_step(r) for r in rows)
        return ShopSession(self.session_ids[index], steps, self._personas[index])

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


__all__ = [
    "LEGACY_SESSION_SCHEMA",
    "SESSION_LOG_KIND",
    "SESSION_SCHEMA",
    "STEP_SCHEMA",
    "SessionLog",
    "SessionLogError",
    "SessionLogSummary",
    "fill_session_log",
    "write_session_log",
]
