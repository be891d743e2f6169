"""Every number a user or a file gives is finite and in its range: bounds beside each field, one check.

A config dataclass declares the range of each numeric field where the field is declared, as a
:class:`Range` in ``typing.Annotated`` (inside ``| None``, tuples and dicts too), and calls
:func:`check_fields` from ``__post_init__``. The check refuses NaN and infinities in every
numeric field, ranged or not, a value outside its declared range, and a non-number where a
range is declared, with one ``ValueError`` naming the class, the field and the value. The CLI
prints that error as one line and exits 2, before any work starts.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Run:
    ...     epochs: Annotated[float, POSITIVE] = 4.0
    ...     seeds: tuple[Annotated[int, SEED], ...] = (0,)
    ...     def __post_init__(self) -> None:
    ...         check_fields(self)
    >>> Run(epochs=-1)
    Traceback (most recent call last):
    ...
    ValueError: Run.epochs=-1: must be > 0
    >>> Run(seeds=(0, -3))
    Traceback (most recent call last):
    ...
    ValueError: Run.seeds[1]=-3: must be a seed in [0, 4294967296)
    >>> Run(epochs=float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: Run.epochs=nan: must be finite and > 0
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Annotated, Any, Union


@dataclass(frozen=True)
class Range:
    """The bounds a numeric field's values must lie in; an unset bound is no bound."""

    ge: float | None = None
    """Smallest allowed value (inclusive)."""
    gt: float | None = None
    """Values must be above this (exclusive)."""
    le: float | None = None
    """Largest allowed value (inclusive)."""
    lt: float | None = None
    """Values must be below this (exclusive)."""
    what: str = ""
    """What the value is, for the message (``a seed``, ``a probability``)."""

    def holds(self, value: float) -> bool:
        """Whether the finite ``value`` lies in this range."""
        return (
            (self.ge is None or value >= self.ge)
            and (self.gt is None or value > self.gt)
            and (self.le is None or value <= self.le)
            and (self.lt is None or value < self.lt)
        )

    def describe(self) -> str:
        """The range in words: ``> 0``, ``in [0, 1]``, ``a seed in [0, 4294967296)``, ``finite``."""
        low = f"[{_num(self.ge)}" if self.ge is not None else None
        low = low or (f"({_num(self.gt)}" if self.gt is not None else None)
        high = f"{_num(self.le)}]" if self.le is not None else None
        high = high or (f"{_num(self.lt)})" if self.lt is not None else None)
        if low and high:
            bounds = f"in {low}, {high}"
        elif low:
            bounds = f"{'>=' if low[0] == '[' else '>'} {low[1:]}"
        elif high:
            bounds = f"{'<=' if high[-1] == ']' else '<'} {high[:-1]}"
        else:
            bounds = ""
        return " ".join(part for part in (self.what, bounds) if part) or "finite"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else repr(x)


FINITE = Range()
"""Any finite number."""
POSITIVE = Range(gt=0)
"""A number above 0 (a rate, a size in real units, a temperature that must sample)."""
NON_NEGATIVE = Range(ge=0)
"""0 or more (a weight, a count that may be 0)."""
AT_LEAST_1 = Range(ge=1)
"""A count of at least one (steps, sessions, resamples, workers)."""
PROBABILITY = Range(ge=0, le=1, what="a probability")
"""A probability or a share in [0, 1]."""
SEED = Range(ge=0, lt=2**32, what="a seed")
"""A random seed: numpy, torch and Python's ``random`` all take [0, 2**32)."""


def at_least(low: float) -> Range:
    """The range ``>= low``."""
    return Range(ge=low)


def between(low: float, high: float) -> Range:
    """The closed range ``[low, high]``."""
    return Range(ge=low, le=high)


def _markers(hint: Any) -> tuple[Range | None, bool]:
    """The first :class:`Range` anywhere in ``hint``, and whether ``hint`` admits a number."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        inner, *extras = typing.get_args(hint)
        found = next((x for x in extras if isinstance(x, Range)), None)
        nested, numeric = _markers(inner)
        return found or nested, numeric
    if hint in (int, float, complex):
        return None, True
    if isinstance(hint, type):
        return None, issubclass(hint, numbers.Number) and hint is not bool
    args = typing.get_args(hint)
    if origin is typing.Literal:
        return None, False
    if origin in (Union, types.UnionType) or args:
        if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
            args = args[1:]  # a dict's keys are names, never checked numbers
        found, numeric = None, False
        for arg in args:
            marker, num = _markers(arg)
            found = found or marker
            numeric = numeric or num
        return found, numeric
    return None, False


_NUMERIC_FIELDS: dict[type, tuple[tuple[str, Range | None], ...]] = {}
""":func:`numeric_fields` per class: reading the type hints once."""


def numeric_fields(cls: type) -> tuple[tuple[str, Range | None], ...]:
    """``(name, range or None)`` of every field of dataclass ``cls`` whose type admits a number."""
    if cls not in _NUMERIC_FIELDS:
        _NUMERIC_FIELDS[cls] = _read_numeric_fields(cls)
    return _NUMERIC_FIELDS[cls]


def _read_numeric_fields(cls: type) -> tuple[tuple[str, Range | None], ...]:
    # Each class of the MRO resolves its annotations in its own module (a subclass in another
    # module keeps its base's names), which get_type_hints does when no namespace is given.
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for field in dataclasses.fields(cls):
        marker, numeric = _markers(hints.get(field.name, Any))
        if numeric or marker is not None:
            out.append((field.name, marker))
    return tuple(out)


def _values(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """``(where, item)`` for a scalar, every item of a list or tuple, every value of a dict."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _values(item, f"{where}[{key!r}]")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _values(item, f"{where}[{i}]")
    else:
        yield where, value


def is_number(value: object) -> bool:
    """Whether ``value`` is a real number (``bool`` is not)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_number(value: object, owner: str, bound: Range = FINITE) -> None:
    """Refuse ``value`` unless it is a finite number in ``bound``; ``owner`` names it (``Cls.field``).

    Example:
        >>> check_number(float("inf"), "tasks.max_steps", AT_LEAST_1)
        Traceback (most recent call last):
        ...
        ValueError: tasks.max_steps=inf: must be finite and >= 1
    """
    text = bound.describe()
    if not is_number(value):
        rule = "" if text == "finite" else f" ({text})"
        raise ValueError(f"{owner}={value!r}: must be a number{rule}")
    x = float(value)  # type: ignore[arg-type]
    if not math.isfinite(x):
        rule = "a finite number" if text == "finite" else f"finite and {text}"
        raise ValueError(f"{owner}={value!r}: must be {rule}")
    if not bound.holds(x):
        raise ValueError(f"{owner}={value!r}: must be {text}")


def check_fields(config: object) -> None:
    """Refuse any numeric field of dataclass ``config`` that is not finite or not in its range.

    A field whose type admits numbers (``int``, ``float``, inside ``| None``, tuples, lists
    and dict values) must hold finite numbers; one that declares a :class:`Range` must hold
    numbers (or None, if its type allows) inside it. Other values (strings, nested configs)
    are left to the field's own checks.
    """
    name = type(config).__name__
    for field_name, bound in numeric_fields(type(config)):
        for where, item in _values(getattr(config, field_name), field_name):
            if item is None or (bound is None and not is_number(item)):
                continue
            if isinstance(item, bool) and bound is None:
                continue
            check_number(item, f"{name}.{where}", bound or FINITE)


def _first_non_finite(value: Any, where: str = "") -> tuple[str, float] | None:
    """The key path (``['rows'][3]['exact']``) and value of the first NaN or infinity in ``value``."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "the value", value
    if isinstance(value, Mapping):
        items: Any = ((f"{where}[{k!r}]", v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for path, item in items:
        found = _first_non_finite(item, path)
        if found is not None:
            return found
    return None


def _path_text(value: object) -> str:
    """A path as its text (a config's ``--out`` or ``--shop-run`` field); anything else is refused."""
    if isinstance(value, PurePath):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def strict_json(value: Any, target: object, **dumps: Any) -> str:
    """``json.dumps(value, allow_nan=False, **dumps)``: NaN and infinities are refused, never written.

    JSON has no NaN: Python writes a bare ``NaN`` that other readers reject. The error names
    ``target`` (the file) and where in ``value`` the number sits. A payload whose figures may
    be undefined goes through :func:`undefined_as_null` first.

    Example:
        >>> strict_json({"rows": [{"exact": float("nan")}]}, "results.json")
        Traceback (most recent call last):
        ...
        ValueError: results.json: ['rows'][0]['exact'] is nan; JSON has no NaN or infinity, so nothing was written (an undefined figure is written as null)
    """
    dumps.setdefault("default", _path_text)
    try:
        return json.dumps(value, allow_nan=False, **dumps)
    except ValueError as err:
        found = _first_non_finite(value)
        if found is None:
            raise
        raise ValueError(
            f"{target}: {found[0]} is {found[1]!r}; JSON has no NaN or infinity, so nothing "
            "was written (an undefined figure is written as null)"
        ) from err


def undefined_as_null(value: Any) -> Any:
    """A copy of ``value`` with every NaN or infinite float replaced by None (JSON's ``null``).

    For result payloads whose figures can be undefined (an interval over one session, a
    correlation of a constant): they are written as ``null``, which every JSON reader reads.

    Example:
        >>> undefined_as_null({"ci": [float("nan"), 1.0], "n": 3})
        {'ci': [None, 1.0], 'n': 3}
    """
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        return value if math.isfinite(float(value)) else None  # numpy floats too
    if isinstance(value, Mapping):
        return {k: undefined_as_null(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [undefined_as_null(v) for v in value]
    return value


__all__ = [
    "AT_LEAST_1",
    "FINITE",
    "NON_NEGATIVE",
    "POSITIVE",
    "PROBABILITY",
    "SEED",
    "Range",
    "at_least",
    "between",
    "check_fields",
    "check_number",
    "is_number",
    "numeric_fields",
    "strict_json",
    "undefined_as_null",
]
