"""The base of every offline algorithm's settings: one frozen dataclass that builds its d3rlpy config.

An offline algorithm is one module holding an ``AlgorithmSettings`` subclass (its own fields
and ``learnable``, which returns the d3rlpy ``LearnableConfig``) plus one line in
``rewardgym.agents.offline.config.ALGORITHMS``. Settings modules import nothing heavy, so a
config can be built (and a command line parsed) before torch or d3rlpy load.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol


class SharedSettings(Protocol):
    """What an algorithm reads of the settings every algorithm shares (``OfflineConfig`` has them).

    Declared here, beside the algorithms that read it, so a settings module needs nothing of
    ``config.py``, which imports every settings module for its registry.
    """

    @property
    def learning_rate(self) -> float:
        """Learning rate of every network."""
        ...

    @property
    def batch_size(self) -> int:
        """Mini-batch size."""
        ...

    @property
    def gamma(self) -> float:
        """Discount factor."""
        ...


@dataclass(frozen=True)
class AlgorithmSettings:
    """What one offline algorithm adds to the settings every algorithm shares (``OfflineConfig``)."""

    name: ClassVar[str] = ""
    """Short registry name, e.g. "cql"."""
    d3rlpy_name: ClassVar[str] = ""
    """The algorithm's class name, e.g. "DiscreteCQL"."""
    uses_reward: ClassVar[bool] = True
    """Whether the algorithm reads rewards (behaviour cloning does not)."""

    def learnable(self, config: SharedSettings, encoder_factory: Any, optim_factory: Any) -> Any:
        """The d3rlpy ``LearnableConfig`` of this algorithm under the shared ``config``."""
        raise NotImplementedError(f"{type(self).__name__} does not build a d3rlpy config")

    def as_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready data, with the registry ``name``."""
        return {"name": self.name, **dataclasses.asdict(self)}


__all__ = ["AlgorithmSettings", "SharedSettings"]
