"""The settings of a COREN-style data collection run, kept free of heavy imports for the CLI."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, PROBABILITY, SEED, check_fields
from rewardgym.envs import (
    BABYAI_TEXT_LEVELS,
    HOUSEHOLD_ID,
    HOUSEHOLD_V0_ID,
    VIRTUALHOME_ID,
    babyai_text_id,
)

HOUSEHOLD_DEFAULT_EPISODES = 8000
RANDOM_ACTION_MODES: tuple[str, ...] = ("mixed", "executable", "uniform")
EXPERT_MODES: tuple[str, ...] = ("script", "replan")


@dataclass(frozen=True)
class Collector:
    """How an env's data are collected by default: the collector its published figures were made with."""

    expert: str
    """"script" (the fixed script, never replanned) or "replan" (``expert_action()`` every step)."""
    noise: float
    """Probability of a random action at each step after the first."""
    sibling_fraction: float
    """Share of episodes that show the sibling task's script (``expert="script"`` only)."""
    give_up: float = 0.0
    """Share of episodes whose demonstrator gives up (``expert="script"`` only)."""
    random_actions: str = "mixed"
    """Where random actions come from (:data:`RANDOM_ACTION_MODES`; ``CollectConfig.random_actions``)."""
    experts: tuple[str, ...] = ("replan",)
    """The expert modes the env offers (``script`` needs ``expert_script()``)."""


_TURN_ONE = Collector(expert="replan", noise=0.6, sibling_fraction=0.0)
"""The first collector (commit 9af9235): the replanning expert, its action replaced by a random
one with probability 0.6; Household-v0's documented figures and the BabyAI levels use it."""

DEFAULT_COLLECTORS: dict[str, Collector] = {
    HOUSEHOLD_ID: Collector(
        expert="script", noise=0.15, sibling_fraction=0.5, experts=("script", "replan")
    ),
    HOUSEHOLD_V0_ID: _TURN_ONE,
    **{babyai_text_id(level): _TURN_ONE for level in BABYAI_TEXT_LEVELS},
    VIRTUALHOME_ID: Collector(
        expert="script",
        noise=0.4,
        sibling_fraction=0.0,
        give_up=0.3,
        random_actions="executable",
        experts=("script",),
    ),
}
"""Each collectable env id's default collector. Household-v1: COREN's (fixed scripts, 15% noise,
half sibling demonstrations; ``bench embodied`` and ``docs/embodied.md``); Household-v0 and
BabyAI: the replanning expert at 60% noise, as ``rewardgym data collect --env
rewardgym/Household-v0`` collected when its figures were made. VirtualHome-v0: each training
program's own script with a random action the simulator accepts at that state inserted at 40%
of the steps after the first, and 30% of the demonstrators giving up part way, so that failures
come from executed wrong actions as well as from give-ups (``docs/embodied.md``: on 200
episodes 46.5% succeed, 60 failures executed a wrong action and 47 gave up). COREN's recipe
(random actions from the whole action space, which the simulator mostly refuses, at 20% of the
steps, and 80% giving up: 431 of 435 failures were give-ups) is the ``coren`` variant
(``rewardgym.envs.trajectories.variants``)."""

ENV_ALIASES: dict[str, str] = {
    "household": HOUSEHOLD_ID,
    "virtualhome": VIRTUALHOME_ID,
}
"""Short names ``--env`` accepts for the embodied envs."""


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
    collector instead: the expert replans at every step, and with probability ``noise`` its
    action is replaced by a random one. The defaults give a Household-v1 data set of about
    8,000 trajectories; measured success rates: 26.0% on 300 episodes (``docs/embodied.md``)
    and 22.7% on the 2,000 of ``bench embodied``'s quick preset, about half the own-task
    episodes and none of the sibling ones.

    ``expert``, ``noise`` and ``sibling_fraction`` left at ``None`` take the env's own default
    collector (:data:`DEFAULT_COLLECTORS`, :meth:`collector`): for Household-v0 and BabyAI the
    replanning expert at ``noise=0.6`` without siblings, the collector their figures were
    made with. ``env`` must be an id of that table (rewardgym's collectable envs).
    """

    env: str = HOUSEHOLD_ID
    """Env to collect: rewardgym/Household-v1 (or "household"), rewardgym/VirtualHome-v0 (or
    "virtualhome": one episode per training program in turn), rewardgym/Household-v0 or a
    rewardgym/BabyAI-*-Text-v0 level; its own default collector applies (see expert, noise)."""
    episodes: Annotated[int, AT_LEAST_1] = HOUSEHOLD_DEFAULT_EPISODES
    """Number of trajectories to collect."""
    seed: Annotated[int, SEED] = 0
    """Seed of the episode seeds, task order and perturbations."""
    noise: Annotated[float, PROBABILITY] | None = None
    """Probability of a random action at each step after the first (inserted before the
    script's next action, or replacing the replanning expert's); None: the env's default
    (0.15 for Household-v1, 0.4 for VirtualHome-v0, 0.6 for Household-v0 and BabyAI)."""
    random_actions: str | None = None
    """Where random actions come from: "executable" (actions the simulator would execute now, if
    the env can list them), "uniform" (the whole action space, so mostly impossible actions in
    Household) or "mixed" (each of the two with probability 1/2, so the data holds both
    plausible detours and non-executable actions); None: the env's default ("executable" for
    VirtualHome-v0, else "mixed")."""
    expert: str | None = None
    """"script": follow the expert's fixed script and never replan (COREN); "replan": ask the
    env's replanning expert_action() at every step (Household-v0's collector; BabyAI);
    None: the env's default ("script" for Household-v1, "replan" otherwise)."""
    sibling_fraction: Annotated[float, PROBABILITY] | None = None
    """Share of episodes that follow the sibling task's script under this task's instruction
    (only with expert "script"; 0 turns it off); None: 0.5 with Household-v1's script, else 0."""
    env_kwargs: dict[str, int | float | str] = field(default_factory=dict)
    """Keyword arguments for gym.make (for Household: layout, max_steps, tasks); every number
    must be finite, and a list is written as JSON (tasks '[3, 7]')."""
    allow_held_out: bool = False
    """Allow collecting with held-out instructions, or VirtualHome programs split by another
    split_seed (never do this for training data: evaluation holds out split_seed 0's programs)."""
    recover: Annotated[float, PROBABILITY] = 0.0
    """Probability that the script expert replans after a perturbation (expert "script" only):
    the searcher's script from the state the random action left, knowing what was seen; 0 (the
    default) never replans, so the script carries on regardless (COREN's collector)."""
    give_up: Annotated[float, PROBABILITY] | None = None
    """Share of episodes whose demonstrator gives up (expert "script" only): after a number of
    expert steps drawn uniformly below its script's length it takes wander random actions
    and the episode ends there, so failures go wrong at varied points and late steps of the task
    are in them as often as early ones; None: the env's default (0.3 for VirtualHome-v0, else
    0, never giving up)."""
    wander: Annotated[int, NON_NEGATIVE] = 3
    """Random actions a demonstrator that gave up takes before its episode ends."""

    def __post_init__(self) -> None:
        """Reject settings that cannot make a sensible data set, naming the value and the range."""
        object.__setattr__(self, "env", ENV_ALIASES.get(self.env, self.env))
        if self.env not in DEFAULT_COLLECTORS:
            raise ValueError(
                f"CollectConfig.env={self.env!r} is not an env rewardgym can collect: use one of "
                + ", ".join(DEFAULT_COLLECTORS)
            )
        if isinstance(self.episodes, bool) or not isinstance(self.episodes, int):
            raise ValueError(f"CollectConfig.episodes={self.episodes!r}: must be an integer")
        object.__setattr__(self, "env_kwargs", _parsed_lists(self.env_kwargs))
        check_fields(self)
        if self.random_actions is not None and self.random_actions not in RANDOM_ACTION_MODES:
            raise ValueError(
                f"random_actions must be one of {RANDOM_ACTION_MODES}, got {self.random_actions!r}"
            )
        if self.expert is not None and self.expert not in EXPERT_MODES:
            raise ValueError(f"expert must be one of {EXPERT_MODES}, got {self.expert!r}")
        offered = DEFAULT_COLLECTORS[self.env].experts
        if self.expert is not None and self.expert not in offered:
            raise ValueError(
                f"{self.env} has no expert {self.expert!r} (no expert_script()): collect it "
                f"with expert {' or '.join(map(repr, offered))}"
            )
        if self.collector().expert == "replan" and (self.sibling_fraction or 0) > 0:
            raise ValueError(
                "sibling_fraction > 0 needs expert='script' (sibling demonstrations are "
                "scripts); set sibling_fraction=0 to collect with the replanning expert"
            )
        for name, value in (("recover", self.recover), ("give_up", self.give_up or 0.0)):
            if value > 0 and self.collector().expert != "script":
                raise ValueError(
                    f"{name}={value} needs expert='script' (the replanning expert already "
                    f"replans at every step); set {name}=0 or collect with the script"
                )
        for key in ("instructions", "split"):  # Household's and VirtualHome's held-out splits
            split = self.env_kwargs.get(key, "train")
            if split != "train" and not self.allow_held_out:
                raise ValueError(
                    f"env_kwargs {key}={split!r} would put held-out instructions into "
                    "training data; collect with the 'train' split (or set allow_held_out=True "
                    "for an evaluation set)"
                )
        split_seed = self.env_kwargs.get("split_seed", 0)
        if split_seed != 0 and not self.allow_held_out:
            raise ValueError(
                f"env_kwargs split_seed={split_seed!r} would put another split's held-out "
                "programs into training data: evaluation always holds out split_seed 0's "
                "validation and test programs, so collect training data with split_seed 0 "
                "(leave it out), or set allow_held_out=True for an evaluation set"
            )

    def collector(self) -> Collector:
        """The expert, noise and sibling share this run uses: the fields set, the env's defaults for the rest.

        Example:
            >>> CollectConfig(env="rewardgym/Household-v0").collector()
            Collector(expert='replan', noise=0.6, sibling_fraction=0.0, give_up=0.0, random_actions='mixed', experts=('replan',))
        """
        default = DEFAULT_COLLECTORS[self.env]
        expert = self.expert if self.expert is not None else default.expert
        siblings = default.sibling_fraction if expert == default.expert else 0.0
        return Collector(
            expert=expert,
            noise=self.noise if self.noise is not None else default.noise,
            sibling_fraction=self.sibling_fraction
            if self.sibling_fraction is not None
            else siblings,
            give_up=self.give_up if self.give_up is not None else default.give_up,
            random_actions=self.random_actions or default.random_actions,
            experts=default.experts,
        )


def _parsed_lists(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` with each text value that opens a JSON list (the CLI's ``'[3, 7]'``) read as one."""
    out = dict(kwargs)
    for key, value in kwargs.items():
        if isinstance(value, str) and value.lstrip().startswith("["):
            try:
                items = json.loads(value)
            except RecursionError:
                raise ValueError(
                    f"CollectConfig.env_kwargs[{key!r}] is a list nested too deep to read: a "
                    "list holds task ids or names, e.g. '[3, 7]'"
                ) from None
            except ValueError as err:
                raise ValueError(
                    f"CollectConfig.env_kwargs[{key!r}]={value!r} is not a JSON list ({err}): "
                    "write a list as JSON, e.g. '[3, 7]' or '[\"make_coffee\"]'"
                ) from None
            if not all(isinstance(i, int | str) and not isinstance(i, bool) for i in items):
                raise ValueError(
                    f"CollectConfig.env_kwargs[{key!r}]={value!r}: a list holds task ids or names"
                )
            out[key] = items
    return out


__all__ = [
    "DEFAULT_COLLECTORS",
    "ENV_ALIASES",
    "EXPERT_MODES",
    "HOUSEHOLD_DEFAULT_EPISODES",
    "RANDOM_ACTION_MODES",
    "CollectConfig",
    "Collector",
]
