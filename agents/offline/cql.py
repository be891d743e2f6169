"""DiscreteCQL's settings: conservative Q-learning on Double DQN (d3rlpy's ``DiscreteCQL``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from rewardgym.agents.offline.algorithm import AlgorithmSettings, SharedSettings
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, check_fields


@dataclass(frozen=True)
class CQLSettings(AlgorithmSettings):
    """Conservative Q-learning (Kumar et al., NeurIPS 2020) on Double DQN, as COREN trains.

    The TD loss of Double DQN plus ``alpha * E[logsumexp_a Q(s, a) - Q(s, a_data)]``, which
    keeps the Q-values of actions the data never took below those it did. COREN uses a
    target update every 250 steps and one Q-network.
    """

    name: ClassVar[str] = "cql"
    d3rlpy_name: ClassVar[str] = "DiscreteCQL"

    alpha: Annotated[float, NON_NEGATIVE] = 1.0
    """Weight of the conservative term (d3rlpy's default; tune it per reward on validation)."""
    target_update_interval: Annotated[int, AT_LEAST_1] = 250
    """Steps between hard target-network updates (COREN: 250)."""
    n_critics: Annotated[int, AT_LEAST_1] = 1
    """Q-networks in the ensemble (1: COREN's single Q-network)."""

    def __post_init__(self) -> None:
        """Reject values outside their meaningful range, naming the field."""
        check_fields(self)
        if self.alpha < 0:
            raise ValueError(f"CQLSettings.alpha={self.alpha}: use a weight >= 0")
        for name in ("target_update_interval", "n_critics"):
            if getattr(self, name) < 1:
                raise ValueError(f"CQLSettings.{name}={getattr(self, name)}: use at least 1")

    def learnable(self, config: SharedSettings, encoder_factory: Any, optim_factory: Any) -> Any:
        """d3rlpy's ``DiscreteCQLConfig`` with these settings."""
        import d3rlpy

        return d3rlpy.algos.DiscreteCQLConfig(
            learning_rate=config.learning_rate,
            optim_factory=optim_factory,
            encoder_factory=encoder_factory,
            batch_size=config.batch_size,
            gamma=config.gamma,
            n_critics=self.n_critics,
            target_update_interval=self.target_update_interval,
            alpha=self.alpha,
        )


__all__ = ["CQLSettings"]
