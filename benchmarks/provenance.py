"""What every suite records in ``results.json`` about the run itself: command, commit, machine.

The machine is the CPU model, cores and torch's thread settings besides GPU, platform and
versions: the same command moves by points from one CPU to another (issue 31).

:func:`run_provenance` is merged into each suite's ``meta``; ``benchmarks/record_results.py``
reads these fields back when it turns a run's ``--out`` folder into a page of
``docs/results/``. A field that cannot be known (no git checkout, no ``git`` program) is
``None``, never a guess.

Example:
    >>> record = run_provenance(["rewardgym", "bench", "shop", "--preset", "tiny"])
    >>> record["command"]
    'rewardgym bench shop --preset tiny'
    >>> isinstance(record["cpu_count"], int) and isinstance(record["cuda_available"], bool)
    True
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rewardgym.redact import redact

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
"""The ``rewardgym`` package folder (the repository root in a checkout)."""


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as a user would type it: ``rewardgym bench shop ...`` or ``python -m ...``."""
    argv = list(sys.argv if argv is None else argv)
    if not argv:
        return ""
    program = Path(argv[0])
    if program.suffix == ".py" and program.resolve().is_relative_to(PACKAGE_ROOT):
        module = ".".join(program.resolve().relative_to(PACKAGE_ROOT).with_suffix("").parts)
        head = ["python", "-m", f"rewardgym.{module}"]
    else:
        head = [program.name]
    return shlex.join([*head, *argv[1:]])


RUN_FOLDER_OPTIONS: tuple[str, ...] = ("--out", "--sweep", "--dataset", "--agent", "--shop-run")
"""Options whose value is a rewardgym output folder, shown as ``runs/NAME`` on a page."""


def page_command(command: str) -> str:
    """``command`` as a results page shows it: an absolute output folder as ``runs/NAME``.

    The folder a run wrote to (or read another run from) on the recording machine means nothing
    to a reader, so the value of each of :data:`RUN_FOLDER_OPTIONS` given as an absolute path is
    written as ``runs/`` and its last part, where a checkout keeps its runs (ignored by git).

    Example:
        >>> page_command("rewardgym bench shop --out /home/me/runs/shop-quick --seeds 0")
        'rewardgym bench shop --out runs/shop-quick --seeds 0'
        >>> page_command("rewardgym demo --out=/tmp/d")
        'rewardgym demo --out=runs/d'
    """
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: not a command this module wrote
        return command

    def shown(value: str) -> str:
        name = Path(value).name
        return f"runs/{name}" if os.path.isabs(value) and name else value

    out: list[str] = []
    for word in words:
        option, equals, value = word.partition("=")
        if out and out[-1] in RUN_FOLDER_OPTIONS:
            word = shown(word)
        elif equals and option in RUN_FOLDER_OPTIONS:
            word = f"{option}={shown(value)}"
        out.append(word)
    return shlex.join(out)


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(PACKAGE_ROOT), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_commit() -> dict[str, Any]:
    """The checkout's commit and whether tracked files differ from it (None outside git)."""
    commit = _git("rev-parse", "HEAD")
    if not commit:
        return {"git_commit": None, "git_dirty": None}
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


THREAD_ENV: tuple[str, ...] = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""Environment variables that set torch's CPU threads, recorded as they were (None: unset)."""


def cpu_model(cpuinfo: str | None = None) -> str | None:
    """The CPU's model name with its family, model and stepping, from ``/proc/cpuinfo``.

    A virtual machine's model name can be as short as ``AMD EPYC``, so the numbers that tell
    one generation from the next follow it. ``cpuinfo`` is that file's text (None: read it);
    without it, ``platform.processor()`` (None when that is empty too).

    Example:
        >>> cpu_model("cpu family\\t: 25\\nmodel\\t\\t: 1\\nmodel name\\t: AMD EPYC\\n")
        'AMD EPYC (family 25, model 1)'
    """
    text = cpuinfo
    if text is None:
        try:
            text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
    fields: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():  # the first processor only
        key, sep, value = line.partition(":")
        if sep and key.strip() not in fields:
            fields[key.strip()] = " ".join(value.split())
    name = fields.get("model name")
    if not name:
        return platform.processor() or None
    numbers = [
        f"{label} {fields[key]}"
        for key, label in (("cpu family", "family"), ("model", "model"), ("stepping", "stepping"))
        if fields.get(key)
    ]
    return f"{name} ({', '.join(numbers)})" if numbers else name


def machine() -> dict[str, Any]:
    """CPU model and cores, torch's threads, GPU, platform and library versions.

    Training on the CPU is not bit-for-bit the same across CPU models and thread counts, so a
    page names them: ``torch_threads`` and ``torch_interop_threads`` are this process's,
    ``thread_env`` the variables in :data:`THREAD_ENV` as they were set, and
    ``torch_cpu_capability`` the vector instructions torch's kernels use (``AVX2``, ``AVX512``).
    """
    import torch

    from rewardgym import __version__

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cuda = bool(torch.cuda.is_available())
    return {
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpu_usable": usable,
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "thread_env": {name: os.environ.get(name) for name in THREAD_ENV},
        "cuda_available": cuda,
        "gpu": torch.cuda.get_device_name(0) if cuda else None,
        "platform": platform.platform(terse=True),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "rewardgym": __version__,
    }


_SUITE_START: float | None = None
"""When :func:`restart_clock` last ran (epoch seconds), or None: the process's start counts."""


def restart_clock() -> None:
    """Time the next suite of this process from now, not from the process's start.

    For a process that runs several suites one after another (``rewardgym demo``): each later
    suite's wall time should not count the suites before it.
    """
    global _SUITE_START
    _SUITE_START = time.time()


def use_process_clock() -> None:
    """Time suites from the process's start again (undoes :func:`restart_clock`)."""
    global _SUITE_START
    _SUITE_START = None


def process_seconds() -> float | None:
    """Seconds since this process started, as the OS records its start (None if unknown), or
    since :func:`restart_clock` when it ran.

    A suite's own timer starts after the imports and the command's checks; a results page's
    wall time is what the user waited, so it counts from here.
    """
    if _SUITE_START is not None:
        return max(0.0, time.time() - _SUITE_START)
    import psutil

    try:
        return max(0.0, time.time() - psutil.Process().create_time())
    except psutil.Error:
        return None


def run_provenance(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Command line, argv, commit, machine, finishing time and process wall time (``meta``).

    A user and password written in a URL of the command (``openai:http://user:pw@host``) are
    recorded as ``***``.
    """
    argv = [redact(arg) for arg in (sys.argv if argv is None else argv)]
    finished = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    return {
        "command": command_line(argv),
        "argv": argv,
        **git_commit(),
        **machine(),
        "finished_utc": finished.isoformat(),
        "process_seconds": process_seconds(),
        "process_clock": "process" if _SUITE_START is None else "restarted",
    }


__all__ = [
    "RUN_FOLDER_OPTIONS",
    "THREAD_ENV",
    "command_line",
    "cpu_model",
    "git_commit",
    "machine",
    "page_command",
    "process_seconds",
    "restart_clock",
    "run_provenance",
    "use_process_clock",
]
