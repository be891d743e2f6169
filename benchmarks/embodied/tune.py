"""``bench embodied --mode tune-curves``: step budget, learning rate and target speed chosen on validation curves.

Every row crosses ``CurveGrid``'s learning rates with its target speed (DiscreteCQL's
target-update interval, DiscreteIQL's Polyak rate; BC has none), keeping its tuned lambda and
its algorithm's own value, so a row on the success flag gets the grid a row on a dense reward
gets. Each point trains one run of ``max_steps`` steps per seed (at least 2), scored on the
validation split every ``eval_every`` steps, which replaces a grid over budgets. The rule,
the same for every row (``choose``): the (point, step) with the best mean validation SR over
the seeds; ties go to the earlier step (less training for the same score), then to the earlier
grid point. The step becomes the row's budget ``Tuned.n_steps``, which the presets read.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardgym.benchmarks.embodied.curves import PLOT_FILE, mean_curve, plot_curves
from rewardgym.benchmarks.tables import markdown_table

if TYPE_CHECKING:
    from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig, Row, Tuned

CURVE_TUNE_COMMANDS: dict[str, str] = {
    "household": (
        "rewardgym bench embodied --preset full --mode tune-curves --rows bc/none "
        "filtered-bc/none cql/sparse iql/sparse cql/oracle iql/oracle cql/perfect-judge cql/coren "
        "--out results/embodied-tune-curves"
    ),
    "virtualhome": (
        "rewardgym bench embodied --env virtualhome --preset full --mode tune-curves --rows "
        "bc/none filtered-bc/none cql/sparse iql/sparse cql/perfect-judge cql/coren "
        "--out results/embodied-virtualhome-tune"
    ),
}
"""The tune of each env: the rows whose values the presets record (COREN's ablations share
cql/coren's), on the full preset's data, with ``CurveGrid``'s defaults."""
TARGETS: dict[str, str] = {"cql": "target_update_interval", "iql": "iql_tau"}
"""The ``Tuned`` field of each algorithm's target speed (the BC rows have none)."""
POINT_KEYS: tuple[str, ...] = ("learning_rate", "target_update_interval", "iql_tau")
"""The values a grid point sets; the row's other values stay as tuned."""


def curve_config(config: EmbodiedBenchConfig) -> EmbodiedBenchConfig:
    """``config`` with every run ``max_steps`` long and scored every ``eval_every`` steps."""
    grid = config.curve_grid
    training = config.training.replace(
        n_steps=grid.max_steps, eval_every=grid.eval_every, checkpoint="final"
    )
    return config.replace(training=training)


def curve_points(config: EmbodiedBenchConfig, row: Row) -> list[Tuned]:
    """Every grid point of ``row``: its tuned values with each learning rate x target speed."""
    grid = config.curve_grid
    base = dataclasses.replace(config.tuned_for(row), n_steps=None, validation_sr=None)
    field = TARGETS.get(row.algorithm)
    speeds: tuple[float | int | None, ...] = (None,)
    if field == "target_update_interval":
        speeds = grid.target_update_intervals
    elif field == "iql_tau":
        speeds = grid.iql_taus
    out = []
    for rate, speed in itertools.product(grid.learning_rates, speeds):
        extra: dict[str, Any] = {field: speed} if field else {}
        out.append(dataclasses.replace(base, learning_rate=rate, **extra))
    return out


def curve_table(
    assignment: Mapping[tuple[Row, Tuned, int], str], results: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One line per (row, grid point, seed, step): the validation SR and CGC of that run there."""
    table = []
    for (row, tuned, seed), key in assignment.items():
        point = {k: getattr(tuned, k) for k in POINT_KEYS}
        for step, sr, cgc in results[key]["curve"]:
            table.append(
                {"row": row.name, **point, "seed": seed, "step": int(step), "sr": sr, "cgc": cgc}
            )
    return table


def _means(
    table: Iterable[Mapping[str, Any]],
) -> dict[str, dict[tuple[Any, ...], list[dict[str, Any]]]]:
    """row -> grid point -> its mean curve over seeds, in the table's order."""
    seeds: dict[str, dict[tuple[Any, ...], dict[str, list[list[float]]]]] = {}
    for line in table:
        point = tuple(line[k] for k in POINT_KEYS)
        by_seed = seeds.setdefault(line["row"], {}).setdefault(point, {})
        by_seed.setdefault(str(line["seed"]), []).append([line["step"], line["sr"], line["cgc"]])
    return {
        row: {point: mean_curve(by_seed) for point, by_seed in points.items()}
        for row, points in seeds.items()
    }


def _key(sr: float) -> float:
    """``sr`` as compared by the rule: means of the same episode counts that differ only in
    their float rounding (mean(50.0, 56.45...) against mean(53.22..., 53.22...)) are a tie."""
    return round(sr, 6)


def choose(table: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per row, the grid point and step with the best mean validation SR over seeds.

    Ties go to the earlier step, then to the point met first in ``table``. Each choice holds
    the point's values, ``n_steps`` (the step), the mean ``sr`` and ``cgc`` and the ``seeds``.

    Example:
        >>> table = [
        ...     {"row": "cql/sparse", "learning_rate": lr, "target_update_interval": 250,
        ...      "iql_tau": None, "seed": seed, "step": step, "sr": sr, "cgc": 0.0}
        ...     for lr, seed, step, sr in [(1e-3, 0, 100, 20.0), (1e-3, 1, 100, 10.0),
        ...                                (1e-3, 0, 200, 5.0), (1e-3, 1, 200, 5.0),
        ...                                (1e-4, 0, 100, 0.0), (1e-4, 1, 100, 0.0),
        ...                                (1e-4, 0, 200, 15.0), (1e-4, 1, 200, 15.0)]]
        >>> best = choose(table)["cql/sparse"]
        >>> best["learning_rate"], best["n_steps"], best["sr"]
        (0.001, 100, 15.0)
    """
    out: dict[str, dict[str, Any]] = {}
    for row, points in _means(table).items():
        best: dict[str, Any] | None = None
        for point, curve in points.items():
            for at in curve:
                if best is None or (_key(at["sr"]), -at["step"]) > (
                    _key(best["sr"]),
                    -best["n_steps"],
                ):
                    best = {
                        **dict(zip(POINT_KEYS, point, strict=True)),
                        "n_steps": at["step"],
                        "sr": at["sr"],
                        "cgc": at["cgc"],
                        "seeds": at["seeds"],
                    }
        if best is not None:
            out[row] = best
    return out


def curve_summary(
    config: EmbodiedBenchConfig,
    assignment: Mapping[tuple[Row, Tuned, int], str],
    results: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """``table`` (every seed's curve), ``best`` per row (``choose``) and the row's other values."""
    table = curve_table(assignment, results)
    best = choose(table)
    for row in config.row_specs:
        if row.name in best:
            tuned = config.tuned_for(row)
            kept = {k: getattr(tuned, k) for k in ("dense_weight", "cql_alpha", "iql_weight_temp")}
            best[row.name] = {
                "algorithm": row.algorithm,
                "reward": row.reward,
                **kept,
                **best[row.name],
            }
    return {
        "table": table,
        "best": best,
        "grid_points": {r.name: len(curve_points(config, r)) for r in config.row_specs},
    }


def _tuned_line(point: Mapping[str, Any]) -> str:
    """The ``Tuned(...)`` line of a chosen point, to paste into a preset."""
    keys = ("dense_weight", "learning_rate", "cql_alpha", "iql_weight_temp", *POINT_KEYS[1:])
    keys += ("n_steps",)
    values = [f"{k}={point[k]!r}" for k in keys if point.get(k) is not None]
    return (
        f"Tuned({point['algorithm']!r}, {point['reward']!r}, {', '.join(values)}, "
        f"validation_sr={point['sr']:.1f}),"
    )


def _speed(point: Mapping[str, Any]) -> str:
    for key in ("target_update_interval", "iql_tau"):
        if point.get(key) is not None:
            return f"{point[key]:g}"
    return "-"


def render_curve_tune(payload: Mapping[str, Any]) -> str:
    """The tune page: the rule, the chosen budget and values per row, and every mean curve."""
    config = payload.get("config", {})
    grid = config.get("curve_grid", {})
    validation = config.get("validation", {})
    sizes = ", ".join(f"{row} {n}" for row, n in payload.get("grid_points", {}).items())
    lines = [
        f"### Embodied suite tune on validation curves ({config.get('name', '?')})",
        "",
        f"Every grid point trained {grid.get('max_steps', '?')} steps once per seed "
        f"(seeds {grid.get('seeds', '?')}) and was scored on the validation split "
        f"({validation.get('instructions_per_task', '?')} instructions x "
        f"{validation.get('episodes_per_instruction', '?')} episodes per task) every "
        f"{grid.get('eval_every', '?')} steps; the held-out splits are not read. Grid points "
        f"per row: {sizes} (learning rates x target speed: CQL's "
        "target-update interval, IQL's Polyak rate; BC has none). Rule, the same for every row: "
        "the (point, step) with the best mean validation SR over seeds, ties to the earlier "
        "step, then to the earlier point; the step is the row's budget `n_steps`. "
        f"SR and CGC in percent. Plot: `{PLOT_FILE}`.",
        "",
        "#### Chosen on validation",
        "",
    ]
    chosen = [
        {**point, "row": name, "learning_rate": f"{point['learning_rate']:g}"}
        | {"target": _speed(point)}
        for name, point in payload["best"].items()
    ]
    columns = ["row", "learning_rate", "target", "n_steps", "sr", "cgc", "seeds"]
    lines += [markdown_table(chosen, columns, digits=1), "", "```python"]
    lines += [_tuned_line(point) for point in payload["best"].values()]
    lines += [
        "```",
        "",
        "#### Mean validation SR over seeds at every step",
        "",
        "`drop`: the curve's best SR minus its SR at the last step (a curve that collapses with "
        "more training shows a large drop; compare a row's lower learning rates and slower "
        "targets).",
        "",
    ]
    means = _means(payload["table"])
    steps = sorted({p["step"] for points in means.values() for c in points.values() for p in c})
    wide = []
    for row, points in means.items():
        for point, curve in points.items():
            named = dict(zip(POINT_KEYS, point, strict=True))
            line: dict[str, Any] = {"row": row, "learning_rate": f"{named['learning_rate']:g}"}
            line["target"] = _speed(named)
            line.update({str(p["step"]): p["sr"] for p in curve})
            line["drop"] = max(p["sr"] for p in curve) - curve[-1]["sr"] if curve else 0.0
            wide.append(line)
    columns = ["row", "learning_rate", "target", *map(str, steps), "drop"]
    lines.append(markdown_table(wide, columns, digits=1))
    return "\n".join(lines)


def write_curve_tune(root: Path, payload: dict[str, Any]) -> None:
    """tune.json and tune.md (through ``report.write_tune``) and the curves' plot, atomically."""
    from rewardgym.atomic import atomic_path
    from rewardgym.benchmarks.embodied.report import write_tune

    write_tune(root, payload, render=render_curve_tune)
    panels: dict[str, dict[str, list[dict[str, float]]]] = {}
    marks: dict[str, dict[str, int]] = {}
    for row, points in _means(payload["table"]).items():
        for point, curve in points.items():
            named = dict(zip(POINT_KEYS, point, strict=True))
            label = f"lr {named['learning_rate']:g}, target {_speed(named)}"
            panels.setdefault(row, {})[label] = curve
            best = payload["best"].get(row, {})
            if all(best.get(k) == named[k] for k in POINT_KEYS):
                marks.setdefault(row, {})[label] = int(best["n_steps"])
    title = f"bench embodied tune-curves ({payload['config'].get('name', '?')}): validation SR"
    with atomic_path(root / PLOT_FILE) as tmp:
        plot_curves(panels, tmp, title=title, marks=marks)


__all__ = [
    "CURVE_TUNE_COMMANDS",
    "POINT_KEYS",
    "TARGETS",
    "choose",
    "curve_config",
    "curve_points",
    "curve_summary",
    "curve_table",
    "render_curve_tune",
    "write_curve_tune",
]
