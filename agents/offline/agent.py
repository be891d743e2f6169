"""Train an offline agent on a trajectory data set and act with it in the simulator.

``train_offline`` encodes a ``TrajectoryDataset`` into a d3rlpy ``MDPDataset`` with the
reward ``OfflineConfig.reward`` names (the success flag, a relabelling's dense column, or
their composition, decided once by ``training_config`` from the config and the composition the
data set records, and recorded in the agent's config) and fits
the algorithm of the config. The returned ``OfflineAgent`` pairs the trained d3rlpy algorithm with
the observation encoder, so it acts on raw observations and saves to, and loads from, one
directory (safetensors weights and JSON configs: loading never unpickles).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.agents.offline.curve import CurvePoint, ValidationCurve
from rewardgym.agents.offline.encoders import make_observation_encoder
from rewardgym.agents.offline.learnable import make_algo_config
from rewardgym.agents.offline.logs import quiet_d3rlpy_logs
from rewardgym.agents.offline.mdp import to_mdp_dataset
from rewardgym.agents.offline.training_reward import (
    composed_rewards,
    training_config,
    training_rewards,
)
from rewardgym.atomic import absolute
from rewardgym.bounds import strict_json
from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.registration import check_registered
from rewardgym.envs.trajectories.encoding import ObservationEncoder
from rewardgym.errors import DataValidationError, TrainingDiverged
from rewardgym.outputs import atomic_output
from rewardgym.progress import progress_bar
from rewardgym.threads import torch_threads

if TYPE_CHECKING:
    from d3rlpy.dataset import MDPDataset

    from rewardgym.agents.evaluation.household import EvalConfig
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset

WEIGHTS_FILE = "model.safetensors"
LEGACY_MODEL_FILE = "model.d3"
"""d3rlpy's pickle format, written by older versions; read only with ``trust=True``."""
META_FILE = "agent.json"
FORMAT_VERSION = 2
AGENT_KIND = "offline-agent"
DIVERGENCE_CHECK_STEPS = 100
"""Steps between two checks that the weights are finite while training (and after the last)."""


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
        self.curve: list[CurvePoint] = []
        """The run's validation curve (``config.eval_every``; empty without one)."""
        self.selected_step: int | None = None
        """The step whose weights the agent holds, chosen by ``config.checkpoint`` on the curve."""

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

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the agent to directory ``path`` in formats that cannot run code when read.

        ``model.safetensors`` holds the weights of the d3rlpy algorithm's networks and
        ``agent.json`` this agent's config, the env id and d3rlpy's own serialized config (the
        algorithm, its shapes and factories, as JSON). The directory is written beside ``path``
        and renamed into place when complete; ``path`` must be new, empty, or an agent saved
        here before (replaced only with ``overwrite=True``).
        An agent whose weights are NaN or infinite is refused with
        :class:`~rewardgym.errors.TrainingDiverged` and nothing is written.
        """
        check_finite_weights(self.algo, self.name)
        with atomic_output(path, AGENT_KIND, overwrite=overwrite) as tmp:
            self.write_into(tmp)
        return absolute(path)

    def write_into(self, directory: str | Path) -> None:
        """Write ``save``'s two files into the existing ``directory`` (for a larger atomic output).

        Use :meth:`save` unless you hold the output yourself, as ``rewardgym train offline``
        does (it claims ``--out`` before training, so a second run on it is refused at once).
        """
        from d3rlpy import __version__ as d3rlpy_version
        from d3rlpy.base import LearnableConfigWithShape
        from safetensors.torch import save_file

        impl = self.algo.impl
        if impl is None:
            raise ValueError("OfflineAgent.save: the algorithm has not been built or fitted")
        check_finite_weights(self.algo, self.name)
        shaped = LearnableConfigWithShape(
            observation_shape=impl.observation_shape,
            action_size=impl.action_size,
            config=self.algo.config,
        )
        tensors = {
            f"{name}.{key}": value.detach().cpu().clone().contiguous()
            for name, module in impl.modules.get_torch_modules().items()
            for key, value in module.state_dict().items()
        }
        meta = {
            "format_version": FORMAT_VERSION,
            "config": self.config.as_dict(),
            "env_id": self.env_id,
            "d3rlpy": {"version": d3rlpy_version, "config": json.loads(shaped.serialize())},
        }
        if self.curve:  # what chose these weights; loading does not read it back
            meta["validation_curve"] = {
                "rule": self.config.checkpoint,
                "selected_step": self.selected_step,
                "points": [point.as_list() for point in self.curve],
            }
        out = Path(directory)
        save_file(tensors, str(out / WEIGHTS_FILE))
        text = strict_json(meta, out / META_FILE, indent=2)
        (out / META_FILE).write_text(text, encoding="utf-8")

    @classmethod
    def load(
        cls, path: str | Path, embedder: CachedEmbedder | None = None, *, trust: bool = False
    ) -> OfflineAgent:
        """Read an agent written by ``save``: JSON and safetensors, so reading runs no code.

        An agent saved by an older rewardgym holds ``model.d3`` instead, d3rlpy's own format,
        which is a Python pickle: unpickling runs whatever code the file names, so a crafted
        file executes on load. Such a file is read (through ``d3rlpy.load_learnable``) only
        with ``trust=True``; pass it only for files you made yourself, then save the agent
        again to convert it.

        A damaged or crafted agent is refused with
        :class:`~rewardgym.errors.DataValidationError` naming the file and the field, before
        any network is built: ``agent.json`` must be an agent's metadata whose config and
        d3rlpy config agree (algorithm and encoder), whose shapes fit the env, and whose
        networks have exactly the tensors and shapes of the weights file's header.
        """
        import gymnasium as gym

        # Register our d3rlpy configs (IQL, encoder and optimizer factories) before loading.
        from rewardgym.agents.offline import encoders, iql, optimizers  # noqa: F401

        root = Path(path)
        meta_path = root / META_FILE
        if not meta_path.exists():
            raise FileNotFoundError(f"{meta_path} is missing: {root} is not a saved agent")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise DataValidationError(f"{meta_path}: not readable JSON ({err})") from err
        except RecursionError:  # json.loads recurses once per level of nesting
            raise DataValidationError(
                f"{meta_path}: nested too deeply to be an agent's metadata"
            ) from None
        if not isinstance(meta, dict) or "config" not in meta or "env_id" not in meta:
            raise DataValidationError(f"{meta_path}: not an agent's metadata (no config or env_id)")
        # A file never chooses code: only an env rewardgym registers is made (gym.make would
        # import the module of a ``module:Env`` id), and before any weights are read.
        try:
            env_id = check_registered(meta["env_id"], source=str(meta_path))
        except ValueError as err:
            raise DataValidationError(str(err)) from None
        config = _saved_config(meta["config"], meta_path)
        env = gym.make(env_id)
        space, actions = env.observation_space, env.action_space
        env.close()
        if not isinstance(space, gym.spaces.Dict) or not isinstance(actions, gym.spaces.Discrete):
            raise TypeError(f"{env_id} has a non-Dict observation or non-Discrete action space")
        encoder = make_observation_encoder(
            config.encoding, space, embedder, None, config.token_length, config.vocab_size
        )
        if (root / WEIGHTS_FILE).is_file():
            shape = ((encoder.size,), int(actions.n))
            algo = _load_weights(root, meta, config, shape)
        elif (root / LEGACY_MODEL_FILE).is_file():
            if not trust:
                raise PermissionError(
                    f"{root / LEGACY_MODEL_FILE} is a d3rlpy pickle: loading it can run "
                    "arbitrary code. Pass trust=True only if you made the file yourself (then "
                    "save the agent again: new saves use safetensors and JSON)"
                )
            import d3rlpy

            algo = d3rlpy.load_learnable(str(root / LEGACY_MODEL_FILE))
        else:
            raise FileNotFoundError(f"{root}: no {WEIGHTS_FILE} beside {META_FILE}")
        return cls(algo, encoder, config, env_id)


def _saved_config(data: object, meta_path: Path) -> OfflineConfig:
    """The ``config`` of an ``agent.json``, or a ``DataValidationError`` naming the field."""
    if not isinstance(data, dict) or not isinstance(data.get("algorithm"), dict):
        raise DataValidationError(
            "must be an object whose 'algorithm' is an object with a 'name'",
            source=str(meta_path),
            field_name="config",
            value=data,
        )
    try:
        return OfflineConfig.from_dict(data)
    except (KeyError, TypeError, ValueError) as err:
        raise DataValidationError(
            f"not a training config rewardgym wrote ({err})",
            source=str(meta_path),
            field_name="config",
        ) from None


def _tensor_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor in a safetensors file, read from its header alone."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="pt") as weights:
            names = weights.keys()  # a safe_open handle is not iterable itself
            return {key: tuple(weights.get_slice(key).get_shape()) for key in names}
    except (SafetensorError, OSError, ValueError) as err:
        raise DataValidationError(
            f"not a readable safetensors file ({err}); train and save the agent again",
            source=str(path),
        ) from None


def _load_weights(
    root: Path, meta: dict[str, Any], config: OfflineConfig, shape: tuple[tuple[int], int]
) -> Any:
    """Rebuild the d3rlpy algorithm from its JSON config and load its safetensors weights.

    Everything is cross-checked before a network is built: the d3rlpy config must be the
    algorithm and encoder ``config`` names, its observation shape and action count must be
    ``shape`` (the env's), and its networks, laid out on torch's ``meta`` device (shapes
    only, no memory), must hold exactly the tensors and shapes of the weights file's header.
    """
    import torch
    from d3rlpy.base import LearnableConfigWithShape
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    meta_path = root / META_FILE

    def refuse(message: str, field: str, value: Any) -> DataValidationError:
        return DataValidationError(message, source=str(meta_path), field_name=field, value=value)

    try:
        shaped = LearnableConfigWithShape.deserialize(json.dumps(meta["d3rlpy"]["config"]))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise refuse(f"not a usable d3rlpy config ({err})", "d3rlpy.config", None) from None
    expected = make_algo_config(config)
    if type(shaped.config) is not type(expected):
        raise refuse(
            f"is {type(shaped.config).__name__} but config.algorithm names {config.algorithm_name}",
            "d3rlpy.config",
            shaped.config.get_type(),
        )
    for field in dataclasses.fields(expected):
        if field.name.endswith("encoder_factory"):
            mine, theirs = getattr(expected, field.name), getattr(shaped.config, field.name)
            if mine != theirs:
                raise refuse(
                    f"is not the encoder config describes ({mine})",
                    f"d3rlpy.config.{field.name}",
                    theirs,
                )
    found = (tuple(shaped.observation_shape), int(shaped.action_size))
    if found != shape:
        raise refuse(
            f"(observation shape, action count) must be {shape}, those of {meta['env_id']}",
            "d3rlpy.config",
            found,
        )
    weights_path = root / WEIGHTS_FILE
    stored = _tensor_shapes(weights_path)
    with torch.device("meta"):  # the networks' shapes, no memory allocated
        layout = shaped.create(device="meta")
    wanted = {
        f"{name}.{key}": tuple(value.shape)
        for name, module in layout.impl.modules.get_torch_modules().items()
        for key, value in module.state_dict().items()
    }
    if stored != wanted:
        missing = sorted(set(wanted) - set(stored))
        extra = sorted(set(stored) - set(wanted))
        odd = [k for k in sorted(set(wanted) & set(stored)) if wanted[k] != stored[k]]
        if missing:
            problem = f"tensor {missing[0]} is missing ({len(missing)} missing)"
        elif extra:
            problem = f"tensor {extra[0]} is not one of the networks' ({len(extra)} such)"
        else:
            problem = f"tensor {odd[0]} is {list(stored[odd[0]])}, not {list(wanted[odd[0]])}"
        raise DataValidationError(
            f"{weights_path}: {problem}; it does not hold the weights {meta_path} describes "
            f"({config.algorithm_name}, hidden units {list(config.hidden_units)})"
        )
    algo = shaped.create(device=False)
    try:
        tensors = load_file(str(weights_path))
        for name, module in algo.impl.modules.get_torch_modules().items():
            prefix = f"{name}."
            state = {k[len(prefix) :]: v for k, v in tensors.items() if k.startswith(prefix)}
            module.load_state_dict(state)
    except (SafetensorError, OSError, RuntimeError, ValueError) as err:
        raise DataValidationError(
            f"{weights_path}: the weights cannot be read ({err}); train and save the agent again"
        ) from None
    return algo


def check_finite_weights(algo: Any, name: str, step: int | None = None) -> None:
    """Raise :class:`TrainingDiverged` when a weight of ``algo``'s networks is NaN or infinite."""
    import torch

    for module_name, module in algo.impl.modules.get_torch_modules().items():
        for key, value in module.state_dict().items():
            if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                at = f" at step {step}" if step is not None else ""
                raise TrainingDiverged(
                    f"{name} diverged{at}: weight {module_name}.{key} is NaN or infinite, so "
                    "nothing was saved; lower --learning-rate, or check the data set's rewards"
                )


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


def fit_mdp(
    mdp: MDPDataset,
    encoder: ObservationEncoder,
    config: OfflineConfig,
    env_id: str,
    progress: bool = False,
    validation: EvalConfig | None = None,
) -> OfflineAgent:
    """Fit ``config``'s algorithm on an already encoded ``mdp`` (seeded, on the CPU).

    With ``config.eval_every = K`` d3rlpy's ``fit`` runs epochs of K steps and, after each, a
    :class:`~rewardgym.agents.offline.curve.ValidationCurve` scores the weights on
    ``validation`` (default: every instruction of ``env_id``'s validation split, one episode
    each); the agent keeps the weights ``config.checkpoint`` selects and its ``curve``.
    """
    import d3rlpy
    from d3rlpy.logging import NoopAdapterFactory

    from rewardgym.agents.evaluation.household import EvalConfig
    from rewardgym.agents.offline.cql_update import share_observation_forward
    from rewardgym.agents.offline.sampling import vectorise_sampling

    quiet_d3rlpy_logs()
    with torch_threads(config.threads):
        d3rlpy.seed(config.seed)
        algo = make_algo_config(config).create(device=False)
        if not algo.need_returns_to_go:  # the flat sampler carries no returns-to-go
            vectorise_sampling(mdp)
        algo.build_with_dataset(mdp)
        share_observation_forward(algo.impl)  # same weights, one forward pass fewer a step
        agent = OfflineAgent(algo, encoder, config, env_id)
        curve: ValidationCurve | None = None
        if config.eval_every is not None:  # scores the agent itself: the test splits' code
            validation = validation or EvalConfig(env_id=env_id, splits=("validation",))
            curve = ValidationCurve(agent, validation, config.checkpoint)
        start = time.perf_counter()
        name = type(algo).__name__
        with progress_bar(
            total=config.n_steps, desc=name, unit="step", disable=not progress
        ) as bar:

            def each_step(algo: Any, epoch: int, step: int) -> None:
                bar.update()
                if step % DIVERGENCE_CHECK_STEPS == 0:
                    check_finite_weights(algo, name, step)

            def each_epoch(algo: Any, epoch: int, step: int) -> None:
                check_finite_weights(algo, name, step)  # a diverged curve point is no score
                if curve is not None:
                    curve(algo, epoch, step)

            results = algo.fit(  # d3rlpy's own bar would redraw every 10 steps, even in a log
                mdp,
                n_steps=config.n_steps,
                n_steps_per_epoch=config.eval_every or config.n_steps,
                show_progress=False,
                callback=each_step,
                epoch_callback=each_epoch if curve else None,
                save_interval=config.n_steps + 1,
                logger_adapter=NoopAdapterFactory(),
            )
            elapsed = time.perf_counter() - start - (curve.seconds if curve else 0.0)
        check_finite_weights(algo, name, config.n_steps)
        for _, losses in results:
            for loss, value in losses.items():
                if not np.isfinite(value):
                    raise TrainingDiverged(
                        f"{name} diverged: its mean {loss} is {value}, so nothing was saved; "
                        "lower --learning-rate, or check the data set's rewards"
                    )
        chosen = curve.restore(algo) if curve else None
    agent.train_seconds = elapsed
    agent.steps_per_second = config.n_steps / max(elapsed, 1e-9)
    if curve and chosen:
        agent.curve = list(curve.points)
        agent.selected_step = chosen.step
    return agent


def train_offline(
    data: TrajectoryDataset,
    config: OfflineConfig | None = None,
    embedder: CachedEmbedder | None = None,
    progress: bool = True,
    validation: EvalConfig | None = None,
) -> OfflineAgent:
    """Train ``config``'s algorithm on ``data`` with the reward ``config.reward`` names.

    ``validation`` is the validation episodes of ``config.eval_every``'s curve (``fit_mdp``).

    The reward is decided once by ``training_config``: what ``config`` leaves unset comes from
    the composition the data set records (a ``rewardgym label coren`` output trains on COREN's
    ``success + lambda * dense`` with the lambda it was labelled for; a data set without a dense
    column on the success flag; dense labels without a recorded composition are refused). The
    decision is recorded in the returned agent's ``config``, which ``OfflineAgent.save`` writes
    to ``agent.json``.

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
    config = training_config(data, config or OfflineConfig())
    rewards = composed_rewards(data, config)
    source = f"{config.reward} (dense_weight={config.dense_weight})"
    encoder = encoder_for_dataset(data, config, embedder)
    mdp = to_mdp_dataset(data.with_rewards(rewards, source=source), encoder)
    return fit_mdp(mdp, encoder, config, data.env_id, progress, validation)


__all__ = [
    "LEGACY_MODEL_FILE",
    "META_FILE",
    "WEIGHTS_FILE",
    "OfflineAgent",
    "check_finite_weights",
    "encoder_for_dataset",
    "fit_mdp",
    "train_offline",
    "training_config",
    "training_rewards",
]
