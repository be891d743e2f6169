"""Offline agents on d3rlpy: DiscreteCQL, DiscreteBC and our DiscreteIQL, with text-aware encoders.

``train_offline(data, OfflineConfig(algorithm="cql"|"iql"|"bc", encoding=...))`` fits one
agent on a trajectory data set; ``DiscreteIQLConfig`` is a d3rlpy learnable config in its
own right (``register_learnable``), so ``d3rlpy.load_learnable`` restores saved models once
this package's ``iql`` module is imported (accessing ``DiscreteIQLConfig`` does it).

Names load on first access, so ``import rewardgym.agents.offline`` does not pull in torch
or d3rlpy; the light ``factory`` module (configs) imports nothing heavy either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rewardgym.runtime import lazy_exports

if TYPE_CHECKING:
    from rewardgym.agents.offline.agent import (
        OfflineAgent,
        encoder_for_dataset,
        fit_mdp,
        train_offline,
    )
    from rewardgym.agents.offline.encoders import (
        TokenObservationEncoder,
        TokenTransformerEncoderFactory,
        encoder_factory_for,
        hash_tokens,
        make_observation_encoder,
    )
    from rewardgym.agents.offline.factory import (
        ALGORITHM_NAMES,
        ALGORITHMS,
        ENCODINGS,
        OfflineConfig,
        make_algo_config,
    )
    from rewardgym.agents.offline.iql import DiscreteIQL, DiscreteIQLConfig
    from rewardgym.agents.offline.optimizers import FusedAdamFactory

__getattr__ = lazy_exports(
    __name__,
    {
        "OfflineAgent": "agent",
        "encoder_for_dataset": "agent",
        "fit_mdp": "agent",
        "train_offline": "agent",
        "TokenObservationEncoder": "encoders",
        "TokenTransformerEncoderFactory": "encoders",
        "encoder_factory_for": "encoders",
        "hash_tokens": "encoders",
        "make_observation_encoder": "encoders",
        "ALGORITHMS": "factory",
        "ALGORITHM_NAMES": "factory",
        "ENCODINGS": "factory",
        "OfflineConfig": "factory",
        "make_algo_config": "factory",
        "DiscreteIQL": "iql",
        "DiscreteIQLConfig": "iql",
        "FusedAdamFactory": "optimizers",
    },
)


__all__ = [
    "ALGORITHMS",
    "ALGORITHM_NAMES",
    "ENCODINGS",
    "DiscreteIQL",
    "DiscreteIQLConfig",
    "FusedAdamFactory",
    "OfflineAgent",
    "OfflineConfig",
    "TokenObservationEncoder",
    "TokenTransformerEncoderFactory",
    "encoder_factory_for",
    "encoder_for_dataset",
    "fit_mdp",
    "hash_tokens",
    "make_algo_config",
    "make_observation_encoder",
    "train_offline",
]
