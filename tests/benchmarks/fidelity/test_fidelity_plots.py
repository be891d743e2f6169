"""bench fidelity's plots carry a legend, labels with units and every name; its tables say why a cell is n/a."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import pytest
from matplotlib.figure import Figure

from rewardgym.benchmarks.fidelity.report import plot, render_tables

matplotlib.use("Agg")

POLICIES = ("shopper/seed1", "baseline/random", "llm/sft")


def _fidelity(policy: str) -> dict[str, Any]:
    return {
        "policy": policy,
        "auc": 0.6,
        "auc_ci": (0.5, 0.7),
        "action_kind_js": 0.1,
        "action_kind_js_ci": (0.05, 0.2),
    }


def _ab(policy: str, variant: str, effect: float | None, agrees: bool) -> dict[str, Any]:
    return {
        "policy": policy,
        "variant": variant,
        "conversion_effect": effect,
        "conversion_effect_ci": (None, None) if effect is None else (effect - 0.01, effect + 0.01),
        "agrees": agrees,
        "truth_conversion_effect": -0.05,
        "truth_conversion_effect_ci": (-0.07, -0.03),
    }


def test_both_plots_say_what_they_show(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved: dict[str, Figure] = {}
    original = Figure.savefig

    def keep(fig: Figure, path: Any, *args: Any, **kwargs: Any) -> None:
        saved[Path(path).name] = fig
        original(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    ab = [
        _ab(p, v, e, a)
        for v in ("price-up-20", "half-results")
        for p, e, a in zip(POLICIES, (-0.04, 0.0, None), (True, False, False), strict=True)
    ]
    paths = plot([_fidelity(p) for p in POLICIES], ab, tmp_path)
    assert [p.name for p in paths] == ["fidelity.png", "ab.png"]
    assert all(p.stat().st_size > 0 for p in paths)
    for name, fig in saved.items():
        labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        assert labels, f"{name} has no legend"
        axes = fig.get_axes()
        assert all(ax.get_xlabel() for ax in axes), f"{name}: an axis without a label"
        assert [t.get_text() for t in axes[0].get_yticklabels()] == list(POLICIES), name
    ab_labels = [t.get_text() for legend in saved["ab.png"].legends for t in legend.get_texts()]
    for needed in ("simulator agrees", "simulator disagrees", "ground-truth effect", "no effect"):
        assert any(needed in label for label in ab_labels), (needed, ab_labels)
    assert all("percentage points" in ax.get_xlabel() for ax in saved["ab.png"].get_axes())


def test_an_undefined_ab_effect_says_why() -> None:
    rows = [
        _ab("llm/sft", "price-up-20", None, False),
        _ab("shopper/seed1", "price-up-20", -0.04, True),
    ]
    for row in rows:
        parsed = row["conversion_effect"] is not None
        row |= {
            "visits": 6,
            "parse_rate": 1.0 if parsed else 0.0,
            "conversion_error": None if not parsed else row["conversion_effect"] + 0.05,
            "conversion_error_ci": (None, None) if not parsed else (0.0, 0.02),
            "truth_significant": True,
            "basket_value_agrees": False,
            "session_length_agrees": False,
        }
    table = render_tables([], rows)
    sft = next(line for line in table.splitlines() if line.startswith("| llm/sft |"))
    cells = [cell.strip() for cell in sft.split("|")]
    assert cells.count("n/a (no visit pair completed)") == 2, sft  # the effect and its error
    assert "n/a" not in cells and "nan" not in table.lower().split()
