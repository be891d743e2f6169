"""How options read in ``rewardgym COMMAND --help``: plain metavars and unbroken sentences.

tyro writes an optional value as ``{None}|INT`` and a mapping as ``[STR INT|FLOAT|STR ...]``
with ``(default: )`` when empty. The rules of :func:`help_registry` keep tyro's parsing and
change only what a reader sees: ``INT|None`` (type ``None`` to unset a preset's value),
``[KEY VALUE ...]`` and ``(default: none)`` (for an empty mapping or tuple). :func:`flowing_docstrings` makes a field
docstring that spans several source lines read as one paragraph (tyro keeps a line break
wherever the next source line starts indented, which is every continuation line).
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import re
import threading
import types
import typing
from collections.abc import Iterator
from typing import Any

from tyro.constructors import (
    ConstructorRegistry,
    PrimitiveConstructorSpec,
    PrimitiveTypeInfo,
)

_NONE = type(None)
_local = threading.local()


def _default_spec(info: PrimitiveTypeInfo) -> PrimitiveConstructorSpec | None:
    """tyro's own spec of ``info``'s type (our rules stand aside while it is made)."""
    if getattr(_local, "busy", False):
        return None
    _local.busy = True
    try:
        spec = ConstructorRegistry.get_primitive_spec(info)
    finally:
        _local.busy = False
    return spec if isinstance(spec, PrimitiveConstructorSpec) else None


def _optional_rule(info: PrimitiveTypeInfo) -> PrimitiveConstructorSpec | None:
    """``X | None``: tyro's spec of ``X``, plus the word ``None``, shown as ``X|None``."""
    if getattr(_local, "busy", False) or info.type_origin not in (typing.Union, types.UnionType):
        return None
    args = typing.get_args(info.type)
    rest = tuple(a for a in args if a is not _NONE)
    if len(rest) != 1 or len(rest) == len(args):
        return None
    inner = _default_spec(PrimitiveTypeInfo.make(rest[0], info.markers))
    if inner is None or inner.nargs not in (1, "*", "+"):
        return None
    metavar = inner.metavar
    if " " in metavar and not metavar.startswith("["):
        metavar = f"[{metavar}]"
    return PrimitiveConstructorSpec(
        nargs=inner.nargs,
        metavar=f"{metavar}|None",
        instance_from_str=lambda strings: (
            None if strings == ["None"] else inner.instance_from_str(strings)
        ),
        is_instance=lambda value: value is None or inner.is_instance(value),
        str_from_instance=lambda value: (
            ["None"] if value is None else inner.str_from_instance(value)
        ),
        choices=None if inner.choices is None else (*inner.choices, "None"),
    )


def _mapping_rule(info: PrimitiveTypeInfo) -> PrimitiveConstructorSpec | None:
    """``dict[str, ...]``: shown as ``[KEY VALUE ...]``, an empty default as ``none``."""
    if getattr(_local, "busy", False) or info.type_origin is not dict:
        return None
    spec = _default_spec(info)
    if spec is None:
        return None

    def shown(value: Any) -> list[str]:
        return spec.str_from_instance(value) if value else ["none"]

    return dataclasses.replace(spec, metavar="[KEY VALUE ...]", str_from_instance=shown)


def _sequence_rule(info: PrimitiveTypeInfo) -> PrimitiveConstructorSpec | None:
    """``tuple[X, ...]``: an empty default shown as ``none`` (``--flag`` with no value)."""
    if getattr(_local, "busy", False) or info.type_origin is not tuple:
        return None
    args = typing.get_args(info.type)
    if len(args) != 2 or args[1] is not Ellipsis:
        return None
    spec = _default_spec(info)
    if spec is None:
        return None

    def shown(value: Any) -> list[str]:
        return spec.str_from_instance(value) if value else ["none"]

    return dataclasses.replace(spec, str_from_instance=shown)


def _flow(helptext: str) -> str:
    """Join the lines of each paragraph of ``helptext``; blank lines and ``- `` items stay."""
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(helptext))
    flowed = []
    for paragraph in paragraphs:
        lines = [line.strip() for line in paragraph.splitlines()]
        text = lines[0] if lines else ""
        for line in lines[1:]:
            text += ("\n" if line.startswith(("- ", "* ")) else " ") + line
        flowed.append(text)
    return "\n\n".join(flowed)


@contextlib.contextmanager
def flowing_docstrings() -> Iterator[None]:
    """While the block runs, tyro reads each field docstring as flowing paragraphs."""
    from tyro import _strings

    original = getattr(_strings, "remove_single_line_breaks", None)
    if original is None:  # another tyro: keep its own layout
        yield
        return
    _strings.remove_single_line_breaks = _flow
    try:
        yield
    finally:
        _strings.remove_single_line_breaks = original


def help_registry() -> ConstructorRegistry:
    """A tyro registry with the readable rules above (pass it to ``tyro.cli(registry=...)``)."""
    registry = ConstructorRegistry()
    registry.primitive_rule(_optional_rule)
    registry.primitive_rule(_mapping_rule)
    registry.primitive_rule(_sequence_rule)
    return registry


__all__ = ["flowing_docstrings", "help_registry"]
