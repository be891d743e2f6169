"""Output directories: marked as rewardgym's, never the user's files replaced, one writer at a time.

- **Nothing of the user's is lost.** A directory a command writes carries an
  :data:`OWNER_FILE` marker; :func:`prepare_output` refuses a target that exists without the
  marker (it is the user's), and replaces a marked one only when asked to overwrite;
  :func:`claim_output` marks a suite's working directory by the same rules.
- **One writer per output.** A claimed directory (and the temporary one of
  :func:`atomic_output`) is held under an exclusive ``flock`` while its run works, so a second
  run on the same ``--out`` is refused with :class:`~rewardgym.errors.OutputBusyError`; the
  kernel drops the lock when a run dies, however it dies, so a killed run never blocks the
  next one.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> out = Path(tempfile.mkdtemp()) / "out"
    >>> with atomic_output(out, "demo") as tmp:
    ...     _ = (tmp / "result.txt").write_text("done")
    >>> owner(out)["kind"], (out / "result.txt").read_text()
    ('demo', 'done')
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from rewardgym.atomic import TMP_PREFIX, absolute, atomic_path, write_json_atomic
from rewardgym.errors import OutputBusyError

OWNER_FILE = ".rewardgym-output.json"
"""Marker written into every directory a rewardgym command creates (its kind and version)."""


def owner(directory: str | Path) -> dict[str, Any] | None:
    """The marker of a directory a rewardgym command wrote, or None when it has none."""
    marker = Path(directory) / OWNER_FILE
    if not marker.is_file():
        return None
    try:
        value = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def mark_output(directory: str | Path, kind: str, **extra: Any) -> None:
    """Mark ``directory`` as written by a rewardgym command of ``kind`` (e.g. ``shop-store``)."""
    from rewardgym import __version__

    payload = {"kind": kind, "rewardgym": __version__, **extra}
    write_json_atomic(Path(directory) / OWNER_FILE, payload)


def output_target(target: str | os.PathLike[str]) -> Path:
    """The directory an output named ``target`` really lands in: absolute, its link followed.

    A ``--out`` that is a symbolic link stands for the directory it points to (followed
    through every link, made if missing), so the output lands inside the link's target and
    the link stays; every ownership rule applies to that target. A link that cannot be
    followed (a loop) is refused with ``NotADirectoryError``.
    """
    target = absolute(target)
    if not target.is_symlink():
        return target
    try:
        return absolute(target.resolve(strict=False))
    except (OSError, RuntimeError) as err:  # RuntimeError: a link loop before Python 3.13
        raise NotADirectoryError(
            f"{target} is a symbolic link that cannot be followed ({err}); name a directory"
        ) from err


_HELD: dict[tuple[int, int], int] = {}
"""(device, inode) of every output directory this process holds locked -> its descriptor."""

_LOCK_TRIES = 10
"""Attempts of :func:`_hold` 20 ms apart: another run's :func:`_held_elsewhere` probe holds a
shared lock for microseconds, which must not read as a busy output."""

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _held_elsewhere(directory: Path) -> bool:
    """Whether another process holds ``directory``'s lock (probed, never kept)."""
    key = _identity(directory)
    if key is None or key in _HELD:
        return False
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # a file system without locks (some network mounts): nothing to see
        return False
    finally:
        os.close(fd)
    return False


def _busy(target: Path) -> bool:
    """Whether a running command holds ``target`` or a temporary directory that will become it."""
    if target.is_dir() and _held_elsewhere(target):
        return True
    if not target.parent.is_dir():
        return False
    for entry in target.parent.iterdir():
        parts = entry.name[len(TMP_PREFIX) :].split("-", 2)
        ours = entry.name.startswith(TMP_PREFIX) and len(parts) == 3 and parts[2] == target.name
        if ours and entry.is_dir() and _held_elsewhere(entry):
            return True
    return False


def _busy_error(target: Path) -> OutputBusyError:
    return OutputBusyError(
        f"{target} is being written by another rewardgym run that is still going (it holds "
        "the folder's lock); wait for that run to finish, or choose another output directory"
    )


def _hold(directory: Path) -> tuple[int, int] | None:
    """Lock ``directory`` for this process; return the key of a lock taken now (None if kept).

    The lock is ``flock(LOCK_EX)`` on the directory itself, so no file is added to the output;
    the kernel releases it when the process ends, however it ends. :class:`OutputBusyError`
    when another process holds it.
    """
    key = _identity(directory)
    if key is None or key in _HELD:
        return None
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(_LOCK_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            time.sleep(0.02)
        except OSError:  # a file system without locks: the claim works as it did before locks
            os.close(fd)
            return None
        else:
            _HELD[key] = fd
            return key
    os.close(fd)
    raise _busy_error(directory)


def _release(key: tuple[int, int]) -> None:
    fd = _HELD.pop(key, None)
    if fd is not None:
        os.close(fd)


def release_output(target: str | os.PathLike[str]) -> None:
    """Let go of this process's lock on the output ``target`` (a no-op when it holds none)."""
    key = _identity(output_target(target))
    if key is not None:
        _release(key)


def releases_outputs(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """``func``, with every output lock it takes released when it returns or raises.

    Put on each function that runs a command which claims its ``--out``: the lock lasts the
    run, not the Python session that called it.
    """

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        before = set(_HELD)
        try:
            return func(*args, **kwargs)
        finally:
            for key in set(_HELD) - before:
                _release(key)

    return wrapper


def prepare_output(target: str | os.PathLike[str], kind: str, *, overwrite: bool) -> Path:
    """Check that ``target`` may be written by a command of ``kind``; return it as a Path.

    A missing target, an empty directory, or one holding nothing but our marker (a run that
    stopped before its first file) is free. A target that holds anything without our marker
    belongs to the user: ``FileExistsError``, whatever ``overwrite`` says. A target we wrote
    (marker of the same ``kind``) is replaced only with ``overwrite=True``. The
    current directory and its parents are always refused (a swap would move them away under
    the user's shell). A symbolic link is followed first (:func:`output_target`), so the
    rules hold for, and the returned absolute path names, the directory it points to.
    A target another running command holds (:func:`claim_output`, :func:`atomic_output`) is
    refused with :class:`OutputBusyError`, ``overwrite`` or not.
    """
    target = output_target(target)
    here = absolute(Path.cwd())
    real = Path(os.path.realpath(target))
    if target == here or target in here.parents or real == here or real in here.parents:
        raise FileExistsError(
            f"{target} is the current directory or holds it; nothing there is touched: "
            "name a new directory for the output, e.g. ./out"
        )
    if target.exists() and not target.is_dir():
        raise FileExistsError(f"{target} is a file, not a directory; choose another output path")
    if _busy(target):
        raise _busy_error(target)
    if not target.exists() or not any(target.iterdir()):
        return target
    if [p.name for p in target.iterdir()] == [OWNER_FILE]:  # claimed, then stopped before a file
        return target
    found = owner(target)
    if found is None:
        raise FileExistsError(
            f"{target} already holds files that no rewardgym command wrote (no {OWNER_FILE}); "
            "nothing there is touched: choose an empty or new directory"
        )
    if found.get("kind") != kind:
        raise FileExistsError(
            f"{target} holds a rewardgym {found.get('kind')!r} output, not {kind!r}; "
            "choose another directory"
        )
    if not overwrite:
        raise FileExistsError(
            f"{target} already holds a {kind} output; pass --overwrite (overwrite=True) "
            "to replace it, or choose another directory"
        )
    return target


@contextlib.contextmanager
def atomic_output(
    target: str | os.PathLike[str], kind: str, *, overwrite: bool = False
) -> Iterator[Path]:
    """Yield a temporary directory that becomes ``target`` (marked as ``kind``) on success.

    Combines :func:`prepare_output` (the user's files are never replaced) with
    :func:`atomic_path` (a killed run leaves the previous state). An empty existing directory
    is replaced by the new one. The check runs again just before the rename, so a directory
    that someone filled while the body ran is not replaced either. Entering the block creates
    the temporary directory, so an output that cannot be written fails before any work; it
    is held locked until the block ends, so a second run on ``target`` is refused meanwhile.
    """
    target = prepare_output(target, kind, overwrite=overwrite)
    held = None
    try:
        with atomic_path(target) as tmp:
            tmp.mkdir(parents=True)
            held = _hold(tmp)
            yield tmp
            mark_output(tmp, kind)
            prepare_output(target, kind, overwrite=overwrite)
    finally:
        if held is not None:
            _release(held)


def claim_output(target: str | os.PathLike[str], kind: str, *, overwrite: bool) -> Path:
    """Make ``target`` a marked working directory of ``kind`` before any work; return it.

    For commands that fill their output piece by piece and keep parts of it between runs
    (the suites keep trained models and data sets there): the rules of
    :func:`prepare_output` hold (a directory of the user's is refused, an earlier output of
    ``kind`` is taken again only with ``overwrite=True``), then the directory is made and
    marked at once, so a run killed half-way leaves a directory that is recognisably ours.
    Each file in it is still written atomically; files the user put there are left alone.

    The directory stays locked (``flock``) until this process ends or :func:`release_output`
    (:func:`releases_outputs` on the command's function) lets go: a second run that claims it
    meanwhile gets :class:`OutputBusyError`, and a killed run's lock goes with its process.
    """
    target = prepare_output(target, kind, overwrite=overwrite)
    target.mkdir(parents=True, exist_ok=True)
    held = _hold(target)
    try:  # again under the lock: a run that held it until just now may have filled it
        prepare_output(target, kind, overwrite=overwrite)
    except BaseException:
        if held is not None:
            _release(held)
        raise
    mark_output(target, kind)
    return target


__all__ = [
    "OWNER_FILE",
    "atomic_output",
    "claim_output",
    "mark_output",
    "output_target",
    "owner",
    "prepare_output",
    "release_output",
    "releases_outputs",
]
