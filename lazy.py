"""Module ``__getattr__`` hooks that import a package's heavy submodules only when first used."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``package.<homes[name]>`` when ``name`` is first used.

    Keeps ``import rewardgym`` and the CLI light: heavy submodules (torch, d3rlpy) load only
    when one of their names is touched.
    """

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{homes[name]}"), name)

    return __getattr__


__all__ = ["lazy_exports"]
