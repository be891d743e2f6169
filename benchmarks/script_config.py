"""Build a benchmark script's frozen config dataclass from the command line, CleanRL style.

Each field becomes ``--field-name``; its help text is the field's ``metadata["help"]`` or the
string literal written under it in the class body (an attribute docstring).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import itertools
import textwrap
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def attribute_docstrings(cls: type) -> dict[str, str]:
    """The string literal under each annotated attribute of ``cls``'s class body."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = after.value.value.strip()
    return docs


def parse_config(
    cls: type[T], argv: Sequence[str] | None = None, description: str | None = None
) -> T:
    """An instance of dataclass ``cls`` with defaults overridden by ``--field value`` arguments."""
    parser = argparse.ArgumentParser(description=description or (cls.__doc__ or "").strip())
    docs = attribute_docstrings(cls)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        flag = f"--{f.name.replace('_', '-')}"
        help_text = f.metadata.get("help") or docs.get(f.name, "")
        default: Any = f.default
        if isinstance(default, bool):
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=default, help=help_text
            )
        else:
            kind = (
                type(default) if default is not None and default is not dataclasses.MISSING else str
            )
            parser.add_argument(
                flag, type=kind, default=default, help=f"{help_text} (default: %(default)s)"
            )
    return cls(**vars(parser.parse_args(argv)))


__all__ = ["attribute_docstrings", "parse_config"]
