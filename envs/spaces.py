"""Observation and action spaces shared by the text environments, and the one check of a discrete choice.

The text spaces also tell Gymnasium's ``AsyncVectorEnv`` how to pass them through shared memory.
Gymnasium 1.0.0 decodes a ``Text`` field of the shared buffer once, when the vector env is
built, and returns those strings at every later step (each text reads as the charset's first
character repeated): :class:`SharedText` is decoded afresh instead. :class:`UnicodeText` holds
up to 2**26 characters of any script, which no fixed buffer holds, so it refuses shared memory
with an error that says to pass ``vector_kwargs={"shared_memory": False}``.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from multiprocessing.sharedctypes import SynchronizedArray
from typing import Any, overload

import numpy as np
from gymnasium.error import CustomSpaceError
from gymnasium.spaces import Text
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory

from rewardgym.envs.conventions import brief

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


@create_shared_memory.register(UnicodeText)
def _refuse_shared_memory(space: UnicodeText, n: int = 1, ctx: Any = None) -> Any:
    raise CustomSpaceError(
        f"{space} holds texts of any length and script, which no fixed shared buffer holds: "
        "make the vector env with vector_kwargs={'shared_memory': False}"
    )


class SharedText(Text):
    """A ``Text`` space whose field of an ``AsyncVectorEnv``'s shared memory is decoded at every step.

    It is ``Text`` in every other respect (equal to a ``Text`` of the same bounds and charset).
    """


class SharedTexts(Sequence[str]):
    """The ``n`` strings of a :class:`SharedText` field in shared memory, decoded when read.

    A deep copy (what ``AsyncVectorEnv`` returns with ``copy=True``) is a tuple of strings, as
    without shared memory; with ``copy=False`` this live view is returned, as arrays are.
    """

    def __init__(self, space: SharedText, buffer: SynchronizedArray[Any], n: int) -> None:
        raw = memoryview(buffer.get_obj())
        self._codes = np.frombuffer(raw, dtype=np.int32).reshape(n, space.max_length)
        self._characters = space.character_list
        self._end = len(space.character_set)

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(len(self))[index])
        codes = self._codes[index]
        return "".join(self._characters[c] for c in codes[codes < self._end].tolist())

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)


@read_from_shared_memory.register(SharedText)
def _read_shared_text(space: SharedText, shared_memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(space, shared_memory, n)


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
        raise ValueError(
            f"{what} {brief(value)} is not an integer {unit}: use an int in 0..{n - 1}"
        )
    if not 0 <= int(raw) < n:
        raise ValueError(f"{what} {brief(value)} is out of range: use 0..{n - 1}")
    return int(raw)


__all__ = ["PRINTABLE", "SharedText", "SharedTexts", "UnicodeText", "discrete_index"]
