"""Atomic writes: a file or directory appears at its target whole, by one rename, or not at all.

:func:`atomic_path` hands out a temporary sibling of the target (a file or a directory); the
target appears, by one ``os.replace``, only once the body finished. A kill at any instant
leaves the old state or the new one, never half of either, and :func:`clean_stale_temps`
removes the siblings that killed runs left behind.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> root = Path(tempfile.mkdtemp())
    >>> with atomic_path(root / "out.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> (root / "out.txt").read_text()
    'done'
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rewardgym.bounds import strict_json

PID = re.compile(r"[0-9]{1,9}")
"""The ``<pid>`` of a temporary's name: ASCII digits that ``os.kill`` can take (a name like
``.rgtmp-²-1-x`` or one of 4,300 digits is not this module's, so it is left alone)."""

TMP_PREFIX = ".rgtmp-"
"""Prefix of the temporary siblings of :func:`atomic_path`: ``.rgtmp-<pid>-<name>``."""

OLD_PREFIX = ".rgold-"
"""Prefix under which a replaced directory waits for removal after the new one is in place."""


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def clean_stale_temps(parent: Path) -> list[Path]:
    """Remove the temporary siblings in ``parent`` whose writing process is gone; return them.

    Only names this module makes (``.rgtmp-<pid>-*`` and ``.rgold-<pid>-*``) are touched, and
    only when process ``<pid>`` no longer runs, so a concurrent writer is never disturbed. An
    old directory whose replacement never arrived is moved back to its name instead.
    """
    removed: list[Path] = []
    if not parent.is_dir():
        return removed
    for entry in parent.iterdir():
        for prefix in (TMP_PREFIX, OLD_PREFIX):
            if not entry.name.startswith(prefix):
                continue
            parts = entry.name[len(prefix) :].split("-", 2)
            if len(parts) < 3 or not PID.fullmatch(parts[0]) or _pid_alive(int(parts[0])):
                continue
            target = parent / parts[2]
            if prefix == OLD_PREFIX and not target.exists():
                # Killed between moving the old directory aside and moving the new one in:
                # the old state is the only complete one, so it goes back.
                os.replace(entry, target)
                continue
            _remove(entry)
            removed.append(entry)
    return removed


def absolute(path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute and free of ``.`` and ``..`` parts, without resolving links.

    Every writer works on such paths: a relative one changes meaning with the working
    directory (Minari's ``get_size`` doubles it), and ``.`` has no name to put a sibling beside.
    """
    return Path(os.path.abspath(os.fspath(path)))


def temp_sibling(target: Path) -> Path:
    """A fresh temporary path beside ``target`` that :func:`clean_stale_temps` recognises."""
    stamp = f"{time.monotonic_ns() % 10**9}"
    return target.parent / f"{TMP_PREFIX}{os.getpid()}-{stamp}-{target.name}"


def remove_tree(path: Path) -> None:
    """Remove the directory ``path`` by first renaming it to a temporary sibling, so a kill
    mid-removal never leaves a half tree at ``path`` (:func:`clean_stale_temps` finishes it)."""
    aside = temp_sibling(path)
    os.replace(path, aside)
    shutil.rmtree(aside, ignore_errors=True)


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], *, replace: bool = True) -> Iterator[Path]:
    """Yield a temporary sibling of ``target``; on success move it onto ``target`` atomically.

    The body writes a file or a directory at the yielded path. When it raises, the temporary
    goes and ``target`` is untouched. An existing file is replaced in one ``os.replace``; an
    existing directory is first renamed aside (``.rgold-*``), then removed once the new one is
    in place. ``replace=False`` raises ``FileExistsError`` instead of replacing anything.
    """
    target = absolute(target)
    if not target.name:
        raise ValueError(f"atomic_path: {target} has no name to write a sibling of")
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temps(target.parent)
    tmp = temp_sibling(target)
    try:
        yield tmp
        if not tmp.exists():
            raise FileNotFoundError(f"atomic_path: the body wrote nothing at {tmp} for {target}")
        if target.exists() and not replace:
            raise FileExistsError(f"{target} exists; refusing to replace it")
        if target.is_dir() and not target.is_symlink():
            old = target.parent / f"{OLD_PREFIX}{tmp.name[len(TMP_PREFIX) :]}"
            os.replace(target, old)
            os.replace(tmp, target)
            _remove(old)
        else:
            os.replace(tmp, target)
    finally:
        if tmp.exists():
            _remove(tmp)


def write_atomic(target: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``target`` through a temporary sibling; return it."""
    target = Path(target)
    with atomic_path(target) as tmp:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
    return target


def write_json_atomic(target: str | os.PathLike[str], value: Any) -> Path:
    """Write ``value`` as strict, indented JSON to ``target`` atomically; return the path.

    A NaN or an infinity is refused (:func:`rewardgym.bounds.strict_json`), never written as
    a bare ``NaN``; nothing is written then.
    """
    text = strict_json(value, target, indent=2, ensure_ascii=False)
    return write_atomic(target, text + "\n")


__all__ = [
    "OLD_PREFIX",
    "TMP_PREFIX",
    "absolute",
    "atomic_path",
    "clean_stale_temps",
    "remove_tree",
    "temp_sibling",
    "write_atomic",
    "write_json_atomic",
]
