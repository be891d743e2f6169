"""A suite run's recorded ``meta`` read into a results page's facts: wall time, machine, commit, phases, kind.

Every value is read with its type checked (:func:`typed_value`): a value of another type is
refused with one line naming the key, so a page never shows a malformed fact.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from rewardgym.errors import UserError

NOT_RECORDED = "not recorded"
"""What a page shows for a fact the run did not record."""


def typed_value(meta: Mapping[str, Any], key: str, types: tuple[type, ...], what: str) -> Any:
    """``meta[key]`` when it is missing, null or of ``types``; any other value is refused."""
    value = meta.get(key)
    wrong = isinstance(value, bool) and bool not in types
    if value is None or (isinstance(value, types) and not wrong):
        return value
    raise UserError(
        f"meta.{key} of the run is {json.dumps(value)[:60]} ({type(value).__name__}), not "
        f"{what}; it was not written by this rewardgym version: rerun the suite"
    )


def text_value(meta: Mapping[str, Any], key: str) -> str | None:
    value: str | None = typed_value(meta, key, (str,), "text")
    return value


def number_value(meta: Mapping[str, Any], key: str) -> float | None:
    value = typed_value(meta, key, (int, float), "a number")
    return None if value is None else float_value(value, f"meta.{key}")


def float_value(value: float, where: str) -> float:
    """``value`` as a float; an integer too large for one is refused (JSON allows any size)."""
    try:
        return float(value)
    except OverflowError:
        raise UserError(
            f"{where} of the run is an integer of {len(str(value))} digits, too large for "
            "seconds or a count; it was not written by this rewardgym version: rerun the suite"
        ) from None


def flag_value(meta: Mapping[str, Any], key: str) -> bool | None:
    value: bool | None = typed_value(meta, key, (bool,), "true or false")
    return value


def code_span(text: str) -> str:
    """``text`` as an inline code span that no backtick inside it can close early."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def minutes(seconds: float | None) -> str:
    if seconds is None:
        return NOT_RECORDED
    if not math.isfinite(seconds) or seconds < 0:
        return f"unknown (the run recorded {seconds:g} s)"
    return f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def shares_a_process(meta: Mapping[str, Any]) -> bool:
    """Whether the suite ran inside ``rewardgym demo`` (which runs its suites one after another
    in one process) before its clock was restarted per suite: a run that records
    ``process_clock`` was timed right at the source (``provenance.restart_clock``)."""
    argv = meta.get("argv")
    demo = isinstance(argv, list) and len(argv) > 1 and argv[1] == "demo"
    return demo and "process_clock" not in meta


def wall_time(meta: Mapping[str, Any]) -> str:
    """From the process's start when recorded, else the suite's own timer, saying which.

    A suite of an old ``rewardgym demo`` run is timed by its own timer: its process also ran the
    suites before it, so the time from the process's start would count theirs.
    """
    process, suite = number_value(meta, "process_seconds"), number_value(meta, "wall_seconds")
    if shares_a_process(meta) and suite is not None:
        process = None
    if process is not None or suite is None:
        return minutes(process)
    shown = minutes(suite)
    return shown if shown.startswith("unknown") else f"{shown}, timed from the suite's start"


def machine(meta: Mapping[str, Any]) -> str:
    cores = typed_value(meta, "cpu_count", (int,), "a count")
    usable = typed_value(meta, "cpu_usable", (int,), "a count")
    cuda, gpu = flag_value(meta, "cuda_available"), text_value(meta, "gpu")
    extras = [text_value(meta, "platform"), text_value(meta, "python"), text_value(meta, "torch")]
    if cores is None:
        return NOT_RECORDED
    text = f"{cores} CPU cores" + (f" ({usable} usable)" if usable not in (None, cores) else "")
    text += f" of {text_value(meta, 'cpu_model') or 'a CPU model not recorded'}"
    if cuda is None:
        text += ", GPU not recorded"
    else:
        text += f", GPU: {gpu or 'yes'}" if cuda else ", no GPU"
    platform, python, torch = extras
    parts = [platform, f"Python {python}" if python else None, f"torch {torch}" if torch else None]
    return "; ".join([text, threads(meta), *(p for p in parts if p)])


def threads(meta: Mapping[str, Any]) -> str:
    """torch's CPU threads as the run recorded them (issue 31), or that it did not."""
    threads = typed_value(meta, "torch_threads", (int,), "a count")
    if threads is None:
        return "torch threads not recorded"
    interop = typed_value(meta, "torch_interop_threads", (int,), "a count")
    text = f"torch threads {threads} (interop {interop})"
    capability = text_value(meta, "torch_cpu_capability")
    if capability:
        text += f", {capability} kernels"
    env = typed_value(meta, "thread_env", (dict,), "an object of environment variables") or {}
    for name, value in env.items():
        text += f", {name}={value}" if value is not None else f", {name} unset"
    workers = typed_value(meta, "worker_threads", (dict,), "an object of thread counts")
    if workers:
        text += (
            f", training workers {workers.get('workers')} x {workers.get('torch_threads')} "
            f"torch threads (interop {workers.get('torch_interop_threads')})"
        )
    return text


def commit(meta: Mapping[str, Any]) -> str:
    commit, dirty = text_value(meta, "git_commit"), flag_value(meta, "git_dirty")
    if not commit:
        return NOT_RECORDED
    state = {True: " plus uncommitted changes", False: "", None: " (changes not recorded)"}
    return f"{code_span(commit[:12])}{state[dirty]}"


def phases(meta: Mapping[str, Any]) -> str:
    key = "phase_seconds" if meta.get("phase_seconds") is not None else "timings_seconds"
    phases = typed_value(meta, key, (dict,), "an object of seconds")
    if not phases:
        return NOT_RECORDED
    shown = []
    for name, value in phases.items():
        if name == "total" or isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            value = float_value(value, f"meta.{key}.{name}")
            shown.append(f"{name} {value:.1f} s" if math.isfinite(value) else f"{name} unknown")
        elif value is not None and not isinstance(value, dict):  # nested groups are not shown
            raise UserError(
                f"meta.{key}.{name} of the run is {json.dumps(value)[:60]}, not seconds"
            )
    return ", ".join(shown) or NOT_RECORDED


def missing_candidates(meta: Mapping[str, Any]) -> list[str]:
    missing = typed_value(meta, "candidates_missing", (list,), "a list of candidate names")
    if missing and not all(isinstance(name, str) for name in missing):
        raise UserError("meta.candidates_missing of the run holds a name that is not text")
    return list(missing or [])


def page_kind(meta: Mapping[str, Any], tune: bool) -> str:
    smoke = flag_value(meta, "smoke_test")
    if smoke is None:
        kind = NOT_RECORDED
    elif smoke:
        kind = "smoke test of the plumbing" + (" (a tune run)" if tune else "") + ", not a result"
    else:
        kind = (
            "tune on the validation split: it chooses settings, not a result" if tune else "result"
        )
    missing = missing_candidates(meta)
    if missing:
        kind = f"unfinished: the run stopped before candidates {', '.join(missing)}; {kind}"
    return kind


__all__ = [
    "NOT_RECORDED",
    "code_span",
    "commit",
    "flag_value",
    "float_value",
    "machine",
    "minutes",
    "missing_candidates",
    "number_value",
    "page_kind",
    "phases",
    "shares_a_process",
    "text_value",
    "threads",
    "typed_value",
    "wall_time",
]
