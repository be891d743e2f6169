"""Issue 34 item 5: every number a user or a file gives is finite and in its range.

The config dataclasses are found by reading the package (every ``*Config`` / ``*Settings``
dataclass, the reward and tune configs, and the ``Config`` of every ``python -m`` script,
each imported from its own module), so a new config whose numeric field declares no
:class:`~rewardgym.bounds.Range` fails here. For every numeric field of every one,
hypothesis tries NaN, infinities and values outside the declared range: each is refused
with a ValueError naming the class and the field. The defaults construct. JSON the package
writes is strict.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardgym.atomic import write_json_atomic
from rewardgym.bounds import Range, numeric_fields, strict_json, undefined_as_null

ROOT = Path(__file__).resolve().parents[1]
NAMED = ("RewardComposition", "Tuned", "TuneGrid")
"""Configs a user fills whose names do not end in Config or Settings."""
REQUIRED: dict[str, dict[str, Any]] = {
    "Tuned": {"algorithm": "cql", "reward": "sparse"},
    "benchmarks.record_results.Config": {"run_dir": Path("run")},
    "benchmarks.repro.Config": {"first": Path("a"), "second": Path("b")},
    "benchmarks.embodied.stats.Config": {"page": Path("page")},
    "benchmarks.shop.advantage_probe.Config": {"model": Path("model")},
    "benchmarks.shop.breakdown.Config": {"sweep": Path("sweep"), "candidates": ("baseline",)},
    "benchmarks.shop.sensitivity_probe.Config": {"model": Path("model")},
    "benchmarks.shop.stopping_probe.Config": {"model": Path("model")},
}
"""Constructor arguments of configs whose fields have no defaults, by :func:`_label`."""


def _config_classes() -> list[type]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if parts[0] in ("tests", ".venv", "build") or "site-packages" in parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            if not node.name.endswith(("Config", "Settings")) and node.name not in NAMED:
                continue
            if not any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                continue
            module = ".".join(["rewardgym", *path.relative_to(ROOT).with_suffix("").parts])
            found.append(getattr(importlib.import_module(module), node.name))
    return found


CLASSES = _config_classes()
_NAMES = Counter(cls.__name__ for cls in CLASSES)


def _label(cls: type) -> str:
    """The class's name, with its module where names repeat (``benchmarks.repro.Config``)."""
    if _NAMES[cls.__name__] == 1:
        return cls.__name__
    return f"{cls.__module__.removeprefix('rewardgym.')}.{cls.__name__}"


def _default(cls: type) -> Any:
    return cls(**REQUIRED.get(_label(cls), {}))


FIELDS = [
    (cls, name, bound)
    for cls in CLASSES
    for name, bound in numeric_fields(cls)
    if not isinstance(getattr(_default(cls), name), dict)
]
"""Every numeric field but keyword dicts (``env_kwargs``: finite, any range, any key)."""


def _with(cls: type, name: str, value: float) -> Any:
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    default = getattr(_default(cls), name)
    shaped: Any = (value,) if isinstance(default, tuple) or "tuple[" in str(field.type) else value
    return dataclasses.replace(_default(cls), **{name: shaped})


def test_the_configs_are_found() -> None:
    names = {cls.__name__ for cls in CLASSES}
    assert {"BenchConfig", "SFTRunConfig", "OfflineConfig", "CQLSettings", "CorenConfig"} <= names
    assert {"RewardComposition", "TuneGrid", "OnlineConfig", "FidelityBenchConfig"} <= names
    assert {"EvalConfig", "StoreConfig", "SyntheticShopperConfig", "HFJudgeConfig"} <= names
    assert {"ShopR1Config", "ServedConfig", "DiscreteIQLConfig"} <= names
    scripts = {_label(cls) for cls in CLASSES if cls.__name__ == "Config"}
    assert {"benchmarks.shop.sweep.Config", "benchmarks.perf.hf_judge.Config"} <= scripts
    assert len(scripts) >= 20
    assert len(FIELDS) > 100


@pytest.mark.parametrize("cls", CLASSES, ids=_label)
def test_the_defaults_construct(cls: type) -> None:
    _default(cls)


@pytest.mark.parametrize(
    ("cls", "name", "bound"), FIELDS, ids=[f"{_label(c)}.{n}" for c, n, _ in FIELDS]
)
def test_every_numeric_field_declares_its_range(cls: type, name: str, bound: Range | None) -> None:
    assert bound is not None, f"{_label(cls)}.{name}: declare Annotated[..., Range(...)]"


def _outside(bound: Range) -> st.SearchStrategy[float]:
    """Finite values outside ``bound`` (none when it is unbounded)."""
    options: list[st.SearchStrategy[float]] = []
    low = bound.ge if bound.ge is not None else bound.gt
    high = bound.le if bound.le is not None else bound.lt
    if low is not None:
        options.append(st.floats(max_value=low, exclude_max=bound.ge is not None, min_value=-1e12))
    if high is not None:
        options.append(st.floats(min_value=high, exclude_min=bound.le is not None, max_value=1e12))
    return st.one_of(options) if options else st.nothing()


@pytest.mark.parametrize(
    ("cls", "name", "bound"), FIELDS, ids=[f"{_label(c)}.{n}" for c, n, _ in FIELDS]
)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_non_finite_and_out_of_range_values_are_refused(
    cls: type, name: str, bound: Range | None, data: st.DataObject
) -> None:
    bound = bound or Range()
    strategy = st.sampled_from([math.nan, math.inf, -math.inf])
    if bound != Range():
        strategy = st.one_of(strategy, _outside(bound))
    value = data.draw(strategy)
    default = getattr(_default(cls), name)
    if isinstance(default, int) and not isinstance(default, bool) and math.isfinite(value):
        value = math.floor(value) if bound.ge is not None and value < bound.ge else value
        value = int(value) if value == int(value) else value
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.{name}"):
        _with(cls, name, value)


def test_strict_json_refuses_nan_with_the_file_and_the_place(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    with pytest.raises(ValueError, match=r"results\.json: \['rows'\]\[1\]\['exact'\] is nan"):
        write_json_atomic(target, {"rows": [{"exact": 1.0}, {"exact": math.nan}]})
    assert not target.exists()
    with pytest.raises(ValueError, match="inf"):
        strict_json([math.inf], "x.json")
    write_json_atomic(target, undefined_as_null({"rows": [{"exact": math.nan}]}))
    assert target.read_text().split() == [
        "{",
        '"rows":',
        "[",
        "{",
        '"exact":',
        "null",
        "}",
        "]",
        "}",
    ]
