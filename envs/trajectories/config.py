"""The settings of a COREN-style data collection run, kept free of heavy imports for the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field

HOUSEHOLD_DEFAULT_EPISODES = 8000
RANDOM_ACTION_MODES: tuple[str, ...] = ("mixed", "executable", "uniform")
EXPERT_MODES: tuple[str, ...] = ("script", "replan")


@dataclass(frozen=True)
class CollectConfig:
    """How to collect a perturbed-expert data set (COREN, arXiv 2411.17135).

    COREN logs one expert trajectory per task with random actions injected at intermediate
    steps, about 8,000 trajectories for VirtualHome, and keeps only the success flag. By
    default the expert follows its fixed script for the episode (``expert="script"``): at
    every step after the first, with probability ``noise`` a random action is inserted and
    the script carries on regardless, so a perturbation that moved the agent, took the wrong
    object or threw something away is never repaired. A share ``sibling_fraction`` of the
    episodes shows the script of the task's *sibling* (a task over the same objects) under
    this task's instruction: plausible, and wrong. ``expert="replan"`` is Household-v0's
    collector instead: the expert replans after every perturbation. The defaults give a
    Household-v1 data set of about 8,000 trajectories; measured success rates: 26.0% on
    300 episodes (``docs/embodied.md``) and 22.7% on the 2,000 of ``bench embodied``'s
    quick preset, about half the own-task episodes and none of the sibling ones.
    """

    env: str = "rewardgym/Household-v1"
    """Registered id of an env whose ``unwrapped`` has ``expert_script()`` (``expert="script"``)
    or ``expert_action()`` (``expert="replan"``)."""
    episodes: int = HOUSEHOLD_DEFAULT_EPISODES
    """Number of trajectories to collect."""
    seed: int = 0
    """Seed of the episode seeds, task order and perturbations."""
    noise: float = 0.15
    """Probability of inserting a random action before the expert's next one, at each step
    after the first."""
    random_actions: str = "mixed"
    """Where random actions come from: "executable" (actions the simulator would execute now, if
    the env can list them), "uniform" (the whole action space, so mostly impossible actions in
    Household) or "mixed" (each of the two with probability 1/2, so the data holds both
    plausible detours and non-executable actions)."""
    expert: str = "script"
    """"script": follow the expert's fixed script and never replan (COREN); "replan": ask the
    env's replanning ``expert_action()`` at every step (Household-v0's collector; BabyAI)."""
    sibling_fraction: float = 0.5
    """Share of episodes that follow the sibling task's script under this task's instruction
    (only with ``expert="script"`` and an env whose tasks have siblings; 0 turns it off)."""
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
        if not 0.0 <= self.sibling_fraction <= 1.0:
            raise ValueError(
                f"sibling_fraction is a probability in [0, 1], got {self.sibling_fraction}"
            )
        if self.random_actions not in RANDOM_ACTION_MODES:
            raise ValueError(
                f"random_actions must be one of {RANDOM_ACTION_MODES}, got {self.random_actions!r}"
            )
        if self.expert not in EXPERT_MODES:
            raise ValueError(f"expert must be one of {EXPERT_MODES}, got {self.expert!r}")
        if self.expert == "replan" and self.sibling_fraction > 0:
            raise ValueError(
                "sibling_fraction > 0 needs expert='script' (sibling demonstrations are "
                "scripts); set sibling_fraction=0 to collect with the replanning expert"
            )
        split = self.env_kwargs.get("instructions", "train")
        if split != "train" and not self.allow_held_out:
            raise ValueError(
                f"env_kwargs instructions={split!r} would put held-out instructions into "
                "training data; collect with the 'train' split (or set allow_held_out=True "
                "for an evaluation set)"
            )


__all__ = ["EXPERT_MODES", "HOUSEHOLD_DEFAULT_EPISODES", "RANDOM_ACTION_MODES", "CollectConfig"]
