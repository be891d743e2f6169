"""Write a ``TrajectoryDataset`` in Minari's own Arrow layout and open it with Minari.

Minari's ``MinariStorage`` does the writing, so the files are exactly what ``minari``
reads. Raw arrays are stored (no JPEG, which would make BabyAI's 7x7x3 grid lossy).

Rewards: an episode's ``rewards`` are the success reward (the ``rewards`` column of the data
set). A relabelled data set (``rewardgym label coren``, the oracle's shaping) also carries its
dense reward per step, in the infos, which Minari aligns with the observations: step ``t``'s
dense reward is ``episode.infos["dense_reward"][t + 1]`` (entry 0 belongs to the reset and is
NaN), so ``episode.infos["dense_reward"][1:]`` lines up with ``episode.rewards``. The data set's
metadata says so under ``"rewardgym_rewards"`` (with the dense reward's source), and
``rewardgym.wrappers.composition.compose_rewards(episode.rewards, dense, composition)`` gives
COREN's composed reward.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.atomic import absolute
from rewardgym.envs.trajectories.layout import METADATA_FILE, MINARI_SUBDIR

if TYPE_CHECKING:
    import minari

    from rewardgym.envs.trajectories.dataset import TrajectoryDataset

DENSE_INFO_KEY = "dense_reward"
"""The infos key of a relabelled data set's dense reward (``infos[key][t + 1]``: step ``t``)."""


DEFAULT_DATASET_NAME = "perturbed-expert"
"""The data-set name of a collection run that names no variant (COREN's perturbed expert)."""


def default_dataset_id(env_id: str, name: str = DEFAULT_DATASET_NAME) -> str:
    """A Minari data-set id ``namespace/env/name-vN`` for data ``name`` from ``env_id``, versioned as the env is.

    The namespace is ``rewardgym``, the env its id's name in lower case without the version, and
    ``N`` the env's version: two versions' data must not share an id, so ``rewardgym/Household-v1``
    gives ``rewardgym/household/perturbed-expert-v1``; an env id without a version gets ``-v0``.

    Example:
        >>> default_dataset_id("rewardgym/Household-v0"), default_dataset_id("rewardgym/Household-v1", "noisy")
        ('rewardgym/household/perturbed-expert-v0', 'rewardgym/household/noisy-v1')
    """
    env = env_id.split("/")[-1]
    version = re.search(r"-v(\d+)$", env)
    env = _slug(re.sub(r"-v\d+$", "", env))
    return f"rewardgym/{env}/{_slug(name)}-v{version.group(1) if version else 0}"


def _slug(text: str) -> str:
    """``text`` in lower case with every run of other characters than ``a-z0-9`` one ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def recommended_metadata(dataset: TrajectoryDataset, dataset_id: str | None) -> dict[str, Any]:
    """The metadata Minari recommends for ``dataset`` (``minari.create_dataset_from_buffers``'s fields).

    ``dataset_id`` (:func:`default_dataset_id` with the collection's ``variant``, when None),
    ``author``, ``algorithm_name`` (the collector's settings), ``code_permalink`` (the rewardgym
    release and the function that collected the data: the package names no public URL),
    ``requirements`` (pip-style pins of what recreates the env) and ``description``; Minari's
    loader warns when an installed package misses a requirement.
    """
    from importlib.metadata import PackageNotFoundError, version

    import gymnasium

    from rewardgym import __version__
    from rewardgym.envs import VIRTUALHOME_ID

    info = dataset.info
    requirements = [f"rewardgym=={__version__}", f"gymnasium=={gymnasium.__version__}"]
    if dataset.env_id == VIRTUALHOME_ID:
        try:
            requirements.append(f"virtualhome_eval=={version('virtualhome_eval')}")
        except PackageNotFoundError:
            requirements.append("virtualhome_eval")
    collector = info.get("collector")
    if isinstance(collector, dict):
        algorithm = (
            f"perturbed expert (COREN, arXiv 2411.17135): {collector.get('expert')} expert, "
            f"noise {collector.get('noise')}, sibling fraction {collector.get('sibling_fraction')}, "
            f"give-up {collector.get('give_up')}"
        )
    else:
        algorithm = "perturbed expert (COREN, arXiv 2411.17135)"
    return {
        "dataset_id": dataset_id
        or default_dataset_id(dataset.env_id, str(info.get("variant") or DEFAULT_DATASET_NAME)),
        "author": {"rewardgym"},
        "algorithm_name": algorithm,
        "code_permalink": (
            f"rewardgym=={__version__}: rewardgym.envs.trajectories.collect.collect_dataset"
        ),
        "requirements": requirements,
    }


def write_minari(
    dataset: TrajectoryDataset, root: Path, dataset_id: str | None = None
) -> minari.MinariDataset:
    """Write ``dataset`` under ``root/data`` in Minari's Arrow format and return it opened.

    ``root`` is made absolute first: Minari's size measurement joins each file it finds to the
    data path again, which doubles a relative one. Writing is not atomic by itself;
    ``TrajectoryDataset.save`` calls this inside a temporary directory that is renamed when
    complete.
    """
    from minari import MinariDataset
    from minari.data_collector.episode_buffer import EpisodeBuffer
    from minari.dataset.minari_storage import MinariStorage

    env = dataset.make_env()
    spec = env.spec
    env_spec = None
    if spec is not None:
        env_spec = dataclasses.replace(
            spec,
            kwargs={**spec.kwargs, **dataset.env_kwargs},
            max_episode_steps=spec.max_episode_steps,
        )
    data_path = absolute(root) / MINARI_SUBDIR
    if data_path.exists() and any(data_path.iterdir()):
        raise FileExistsError(
            f"{data_path} already holds data; write the Minari copy into an empty directory"
        )
    storage = MinariStorage.new(
        data_path,
        observation_space=env.observation_space,
        action_space=env.action_space,
        env_spec=env_spec,
        data_format="arrow",
        jpeg_encoding=False,
    )
    env.close()
    import minari as minari_pkg

    dense = bool(dataset.episodes) and all(ep.dense_rewards is not None for ep in dataset)
    reward_source = dataset.info.get("reward_source", "success flag")
    rewards_meta: dict[str, Any] = {"rewards": reward_source}
    description = (
        f"{len(dataset)} trajectories of {dataset.env_id}; success rate "
        f"{dataset.success_rate:.3f}; reward source: {reward_source}"
    )
    if dense:
        dense_source = dataset.info.get("dense_reward_source", "relabelled")
        rewards_meta["dense_reward"] = {
            "source": dense_source,
            "infos_key": DENSE_INFO_KEY,
            "alignment": f"infos['{DENSE_INFO_KEY}'][t + 1] is step t's; entry 0 (reset) is NaN",
        }
        description += f"; dense reward ({dense_source}) in infos['{DENSE_INFO_KEY}'][1:]"
    storage.update_metadata(
        {
            **recommended_metadata(dataset, dataset_id),
            "minari_version": minari_pkg.__version__,
            "description": description,
            "rewardgym_rewards": rewards_meta,
        }
    )
    buffers = (
        EpisodeBuffer(
            id=i,
            seed=ep.seed,
            observations=_observation_buffer(ep.observations),
            actions=[int(a) for a in ep.actions],
            rewards=[float(r) for r in ep.rewards],
            terminations=[bool(x) for x in ep.terminations],
            truncations=[bool(x) for x in ep.truncations],
            infos=_dense_infos(ep.dense_rewards) if dense else None,
        )
        for i, ep in enumerate(dataset.episodes)
    )
    # Minari re-measures the whole directory after every episode, which makes writing
    # quadratic in the episode count; measure once at the end instead.
    measure = storage.get_size
    storage.get_size = lambda: 0.0
    try:
        storage.update_episodes(buffers)
    finally:
        del storage.get_size
    storage.update_metadata({"dataset_size": measure()})
    return MinariDataset(storage)


def _observation_buffer(observations: dict[str, Any]) -> dict[str, Any]:
    return {key: list(v) if isinstance(v, list) else v for key, v in observations.items()}


def _dense_infos(dense: np.ndarray | None) -> dict[str, list[float]]:
    """Minari infos (``T + 1`` rows, the reset's first) holding step ``t``'s dense reward at ``t + 1``.

    A list of floats, not an array: Minari 0.5 writes a 1-D array with an empty shape that it
    cannot read back.
    """
    values = np.asarray(dense, dtype=np.float32).reshape(-1)
    return {DENSE_INFO_KEY: [float("nan"), *(float(v) for v in values)]}


def minari_dense_rewards(episode: Any) -> np.ndarray | None:
    """The per-step dense reward of a Minari ``EpisodeData`` this module wrote (``None``: unlabelled).

    It is ``episode.infos["dense_reward"][1:]``, one value per entry of ``episode.rewards``.
    """
    infos = getattr(episode, "infos", None) or {}
    if DENSE_INFO_KEY not in infos:
        return None
    return np.asarray(infos[DENSE_INFO_KEY], dtype=np.float32).reshape(-1)[1:]


def load_minari(path: str | Path) -> minari.MinariDataset:
    """Open the Minari copy inside a data set directory (``path/data``) or a Minari ``data`` dir.

    A copy that a killed writer left incomplete (episode folders that its metadata does not
    count, or fewer than it counts) is an error naming the directory, not an empty data set.
    """
    from minari import MinariDataset

    root = absolute(path)
    data_path = root / MINARI_SUBDIR if (root / MINARI_SUBDIR).is_dir() else root
    metadata = data_path / "metadata.json"
    if not metadata.exists():
        raise FileNotFoundError(
            f"no Minari data set at {data_path}: collect with `rewardgym data collect` "
            "(which writes DIR/data) or call TrajectoryDataset.to_minari(DIR)"
        )
    check_minari_complete(data_path)
    return MinariDataset(data_path)


def check_minari_complete(data_path: Path) -> None:
    """Raise ``ValueError`` unless the Minari data set at ``data_path`` holds what it says."""
    metadata = data_path / "metadata.json"
    try:
        meta = json.loads(metadata.read_text(encoding="utf-8"))
        total = int(meta["total_episodes"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{metadata}: not a readable Minari metadata file ({err})") from err
    folders = sorted(int(p.name) for p in data_path.iterdir() if p.is_dir() and p.name.isdigit())
    complete = [i for i in folders if (data_path / str(i) / "metadata.json").is_file()]
    if folders != list(range(total)) or len(complete) != total:
        raise ValueError(
            f"{data_path}: incomplete Minari data set: its metadata counts {total} episodes "
            f"but {len(folders)} episode folders ({len(complete)} complete) are present, as a "
            "killed write leaves them; write it again (rewardgym data collect, or "
            "TrajectoryDataset.to_minari into an empty directory)"
        )
    ours = data_path.parent / METADATA_FILE
    expected = None
    if data_path.name == MINARI_SUBDIR and ours.is_file():
        with contextlib.suppress(OSError, ValueError, AttributeError):
            expected = json.loads(ours.read_text(encoding="utf-8")).get("n_episodes")
    if isinstance(expected, int) and expected != total:
        raise ValueError(
            f"{data_path}: the Minari copy holds {total} episodes but {ours} counts "
            f"{expected}; the copy is stale or incomplete: save the data set again"
        )


def minari_load_dataset(path: str | Path) -> minari.MinariDataset:
    """Open a data set directory through ``minari.load_dataset`` itself (via MINARI_DATASETS_PATH)."""
    import minari

    root = absolute(path)
    check_minari_complete(root / MINARI_SUBDIR)
    previous = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(root.parent)
    try:
        return minari.load_dataset(root.name)
    finally:
        if previous is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous


__all__ = [
    "DEFAULT_DATASET_NAME",
    "DENSE_INFO_KEY",
    "check_minari_complete",
    "default_dataset_id",
    "load_minari",
    "minari_dense_rewards",
    "minari_load_dataset",
    "recommended_metadata",
    "write_minari",
]
