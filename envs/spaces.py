"""Observation and action spaces shared by the text environments."""

from __future__ import annotations

import string
from typing import Any

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


__all__ = ["PRINTABLE", "UnicodeText"]
