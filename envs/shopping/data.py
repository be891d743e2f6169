"""Resolve a ``data=`` argument to a session store and a train/test split.

``data`` may be omitted (the embedded synthetic corpus, built and cached on first use), a
store directory, a JSONL or Parquet file in our schema (converted once into a cached store
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
from pathlib import Path
from typing import Any, Literal

from rewardgym.envs.shopping.loaders import (
    is_opera_dir,
    load_jsonl,
    load_opera,
    load_parquet,
    opera_files,
)
from rewardgym.envs.shopping.store import SessionStore, write_store
from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig
from rewardgym.runtime import rewardgym_home

Split = Literal["train", "test", "all"]
DEFAULT_SEED = 0
DEFAULT_TEST_FRACTION = 0.2


def _progress_writer(sessions: Any, out: Path, total: int | None, label: str) -> SessionStore:
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)
        write_store(sessions, out, progress=lambda n: bar.advance(task, n))
    return SessionStore(out)


def build_synthetic_store(
    out: str | os.PathLike[str], *, config: SyntheticShopperConfig | None = None
) -> SessionStore:
    """Generate the synthetic shopper corpus of ``config`` into a store at ``out``, with a progress bar."""
    from rewardgym.envs.shopping.synthetic import generate_sessions

    config = config or SyntheticShopperConfig()
    return _progress_writer(
        generate_sessions(config),
        Path(out),
        config.sessions,
        f"synthetic shoppers ({config.sessions})",
    )


def default_store(
    sessions: int = SyntheticShopperConfig.sessions, seed: int = SyntheticShopperConfig.seed
) -> SessionStore:
    """The embedded synthetic corpus, built once into the cache and mapped afterwards."""
    from rewardgym.envs.shopping.synthetic import GENERATOR_VERSION

    # The generator's version is in the key, so a changed shopper never reuses a stale cache.
    name = f"synthetic-g{GENERATOR_VERSION}-seed{seed}-n{sessions}"
    path = rewardgym_home() / "shop" / name
    if (path / "steps.arrow").is_file():
        return SessionStore(path)
    return build_synthetic_store(path, config=SyntheticShopperConfig(sessions=sessions, seed=seed))


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=12)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _cached_conversion(path: Path, kind: str) -> SessionStore:
    out = rewardgym_home() / "shop" / "converted" / f"{path.stem}-{_file_digest(path)}"
    if (out / "steps.arrow").is_file():
        return SessionStore(out)
    sessions = load_jsonl(path) if kind == "jsonl" else load_parquet(path)
    return _progress_writer(sessions, out, None, f"converting {path.name}")


def in_test_split(session_id: str, *, test_fraction: float, split_seed: int) -> bool:
    """Whether ``session_id`` falls in the test split under this module's hash rule."""
    digest = hashlib.blake2b(f"{split_seed}:{session_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64 < test_fraction


def resolve_sessions(
    data: str | os.PathLike[str] | SessionStore | None,
    split: Split = "train",
    *,
    test_fraction: float = DEFAULT_TEST_FRACTION,
    split_seed: int = DEFAULT_SEED,
) -> tuple[SessionStore, list[int]]:
    """The store behind ``data`` and the positions of the sessions in ``split``."""
    if split not in ("train", "test", "all"):
        raise ValueError(f"split must be 'train', 'test' or 'all', got {split!r}")
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    if data is not None and not isinstance(data, SessionStore) and is_opera_dir(data):
        return _opera_split(Path(data), split)
    store = _open(data)
    if split == "all":
        return store, list(range(len(store)))
    want_test = split == "test"
    indices = [
        i
        for i, sid in enumerate(store.session_ids)
        if in_test_split(sid, test_fraction=test_fraction, split_seed=split_seed) == want_test
    ]
    if not indices:
        raise ValueError(f"{store.path}: the {split!r} split is empty ({len(store)} sessions)")
    return store, indices


def _open(data: str | os.PathLike[str] | SessionStore | None) -> SessionStore:
    if data is None:
        return default_store()
    if isinstance(data, SessionStore):
        return data
    path = Path(data).expanduser()
    if path.is_dir():
        return SessionStore(path)
    if not path.is_file():
        raise FileNotFoundError(f"data={str(data)!r}: no such file or directory")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return _cached_conversion(path, "jsonl")
    if suffix == ".parquet":
        return _cached_conversion(path, "parquet")
    raise ValueError(
        f"data={str(data)!r}: expected a .jsonl or .parquet file, a session store directory, "
        "or an OPeRA directory"
    )


def _opera_split(root: Path, split: Split) -> tuple[SessionStore, list[int]]:
    names = ["train", "test"] if split == "all" else [split]
    files = [f for name in names for f in opera_files(root, name)]
    key = hashlib.blake2b(
        "|".join(
            f"{f.resolve()}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files
        ).encode(),
        digest_size=12,
    ).hexdigest()
    out = rewardgym_home() / "shop" / "opera" / f"{split}-{key}"
    store = (
        SessionStore(out)
        if (out / "steps.arrow").is_file()
        else _progress_writer(load_opera(files), out, None, f"converting OPeRA {split}")
    )
    return store, list(range(len(store)))


__all__ = [
    "DEFAULT_TEST_FRACTION",
    "build_synthetic_store",
    "default_store",
    "in_test_split",
    "resolve_sessions",
]
