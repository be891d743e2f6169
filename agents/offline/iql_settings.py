"""DiscreteIQL's settings: implicit Q-learning over a discrete action set (``iql.py``).

The one declaration of IQL's own hyper-parameters: ``DiscreteIQLConfig`` (the d3rlpy config)
takes its defaults from :class:`IQLSettings` and declares the same ranges, which a test
compares, so the library's settings and the algorithm cannot disagree. Nothing heavy is
imported here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from rewardgym.agents.offline.algorithm import AlgorithmSettings, SharedSettings
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, POSITIVE, Range, check_fields


@dataclass(frozen=True)
class IQLSettings(AlgorithmSettings):
    """Implicit Q-learning (Kostrikov et al., ICLR 2022); the maths are in ``DiscreteIQLConfig``.

    Defaults are the paper's: expectile 0.7, inverse temperature 3.0, two critics (their
    minimum is used), advantage weights clipped at 100.
    """

    name: ClassVar[str] = "iql"
    d3rlpy_name: ClassVar[str] = "DiscreteIQL"

    expectile: Annotated[float, Range(gt=0, lt=1)] = 0.7
    """Expectile of the value regression (Kostrikov et al.: 0.7)."""
    weight_temp: Annotated[float, NON_NEGATIVE] = 3.0
    """Inverse temperature of the advantage weights (Kostrikov et al.: 3.0)."""
    tau: Annotated[float, Range(gt=0, le=1)] = 0.005
    """Polyak rate of the target critics (Kostrikov et al.: 0.005)."""
    n_critics: Annotated[int, AT_LEAST_1] = 2
    """Critics in the ensemble, their minimum is used (Kostrikov et al.: 2)."""
    max_weight: Annotated[float, POSITIVE] = 100.0
    """Clip of the advantage weights (Kostrikov et al.: 100)."""

    def __post_init__(self) -> None:
        """Reject values outside their meaningful range, naming the field."""
        check_fields(self)

    def learnable(self, config: SharedSettings, encoder_factory: Any, optim_factory: Any) -> Any:
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
            **dataclasses.asdict(self),  # every IQL field has its namesake in DiscreteIQLConfig
        )


__all__ = ["IQLSettings"]
