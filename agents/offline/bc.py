"""DiscreteBC's settings: behaviour cloning, the imitation baseline (d3rlpy's ``DiscreteBC``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from rewardgym.agents.offline.algorithm import AlgorithmSettings, SharedSettings
from rewardgym.bounds import NON_NEGATIVE, check_fields


@dataclass(frozen=True)
class BCSettings(AlgorithmSettings):
    """Behaviour cloning: maximum likelihood of the logged actions; it never reads a reward."""

    name: ClassVar[str] = "bc"
    d3rlpy_name: ClassVar[str] = "DiscreteBC"
    uses_reward: ClassVar[bool] = False

    beta: Annotated[float, NON_NEGATIVE] = 0.5
    """d3rlpy's logit regulariser."""

    def learnable(self, config: SharedSettings, encoder_factory: Any, optim_factory: Any) -> Any:
        """d3rlpy's ``DiscreteBCConfig`` with these settings."""
        import d3rlpy

        return d3rlpy.algos.DiscreteBCConfig(
            learning_rate=config.learning_rate,
            optim_factory=optim_factory,
            encoder_factory=encoder_factory,
            batch_size=config.batch_size,
            beta=self.beta,
        )

    def __post_init__(self) -> None:
        """Refuse numbers that are not finite or not in their range, naming the field."""
        check_fields(self)


__all__ = ["BCSettings"]
