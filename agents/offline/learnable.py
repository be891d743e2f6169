"""The d3rlpy learnable config of one ``OfflineConfig``: its algorithm, encoder and optimizer.

Kept apart from ``config.py`` because it loads torch and d3rlpy (through ``encoders.py``),
while a config must be buildable, and a command line parsable, before they load.
"""

from __future__ import annotations

from typing import Any

from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.agents.offline.encoders import encoder_factory_for
from rewardgym.agents.offline.optimizers import FusedAdamFactory


def make_algo_config(config: OfflineConfig) -> Any:
    """The d3rlpy learnable config of ``config.algorithm``, with encoder and optimizer set."""
    encoder = encoder_factory_for(config.encoding, config.hidden_units, config.vocab_size)
    return config.algorithm.learnable(config, encoder, FusedAdamFactory())


__all__ = ["make_algo_config"]
