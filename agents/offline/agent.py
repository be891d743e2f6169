"""Train an offline agent on a trajectory data set and act with it in the simulator.

``train_offline`` encodes a ``TrajectoryDataset`` (whatever reward it carries: the sparse
success flag or a COREN relabelling) into a d3rlpy ``MDPDataset`` and fits the algorithm of
an ``OfflineConfig``. The returned ``OfflineAgent`` pairs the trained d3rlpy algorithm with
the observation encoder, so it acts on raw observations and saves to, and loads from, one
directory.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.agents.offline.config import OfflineConfig, make_algo_config
from rewardgym.agents.offline.encoders import make_observation_encoder
from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.trajectories.encoding import ObservationEncoder, to_mdp_dataset
from rewardgym.runtime import torch_threads

if TYPE_CHECKING:
    from d3rlpy.dataset import MDPDataset

    from rewardgym.envs.trajectories.dataset import TrajectoryDataset

MODEL_FILE = "model.d3"
META_FILE = "agent.json"


class OfflineAgent:
    """A trained d3rlpy algorithm plus the encoder that turns observations into its input."""

    def __init__(
        self, algo: Any, encoder: ObservationEncoder, config: OfflineConfig, env_id: str
    ) -> None:
        """Pair ``algo`` (a fitted d3rlpy algorithm) with ``encoder``."""
        self.algo = algo
        self.encoder = encoder
        self.config = config
        self.env_id = env_id
        self.train_seconds = 0.0
        self.steps_per_second = 0.0

    @property
    def name(self) -> str:
        """The algorithm's name, e.g. ``DiscreteCQL``."""
        return self.config.algorithm_name

    def act_batch(
        self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]
    ) -> np.ndarray:
        """Greedy actions for a batch of live observations with their episodes' instructions."""
        columns = {key: [obs[key] for obs in observations] for key in observations[0]}
        x = self.encoder.encode_batch(columns, instructions).astype(np.float32)
        return np.asarray(self.algo.predict(x), dtype=np.int64)

    def act(self, observation: dict[str, Any], instruction: str) -> int:
        """The greedy action for one live observation."""
        return int(self.act_batch([observation], [instruction])[0])

    def save(self, path: str | Path) -> Path:
        """Write the d3rlpy model and this agent's config into directory ``path``."""
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        self.algo.save(str(out / MODEL_FILE))
        meta = {"config": self.config.as_dict(), "env_id": self.env_id}
        (out / META_FILE).write_text(json.dumps(meta, indent=2))
        return out

    @classmethod
    def load(cls, path: str | Path, embedder: CachedEmbedder | None = None) -> OfflineAgent:
        """Read an agent written by ``save`` (the model through ``d3rlpy.load_learnable``)."""
        import d3rlpy
        import gymnasium as gym

        # Register our d3rlpy configs (IQL, encoder and optimizer factories) before loading.
        from rewardgym.agents.offline import encoders, iql, optimizers  # noqa: F401

        root = Path(path)
        if not (root / META_FILE).exists():
            raise FileNotFoundError(f"{root / META_FILE} is missing: {root} is not a saved agent")
        meta = json.loads((root / META_FILE).read_text())
        config = OfflineConfig.from_dict(meta["config"])
        algo = d3rlpy.load_learnable(str(root / MODEL_FILE))
        env = gym.make(meta["env_id"])
        space = env.observation_space
        env.close()
        if not isinstance(space, gym.spaces.Dict):
            raise TypeError(f"{meta['env_id']} has a non-Dict observation space {space}")
        encoder = make_observation_encoder(
            config.encoding, space, embedder, None, config.token_length, config.vocab_size
        )
        return cls(algo, encoder, config, meta["env_id"])


def encoder_for_dataset(
    data: TrajectoryDataset, config: OfflineConfig, embedder: CachedEmbedder | None = None
) -> ObservationEncoder:
    """The observation encoder ``config`` asks for, over ``data``'s observation space."""
    import gymnasium as gym

    env = data.make_env()
    space = env.observation_space
    env.close()
    if not isinstance(space, gym.spaces.Dict):
        raise TypeError(f"{data.env_id} has a non-Dict observation space {space}")
    return make_observation_encoder(
        config.encoding, space, embedder, None, config.token_length, config.vocab_size
    )


def quiet_d3rlpy_logs() -> None:
    """Keep d3rlpy's structlog messages to warnings, so a suite of dozens of fits stays readable."""
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def fit_mdp(
    mdp: MDPDataset,
    encoder: ObservationEncoder,
    config: OfflineConfig,
    env_id: str,
    progress: bool = False,
) -> OfflineAgent:
    """Fit ``config``'s algorithm on an already encoded ``mdp`` (seeded, on the CPU)."""
    import d3rlpy
    from d3rlpy.logging import NoopAdapterFactory

    from rewardgym.agents.offline.sampling import vectorise_sampling

    quiet_d3rlpy_logs()
    with torch_threads(config.threads):
        d3rlpy.seed(config.seed)
        algo = make_algo_config(config).create(device=False)
        if not algo.need_returns_to_go:  # the flat sampler carries no returns-to-go
            vectorise_sampling(mdp)
        algo.build_with_dataset(mdp)
        start = time.perf_counter()
        algo.fit(
            mdp,
            n_steps=config.n_steps,
            n_steps_per_epoch=config.n_steps,
            show_progress=progress,
            save_interval=config.n_steps + 1,
            logger_adapter=NoopAdapterFactory(),
        )
        elapsed = time.perf_counter() - start
    agent = OfflineAgent(algo, encoder, config, env_id)
    agent.train_seconds = elapsed
    agent.steps_per_second = config.n_steps / max(elapsed, 1e-9)
    return agent


def train_offline(
    data: TrajectoryDataset,
    config: OfflineConfig | None = None,
    embedder: CachedEmbedder | None = None,
    progress: bool = True,
) -> OfflineAgent:
    """Train ``config``'s algorithm on ``data`` with the rewards it carries.

    Example:
        >>> from rewardgym.agents.offline import BCSettings
        >>> from rewardgym.envs.trajectories import CollectConfig, collect_dataset
        >>> data = collect_dataset(CollectConfig(episodes=10, noise=0.2))
        >>> import contextlib, io
        >>> with contextlib.redirect_stdout(io.StringIO()):  # d3rlpy logs to stdout
        ...     agent = train_offline(data, OfflineConfig(algorithm=BCSettings(), n_steps=5), progress=False)
        >>> agent.name
        'DiscreteBC'
    """
    config = config or OfflineConfig()
    encoder = encoder_for_dataset(data, config, embedder)
    mdp = to_mdp_dataset(data, encoder)
    return fit_mdp(mdp, encoder, config, data.env_id, progress)


__all__ = [
    "META_FILE",
    "MODEL_FILE",
    "OfflineAgent",
    "encoder_for_dataset",
    "fit_mdp",
    "train_offline",
]
