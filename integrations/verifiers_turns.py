"""The multi-turn loop the episode tasksets share: a text env stepped host-side, one model reply a turn.

verifiers' own TextArena taskset plays a game engine this way: the task's prompt is the
episode's first observation, each reply is carried out by the env here, in this process, and
what the env shows next is the next user turn. A :class:`TextEpisode` says how a reply becomes
a step and what the trace records; :func:`play` runs one against the model. A reply the env
cannot carry out is an inexecutable turn: it counts against ``max_turns``, the model is told
what was wrong, and nothing crashes. Tests and other drivers call :meth:`TextEpisode.step` with
their own replies: it is the same code the model's turns run through.

Once the episode is over, :func:`play` leaves its reward scores on the trace
(``trace.info["episode_scores"]``) before the rollout closes; closing scores the task, whose
declared reward functions (``@vf.reward``) read them back with :func:`episode_score`. So each
term is a reward function verifiers can reweight (``--env.taskset.task.rewards
'{"success": {"weight": 2}}'``), and the scores travel with the saved trace.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import gymnasium as gym
import verifiers.v1 as vf


class TurnsConfig(vf.TasksetConfig):
    """What every multi-turn taskset has: a turn budget per episode."""

    max_turns: int = 30
    """Model turns per episode at most (the env's own step limit also ends it)."""


class TextEpisode(ABC):
    """One episode of ``env`` driven by text: :meth:`step` carries out a reply and gives the next user turn.

    ``env`` has been reset to the task's episode; the episode owns it from here (:func:`play`
    closes it). Subclasses say how a reply becomes a step (:meth:`act`) and what the trace
    records (:meth:`rewards`, :meth:`metrics`).
    """

    def __init__(self, env: gym.Env[Any, Any], max_turns: int) -> None:
        self.env = env
        self.max_turns = max_turns
        self.turns = 0
        """Replies taken so far, inexecutable ones included."""
        self.inexecutable = 0
        """Turns whose reply the env could not carry out (nothing changed)."""
        self.over = False
        """Whether the env ended the episode or the turn budget is spent."""

    def step(self, reply: str) -> str:
        """Take one reply as the next turn; the next user turn (meaningless once :attr:`over`)."""
        if self.over:
            raise RuntimeError(f"the episode is over after {self.turns} turns; start a new one")
        self.turns += 1
        feedback, ended = self.act(reply)
        self.over = ended or self.turns >= self.max_turns
        return feedback

    @abstractmethod
    def act(self, reply: str) -> tuple[str, bool]:
        """Step the env with ``reply`` or refuse it (counting it inexecutable): the feedback, and whether the env ended."""

    @abstractmethod
    def rewards(self) -> dict[str, float]:
        """``{name: score}``, one per reward function of the taskset's task, read once the episode is over."""

    def metrics(self) -> dict[str, float]:
        """``steps`` (turns taken) and ``inexecutable``; subclasses add their own."""
        return {"steps": float(self.turns), "inexecutable": float(self.inexecutable)}


EPISODE_SCORES = "episode_scores"
"""The key of ``trace.info`` under which :func:`play` leaves the episode's reward scores."""


async def play(task: vf.Task[Any, Any, Any], agents: Any, episode: TextEpisode) -> None:
    """Let the player reply turn by turn until ``episode`` is over; leave its scores and metrics on the trace."""
    try:
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                feedback = episode.step(segment.last_reply)
                if episode.over:
                    break
                segment = await interaction.turn(feedback)
            # Leaving the interaction scores the task, so the scores go on the trace first.
            interaction.trace.info[EPISODE_SCORES] = episode.rewards()
            interaction.trace.record_metrics(episode.metrics())
    finally:
        episode.env.close()


def episode_score(trace: vf.Trace, name: str) -> float:
    """The score :func:`play` left on ``trace`` for the reward function ``name``."""
    scores = trace.info.get(EPISODE_SCORES)
    if not isinstance(scores, dict) or name not in scores:
        raise ValueError(
            f"trace {trace.id} holds no episode score {name!r} (trace.info[{EPISODE_SCORES!r}] "
            f"is {scores!r}); play the taskset with its own env, which records them"
        )
    return float(scores[name])


__all__ = ["EPISODE_SCORES", "TextEpisode", "TurnsConfig", "episode_score", "play"]
