"""DiscreteIQL's settings: implicit Q-learning over a discrete action set (``iql.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rewardgym.agents.offline.algorithm import AlgorithmSettings

if TYPE_CHECKING:
    from rewardgym.agents.offline.config import OfflineConfig


@dataclass(frozen=True)
class IQLSettings(AlgorithmSettings):
    """Implicit Q-learning (Kostrikov et al., ICLR 2022); the maths are in ``DiscreteIQLConfig``."""

    name: ClassVar[str] = "iql"
    d3rlpy_name: ClassVar[str] = "DiscreteIQL"

    expectile: float = 0.7
    """Expectile of the value regression (Kostrikov et al.: 0.7)."""
    weight_temp: float = 3.0
    """Inverse temperature of the advantage weights (Kostrikov et al.: 3.0)."""
    tau: float = 0.005
    """Polyak rate of the target critics."""
    n_critics: int = 1
    """Critics in the ensemble (their minimum is used)."""

    def __post_init__(self) -> None:
        """Reject values outside their meaningful range, naming the field."""
        if not 0.0 < self.expectile < 1.0:
            raise ValueError(f"IQLSettings.expectile={self.expectile}: use a value in (0, 1)")
        if self.weight_temp < 0:
            raise ValueError(f"IQLSettings.weight_temp={self.weight_temp}: use >= 0")
        if self.n_critics < 1:
            raise ValueError(f"IQLSettings.n_critics={self.n_critics}: use at least 1")

    def learnable(self, config: OfflineConfig, encoder_factory: Any, optim_factory: Any) -> Any:
        """Our ``DiscreteIQLConfig`` with these settings."""
        from rewardgym.agents.offline.iql import DiscreteIQLConfig

        return DiscreteIQLConfig(
            actor_learning_rate=config.learning_rate,
            critic_learning_rate=config.learning_rate,
            actor_optim_factory=optim_factory,
            critic_optim_factory=optim_factory,
            actor_encoder_factory=encoder_factory,
            critic_encoder_factory=encoder_factory,
            value_encoder_factory=encoder_factory,
            batch_size=config.batch_size,
            gamma=config.gamma,
            tau=self.tau,
            n_critics=self.n_critics,
            expectile=self.expectile,
            weight_temp=self.weight_temp,
        )


__all__ = ["IQLSettings"]
