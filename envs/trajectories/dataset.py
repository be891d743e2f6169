"""A data set of logged trajectories, stored as Arrow (our loader) and as a Minari data set.

A saved data set is one directory::

    DIR/rewardgym_dataset.json   what env made it, its action names, the observation schema
    DIR/episodes.arrow           one row per episode (instruction, task, success, ...)
    DIR/steps.arrow              T + 1 rows per episode: observation t, then action t,
                                 reward t (the success reward), dense_reward t (only after a
                                 relabelling), flags t (the last row holds the final
                                 observation, with action -1)
    DIR/data/                    the same episodes in Minari's Arrow layout

``TrajectoryDataset.from_dir(DIR)`` reads the Arrow files back; ``load_minari(DIR)`` (or
``minari.load_dataset`` with ``MINARI_DATASETS_PATH`` set to the parent of ``DIR``) reads
the Minari copy.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
import pyarrow as pa

from rewardgym.atomic import absolute, write_json_atomic
from rewardgym.envs.trajectories.episode import Episode
from rewardgym.envs.trajectories.layout import DATASET_KIND, FORMAT_VERSION, METADATA_FILE
from rewardgym.errors import DataValidationError
from rewardgym.outputs import atomic_output

if TYPE_CHECKING:
    import minari


@dataclass(frozen=True)
class FieldSpec:
    """How one observation field is stored: ``"text"`` or an ``"array"`` of a dtype and shape."""

    kind: str
    dtype: str = "str"
    shape: tuple[int, ...] = ()

    @classmethod
    def from_space(cls, name: str, space: gym.Space[Any]) -> FieldSpec:
        """The storage spec of observation field ``name`` with space ``space``."""
        if isinstance(space, gym.spaces.Text):
            return cls("text")
        if isinstance(space, gym.spaces.Discrete):
            return cls("array", "int64", ())
        if isinstance(space, gym.spaces.Box | gym.spaces.MultiBinary | gym.spaces.MultiDiscrete):
            return cls("array", str(space.dtype), tuple(int(n) for n in space.shape))
        raise TypeError(
            f"observation field {name!r} has space {space}, which trajectory data sets cannot "
            "store; use Text, Discrete, Box, MultiBinary or MultiDiscrete fields"
        )


def schema_from_space(space: gym.Space[Any]) -> dict[str, FieldSpec]:
    """The per-field storage schema of a ``Dict`` observation space."""
    if not isinstance(space, gym.spaces.Dict):
        raise TypeError(f"trajectory data sets need a Dict observation space, got {space}")
    return {name: FieldSpec.from_space(name, sub) for name, sub in space.spaces.items()}


class TrajectoryDataset:
    """Logged episodes of one environment plus what is needed to rebuild and re-encode them.

    Example:
        >>> from rewardgym.envs.trajectories import CollectConfig, collect_dataset
        >>> data = collect_dataset(CollectConfig(episodes=5, seed=0))
        >>> len(data), data.action_names[0]
        (5, 'walk to kitchen')
    """

    def __init__(
        self,
        episodes: Sequence[Episode],
        env_id: str,
        env_kwargs: dict[str, Any],
        action_names: Sequence[str],
        schema: dict[str, FieldSpec],
        info: dict[str, Any] | None = None,
    ) -> None:
        """Hold ``episodes`` of env ``env_id`` (made with ``env_kwargs``), described by ``schema``."""
        self.episodes: list[Episode] = list(episodes)
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs)
        self.action_names: tuple[str, ...] = tuple(action_names)
        self.schema = dict(schema)
        self.info: dict[str, Any] = dict(info or {})

    def __len__(self) -> int:
        """The number of episodes."""
        return len(self.episodes)

    def __iter__(self) -> Iterator[Episode]:
        """Iterate over the episodes in order."""
        return iter(self.episodes)

    def __getitem__(self, index: int) -> Episode:
        """Episode number ``index``."""
        return self.episodes[index]

    @property
    def n_steps(self) -> int:
        """The number of transitions over all episodes."""
        return sum(len(ep) for ep in self.episodes)

    @property
    def success_rate(self) -> float:
        """The share of episodes whose success flag is set."""
        return float(np.mean([ep.success for ep in self.episodes])) if self.episodes else 0.0

    def make_env(self, **overrides: Any) -> gym.Env[Any, Any]:
        """A fresh instance of the env the data came from (``overrides`` change its kwargs)."""
        return gym.make(self.env_id, **{**self.env_kwargs, **overrides})

    def select(self, keep: Callable[[Episode], bool]) -> TrajectoryDataset:
        """A data set of the episodes for which ``keep`` is true (shared, not copied)."""
        kept = [ep for ep in self.episodes if keep(ep)]
        return TrajectoryDataset(
            kept, self.env_id, self.env_kwargs, self.action_names, self.schema, self.info
        )

    def with_rewards(
        self, rewards: Sequence[np.ndarray | Sequence[float]], source: str = "relabelled"
    ) -> TrajectoryDataset:
        """A new data set with per-step ``rewards`` (one array per episode); this one is untouched."""
        if len(rewards) != len(self.episodes):
            raise ValueError(
                f"got rewards for {len(rewards)} episodes but the data set has "
                f"{len(self.episodes)}; pass one reward array per episode, in order"
            )
        episodes = [
            ep.with_rewards(np.asarray(r)) for ep, r in zip(self.episodes, rewards, strict=True)
        ]
        info = {**self.info, "reward_source": source}
        return TrajectoryDataset(
            episodes, self.env_id, self.env_kwargs, self.action_names, self.schema, info
        )

    def with_dense_rewards(
        self, rewards: Sequence[np.ndarray | Sequence[float]], source: str = "relabelled"
    ) -> TrajectoryDataset:
        """A new data set with a dense reward column beside the success reward (one array per episode)."""
        if len(rewards) != len(self.episodes):
            raise ValueError(
                f"got dense rewards for {len(rewards)} episodes but the data set has "
                f"{len(self.episodes)}; pass one reward array per episode, in order"
            )
        episodes = [
            ep.with_dense_rewards(np.asarray(r))
            for ep, r in zip(self.episodes, rewards, strict=True)
        ]
        info = {**self.info, "dense_reward_source": source}
        return TrajectoryDataset(
            episodes, self.env_id, self.env_kwargs, self.action_names, self.schema, info
        )

    # ------------------------------------------------------------------ Arrow storage
    def save(self, path: str | Path, *, minari: bool = True, overwrite: bool = False) -> Path:
        """Write the data set to directory ``path`` (Arrow, plus Minari's layout if ``minari``).

        The whole directory is written beside ``path`` and renamed into place when complete,
        so a killed save leaves either nothing (or the previous data set) or the complete new
        one, and the next save removes what the killed one left. ``path`` must be new, empty,
        or a data set rewardgym wrote (replaced only with ``overwrite=True``); a directory
        holding anything else is refused, whatever ``overwrite`` says. Returns the absolute
        path.
        """
        with atomic_output(path, DATASET_KIND, overwrite=overwrite) as tmp:
            self.write_into(tmp, minari=minari)
        return absolute(path)

    def write_into(self, directory: str | Path, *, minari: bool = True) -> None:
        """Write the data set's files into the existing, empty ``directory`` (``save``'s body).

        Use :meth:`save` unless you are building a larger atomic output yourself (as
        ``rewardgym label coren`` does, which adds its ``coren/`` files before the rename).
        """
        out = absolute(directory)
        _write_table(out / "episodes.arrow", self._episode_table())
        _write_table(out / "steps.arrow", self._step_table())
        if minari:
            self.to_minari(out)
        meta = {
            "format_version": FORMAT_VERSION,
            "env_id": self.env_id,
            "env_kwargs": self.env_kwargs,
            "action_names": list(self.action_names),
            "schema": {k: [v.kind, v.dtype, list(v.shape)] for k, v in self.schema.items()},
            "n_episodes": len(self),
            "n_steps": self.n_steps,
            "success_rate": self.success_rate,
            "info": self.info,
        }
        # Written last: a directory without it is not a data set.
        write_json_atomic(out / METADATA_FILE, meta)

    @classmethod
    def from_dir(cls, path: str | Path) -> TrajectoryDataset:
        """Read a data set written by ``save`` (or by ``rewardgym data collect``)."""
        root = Path(path)
        meta_path = root / METADATA_FILE
        if not meta_path.exists():
            raise FileNotFoundError(
                f"{meta_path} is missing: {root} is not a rewardgym trajectory data set; "
                "create one with `rewardgym data collect --out DIR`"
            )
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise DataValidationError(
                f"{meta_path}: not readable JSON ({err}); collect the data set again"
            ) from err
        except RecursionError:  # json.loads recurses once per level of nesting
            raise DataValidationError(
                f"{meta_path}: nested too deeply to be a data set's metadata; collect it again"
            ) from None
        if not isinstance(meta, dict) or meta.get("format_version") != FORMAT_VERSION:
            raise DataValidationError(
                f"{meta_path} has format_version "
                f"{meta.get('format_version') if isinstance(meta, dict) else None!r}; this rewardgym "
                f"reads version {FORMAT_VERSION}: collect the data set again"
            )
        env_id, env_kwargs, action_names, schema, info = _checked_metadata(meta, meta_path)
        episodes_table = _read_table(root / "episodes.arrow")
        steps = _read_table(root / "steps.arrow")
        episodes = _episodes_from_tables(episodes_table, steps, schema, root)
        _check_actions(episodes, action_names, meta_path)
        return cls(episodes, env_id, env_kwargs, action_names, schema, info)

    def _episode_table(self) -> pa.Table:
        eps = self.episodes
        return pa.table(
            {
                "episode_id": pa.array([ep.episode_id for ep in eps], pa.int64()),
                "seed": pa.array([ep.seed for ep in eps], pa.int64()),
                "task_id": pa.array([ep.task_id for ep in eps], pa.int32()),
                "task_name": pa.array([ep.task_name for ep in eps], pa.string()),
                "instruction": pa.array([ep.instruction for ep in eps], pa.string()),
                "instruction_kind": pa.array([ep.instruction_kind for ep in eps], pa.string()),
                "layout": pa.array([ep.layout for ep in eps], pa.string()),
                "success": pa.array([ep.success for ep in eps], pa.bool_()),
                "final_cgc": pa.array([ep.final_cgc for ep in eps], pa.float32()),
                "length": pa.array([len(ep) for ep in eps], pa.int32()),
                "extras": pa.array([json.dumps(ep.extras) for ep in eps], pa.string()),
            }
        )

    def _step_table(self) -> pa.Table:
        eps = self.episodes

        def padded(name: str, fill: Any, dtype: Any) -> np.ndarray:
            return np.concatenate(
                [np.append(np.asarray(getattr(ep, name), dtype=dtype), fill) for ep in eps]
                or [np.zeros(0, dtype=dtype)]
            )

        lengths = np.asarray([len(ep) + 1 for ep in eps], dtype=np.int64)
        starts = np.cumsum(lengths) - lengths
        ids = np.asarray([ep.episode_id for ep in eps], dtype=np.int64)
        columns: dict[str, pa.Array] = {
            "episode_id": pa.array(np.repeat(ids, lengths)),
            "t": pa.array((np.arange(lengths.sum()) - np.repeat(starts, lengths)).astype(np.int32)),
            "action": pa.array(padded("actions", -1, np.int64)),
            "reward": pa.array(padded("rewards", 0.0, np.float32)),
            "terminated": pa.array(padded("terminations", False, np.bool_)),
            "truncated": pa.array(padded("truncations", False, np.bool_)),
            "executable": pa.array(padded("executable", True, np.bool_)),
            "expert": pa.array(padded("expert", False, np.bool_)),
        }
        if eps and all(ep.dense_rewards is not None for ep in eps):
            columns["dense_reward"] = pa.array(padded("dense_rewards", 0.0, np.float32))
        for name, spec in self.schema.items():
            columns[f"obs.{name}"] = _encode_field(spec, [ep.observations[name] for ep in eps])
        return pa.table(columns)

    # ------------------------------------------------------------------ conversions
    def to_minari(self, path: str | Path, dataset_id: str | None = None) -> minari.MinariDataset:
        """Write these episodes as a Minari data set under ``path/data`` and open it."""
        from rewardgym.envs.trajectories.minari_io import write_minari

        return write_minari(self, absolute(path), dataset_id)


def _checked_metadata(
    meta: dict[str, Any], meta_path: Path
) -> tuple[str, dict[str, Any], list[str], dict[str, FieldSpec], dict[str, Any]]:
    """The env id, env kwargs, action names, schema and info of a data set's metadata, checked.

    The env id must be one rewardgym registers (``rewardgym.envs.registration``): a file never
    chooses code, and ``gym.make`` would import the module of a ``module:Env`` id.
    """
    from rewardgym.envs import TRAJECTORY_REPLAY_ID
    from rewardgym.envs.registration import check_registered

    def bad(what: str) -> DataValidationError:
        return DataValidationError(f"{meta_path}: {what}; collect the data set again")

    missing = [
        k for k in ("env_id", "env_kwargs", "action_names", "schema", "info") if k not in meta
    ]
    if missing:
        raise bad(f"the metadata lacks {', '.join(missing)}")
    env_id = check_registered(meta["env_id"], source=str(meta_path))
    if env_id == TRAJECTORY_REPLAY_ID:
        raise bad(f"env_id {env_id!r} is the replay env itself, which no data set is collected in")
    kwargs, names, info = meta["env_kwargs"], meta["action_names"], meta["info"]
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise bad(f"env_kwargs must be an object of keyword arguments, got {kwargs!r:.80}")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise bad("action_names must be a non-empty list of strings")
    if not isinstance(info, dict):
        raise bad(f"info must be an object, got {info!r:.80}")
    try:
        schema = {
            str(k): FieldSpec(str(kind), str(dtype), tuple(int(n) for n in shape))
            for k, (kind, dtype, shape) in meta["schema"].items()
        }
    except (AttributeError, TypeError, ValueError) as err:
        raise bad(f"schema is not a map of [kind, dtype, shape] entries ({err})") from None
    return env_id, kwargs, names, schema, info


def _check_actions(
    episodes: Sequence[Episode], action_names: Sequence[str], meta_path: Path
) -> None:
    """Every logged action must index ``action_names`` (replay and labelling look names up)."""
    actions = [ep.actions for ep in episodes if len(ep.actions)]
    if not actions:
        return
    low, high = min(int(a.min()) for a in actions), max(int(a.max()) for a in actions)
    if low < 0 or high >= len(action_names):
        raise DataValidationError(
            f"{meta_path} lists {len(action_names)} action_names but steps.arrow holds action "
            f"ids {low}..{high} (valid: 0..{len(action_names) - 1}); the data set is damaged, "
            "collect it again"
        )


def _write_table(path: Path, table: pa.Table) -> None:
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with (
        pa.OSFile(str(path), "wb") as sink,
        pa.ipc.new_file(sink, table.schema, options=options) as writer,
    ):
        writer.write_table(table)


def _read_table(path: Path) -> pa.Table:
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the data set directory is incomplete")
    try:
        with pa.memory_map(str(path), "r") as source:
            return pa.ipc.open_file(source).read_all()
    except (pa.ArrowException, OSError) as err:
        raise DataValidationError(
            f"{path}: not a readable Arrow file ({err}); the data set is damaged, collect it again"
        ) from err


def _encode_field(spec: FieldSpec, columns: list[Any]) -> pa.Array:
    if spec.kind == "text":
        return pa.array([text for column in columns for text in column], pa.string())
    stacked = (
        np.concatenate([np.asarray(c, dtype=spec.dtype) for c in columns])
        if columns
        else np.zeros((0, *spec.shape), dtype=spec.dtype)
    )
    if not spec.shape:
        return pa.array(stacked.reshape(-1))
    flat = stacked.reshape(len(stacked), -1)
    return pa.FixedSizeListArray.from_arrays(pa.array(flat.reshape(-1)), flat.shape[1])


def _decode_field(spec: FieldSpec, column: pa.ChunkedArray) -> Any:
    array = column.combine_chunks()
    if spec.kind == "text":
        return array.to_pylist()
    if not spec.shape:
        return array.to_numpy(zero_copy_only=False).astype(spec.dtype)
    values = array.flatten().to_numpy(zero_copy_only=False).astype(spec.dtype)
    return values.reshape(len(array), *spec.shape)


EPISODE_COLUMNS: tuple[str, ...] = (
    "episode_id",
    "seed",
    "task_id",
    "task_name",
    "instruction",
    "instruction_kind",
    "layout",
    "success",
    "final_cgc",
    "length",
    "extras",
)
"""The columns of ``episodes.arrow``, one row per episode."""
STEP_COLUMNS: dict[str, Any] = {
    "action": np.int64,
    "reward": np.float64,
    "terminated": np.bool_,
    "truncated": np.bool_,
    "executable": np.bool_,
    "expert": np.bool_,
}
"""The columns of ``steps.arrow`` besides the observations (``obs.NAME``) and ``dense_reward``,
with the type each is read as."""


def _finite_rewards(
    values: np.ndarray, path: Path, column: str, *, abstain: bool = False
) -> np.ndarray:
    """``values`` as float32, refused (naming the row) when one is NaN, infinite or too large.

    A reward beyond float32's range (``1e308``) becomes infinite once stored, and an agent
    trained on either learns NaN weights: the data set is damaged, not a reward to learn from.
    With ``abstain`` (the dense column) NaN is allowed: a judge's abstention, composed as 0.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        rewards = np.asarray(values, dtype=np.float32)
    bad = np.flatnonzero(np.isinf(rewards) if abstain else ~np.isfinite(rewards))
    if len(bad):
        row = int(bad[0])
        what = "infinite or beyond float32" if abstain else "NaN, infinite or beyond float32"
        raise DataValidationError(
            f"{len(bad)} reward(s) are {what}; a reward must be a finite number: fix the data "
            "set or collect (label) it again",
            source=str(path),
            location=f"row {row}",
            field_name=column,
            value=float(values[row]),
        )
    return rewards


def _step_columns(
    episodes_table: pa.Table, steps: pa.Table, schema: dict[str, FieldSpec], root: Path
) -> tuple[dict[str, Any], dict[str, np.ndarray], np.ndarray | None, dict[str, Any]]:
    """The episode rows and the step columns of a data set's tables, checked.

    A missing column, or one of a type that cannot be read as its field, names the file and
    the column; the rewards must be finite (:func:`_finite_rewards`).
    """
    wanted = {
        root / "episodes.arrow": (episodes_table, EPISODE_COLUMNS),
        root / "steps.arrow": (steps, (*STEP_COLUMNS, *(f"obs.{n}" for n in schema))),
    }
    for path, (table, names) in wanted.items():
        missing = [n for n in names if n not in table.column_names]
        if missing:
            raise DataValidationError(
                f"the column(s) {', '.join(missing)} are missing; the data set is damaged, "
                "collect it again",
                source=str(path),
            )
    column = ""
    try:
        meta = episodes_table.to_pydict()
        cols = {}
        for column, dtype in STEP_COLUMNS.items():
            values = steps.column(column).to_numpy(zero_copy_only=False)
            cols[column] = values if column == "reward" else values.astype(dtype)
        path = root / "steps.arrow"
        cols["reward"] = _finite_rewards(cols["reward"], path, "reward")
        column = "dense_reward"
        dense = None
        if column in steps.column_names:
            raw = steps.column(column).to_numpy(zero_copy_only=False)
            dense = _finite_rewards(raw, path, column, abstain=True)
        fields = {}
        for name, spec in schema.items():
            column = f"obs.{name}"
            fields[name] = _decode_field(spec, steps.column(column))
    except (pa.ArrowException, TypeError, ValueError) as err:
        if isinstance(err, DataValidationError):
            raise
        raise DataValidationError(
            f"cannot be read as this field ({err}); the data set is damaged, collect it again",
            source=str(root / "steps.arrow"),
            field_name=column,
        ) from None
    return meta, cols, dense, fields


def _episodes_from_tables(
    episodes_table: pa.Table, steps: pa.Table, schema: dict[str, FieldSpec], root: Path
) -> list[Episode]:
    meta, cols, dense, fields = _step_columns(episodes_table, steps, schema, root)
    try:
        lengths = np.asarray(meta["length"], dtype=np.int64)
    except (TypeError, ValueError) as err:
        raise DataValidationError(
            f"not a list of episode lengths ({err})",
            source=str(root / "episodes.arrow"),
            field_name="length",
        ) from None
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64)
    if (lengths < 0).any() or int((lengths + 1).sum()) != steps.num_rows:
        raise DataValidationError(
            f"steps.arrow has {steps.num_rows} rows but episodes.arrow implies "
            f"{int((lengths + 1).sum())}; the data set is corrupt, collect it again",
            source=str(root),
        )
    episodes = []
    for i, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        try:
            episodes.append(_episode(meta, i, start, length, cols, dense, fields))
        except (KeyError, TypeError, ValueError) as err:  # a value of the wrong type or shape
            raise DataValidationError(
                f"episode {i} cannot be read ({err}); the data set is damaged, collect it again",
                source=str(root / "episodes.arrow"),
                location=f"row {i}",
            ) from None
    return episodes


def _episode(
    meta: dict[str, Any],
    i: int,
    start: int,
    length: int,
    cols: dict[str, np.ndarray],
    dense: np.ndarray | None,
    fields: dict[str, Any],
) -> Episode:
    """Episode ``i`` of the tables, its steps ``start .. start + length`` of the step columns."""
    end = start + length
    obs = {name: values[start : end + 1] for name, values in fields.items()}
    return Episode(
        episode_id=meta["episode_id"][i],
        seed=meta["seed"][i],
        instruction=meta["instruction"][i],
        observations=obs,
        actions=cols["action"][start:end].astype(np.int64),
        rewards=cols["reward"][start:end].astype(np.float32),
        terminations=cols["terminated"][start:end].astype(bool),
        truncations=cols["truncated"][start:end].astype(bool),
        executable=cols["executable"][start:end].astype(bool),
        expert=cols["expert"][start:end].astype(bool),
        success=bool(meta["success"][i]),
        task_id=meta["task_id"][i],
        task_name=meta["task_name"][i],
        instruction_kind=meta["instruction_kind"][i],
        layout=meta["layout"][i],
        final_cgc=float(meta["final_cgc"][i]),
        extras=json.loads(meta["extras"][i]),
        dense_rewards=None if dense is None else dense[start:end].astype(np.float32),
    )


__all__ = [
    "FieldSpec",
    "TrajectoryDataset",
    "schema_from_space",
]
