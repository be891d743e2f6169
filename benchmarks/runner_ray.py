"""The Ray backend of the runner: units as Ray tasks, their folders through Ray's object store.

A unit's input folders (a data set, a model a later unit starts from; kilobytes to a few
hundred megabytes) are packed once per run into a tar archive, put in the object store with
``ray.put`` and handed to every task by reference, as Ray's docs advise for a large argument
shared by many tasks ("Anti-pattern: Passing the same large argument by value repeatedly").
A worker that sees the driver's folder with the same content (one machine, or a shared disk)
runs in place; any other unpacks the inputs into a private folder of its own and the unit's
paths are rewritten to it. The output folders travel back as archives in the task's return
value and land, atomically, at the same place under the driver's output.

A worker process that dies mid-unit is restarted by Ray (``max_retries``), which runs the unit
again from its arguments; an exception the unit raises is not retried.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import socket
import tarfile
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardgym.atomic import atomic_path, remove_tree
from rewardgym.errors import UserError

if TYPE_CHECKING:
    from rewardgym.benchmarks.runner import RayOptions, Unit


class Failure:
    """What a unit raised, carried back from where it ran."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


RETRIES = 3
"""Times Ray restarts a unit whose worker process died (Ray's default for tasks)."""

CANCEL_SECONDS = 30.0
"""Longest a stopped run waits for its cancelled tasks to end."""


def folder_digest(folder: Path) -> str:
    """SHA-256 of every file's path (relative to ``folder``) and bytes; ``""`` for no folder."""
    if not folder.is_dir():
        return ""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def pack(folder: Path) -> bytes:
    """``folder`` as an uncompressed tar archive, its entries in sorted order."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def unpack(archive: bytes, target: Path) -> None:
    """Write ``archive`` as the folder ``target``, whole or not at all (plain files only)."""
    with atomic_path(target) as tmp, tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tmp.mkdir()
        tar.extractall(tmp, filter="data")


def rewrite(value: Any, root: Path, local: Path) -> Any:
    """``value`` with every path under ``root`` (a ``Path`` or a ``str``) moved under ``local``.

    Walks tuples, lists, dicts and dataclasses (frozen ones are copied); anything else is kept.
    """
    if isinstance(value, Path | str):
        text = os.fspath(value)
        base = os.fspath(root)
        if text == base or text.startswith(base + os.sep):
            moved = os.fspath(local) + text[len(base) :]
            return Path(moved) if isinstance(value, Path) else moved
        return value
    if isinstance(value, tuple | list):
        return type(value)(rewrite(v, root, local) for v in value)
    if isinstance(value, dict):
        return {k: rewrite(v, root, local) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: rewrite(getattr(value, f.name), root, local)
            for f in dataclasses.fields(value)
            if f.init
        }
        return dataclasses.replace(value, **changes)
    return value


def private_root(root: str) -> Path:
    """The worker's own copy of the driver's output ``root`` (under the temp folder)."""
    name = hashlib.sha256(f"{socket.gethostname()}:{root}".encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / "rewardgym-ray" / name


def run_shipped(
    fn: Callable[..., Mapping[str, Any]],
    args: tuple[Any, ...],
    root: str | None,
    inputs: list[tuple[str, str]],
    outputs: list[str],
    *archives: bytes,
) -> tuple[dict[str, Any], dict[str, tuple[str, bytes]]]:
    """Run one unit on a Ray worker; its result and each output folder (digest, archive).

    ``inputs`` are (folder under ``root``, digest) pairs whose archives follow in ``archives``.
    """
    if root is None:
        return dict(fn(*args)), {}
    driver = Path(root)
    here = all(folder_digest(driver / rel) == digest for rel, digest in inputs)
    local = driver if here and driver.is_dir() else private_root(root)
    if local != driver:
        for (rel, digest), archive in zip(inputs, archives, strict=True):
            if folder_digest(local / rel) != digest:
                unpack(archive, local / rel)
        for rel in outputs:  # a stale copy from an earlier run into the same root
            if (local / rel).is_dir():
                remove_tree(local / rel)
        args = rewrite(args, driver, local)
    result = dict(fn(*args))
    shipped = {rel: (folder_digest(local / rel), pack(local / rel)) for rel in outputs}
    return result, shipped


def land(root: Path, shipped: Mapping[str, tuple[str, bytes]]) -> None:
    """Put each shipped output folder under ``root`` unless the same content is already there."""
    for rel, (digest, archive) in shipped.items():
        if folder_digest(root / rel) != digest:
            unpack(archive, root / rel)


class RayBackend:
    """Units as Ray tasks on the cluster ``options.address`` names (or a local Ray)."""

    def __init__(self, options: RayOptions) -> None:
        try:
            import ray
        except ImportError:
            raise UserError(
                "--runner ray needs Ray: pip install 'rewardgym[ray]' (here and on every "
                "worker), or leave --runner at local"
            ) from None
        self.ray, self.options = ray, options
        self.started = not ray.is_initialized()
        if self.started:
            ray.init(
                address=options.address,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        self.capacity = 1 << 30  # every ready unit is submitted; Ray queues them by resources
        self.archives: dict[Path, tuple[str, Any]] = {}
        self.remote = ray.remote(run_shipped)

    def _archive(self, folder: Path) -> tuple[str, Any]:
        """(digest, object ref) of ``folder``, packed and put in the object store once."""
        if folder not in self.archives:
            if not folder.is_dir():
                raise FileNotFoundError(f"a unit's input folder {folder} does not exist")
            self.archives[folder] = (folder_digest(folder), self.ray.put(pack(folder)))
        return self.archives[folder]

    def submit(self, unit: Unit) -> Any:
        root = unit.root
        inputs, refs = [], []
        for folder in unit.inputs:
            if root is None:
                raise ValueError(f"unit {unit.key}: inputs {unit.inputs} without a root")
            digest, ref = self._archive(folder)
            inputs.append((str(folder.relative_to(root)), digest))
            refs.append(ref)
        outputs = [str(folder.relative_to(root)) for folder in unit.outputs] if root else []
        task = self.remote.options(
            num_cpus=self.options.num_cpus,
            num_gpus=self.options.num_gpus if unit.gpu else 0,
            max_retries=RETRIES,
            retry_exceptions=False,
            name=unit.key,
        )
        return task.remote(unit.fn, unit.args, str(root) if root else None, inputs, outputs, *refs)

    def wait(self, handles: list[Any]) -> list[tuple[Any, Any]]:
        ready, _ = self.ray.wait(handles, num_returns=1)
        out = []
        for ref in ready:
            try:
                out.append((ref, self.ray.get(ref)))
            except self.ray.exceptions.RayError as err:
                out.append((ref, Failure(err)))
        return out

    def finish(self, unit: Unit, outcome: Any) -> dict[str, Any]:
        result, shipped = outcome
        if unit.root is not None:
            land(unit.root, shipped)
        return dict(result)

    def cancel(self, handles: list[Any]) -> None:
        """Cancel every task, again until each has ended: a cancel that reaches a task while
        Ray is still handing it to a starting worker can be lost, and the task would run."""
        deadline = time.monotonic() + CANCEL_SECONDS
        left = list(handles)
        while left and time.monotonic() < deadline:
            for ref in left:
                self.ray.cancel(ref, force=True)
            _, left = self.ray.wait(left, num_returns=len(left), timeout=0.5, fetch_local=False)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()


__all__ = [
    "RETRIES",
    "Failure",
    "RayBackend",
    "folder_digest",
    "land",
    "pack",
    "run_shipped",
    "unpack",
]
