"""``rewardgym train offline``: train CQL, IQL or BC on a trajectory data set and save the agent.

Kept light at import time: d3rlpy and torch load only when the command runs. The options are
``OfflineConfig``'s, flattened, so each default lives in one place; the algorithm is a
subcommand (``algorithm:cql``, ``algorithm:iql``, ``algorithm:bc``) whose own settings follow it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.agents.evaluation.household import MAX_EPISODES_PER_INSTRUCTION
from rewardgym.agents.offline.bc import BCSettings
from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.agents.offline.cql import CQLSettings
from rewardgym.agents.offline.iql_settings import IQLSettings
from rewardgym.bounds import between


@dataclass(frozen=True)
class TrainingOptions(OfflineConfig):
    """``OfflineConfig`` as options: every field but the algorithm, which is the subcommand."""

    algorithm: tyro.conf.Suppress[CQLSettings | IQLSettings | BCSettings] = field(
        default_factory=CQLSettings
    )

    def config(self, algorithm: CQLSettings | IQLSettings | BCSettings) -> OfflineConfig:
        """The plain ``OfflineConfig`` of these options with ``algorithm``."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(OfflineConfig)}
        return OfflineConfig(**{**values, "algorithm": algorithm})


Algorithm = (
    Annotated[
        CQLSettings,
        tyro.conf.subcommand("cql", description="Conservative Q-learning on Double DQN (COREN's)."),
    ]
    | Annotated[
        IQLSettings, tyro.conf.subcommand("iql", description="Implicit Q-learning (discrete).")
    ]
    | Annotated[
        BCSettings,
        tyro.conf.subcommand("bc", description="Behaviour cloning (it reads no reward)."),
    ]
)
"""The algorithm subcommand: its name and its own settings."""


@dataclass(frozen=True)
class TrainOffline:
    """Train an offline agent on DATASET with the reward it records (or the one you choose); save it to OUT."""

    dataset: Path
    """Trajectory data set directory (`rewardgym data collect` or `label coren` output; only read)."""
    out: Path
    """Directory of the saved agent (agent.json and model.safetensors; `rewardgym eval` reads it)."""
    algorithm: Algorithm = field(default_factory=CQLSettings)
    """The algorithm: cql (COREN's), iql or bc, each with its own settings."""
    training: Annotated[TrainingOptions, tyro.conf.arg(name="")] = field(
        default_factory=TrainingOptions
    )
    overwrite: bool = False
    """Replace OUT when it is an agent this command saved before."""
    validation_instructions: Annotated[int, between(1, 5)] = 5
    """With --eval-every: validation instructions per task scored at each point of the curve
    (VirtualHome-v0: validation programs per task category)."""
    validation_episodes: Annotated[int, between(1, MAX_EPISODES_PER_INSTRUCTION)] = 1
    """With --eval-every: episodes per validation instruction."""

    def offline_config(self) -> OfflineConfig:
        """The ``OfflineConfig`` this command trains with (reward and lambda still as given)."""
        return self.training.config(self.algorithm)

    def run(self) -> None:
        """Read the data set, train, save the agent atomically and print what it learned from.

        OUT is checked first (new, empty, or with --overwrite an agent saved here), then the
        data set is read and the reward decided from its recorded composition unless --reward
        and --dense-weight say otherwise (``agent.json`` records the choice made). Only then
        is OUT held (``outputs.atomic_output``): a second run on it is refused at once, and the
        agent appears there whole once trained. A training that diverges saves nothing.
        """
        from rich.console import Console

        from rewardgym.agents.evaluation.household import EvalConfig
        from rewardgym.agents.offline.agent import AGENT_KIND, train_offline
        from rewardgym.agents.offline.training_reward import training_config
        from rewardgym.envs.trajectories import TrajectoryDataset
        from rewardgym.outputs import atomic_output, prepare_output

        path = prepare_output(self.out, AGENT_KIND, overwrite=self.overwrite)
        data = TrajectoryDataset.from_dir(self.dataset)
        config = training_config(data, self.offline_config())
        validation = EvalConfig(
            env_id=data.env_id,
            splits=("validation",),
            instructions_per_task=self.validation_instructions,
            episodes_per_instruction=self.validation_episodes,
        )
        with atomic_output(path, AGENT_KIND, overwrite=self.overwrite) as tmp:
            agent = train_offline(data, config, validation=validation)
            agent.write_into(tmp)
        used = agent.config
        console = Console(soft_wrap=True)
        for point in agent.curve:
            console.print(
                f"step {point.step}: validation SR {point.sr:.1f}, CGC {point.cgc:.1f}",
                markup=False,
                highlight=False,
            )
        kept = f"; kept step {agent.selected_step} ({used.checkpoint})" if agent.curve else ""
        console.print(
            f"{agent.name} trained {used.n_steps} steps on {len(data)} episodes of {data.env_id} "
            f"with reward {used.reward} (dense_weight={used.dense_weight}){kept}; saved to {path}",
            markup=False,
            highlight=False,
        )


__all__ = ["TrainOffline", "TrainingOptions"]
