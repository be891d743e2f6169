"""Observation and action spaces shared by the text environments, and the one check of a discrete choice."""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium.spaces import Text

PRINTABLE = string.printable
"""Characters that :class:`UnicodeText` samples from (membership accepts any character)."""


class UnicodeText(Text):
    """A Text space that holds any Unicode string within its length bounds.

    Gymnasium's default ``Text`` charset has no spaces or punctuation, and real pages carry any
    character, so membership checks only the type and the length; sampling draws printable ASCII.
    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed: int | None = None) -> None:
        super().__init__(max_length=max_length, min_length=min_length, charset=PRINTABLE, seed=seed)

    def contains(self, x: Any) -> bool:
        """True for any ``str`` whose length lies within the bounds."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )


def discrete_index(value: Any, n: int, *, what: str = "action", unit: str = "action id") -> int:
    """``value`` as an index in ``0..n-1``, or a ``ValueError`` naming ``what`` (a ``unit``), the value and the range.

    Only integers count: Python ints, numpy integer scalars and 0-d integer arrays. ``int()``
    would turn ``3.7`` into 3, ``-0.5`` into 0, ``"4"`` into 4 and ``True`` into 1 (a choice the
    caller did not make), and fail on NaN or ``None`` with a bare conversion error.

    Example:
        >>> discrete_index(np.int64(3), 58)
        3
        >>> discrete_index(3.7, 58)
        Traceback (most recent call last):
        ...
        ValueError: action 3.7 is not an integer action id: use an int in 0..57
    """
    raw = value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
    if isinstance(raw, bool | np.bool_) or not isinstance(raw, int | np.integer):
        raise ValueError(f"{what} {value!r} is not an integer {unit}: use an int in 0..{n - 1}")
    if not 0 <= int(raw) < n:
        raise ValueError(f"{what} {value!r} is out of range: use 0..{n - 1}")
    return int(raw)


__all__ = ["PRINTABLE", "UnicodeText", "discrete_index"]
