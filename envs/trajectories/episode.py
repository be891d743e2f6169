"""One logged trajectory: observations, actions, per-step rewards and the episode's success flag."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

Observations = dict[str, Any]
"""Per-field observation columns of one episode, ``T + 1`` entries each: a ``list[str]`` for
text fields and an ``np.ndarray`` with a leading ``T + 1`` axis for every other field."""


@dataclass(frozen=True, eq=False)
class Episode:
    """A trajectory of ``T`` transitions, with its ``T + 1`` observations (the last is final).

    ``rewards`` is the success reward each transition earned (1.0 on the step that reached
    the goal, else 0); ``dense_rewards``, when a relabelling has added them, a dense reward
    per step (a judge ensemble's or the oracle's). The two stay apart so that how they are
    combined is chosen at training time (``rewardgym.wrappers.composition``).
    ``expert[t]`` says whether action ``t`` came from the expert or was a random perturbation,
    and ``executable[t]`` whether the simulator executed it.
    """

    episode_id: int
    seed: int
    instruction: str
    observations: Observations
    actions: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    executable: np.ndarray
    expert: np.ndarray
    success: bool
    task_id: int = -1
    task_name: str = ""
    instruction_kind: str = "train"
    layout: str = ""
    final_cgc: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)
    dense_rewards: np.ndarray | None = None

    def __post_init__(self) -> None:
        """Check that every per-step column has the episode's length."""
        n = len(self.actions)
        columns = ["rewards", "terminations", "truncations", "executable", "expert"]
        if self.dense_rewards is not None:
            columns.append("dense_rewards")
        for name in columns:
            if len(getattr(self, name)) != n:
                raise ValueError(
                    f"episode {self.episode_id}: {name} has {len(getattr(self, name))} entries "
                    f"but there are {n} actions; every per-step column needs one per action"
                )
        for key, column in self.observations.items():
            if len(column) != n + 1:
                raise ValueError(
                    f"episode {self.episode_id}: observation field {key!r} has {len(column)} "
                    f"entries; it needs {n + 1} (one per action plus the final observation)"
                )

    def __len__(self) -> int:
        """The number of transitions."""
        return len(self.actions)

    @property
    def texts(self) -> list[str]:
        """The text observations, ``T + 1`` of them (empty if the env has no ``text`` field)."""
        return list(self.observations.get("text", []))

    def observation(self, t: int) -> dict[str, Any]:
        """The observation at step ``t`` (``0..T``) as the env returned it."""
        return {key: column[t] for key, column in self.observations.items()}

    def with_rewards(self, rewards: np.ndarray | list[float]) -> Episode:
        """A copy of this episode whose per-step rewards are ``rewards`` (one per transition)."""
        values = np.asarray(rewards, dtype=np.float32).reshape(-1)
        if len(values) != len(self):
            raise ValueError(
                f"episode {self.episode_id} has {len(self)} transitions but {len(values)} "
                "rewards were given; pass exactly one reward per transition"
            )
        return replace(self, rewards=values)

    def with_dense_rewards(self, rewards: np.ndarray | list[float]) -> Episode:
        """A copy of this episode with a dense reward per transition (the success reward kept)."""
        values = np.asarray(rewards, dtype=np.float32).reshape(-1)
        if len(values) != len(self):
            raise ValueError(
                f"episode {self.episode_id} has {len(self)} transitions but {len(values)} "
                "dense rewards were given; pass exactly one per transition"
            )
        return replace(self, dense_rewards=values)


__all__ = ["Episode", "Observations"]
