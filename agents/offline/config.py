"""The settings every offline algorithm shares, composed with one algorithm's own settings.

``OfflineConfig(algorithm=CQLSettings(alpha=...), encoding=..., n_steps=...)`` describes one
training run, including which reward the agent learns from (``reward``, ``dense_weight``:
the success flag, the dense column of a relabelled data set, or COREN's composition of the
two; unset, both come from the composition the data set records); ``learnable.make_algo_config``
turns it into the d3rlpy learnable config, so every algorithm is built, trained, saved and
loaded the same way. ``ALGORITHMS`` is the registry: a new algorithm is a module with an
``AlgorithmSettings`` subclass and one line here. Nothing heavy is imported, so configs can
be built before torch or d3rlpy load.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from rewardgym.agents.offline.algorithm import AlgorithmSettings
from rewardgym.agents.offline.bc import BCSettings
from rewardgym.agents.offline.cql import CQLSettings
from rewardgym.agents.offline.iql_settings import IQLSettings
from rewardgym.bounds import NON_NEGATIVE, POSITIVE, SEED, Range, between, check_fields
from rewardgym.wrappers.composition import RewardComposition

ALGORITHMS: dict[str, type[AlgorithmSettings]] = {
    CQLSettings.name: CQLSettings,
    IQLSettings.name: IQLSettings,
    BCSettings.name: BCSettings,
}
"""Registry of offline algorithms: short name -> settings class."""

ENCODINGS: tuple[str, ...] = ("structured", "text", "tokens")
"""The observation encodings an offline agent can use (see ``encoders.py``)."""

MAX_STEPS = 10**9
"""Most gradient steps of one run (about four months at this machine's 80 steps a second)."""
MAX_WIDTH = 1 << 16
"""Widest hidden layer, batch and token window: beyond it one layer alone needs gigabytes."""
MAX_LAYERS = 16
"""Most hidden layers of an MLP encoder."""
MAX_VOCAB = 1 << 22
"""Largest hashed vocabulary of the "tokens" encoding."""
MAX_THREADS = 1024
"""Most torch CPU threads (torch crashes when asked for tens of thousands)."""

CheckpointRule = Literal["final", "validation-best"]
CHECKPOINT_RULES: tuple[str, ...] = ("final", "validation-best")
"""The rules of ``OfflineConfig.checkpoint`` (``rewardgym.agents.offline.curve``)."""

RewardChoice = Literal["success", "dense", "composed"]
REWARDS: tuple[str, ...] = ("success", "dense", "composed")
"""The rewards an offline agent can learn from (``OfflineConfig.reward``)."""


def algorithm_settings(name: str, **fields: Any) -> AlgorithmSettings:
    """The settings of the algorithm registered as ``name``, with ``fields`` set."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown offline algorithm {name!r}: use one of {tuple(ALGORITHMS)}")
    return ALGORITHMS[name](**fields)


@dataclass(frozen=True)
class OfflineConfig:
    """How to train one offline agent (defaults from COREN, arXiv 2411.17135, Sec. 4).

    COREN trains CQL on Double DQN with gamma 0.99, learning rate 1e-4 and a target update
    every 250 steps; d3rlpy's ``DiscreteCQL`` is exactly that algorithm. Every algorithm uses
    Adam with PyTorch's fused kernel (the same maths as plain Adam).
    """

    algorithm: AlgorithmSettings = field(default_factory=CQLSettings)
    """The algorithm and its own settings: CQLSettings, IQLSettings or BCSettings."""
    encoding: str = "structured"
    """Observation encoding: "structured", "text" (MiniLM of the text) or "tokens" (transformer)."""
    n_steps: Annotated[int, between(1, MAX_STEPS)] = 20_000
    """Gradient steps."""
    batch_size: Annotated[int, between(1, MAX_WIDTH)] = 64
    """Mini-batch size."""
    learning_rate: Annotated[float, POSITIVE] = 1e-4
    """Learning rate of every network (COREN: 1e-4)."""
    gamma: Annotated[float, Range(gt=0, le=1)] = 0.99
    """Discount factor (COREN: 0.99)."""
    hidden_units: tuple[Annotated[int, between(1, MAX_WIDTH)], ...] = (256, 256)
    """Hidden layers of the MLP encoders ("structured" and "text" encodings): 1 to 16 widths."""
    token_length: Annotated[int, between(1, MAX_WIDTH)] = 160
    """"tokens" encoding: token ids per observation."""
    vocab_size: Annotated[int, between(2, MAX_VOCAB)] = 4096
    """"tokens" encoding: size of the hashed vocabulary."""
    seed: Annotated[int, SEED] = 0
    """Seed of the network initialisation and of mini-batch sampling."""
    threads: Annotated[int, between(1, MAX_THREADS)] = 1
    """Torch CPU threads while training (1 avoids oversubscription when runs go in parallel)."""
    reward: RewardChoice | None = None
    """The reward learned from: "success" (the data set's `rewards` column, the success flag),
    "dense" (dense_weight x its dense column alone) or "composed" (success + dense_weight x
    dense, COREN's r_t, through rewardgym.wrappers.composition.compose_rewards). Unset: the
    composition the data set records (a `label coren` output: "composed"), "success" when it has
    no dense column; dense labels that record none are refused. The trained agent's config
    records the choice made."""
    dense_weight: Annotated[float, NON_NEGATIVE] | None = None
    """lambda, the scale of the dense reward in "composed" and "dense". Unset: the lambda the
    data set's labels record (RewardComposition.dense_weight unless the labeller chose another)."""
    eval_every: Annotated[int, between(1, MAX_STEPS)] | None = None
    """Steps between two scorings of the run on the validation split (its learning curve, one
    training run); n_steps must be a multiple of it. Unset: no curve."""
    checkpoint: CheckpointRule = "final"
    """The weights the agent keeps: "final" (the last step's) or "validation-best" (the step of
    the curve with the best validation SR, the earlier on a tie; needs eval_every)."""

    def __post_init__(self) -> None:
        """Reject settings outside their meaningful range, naming the field."""
        check_fields(self)
        if not isinstance(self.algorithm, AlgorithmSettings):
            raise TypeError(
                f"OfflineConfig.algorithm={self.algorithm!r}: pass settings such as "
                f"CQLSettings() (registry: {tuple(ALGORITHMS)})"
            )
        if not 1 <= len(self.hidden_units) <= MAX_LAYERS:
            raise ValueError(
                f"OfflineConfig.hidden_units={list(self.hidden_units)}: give 1 to {MAX_LAYERS} "
                "layer widths, e.g. --hidden-units 256 256"
            )
        if self.encoding not in ENCODINGS:
            raise ValueError(f"OfflineConfig.encoding={self.encoding!r}: use one of {ENCODINGS}")
        for name in ("n_steps", "batch_size", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"OfflineConfig.{name}={getattr(self, name)}: use at least 1")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"OfflineConfig.gamma={self.gamma}: use a discount in (0, 1]")
        if self.learning_rate <= 0.0:
            raise ValueError(
                f"OfflineConfig.learning_rate={self.learning_rate}: use a positive rate"
            )
        if self.reward is not None and self.reward not in REWARDS:
            raise ValueError(
                f"OfflineConfig.reward={self.reward!r}: use one of {REWARDS} (or leave it unset)"
            )
        if self.dense_weight is not None and self.dense_weight < 0.0:
            raise ValueError(f"OfflineConfig.dense_weight={self.dense_weight}: use >= 0")
        self._check_curve()

    def _check_curve(self) -> None:
        """Refuse a curve that leaves steps out and a checkpoint rule without a curve."""
        if self.checkpoint not in CHECKPOINT_RULES:
            raise ValueError(
                f"OfflineConfig.checkpoint={self.checkpoint!r}: use one of {CHECKPOINT_RULES}"
            )
        if self.eval_every is None:
            if self.checkpoint != "final":
                raise ValueError(
                    f"OfflineConfig.checkpoint={self.checkpoint!r} selects on the validation "
                    "curve: set eval_every (--eval-every K) too"
                )
            return
        if self.n_steps % self.eval_every:
            raise ValueError(
                f"OfflineConfig.eval_every={self.eval_every} does not divide n_steps="
                f"{self.n_steps}: the curve's last point must be the last step; use a divisor"
            )

    @property
    def composition(self) -> RewardComposition:
        """How ``reward`` combines the success flag and the dense column.

        Both must be decided: ``training_config(data, config)`` fills what is unset from the
        composition the data set records.

        Example:
            >>> OfflineConfig(reward="dense", dense_weight=0.3).composition
            RewardComposition(dense_weight=0.3, success_weight=0.0)
        """
        if self.reward == "success":
            return RewardComposition(dense_weight=0.0)
        if self.reward is None or self.dense_weight is None:
            raise ValueError(
                f"OfflineConfig(reward={self.reward!r}, dense_weight={self.dense_weight!r}): the "
                "reward is not decided; training_config(data, config) reads what is unset from "
                "the composition the data set records"
            )
        if self.reward == "dense":
            return RewardComposition(dense_weight=self.dense_weight, success_weight=0.0)
        return RewardComposition(dense_weight=self.dense_weight)

    @property
    def algorithm_name(self) -> str:
        """The d3rlpy-style class name of the algorithm, e.g. ``DiscreteCQL``."""
        return self.algorithm.d3rlpy_name

    def replace(self, **changes: Any) -> OfflineConfig:
        """A copy with ``changes`` applied (and checked)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The config as JSON-ready data (the algorithm's settings nested, with its name)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["algorithm"] = self.algorithm.as_dict()
        out["hidden_units"] = list(self.hidden_units)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OfflineConfig:
        """The config written by ``as_dict``."""
        values = dict(data)
        settings = dict(values.pop("algorithm"))
        values["algorithm"] = algorithm_settings(settings.pop("name"), **settings)
        values["hidden_units"] = tuple(values.get("hidden_units", (256, 256)))
        return cls(**values)


__all__ = [
    "ALGORITHMS",
    "CHECKPOINT_RULES",
    "ENCODINGS",
    "MAX_LAYERS",
    "MAX_STEPS",
    "MAX_THREADS",
    "MAX_VOCAB",
    "MAX_WIDTH",
    "REWARDS",
    "AlgorithmSettings",
    "CheckpointRule",
    "OfflineConfig",
    "RewardChoice",
    "algorithm_settings",
]
