"""Run a suite's units (one trained-and-scored agent or one trained model each) here or on a Ray cluster.

Every suite, sweep and tune hands its units to :func:`run_units`. A unit is a pure function of
its arguments (a config and a seed): it runs in this process (``workers`` 1), in spawned
processes here (``--runner local``, the default) or as Ray tasks (``--runner ray``,
:mod:`~rewardgym.benchmarks.runner_ray`), and gives the same result wherever it ran. Each
unit's result is written atomically to ``OUT/units/<key>.json`` the moment it finishes, so a
killed run loses only the units in flight and ``--resume`` skips the ones already there.

A unit that raises stops the run: the units still running are cancelled, the finished ones stay
under ``OUT/units``, and :class:`UnitFailed` (exit status 1 from the ``rewardgym`` command)
names the unit and its error.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import tyro

from rewardgym.atomic import remove_tree, write_json_atomic
from rewardgym.benchmarks.runner_ray import Failure
from rewardgym.bounds import NON_NEGATIVE, POSITIVE, check_fields, undefined_as_null
from rewardgym.errors import UnitFailed

RunnerName = Literal["local", "ray"]


@dataclass(frozen=True)
class RayOptions:
    """Where Ray runs the units and what each one reserves there."""

    address: str | None = None
    """Ray cluster to join: unset starts Ray on this machine for the run; auto (the cluster
    `ray start` made here) or HOST:PORT joins a running one."""
    num_cpus: Annotated[float, POSITIVE] = 1.0
    """CPUs each unit reserves on Ray (a unit trains on one torch thread)."""
    num_gpus: Annotated[float, NON_NEGATIVE] = 0.0
    """GPUs each unit that trains an LLM reserves (bench shop's SFT and GRPO models, the
    sweep's candidates; embodied agents train on CPUs and never ask). Ray then places those
    units on nodes that have a GPU; 0: every unit on CPUs."""

    def __post_init__(self) -> None:
        """Refuse a unit's resources outside their range before any work."""
        check_fields(self)


@dataclass(frozen=True)
class RunnerOptions:
    """How a suite runs its units: here or on Ray, and whether finished ones are skipped."""

    runner: RunnerName = "local"
    """Where units run: local (spawned processes on this machine) or ray (Ray tasks on the
    cluster --ray.address names; install rewardgym[ray]). Running on a cluster (ray start
    --head, then ray start --address HOST:6379 on each worker): docs/cluster.md."""
    ray: RayOptions = field(default_factory=RayOptions)
    """Ray's settings (with --runner ray)."""
    resume: bool = False
    """Take an earlier run's --out again and skip every unit whose result is already in
    OUT/units (a killed run loses only the units it had in flight)."""

    def __post_init__(self) -> None:
        """Refuse Ray's settings without ``--runner ray``: they would be ignored silently."""
        if self.runner != "ray" and self.ray != RayOptions():
            raise ValueError("--ray.address, --ray.num-cpus and --ray.num-gpus need --runner ray")


RunnerArg = Annotated[RunnerOptions, tyro.conf.arg(name="")]
"""The runner options as a command's field: ``--runner``, ``--ray.address``, ``--resume``."""


@dataclass(frozen=True)
class Unit:
    """One unit of a suite: ``fn(*args)`` returns its JSON result; where its files live.

    ``root`` is the run's output folder; ``inputs`` are folders below it the unit reads and
    ``outputs`` folders it writes. On a Ray worker without the driver's disk the inputs arrive
    through Ray's object store, every path under ``root`` in ``args`` is rewritten to a private
    folder of the worker, and the outputs travel back to the same place under ``root`` here.
    """

    key: str
    fn: Callable[..., Mapping[str, Any]]
    args: tuple[Any, ...] = ()
    after: tuple[str, ...] = ()
    """Keys of the units that must finish first (a GRPO run after its SFT start)."""
    root: Path | None = None
    inputs: tuple[Path, ...] = ()
    outputs: tuple[Path, ...] = ()
    gpu: bool = False
    """Whether the unit trains on a GPU (then it reserves ``--ray.num-gpus``)."""


class Backend(Protocol):
    """Runs units: submit one, wait for some, cancel the rest."""

    capacity: int

    def submit(self, unit: Unit) -> Any: ...

    def wait(self, handles: list[Any]) -> list[tuple[Any, Any]]: ...

    def finish(self, unit: Unit, outcome: Any) -> dict[str, Any]: ...

    def cancel(self, handles: list[Any]) -> None: ...

    def close(self) -> None: ...


class Ran:
    """A unit this process has run: its result or its :class:`Failure`."""

    def __init__(self, outcome: dict[str, Any] | Failure) -> None:
        self.outcome = outcome


class InProcess:
    """Each unit in this process, one at a time (``workers`` 1)."""

    capacity = 1

    def submit(self, unit: Unit) -> Any:
        try:
            return Ran(dict(unit.fn(*unit.args)))
        except Exception as err:  # reported by the scheduler with the unit's key
            return Ran(Failure(err))

    def wait(self, handles: list[Any]) -> list[tuple[Any, Any]]:
        return [(handle, handle.outcome) for handle in handles]

    def finish(self, unit: Unit, outcome: Any) -> dict[str, Any]:
        return dict(outcome)

    def cancel(self, handles: list[Any]) -> None:
        return None

    def close(self) -> None:
        return None


def _call(fn: Callable[..., Mapping[str, Any]], args: tuple[Any, ...]) -> dict[str, Any]:
    return dict(fn(*args))


class SpawnPool:
    """Each unit in one of ``workers`` spawned processes on this machine."""

    def __init__(self, workers: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.capacity = workers
        self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, unit: Unit) -> Any:
        return self.pool.submit(_call, unit.fn, unit.args)

    def wait(self, handles: list[Any]) -> list[tuple[Any, Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait

        finished, _ = wait(handles, return_when=FIRST_COMPLETED)
        out = []
        for future in finished:
            error = future.exception()
            out.append((future, Failure(error) if error is not None else future.result()))
        return out

    def finish(self, unit: Unit, outcome: Any) -> dict[str, Any]:
        return dict(outcome)

    def cancel(self, handles: list[Any]) -> None:
        for future in handles:
            future.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def backend_for(options: RunnerOptions, workers: int) -> Backend:
    """The backend ``options`` name: Ray, a spawn pool of ``workers``, or this process."""
    if options.runner == "ray":
        from rewardgym.benchmarks.runner_ray import RayBackend

        return RayBackend(options.ray)
    return SpawnPool(workers) if workers > 1 else InProcess()


def unit_store(out: Path) -> Path:
    """Where a run under ``out`` keeps one JSON file per finished unit."""
    return out / "units"


def signature(unit: Unit) -> str:
    """What a unit computes: its function and arguments (a kept result of other ones is stale)."""
    text = repr((unit.fn.__module__, unit.fn.__qualname__, unit.args))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _kept(store: Path, units: Iterable[Unit]) -> dict[str, dict[str, Any]]:
    """The results in ``store`` of the units whose function and arguments are unchanged."""
    kept: dict[str, dict[str, Any]] = {}
    for unit in units:
        path = store / f"{unit.key}.json"
        if path.is_file():
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError):
                continue  # unreadable: the unit runs again and its file is replaced
            if isinstance(saved, dict) and saved.get("signature") == signature(unit):
                kept[unit.key] = saved["result"]
    return kept


def run_units(
    units: list[Unit],
    options: RunnerOptions,
    out: Path,
    *,
    workers: int = 1,
    desc: str = "units",
    quiet: bool = False,
    log: Callable[[str], object] = print,
    on_result: Callable[[str, dict[str, Any]], object] | None = None,
    backend: Backend | None = None,
) -> dict[str, dict[str, Any]]:
    """Run every unit (each after those it waits on); return every result by key.

    Results go to ``OUT/units/<key>.json`` as each unit finishes; with ``options.resume`` the
    units already there are read back instead of run (the log says how many), without it an
    earlier run's unit files are removed first. A kept result counts only for a unit of the
    same function and arguments (:func:`signature`); a changed unit runs again. Ready units go in list order; ``on_result``
    hears each result once it is written.
    """
    from rewardgym.progress import progress_bar

    keys = [unit.key for unit in units]
    if len(set(keys)) != len(keys):
        raise ValueError(f"run_units: duplicate unit keys in {keys}")
    store = unit_store(out)
    if not options.resume and store.is_dir():
        remove_tree(store)  # an earlier run's files (--overwrite): this run makes its own
    results = _kept(store, units) if options.resume else {}
    if options.resume:
        log(f"resume: {len(results)} of {len(units)} {desc} already in {store}, skipped")
    pending = [unit for unit in units if unit.key not in results]
    if not pending:
        return results
    chosen = backend if backend is not None else backend_for(options, min(workers, len(pending)))
    running: dict[Any, Unit] = {}
    with progress_bar(total=len(units), initial=len(results), desc=desc, disable=quiet) as bar:
        try:
            while pending or running:
                ready = [u for u in pending if all(k in results for k in u.after)]
                for unit in ready[: max(0, chosen.capacity - len(running))]:
                    pending.remove(unit)
                    running[chosen.submit(unit)] = unit
                if not running:
                    waiting = sorted(u.key for u in pending)
                    raise RuntimeError(f"units {waiting} wait on units that are not in the run")
                for handle, outcome in chosen.wait(list(running)):
                    unit = running.pop(handle)
                    if isinstance(outcome, Failure):
                        raise _failed(unit, outcome.error, len(results), store)
                    result = chosen.finish(unit, outcome)
                    write_json_atomic(
                        store / f"{unit.key}.json",
                        {
                            "key": unit.key,
                            "signature": signature(unit),
                            "result": undefined_as_null(result),
                        },
                    )
                    results[unit.key] = result
                    bar.update()
                    if on_result is not None:
                        on_result(unit.key, result)
        except BaseException:
            chosen.cancel(list(running))  # Ctrl-C or a failure: nothing more starts or lands
            raise
        finally:
            chosen.close()
    return results


def _failed(unit: Unit, error: BaseException, finished: int, store: Path) -> UnitFailed:
    cause = getattr(error, "cause", None) or error  # a RayTaskError carries the unit's own error
    return UnitFailed(
        f"unit {unit.key} failed: {type(cause).__name__}: {cause}; the {finished} finished "
        f"units are kept in {store}: fix the cause and rerun with --resume to skip them"
    )


__all__ = [
    "RayOptions",
    "RunnerArg",
    "RunnerName",
    "RunnerOptions",
    "Unit",
    "UnitFailed",
    "run_units",
    "signature",
    "unit_store",
]
