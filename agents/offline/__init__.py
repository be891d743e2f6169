"""Offline agents on d3rlpy: DiscreteCQL, DiscreteBC and our DiscreteIQL, with text-aware encoders.

``train_offline(data, OfflineConfig(algorithm=CQLSettings(alpha=...), encoding=...))`` fits
one agent on a trajectory data set (``IQLSettings``, ``BCSettings`` for the others; the
registry ``ALGORITHMS`` maps short names to settings classes); ``DiscreteIQLConfig`` is a d3rlpy learnable config in its
own right (``register_learnable``), so ``d3rlpy.load_learnable`` restores saved models once
this package's ``iql`` module is imported (accessing ``DiscreteIQLConfig`` does it).

Names load on first access, so ``import rewardgym.agents.offline`` does not pull in torch
or d3rlpy; the settings and ``config`` modules import nothing heavy either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rewardgym.lazy import lazy_exports


def _hush_gym_notice() -> None:
    """Drop the notice the old ``gym`` package prints to stderr when d3rlpy imports it.

    d3rlpy 2.8 depends on ``gym`` (we use Gymnasium throughout); on import, gym prints the
    entry of ``gym_notices`` for its version ("Gym has been unmaintained since 2022 ..."),
    once per worker process of a suite. ``gym_notices`` is that table and nothing else, so it
    is emptied (0.2 ms; looking up gym's version to drop one entry costs 40 ms at import).
    """
    import sys

    if "gym" in sys.modules:
        return
    try:
        import gym_notices.notices as notices

        notices.notices.clear()
    except Exception:  # gym_notices absent or laid out differently: nothing to hush
        return


_hush_gym_notice()

if TYPE_CHECKING:
    from rewardgym.agents.offline.agent import (
        OfflineAgent,
        encoder_for_dataset,
        fit_mdp,
        train_offline,
    )
    from rewardgym.agents.offline.algorithm import AlgorithmSettings
    from rewardgym.agents.offline.bc import BCSettings
    from rewardgym.agents.offline.config import (
        ALGORITHMS,
        ENCODINGS,
        OfflineConfig,
        algorithm_settings,
    )
    from rewardgym.agents.offline.cql import CQLSettings
    from rewardgym.agents.offline.encoders import (
        TokenObservationEncoder,
        TokenTransformerEncoderFactory,
        encoder_factory_for,
        hash_tokens,
        make_observation_encoder,
    )
    from rewardgym.agents.offline.iql import DiscreteIQL, DiscreteIQLConfig
    from rewardgym.agents.offline.iql_settings import IQLSettings
    from rewardgym.agents.offline.learnable import make_algo_config
    from rewardgym.agents.offline.mdp import to_mdp_dataset
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
        "AlgorithmSettings": "algorithm",
        "BCSettings": "bc",
        "ALGORITHMS": "config",
        "ENCODINGS": "config",
        "OfflineConfig": "config",
        "algorithm_settings": "config",
        "make_algo_config": "learnable",
        "CQLSettings": "cql",
        "IQLSettings": "iql_settings",
        "DiscreteIQL": "iql",
        "DiscreteIQLConfig": "iql",
        "FusedAdamFactory": "optimizers",
        "to_mdp_dataset": "mdp",
    },
)


__all__ = [
    "ALGORITHMS",
    "ENCODINGS",
    "AlgorithmSettings",
    "BCSettings",
    "CQLSettings",
    "DiscreteIQL",
    "DiscreteIQLConfig",
    "FusedAdamFactory",
    "IQLSettings",
    "OfflineAgent",
    "OfflineConfig",
    "TokenObservationEncoder",
    "TokenTransformerEncoderFactory",
    "algorithm_settings",
    "encoder_factory_for",
    "encoder_for_dataset",
    "fit_mdp",
    "hash_tokens",
    "make_algo_config",
    "make_observation_encoder",
    "to_mdp_dataset",
    "train_offline",
]
