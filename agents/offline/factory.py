"""One config for the three offline algorithms: DiscreteCQL, DiscreteIQL and DiscreteBC.

``OfflineConfig`` holds the settings a benchmark varies (algorithm, encoding, steps, seed)
and the paper defaults; ``make_algo_config`` turns it into the d3rlpy learnable config of the
chosen algorithm, so every algorithm is built, trained, saved and loaded the same way. The
module imports nothing heavy, so configs can be built before torch or d3rlpy load.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

ENCODINGS: tuple[str, ...] = ("structured", "text", "tokens")
"""The observation encodings an offline agent can use (see ``encoders.py``)."""

ALGORITHMS: tuple[str, ...] = ("cql", "iql", "bc")
"""Short names of the offline algorithms: DiscreteCQL, DiscreteIQL, DiscreteBC."""

ALGORITHM_NAMES: dict[str, str] = {"cql": "DiscreteCQL", "iql": "DiscreteIQL", "bc": "DiscreteBC"}


@dataclass(frozen=True)
class OfflineConfig:
    """How to train one offline agent (defaults from COREN, arXiv 2411.17135, Sec. 4).

    COREN trains CQL on Double DQN with gamma 0.99, learning rate 1e-4 and a target update
    every 250 steps; d3rlpy's ``DiscreteCQL`` is exactly that algorithm. DiscreteIQL follows
    Kostrikov et al. (expectile 0.7, inverse temperature 3) and DiscreteBC is d3rlpy's.
    Every algorithm uses Adam with PyTorch's fused kernel (the same maths as plain Adam).
    """

    algorithm: str = "cql"
    """Which algorithm: "cql" (DiscreteCQL), "iql" (DiscreteIQL) or "bc" (DiscreteBC)."""
    encoding: str = "structured"
    """Observation encoding: "structured", "text" (MiniLM of the text) or "tokens" (transformer)."""
    n_steps: int = 20_000
    """Gradient steps."""
    batch_size: int = 64
    """Mini-batch size."""
    learning_rate: float = 1e-4
    """Learning rate of every network (COREN: 1e-4)."""
    gamma: float = 0.99
    """Discount factor (COREN: 0.99)."""
    target_update_interval: int = 250
    """DiscreteCQL: steps between hard target updates (COREN: 250)."""
    cql_alpha: float = 1.0
    """DiscreteCQL: weight of the conservative term."""
    iql_expectile: float = 0.7
    """DiscreteIQL: expectile of the value regression (Kostrikov et al.: 0.7)."""
    iql_weight_temp: float = 3.0
    """DiscreteIQL: inverse temperature of the advantage weights (Kostrikov et al.: 3.0)."""
    iql_tau: float = 0.005
    """DiscreteIQL: Polyak rate of the target critics."""
    n_critics: int = 1
    """Critics in the ensemble of DiscreteCQL and DiscreteIQL (1 matches COREN's single Q-net)."""
    bc_beta: float = 0.5
    """DiscreteBC: d3rlpy's logit regulariser."""
    hidden_units: tuple[int, ...] = (256, 256)
    """Hidden layers of the MLP encoders ("structured" and "text" encodings)."""
    token_length: int = 160
    """"tokens" encoding: token ids per observation."""
    vocab_size: int = 4096
    """"tokens" encoding: size of the hashed vocabulary."""
    seed: int = 0
    """Seed of the network initialisation and of mini-batch sampling."""
    threads: int = 1
    """Torch CPU threads while training (1 avoids oversubscription when runs go in parallel)."""

    def __post_init__(self) -> None:
        """Reject settings outside their meaningful range, naming the field."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"OfflineConfig.algorithm={self.algorithm!r}: use one of {ALGORITHMS}")
        if self.encoding not in ENCODINGS:
            raise ValueError(f"OfflineConfig.encoding={self.encoding!r}: use one of {ENCODINGS}")
        for name in ("n_steps", "batch_size", "target_update_interval", "n_critics", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"OfflineConfig.{name}={getattr(self, name)}: use at least 1")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"OfflineConfig.gamma={self.gamma}: use a discount in (0, 1]")
        if self.learning_rate <= 0.0:
            raise ValueError(
                f"OfflineConfig.learning_rate={self.learning_rate}: use a positive rate"
            )

    @property
    def algorithm_name(self) -> str:
        """The d3rlpy-style class name of the algorithm, e.g. ``DiscreteCQL``."""
        return ALGORITHM_NAMES[self.algorithm]

    def replace(self, **changes: Any) -> OfflineConfig:
        """A copy with ``changes`` applied (and checked)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The config as JSON-ready data."""
        out = dataclasses.asdict(self)
        out["hidden_units"] = list(self.hidden_units)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OfflineConfig:
        """The config written by ``as_dict``."""
        values = dict(data)
        values["hidden_units"] = tuple(values.get("hidden_units", (256, 256)))
        return cls(**values)


def make_algo_config(config: OfflineConfig) -> Any:
    """The d3rlpy learnable config of ``config.algorithm``, with encoder and optimizer set."""
    import d3rlpy

    from rewardgym.agents.offline.encoders import encoder_factory_for
    from rewardgym.agents.offline.iql import DiscreteIQLConfig
    from rewardgym.agents.offline.optimizers import FusedAdamFactory

    encoder = encoder_factory_for(config.encoding, config.hidden_units, config.vocab_size)
    if config.algorithm == "cql":
        return d3rlpy.algos.DiscreteCQLConfig(
            learning_rate=config.learning_rate,
            optim_factory=FusedAdamFactory(),
            encoder_factory=encoder,
            batch_size=config.batch_size,
            gamma=config.gamma,
            n_critics=config.n_critics,
            target_update_interval=config.target_update_interval,
            alpha=config.cql_alpha,
        )
    if config.algorithm == "iql":
        return DiscreteIQLConfig(
            actor_learning_rate=config.learning_rate,
            critic_learning_rate=config.learning_rate,
            actor_encoder_factory=encoder,
            critic_encoder_factory=encoder,
            value_encoder_factory=encoder,
            batch_size=config.batch_size,
            gamma=config.gamma,
            tau=config.iql_tau,
            n_critics=config.n_critics,
            expectile=config.iql_expectile,
            weight_temp=config.iql_weight_temp,
        )
    return d3rlpy.algos.DiscreteBCConfig(
        learning_rate=config.learning_rate,
        optim_factory=FusedAdamFactory(),
        encoder_factory=encoder,
        batch_size=config.batch_size,
        beta=config.bc_beta,
    )


__all__ = ["ALGORITHMS", "ALGORITHM_NAMES", "ENCODINGS", "OfflineConfig", "make_algo_config"]
