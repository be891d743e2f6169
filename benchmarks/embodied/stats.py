"""95% intervals and paired differences over training seeds, tasks and held-out episodes, and the per-episode file they come from.

A row's score varies with the training seed, with the tasks it is tested on and with the
episodes of each task, and every seed plays the very same held-out episodes: seeds and
episodes are crossed, not nested. :class:`SplitResamples` holds every row's per-episode scores
on one split and one set of crossed bootstrap draws for them all
(``rewardgym.agents.evaluation.bootstrap.crossed_draws``): the training seeds with
replacement and, shared by every seed, the tasks, then the episodes of each drawn task. Every
row plays the very same episodes (checked by their identities), and seed k of one row is
paired with seed k of another, so one draw picks the same units from every row: a row's
interval, its difference from a reference row and a position between two rows all come from
the same draws, and a difference's interval is paired.

A page keeps its per-episode results in :data:`EPISODES_FILE` beside ``results.json``
(:func:`write_episodes`); ``python -m rewardgym.benchmarks.embodied.stats PAGE_FOLDER``
reprints the page's intervals and paired differences from that file alone.
:func:`seed_episode_interval` is the same crossed bootstrap for scripts that score one row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import tyro

from rewardgym.agents.evaluation.bootstrap import CrossedDraws, crossed_draws, percentile_interval
from rewardgym.agents.evaluation.household import env_splits
from rewardgym.envs import VIRTUALHOME_ID

if TYPE_CHECKING:
    from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig, Row, Tuned

METRIC_FIELDS: dict[str, str] = {"sr": "success", "cgc": "cgc", "plan": "plan"}
"""Table metric -> the per-episode field of ``SplitResult.episodes()`` it averages."""
EPISODES_FILE = "episodes.parquet"
"""The per-episode results of a page, beside its ``results.json``."""
META_KEY = b"rewardgym"
"""The Parquet metadata key of what a reprint needs besides the episodes (JSON)."""
BOOTSTRAP_SEED = 0
"""Seed of every page's bootstrap draws (a reprint draws the very same)."""
RECORD_COLUMNS: tuple[str, ...] = (
    "row",
    "seed",
    "split",
    "instructions",
    "task",
    "episode",
    *METRIC_FIELDS.values(),
)
"""The columns of :data:`EPISODES_FILE`, one line per (row, seed, split, episode)."""


def _identities(name: str, split: str, per_seed: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    out = []
    for k, episodes in enumerate(per_seed):
        if "episode" not in episodes:
            raise ValueError(
                f"split {split!r}: row {name!r} seed #{k} has no episode identities ('episode'); "
                "score it with rewardgym.agents.evaluation.household.evaluate_household"
            )
        out.append([str(e) for e in episodes["episode"]])
    return out


@dataclass(frozen=True)
class SplitResamples:
    """Every row's per-episode scores (percent) on one split and one set of crossed draws."""

    split: str
    """The held-out (or validation) split."""
    scores: Mapping[str, Mapping[str, np.ndarray]]
    """Row name -> metric -> ``(seeds, episodes)`` scores, seed k's episodes in row k."""
    resampled: CrossedDraws
    """The draws of training seeds and (shared by every seed) tasks and episodes."""

    @classmethod
    def build(
        cls,
        split: str,
        per_row: Mapping[str, Sequence[Mapping[str, Sequence[Any]]]],
        *,
        samples: int,
        seed: int = BOOTSTRAP_SEED,
    ) -> SplitResamples:
        """The draws for ``per_row`` (row name -> one ``episodes()`` mapping per training seed).

        Raises ``ValueError`` naming the row, the seed and the first differing episode when a
        row did not play exactly the episodes of the first row, seed by seed.
        """
        if not per_row:
            raise ValueError(f"split {split!r}: no row to resample")
        names = list(per_row)
        first = _identities(names[0], split, per_row[names[0]])
        if not first or not first[0]:
            raise ValueError(f"split {split!r}: row {names[0]!r} has no scored episode")
        expected = first[0]
        for name in names:
            played = _identities(name, split, per_row[name])
            if len(played) != len(first):
                raise ValueError(
                    f"split {split!r}: row {name!r} has {len(played)} training seeds and row "
                    f"{names[0]!r} {len(first)}; paired differences need the same seeds per row"
                )
            for k, episodes in enumerate(played):
                if episodes != expected:
                    where = next(
                        (
                            i
                            for i, (a, b) in enumerate(zip(episodes, expected, strict=False))
                            if a != b
                        ),
                        min(len(episodes), len(expected)),
                    )
                    mine = episodes[where] if where < len(episodes) else "none"
                    theirs = expected[where] if where < len(expected) else "none"
                    raise ValueError(
                        f"split {split!r}: row {name!r} seed #{k} played other episodes than "
                        f"row {names[0]!r} seed #0 (episode {where}: {mine} vs {theirs}); every "
                        "row must be scored on the same EvalConfig for its differences to pair"
                    )
        n_seeds, n_episodes = len(first), len(expected)
        tasks = np.asarray(per_row[names[0]][0]["task"], dtype=np.float64)
        scores = {
            name: {
                metric: 100.0
                * np.stack([np.asarray(run[field], dtype=np.float64) for run in per_row[name]])
                for metric, field in METRIC_FIELDS.items()
            }
            for name in names
        }
        draws = crossed_draws(n_seeds, n_episodes, tasks, samples=samples, seed=seed)
        return cls(split, scores, draws)

    @property
    def seeds(self) -> int:
        """Training seeds per row."""
        return int(self.resampled.seeds.shape[1])

    def draws(self, row: str, metric: str) -> np.ndarray:
        """The row's mean ``metric`` in every draw."""
        return self.resampled.means(self.scores[row][metric])

    def mean(self, row: str, metric: str) -> float:
        """The row's mean ``metric`` over every seed and episode."""
        return float(np.mean(self.scores[row][metric]))

    def interval(self, row: str, metric: str) -> list[float]:
        """The 95% interval of the row's mean ``metric``."""
        return percentile_interval(self.draws(row, metric))

    def seed_std(self, row: str, metric: str) -> float:
        """The spread (population std) of the row's per-seed means."""
        return float(np.std(self.scores[row][metric].mean(axis=1)))

    def difference(self, row: str, reference: str, metric: str) -> tuple[float, list[float]]:
        """``row`` minus ``reference`` (points of ``metric``) and its paired 95% interval.

        Identical rows give exactly 0 with a zero-width interval.
        """
        delta = self.scores[row][metric] - self.scores[reference][metric]
        return float(np.mean(delta)), percentile_interval(self.resampled.means(delta))

    def position(
        self, row: str, low: str, high: str, metric: str = "sr"
    ) -> tuple[float, list[float]]:
        """Where ``row`` lands between ``low`` (0) and ``high`` (1), with its 95% interval.

        ``(row - low) / (high - low)`` in every draw; a draw (or the point) where ``high`` and
        ``low`` tie is undefined (NaN) and left out of the interval.
        """
        mine, lo, hi = (self.draws(name, metric) for name in (row, low, high))
        span = hi - lo
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(span != 0.0, (mine - lo) / np.where(span != 0.0, span, 1.0), np.nan)
        point_span = self.mean(high, metric) - self.mean(low, metric)
        point = (
            (self.mean(row, metric) - self.mean(low, metric)) / point_span
            if point_span
            else float("nan")
        )
        return point, percentile_interval(values)


def seed_episode_interval(
    per_seed: Sequence[Sequence[float] | np.ndarray],
    *,
    tasks: Sequence[float] | None = None,
    resamples: int = 2000,
    level: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The crossed bootstrap interval of the mean of ``per_seed`` (each seed's scores, same episodes).

    Seed k's i-th score and seed j's i-th are the same episode; ``tasks`` (one per episode)
    adds the task level, drawn before the episodes of each drawn task.

    Example:
        >>> lo, hi = seed_episode_interval([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
        >>> 0.0 <= lo <= 0.625 <= hi <= 1.0
        True
    """
    if not per_seed or not all(len(scores) for scores in per_seed):
        raise ValueError("seed_episode_interval needs at least one seed with episodes")
    sizes = {len(scores) for scores in per_seed}
    if len(sizes) > 1:
        raise ValueError(
            f"seed_episode_interval: the seeds scored {sorted(sizes)} episodes; every seed "
            "must play the same episodes, in the same order"
        )
    if not 0.0 < level < 1.0:
        raise ValueError(f"level={level}: use a probability in (0, 1)")
    grid = np.asarray([np.asarray(s, dtype=np.float64) for s in per_seed])
    draws = crossed_draws(len(grid), grid.shape[1], tasks, samples=resamples, seed=seed)
    low, high = percentile_interval(draws.means(grid), confidence=level)
    return low, high


def episode_records(
    config: EmbodiedBenchConfig,
    assignment: Mapping[tuple[Row, Tuned, int], str],
    results: Mapping[str, Mapping[str, Any]],
) -> dict[str, list[Any]]:
    """Every (row, seed, split, episode) result of a run, as columns, in the page's order.

    ``instructions`` is the split's instruction kind (fine, abstract; the validation split's
    training instructions on Household-v1: train), from ``env_splits``.
    """
    splits = env_splits(config.evaluation.env_id)
    kind = 1 if config.evaluation.env_id == VIRTUALHOME_ID else 0  # (programs, instruction)
    columns: dict[str, list[Any]] = {name: [] for name in RECORD_COLUMNS}
    for row in config.row_specs:
        for (r, _, seed), key in assignment.items():
            if r != row:
                continue
            for split in config.evaluation.splits:
                episodes = results[key]["episodes"][split]
                n = len(episodes["episode"])
                columns["row"] += [row.name] * n
                columns["seed"] += [seed] * n
                columns["split"] += [split] * n
                columns["instructions"] += [splits[split][kind]] * n
                columns["task"] += [int(t) for t in episodes["task"]]
                columns["episode"] += [str(e) for e in episodes["episode"]]
                for field in METRIC_FIELDS.values():
                    columns[field] += [float(v) for v in episodes[field]]
    return columns


def write_episodes(
    root: Path, config: EmbodiedBenchConfig, columns: Mapping[str, list[Any]]
) -> Path:
    """Write a run's per-episode ``columns`` to ``root/episodes.parquet`` atomically.

    The file's metadata carries what a reprint needs besides the episodes: the bootstrap's
    draws and seed, the env, and the preset's name, seeds and whether it is indicative.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rewardgym.atomic import atomic_path

    meta = {
        "bootstrap": config.bootstrap,
        "bootstrap_seed": BOOTSTRAP_SEED,
        "env": config.collect.env,
        "config": {
            "name": config.name,
            "seeds": list(config.seeds),
            "indicative": config.indicative,
        },
    }
    table = pa.table({name: columns[name] for name in RECORD_COLUMNS})
    table = table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()})
    with atomic_path(root / EPISODES_FILE) as tmp:
        pq.write_table(table, tmp)
    return root / EPISODES_FILE


def read_episodes(path: Path) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """The columns and metadata of an :data:`EPISODES_FILE` (a folder: the file in it)."""
    import pyarrow.parquet as pq

    path = path / EPISODES_FILE if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: no per-episode results; give the folder of a bench embodied run "
            f"(its --out), which holds {EPISODES_FILE} beside results.json"
        )
    table = pq.read_table(path)
    missing = [name for name in RECORD_COLUMNS if name not in table.column_names]
    raw = (table.schema.metadata or {}).get(META_KEY)
    if missing or raw is None:
        raise ValueError(
            f"{path}: not a page's per-episode results (missing columns {missing} or its "
            f"{META_KEY.decode()!r} metadata); write it with write_episodes"
        )
    return {name: table.column(name).to_pylist() for name in RECORD_COLUMNS}, json.loads(raw)


def resamples_from_records(
    columns: Mapping[str, Sequence[Any]], *, samples: int, seed: int = BOOTSTRAP_SEED
) -> dict[str, SplitResamples]:
    """Every split's :class:`SplitResamples` from per-episode columns, rows and seeds in file order."""
    nested: dict[str, dict[str, dict[int, dict[str, list[Any]]]]] = {}
    for i in range(len(columns["row"])):
        split, row, seed_ = columns["split"][i], columns["row"][i], int(columns["seed"][i])
        runs = nested.setdefault(split, {}).setdefault(row, {})
        fields = ("episode", "task", *METRIC_FIELDS.values())
        episodes = runs.setdefault(seed_, {name: [] for name in fields})
        episodes["episode"].append(columns["episode"][i])
        episodes["task"].append(float(columns["task"][i]))
        for field in METRIC_FIELDS.values():
            episodes[field].append(float(columns[field][i]))
    return {
        split: SplitResamples.build(
            split,
            {row: list(runs.values()) for row, runs in rows.items()},
            samples=samples,
            seed=seed,
        )
        for split, rows in nested.items()
    }


@dataclass(frozen=True)
class Config:
    """Reprint a bench embodied page's intervals and paired differences from its per-episode results."""

    page: Annotated[Path, tyro.conf.Positional, tyro.conf.arg(metavar="PAGE_FOLDER")]
    """The run's folder (its --out), holding episodes.parquet beside results.json."""

    def run(self) -> str:
        """The page's interval tables, recomputed from the kept episodes."""
        from rewardgym.benchmarks.embodied.paired import interval_rows, render_intervals

        columns, meta = read_episodes(self.page)
        by_split = resamples_from_records(
            columns, samples=int(meta["bootstrap"]), seed=int(meta["bootstrap_seed"])
        )
        rows = interval_rows(by_split, list(dict.fromkeys(columns["row"])))
        return render_intervals(rows, meta["config"], str(meta["env"]))


def main(argv: Sequence[str] | None = None) -> None:
    """Parse PAGE_FOLDER, print its intervals (a mistake: one line, exit 2)."""
    from rewardgym.cli import SCRIPT_ERRORS, refuse

    prog = "python -m rewardgym.benchmarks.embodied.stats"
    config = tyro.cli(Config, args=argv, prog=prog)
    try:
        text = config.run()
    except SCRIPT_ERRORS as err:
        refuse(prog, err)
    print(text)


__all__ = [
    "EPISODES_FILE",
    "METRIC_FIELDS",
    "RECORD_COLUMNS",
    "Config",
    "SplitResamples",
    "episode_records",
    "main",
    "read_episodes",
    "resamples_from_records",
    "seed_episode_interval",
    "write_episodes",
]


if __name__ == "__main__":
    main()
