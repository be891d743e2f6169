"""Resolve a ``data=`` argument to a session log and a train/test split.

``data`` may be omitted (the embedded synthetic corpus, built and cached on first use), a
session-log directory, a JSONL or Parquet file in our schema (converted once into a cached session log
keyed by the file's content), or a directory laid out like OPeRA's (each of OPeRA's own
``train`` / ``test`` files converted once).

Split rule for everything but OPeRA: a session is in the test split when
``blake2b(f"{split_seed}:{session_id}")``, read as a number in [0, 1), falls below
``test_fraction`` (0.2 by default). The rule looks only at the id, so a session keeps its
split when the corpus grows or is reordered.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from rewardgym.atomic import absolute, atomic_path
from rewardgym.envs.shopping.loaders import (
    is_opera_dir,
    load_jsonl,
    load_opera,
    load_opera_users,
    load_parquet,
    opera_files,
    opera_user_files,
)
from rewardgym.envs.shopping.schema import ShopSession
from rewardgym.envs.shopping.session_log import (
    SESSION_LOG_KIND,
    SESSIONS_FILE,
    STEPS_FILE,
    SessionLog,
    SessionLogError,
    fill_session_log,
)
from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig
from rewardgym.home import rewardgym_home
from rewardgym.outputs import atomic_output, mark_output

Split = Literal["train", "test", "all"]
DEFAULT_SEED = 0
DEFAULT_TEST_FRACTION = 0.2


def _fill(directory: Path, sessions: Iterable[ShopSession], total: int | None, label: str) -> None:
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)
        fill_session_log(directory, sessions, progress=lambda n: bar.advance(task, n))


def build_synthetic_log(
    out: str | os.PathLike[str],
    *,
    config: SyntheticShopperConfig | None = None,
    overwrite: bool = False,
) -> SessionLog:
    """Generate the synthetic shopper corpus of ``config`` into a new session log at ``out``.

    Written atomically (:func:`rewardgym.envs.shopping.session_log.write_session_log`): a directory that
    holds anything but a session log we wrote is refused, one we wrote is replaced only with
    ``overwrite=True``, and a killed build leaves nothing behind but a temporary sibling that
    the next write removes.
    """
    from rewardgym.envs.shopping.synthetic import generate_sessions

    config = config or SyntheticShopperConfig()
    label = f"synthetic shoppers ({config.sessions})"
    with atomic_output(out, SESSION_LOG_KIND, overwrite=overwrite) as tmp:
        _fill(tmp, generate_sessions(config), config.sessions, label)
    return SessionLog(absolute(out))


_LEGACY_TEMP = re.compile(r"^\..+\.[a-z0-9_]{8}$")
_LEGACY_TEMP_AGE_S = 3600.0


def _clean_legacy_temps(parent: Path) -> None:
    """Remove the ``.<name>.XXXXXXXX`` folders that killed conversions of older versions left.

    Only inside our own cache, only folders holding nothing but session-log files, and only when
    untouched for an hour (no writer of an older version can still be filling them).
    """
    if not parent.is_dir():
        return
    now = time.time()
    for entry in parent.iterdir():
        if not (entry.is_dir() and _LEGACY_TEMP.match(entry.name)):
            continue
        names = {p.name for p in entry.iterdir()}
        if (
            names <= {STEPS_FILE, SESSIONS_FILE}
            and now - entry.stat().st_mtime > _LEGACY_TEMP_AGE_S
        ):
            shutil.rmtree(entry, ignore_errors=True)


def _cached_log(
    path: Path, sessions: Callable[[], Iterable[ShopSession]], total: int | None, label: str
) -> SessionLog:
    """The cache entry at ``path``, built from ``sessions()`` when missing or damaged.

    The entry is written to a temporary sibling and renamed into place, so a killed
    conversion leaves no half entry (its temporary goes at the next conversion); an entry
    that no longer opens (truncated, overwritten) is rebuilt instead of failing.
    """
    _clean_legacy_temps(path.parent)
    if path.exists():
        try:
            return SessionLog(path)
        except (SessionLogError, FileNotFoundError):
            if not path.is_dir():
                path.unlink()
    with atomic_path(path) as tmp:
        tmp.mkdir(parents=True)
        _fill(tmp, sessions(), total, label)
        mark_output(tmp, SESSION_LOG_KIND, cache=True)
    return SessionLog(path)


def default_session_log(
    sessions: int = SyntheticShopperConfig.sessions, seed: int = SyntheticShopperConfig.seed
) -> SessionLog:
    """The embedded synthetic corpus, built once into the cache and mapped afterwards."""
    from rewardgym.envs.shopping.synthetic import GENERATOR_VERSION, generate_sessions

    # The generator's version is in the key, so a changed shopper never reuses a stale cache;
    # so is the persona column, so a cache written before it is not read without personas.
    name = f"synthetic-g{GENERATOR_VERSION}-personas-seed{seed}-n{sessions}"
    config = SyntheticShopperConfig(sessions=sessions, seed=seed)
    return _cached_log(
        rewardgym_home() / "shop" / name,
        lambda: generate_sessions(config),
        sessions,
        f"synthetic shoppers ({sessions})",
    )


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=12)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _cached_conversion(path: Path, kind: str) -> SessionLog:
    out = rewardgym_home() / "shop" / "converted" / f"{path.stem}-{_file_digest(path)}"
    loader = load_jsonl if kind == "jsonl" else load_parquet
    return _cached_log(out, lambda: loader(path), None, f"converting {path.name}")


def in_test_split(session_id: str, *, test_fraction: float, split_seed: int) -> bool:
    """Whether ``session_id`` falls in the test split under this module's hash rule."""
    digest = hashlib.blake2b(f"{split_seed}:{session_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64 < test_fraction


def resolve_sessions(
    data: str | os.PathLike[str] | SessionLog | None,
    split: Split = "train",
    *,
    test_fraction: float = DEFAULT_TEST_FRACTION,
    split_seed: int = DEFAULT_SEED,
) -> tuple[SessionLog, list[int]]:
    """The session log behind ``data`` and the positions of the sessions in ``split``."""
    if split not in ("train", "test", "all"):
        raise ValueError(f"split must be 'train', 'test' or 'all', got {split!r}")
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    if data is not None and not isinstance(data, SessionLog) and is_opera_dir(data):
        return _opera_split(Path(data), split)
    log = _open(data)
    source = str(data) if data is not None and not isinstance(data, SessionLog) else None
    where = source or str(log.path)
    if not len(log):
        raise ValueError(f"{where}: holds no sessions; give a file with at least one session")
    if split == "all":
        return log, list(range(len(log)))
    want_test = split == "test"
    indices = [
        i
        for i, sid in enumerate(log.session_ids)
        if in_test_split(sid, test_fraction=test_fraction, split_seed=split_seed) == want_test
    ]
    if not indices:
        raise ValueError(
            f"{where}: the {split!r} split is empty: none of its {len(log)} sessions falls "
            f"in it at test_fraction={test_fraction}; use split='all' or more sessions"
        )
    return log, indices


def _open(data: str | os.PathLike[str] | SessionLog | None) -> SessionLog:
    if data is None:
        return default_session_log()
    if isinstance(data, SessionLog):
        return data
    path = Path(data).expanduser()
    if path.is_dir():
        return SessionLog(path)
    if not path.is_file():
        raise FileNotFoundError(f"data={str(data)!r}: no such file or directory")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return _cached_conversion(path, "jsonl")
    if suffix == ".parquet":
        return _cached_conversion(path, "parquet")
    raise ValueError(
        f"data={str(data)!r}: expected a .jsonl or .parquet file, a session log directory, "
        "or an OPeRA directory"
    )


def _opera_split(root: Path, split: Split) -> tuple[SessionLog, list[int]]:
    names = ["train", "test"] if split == "all" else [split]
    files: list[Path] = []
    user_files: list[Path] = []
    session_files: list[Path] = []
    for name in names:
        actions = opera_files(root, name)
        users, sessions = opera_user_files(actions, name)
        files += actions
        user_files += users
        session_files += sessions
    # The user and session tables are in the key: personas added later make a new entry.
    every = [*files, *user_files, *session_files]
    key = hashlib.blake2b(
        "|".join(
            f"{f.resolve()}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in every
        ).encode(),
        digest_size=12,
    ).hexdigest()
    out = rewardgym_home() / "shop" / "opera" / f"{split}-{key}"

    def sessions_of() -> Iterable[ShopSession]:
        users = load_opera_users(user_files, session_files) if user_files else None
        return load_opera(files, users=users)

    log = _cached_log(out, sessions_of, None, f"converting OPeRA {split}")
    if not len(log):
        raise ValueError(f"{root}: OPeRA's {split!r} files hold no sessions")
    return log, list(range(len(log)))


__all__ = [
    "DEFAULT_TEST_FRACTION",
    "build_synthetic_log",
    "default_session_log",
    "in_test_split",
    "resolve_sessions",
]
