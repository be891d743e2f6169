"""The settings of a COREN-style data collection run, kept free of heavy imports for the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field

HOUSEHOLD_DEFAULT_EPISODES = 8000
RANDOM_ACTION_MODES: tuple[str, ...] = ("mixed", "executable", "uniform")


@dataclass(frozen=True)
class CollectConfig:
    """How to collect a perturbed-expert data set (COREN, arXiv 2411.17135).

    COREN logs one expert trajectory per task with random actions injected at intermediate
    steps, about 8,000 trajectories for VirtualHome, and keeps only the success flag. At every
    step after the first, with probability ``noise`` the expert's action is replaced by a
    random one; the expert then replans from wherever that left it, so some episodes still
    succeed and others run out of steps or reach a dead end.
    """

    env: str = "rewardgym/Household-v0"
    """Registered id of an env whose ``unwrapped`` has ``expert_action()``."""
    episodes: int = HOUSEHOLD_DEFAULT_EPISODES
    """Number of trajectories to collect."""
    seed: int = 0
    """Seed of the episode seeds, task order and perturbations."""
    noise: float = 0.6
    """Probability of replacing the expert's action by a random one at each step after the first."""
    random_actions: str = "mixed"
    """Where random actions come from: "executable" (actions the simulator would execute now, if
    the env can list them), "uniform" (the whole action space, so mostly impossible actions in
    Household) or "mixed" (each of the two with probability 1/2, so the data holds both
    plausible detours and non-executable actions)."""
    env_kwargs: dict[str, int | float | str] = field(default_factory=dict)
    """Keyword arguments for ``gym.make`` (for Household: layout, max_steps, tasks)."""
    allow_held_out: bool = False
    """Allow collecting with held-out instructions (never do this for training data)."""

    def __post_init__(self) -> None:
        """Reject settings that cannot make a sensible data set."""
        if self.episodes < 1:
            raise ValueError(f"episodes must be at least 1, got {self.episodes}")
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError(f"noise is a probability in [0, 1], got {self.noise}")
        if self.random_actions not in RANDOM_ACTION_MODES:
            raise ValueError(
                f"random_actions must be one of {RANDOM_ACTION_MODES}, got {self.random_actions!r}"
            )
        split = self.env_kwargs.get("instructions", "train")
        if split != "train" and not self.allow_held_out:
            raise ValueError(
                f"env_kwargs instructions={split!r} would put held-out instructions into "
                "training data; collect with the 'train' split (or set allow_held_out=True "
                "for an evaluation set)"
            )


__all__ = ["HOUSEHOLD_DEFAULT_EPISODES", "RANDOM_ACTION_MODES", "CollectConfig"]
