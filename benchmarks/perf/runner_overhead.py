"""What running a suite's units on Ray costs against the local spawn pool, on the same cores.

For each suite (``bench embodied``, ``bench shop``) and preset (demo, quick) the script runs the
suite twice into ``--out``: with ``--runner local`` on ``--workers`` spawned processes, then on
a Ray started here with ``--workers`` CPUs (``ray.init`` timed apart: Ray's start-up), each unit
reserving one CPU. It reports each run's unit phase (embodied: train + evaluate every agent;
shop: train every model), the ratio ray / local of those wall times (and with Ray's start-up
added), the overhead per unit in worker-seconds, and the size of the folders Ray ships (the
embodied data sets, the shop models). The local unit phase includes starting its spawned
processes (each imports torch); Ray's workers start during ``ray.init``, inside its start-up.
From the quick preset it projects the full presets on N workers: units x worker-seconds a unit
(quick's, plus Ray's overhead a unit) / N, plus Ray's start-up; a preset whose agents train
longer than quick's costs more per unit, so those figures are lower bounds.

Run alone on the cores (the ratio is the claim; other jobs skew both runs):
``OMP_NUM_THREADS=1 python -m rewardgym.benchmarks.perf.runner_overhead --out results/perf-runner``;
it writes ``runner_overhead.json`` and ``runner_overhead.md`` there and prints the Markdown.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro

from rewardgym.atomic import write_atomic, write_json_atomic
from rewardgym.benchmarks.runner import RunnerOptions, unit_store
from rewardgym.bounds import AT_LEAST_1, check_fields

SuiteName = Literal["embodied", "shop"]


@dataclass(frozen=True)
class Config:
    """Which suites and presets to time, on how many cores; every field is an option."""

    suites: tuple[SuiteName, ...] = ("embodied", "shop")
    """Suites timed."""
    presets: tuple[Literal["demo", "quick"], ...] = ("demo", "quick")
    """Presets timed (both suites have demo and quick); quick's rates give the projection."""
    workers: Annotated[int, AT_LEAST_1] = 2
    """Local worker processes, and the CPUs Ray is given (the same cores for both)."""
    nodes: tuple[Annotated[int, AT_LEAST_1], ...] = (2, 8, 32, 128)
    """Worker counts N of the projection for the full presets."""
    out: Path = Path("results/perf-runner")
    """Directory for every run's output and runner_overhead.json / .md."""

    def __post_init__(self) -> None:
        """Refuse counts outside their range before any work."""
        check_fields(self)


def _run(suite: SuiteName, preset: str, workers: int, out: Path, runner: RunnerOptions) -> float:
    """Run ``suite`` at ``preset`` into ``out``; the wall seconds of its unit phase."""
    if suite == "embodied":
        from rewardgym.benchmarks.embodied.config import PRESETS
        from rewardgym.benchmarks.embodied.suite import run_bench_embodied

        embodied = PRESETS[preset].replace(name=preset, workers=workers)
        payload = run_bench_embodied(embodied, out=out, quiet=True, overwrite=True, runner=runner)
        return float(payload["meta"]["timings_seconds"]["train_and_evaluate"])
    from rewardgym.benchmarks.shop.config import preset as shop_preset
    from rewardgym.benchmarks.shop.suite import run_bench_shop

    shop = shop_preset(preset).replace(train_workers=workers)
    run_bench_shop(shop, out, progress=False, overwrite=True, runner=runner)
    meta = json.loads((out / "results.json").read_text(encoding="utf-8"))["meta"]
    return float(meta["phase_seconds"]["train_wall"])


def shipped_bytes(suite: SuiteName, out: Path) -> dict[str, int]:
    """Bytes of each folder a Ray run ships (as a tar archive), by path under ``out``."""
    from rewardgym.benchmarks.runner_ray import pack

    if suite == "embodied":
        folders = [p for p in (out / "data").rglob("*") if p.is_dir() and _holds_files(p)]
    else:
        folders = [p for p in (out / "models").glob("seed*/*") if p.is_dir()]
    return {str(p.relative_to(out)): len(pack(p)) for p in sorted(folders)}


def _holds_files(folder: Path) -> bool:
    return any(p.is_file() for p in folder.iterdir())


def full_units(suite: SuiteName) -> tuple[str, int]:
    """The largest preset of ``suite`` and its units (embodied: rows x seeds, an upper bound,
    since rows with identical rewards train once; shop: the planned models)."""
    if suite == "embodied":
        from rewardgym.benchmarks.embodied.config import PRESETS

        full = PRESETS["full"]
        return "full", len(full.row_specs) * len(full.seeds)
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.benchmarks.shop.plan import methods, plan_rows

    cpu = preset("cpu")
    return "cpu", len(plan_rows(cpu, methods(cpu)).tasks)


def projection(
    units: int, unit_seconds: float, overhead: float, startup: float, nodes: Sequence[int]
) -> dict[int, dict[str, float]]:
    """Hours for ``units`` on N workers, local-rate and Ray (per-unit overhead and start-up)."""
    out = {}
    for n in nodes:
        rounds = math.ceil(units / n)
        out[n] = {
            "local_hours": rounds * unit_seconds / 3600,
            "ray_hours": (rounds * (unit_seconds + overhead) + startup) / 3600,
        }
    return out


def run(args: Config) -> dict[str, Any]:
    """Time every suite and preset both ways; write and return the figures."""
    import ray

    rows: list[dict[str, Any]] = []
    for suite in args.suites:
        for preset in args.presets:
            base = args.out / f"{suite}-{preset}"
            local = _run(suite, preset, args.workers, base / "local", RunnerOptions())
            tic = time.perf_counter()
            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
            startup = time.perf_counter() - tic
            try:
                remote = _run(suite, preset, args.workers, base / "ray", RunnerOptions("ray"))
            finally:
                ray.shutdown()
            units = len(list(unit_store(base / "ray").glob("*.json")))
            sizes = shipped_bytes(suite, base / "ray")
            rows.append(
                {
                    "suite": suite,
                    "preset": preset,
                    "units": units,
                    "local_s": local,
                    "ray_s": remote,
                    "ray_startup_s": startup,
                    "ratio": remote / local,
                    "ratio_with_startup": (remote + startup) / local,
                    "unit_worker_s": local * args.workers / units,
                    "overhead_per_unit_s": (remote - local) * args.workers / units,
                    "shipped_bytes": sizes,
                    "shipped_total_mb": sum(sizes.values()) / 1e6,
                    "largest_folder_mb": max(sizes.values(), default=0) / 1e6,
                }
            )
    projections = {}
    for row in rows:
        if row["preset"] == "quick":
            name, units = full_units(row["suite"])
            projections[f"{row['suite']} {name}"] = {
                "units": units,
                "by_workers": projection(
                    units,
                    row["unit_worker_s"],
                    max(0.0, row["overhead_per_unit_s"]),
                    row["ray_startup_s"],
                    args.nodes,
                ),
            }
    from rewardgym.benchmarks.provenance import run_provenance

    results = {
        "workers": args.workers,
        "rows": rows,
        "projections": projections,
        "meta": run_provenance(),
    }
    markdown = render(results)
    write_json_atomic(args.out / "runner_overhead.json", results)
    write_atomic(args.out / "runner_overhead.md", markdown)
    print(markdown)
    return results


def render(results: dict[str, Any]) -> str:
    """The figures as Markdown: one row per suite and preset, one table per projection."""
    lines = [
        f"# Runner overhead: ray vs local on {results['workers']} workers\n",
        "| suite | preset | units | local s | ray s | ray / local | Ray start-up s | "
        "(ray + start-up) / local | overhead per unit (worker-s) | shipped MB (largest folder) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results["rows"]:
        lines.append(
            f"| {r['suite']} | {r['preset']} | {r['units']} | {r['local_s']:.1f} | "
            f"{r['ray_s']:.1f} | {r['ratio']:.3f} | {r['ray_startup_s']:.1f} | "
            f"{r['ratio_with_startup']:.3f} | "
            f"{r['overhead_per_unit_s']:+.2f} | {r['shipped_total_mb']:.1f} "
            f"({r['largest_folder_mb']:.2f}) |"
        )
    for name, projected in results["projections"].items():
        lines += [
            "",
            f"## {name}: {projected['units']} units, from the quick preset's rates\n",
            "| workers | local rate (h) | ray (h) |",
            "|---|---|---|",
        ]
        for n, hours in projected["by_workers"].items():
            lines.append(f"| {n} | {hours['local_hours']:.2f} | {hours['ray_hours']:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
