"""Validation learning curves inside one training run, and the rule that picks its checkpoint.

With ``OfflineConfig.eval_every = K``, ``fit_mdp`` cuts d3rlpy's ``fit`` into epochs of K steps
and its ``epoch_callback`` calls a :class:`ValidationCurve`, which plays the validation split
with the agent being trained through ``agents.evaluation.household.run_split`` (the code that
scores the test splits) and records one :class:`CurvePoint` (step, SR, CGC).
``OfflineConfig.checkpoint`` names the rule that picks the weights the agent keeps, the same
for every row: ``"final"`` keeps the last step's, ``"validation-best"`` the step with the best
validation SR, ties going to the earlier step (selection on held-out evaluations, as in Paine
et al., "Hyperparameter Selection for Offline Reinforcement Learning", 2020). Validation never
changes training: the global random states are restored after each scoring, so a run with a
curve ends on the weights of one without.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rewardgym.agents.evaluation.household import BatchPolicy, EvalConfig, run_split
from rewardgym.agents.offline.config import CHECKPOINT_RULES


@dataclass(frozen=True)
class CurvePoint:
    """One evaluation of a training run on the validation split."""

    step: int
    """Gradient steps taken when the weights were evaluated."""
    sr: float
    """Validation success rate, percent."""
    cgc: float
    """Validation goal-condition completion, percent."""

    def as_list(self) -> list[float]:
        """``[step, sr, cgc]``, the form results.json keeps."""
        return [self.step, self.sr, self.cgc]


def select_checkpoint(points: Sequence[CurvePoint], rule: str) -> CurvePoint:
    """The point ``rule`` keeps: the last (``"final"``) or the best validation SR, earliest on ties.

    Example:
        >>> curve = [CurvePoint(100, 10.0, 20.0), CurvePoint(200, 30.0, 40.0),
        ...          CurvePoint(300, 30.0, 50.0), CurvePoint(400, 5.0, 9.0)]
        >>> select_checkpoint(curve, "validation-best").step
        200
        >>> select_checkpoint(curve, "final").step
        400
    """
    if not points:
        raise ValueError("select_checkpoint: the curve is empty; evaluate at least once")
    if rule == "final":
        return points[-1]
    if rule != "validation-best":
        raise ValueError(f"checkpoint rule {rule!r}: use one of {CHECKPOINT_RULES}")
    best = points[0]
    for point in points[1:]:
        if point.sr > best.sr:  # strictly better: a tie keeps the earlier step
            best = point
    return best


def network_state(algo: Any) -> dict[str, dict[str, Any]]:
    """A copy of the weights of every network of ``algo`` (targets included)."""
    return {
        name: copy.deepcopy(module.state_dict())
        for name, module in algo.impl.modules.get_torch_modules().items()
    }


def load_network_state(algo: Any, state: dict[str, dict[str, Any]]) -> None:
    """Put the weights ``network_state`` copied back into ``algo``'s networks."""
    for name, module in algo.impl.modules.get_torch_modules().items():
        module.load_state_dict(state[name])


class ValidationCurve:
    """d3rlpy ``epoch_callback`` that scores the weights on validation and keeps the chosen ones."""

    def __init__(self, policy: BatchPolicy, validation: EvalConfig, rule: str) -> None:
        """Score ``policy`` (the agent of the algorithm being fitted) on ``validation``'s
        ``"validation"`` split and keep the weights ``rule`` picks."""
        if rule not in CHECKPOINT_RULES:
            raise ValueError(f"checkpoint rule {rule!r}: use one of {CHECKPOINT_RULES}")
        if "validation" not in validation.splits:
            raise ValueError(
                f"ValidationCurve: the EvalConfig plays {validation.splits}; a curve reads the "
                "'validation' split only (test splits are for the final tables)"
            )
        self.policy = policy
        self.validation = validation
        self.rule = rule
        self.points: list[CurvePoint] = []
        self._kept: dict[str, dict[str, Any]] | None = None
        self._kept_step = -1
        self.seconds = 0.0
        """Wall time spent scoring, kept out of the run's training time."""

    def __call__(self, algo: Any, epoch: int, step: int) -> None:
        """Score ``algo`` after ``step`` steps; copy its weights when ``rule`` now picks them."""
        import torch

        start = time.perf_counter()
        states = (random.getstate(), np.random.get_state(), torch.get_rng_state())
        try:
            result = run_split(self.policy, self.validation, "validation")
        finally:
            random.setstate(states[0])
            np.random.set_state(states[1])
            torch.set_rng_state(states[2])
            self.seconds += time.perf_counter() - start
        scores = result.percent()
        self.points.append(CurvePoint(int(step), float(scores["sr"]), float(scores["cgc"])))
        if self.rule == "validation-best" and self.selected.step == step:
            self._kept = network_state(algo)
            self._kept_step = step

    @property
    def selected(self) -> CurvePoint:
        """The point the rule picks among those scored so far."""
        return select_checkpoint(self.points, self.rule)

    def restore(self, algo: Any) -> CurvePoint:
        """Put the selected step's weights into ``algo`` (after training) and return its point."""
        chosen = self.selected
        if self.rule == "validation-best" and chosen.step != self.points[-1].step:
            if self._kept is None or self._kept_step != chosen.step:
                raise RuntimeError(f"ValidationCurve: no weights kept for step {chosen.step}")
            load_network_state(algo, self._kept)
        return chosen


__all__ = [
    "CurvePoint",
    "ValidationCurve",
    "load_network_state",
    "network_state",
    "select_checkpoint",
]
