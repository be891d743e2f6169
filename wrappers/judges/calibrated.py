"""A judge of known quality: the env's goal check, right with probability ACC, else a random answer.

``calibrated:ACC`` answers every request correctly with probability ``ACC`` and otherwise with
an answer drawn uniformly from that request's answer space, independently across prompts;
``calibrated:ACC:RHO`` shares the errors across prompts with correlation ``RHO``. "Correct" is
the simulator's own answer (:class:`rewardgym.wrappers.judges.goal_truth.GoalTruth`): a rating
is the perfect judge's rubric score of the action from that state, the structural answer names
the goal's objects in view, the temporal answer says whether the plan reaches the goal. The
answer spaces are the rubric's five integers, the subsets of the visible objects (each object
in or out with probability 1/2) and yes / no, so at accuracy ``a`` a judge agrees with the
goal check on a share ``a + (1 - a) / |space|`` of requests. Free questions have no goal check
and get no answer (``None``).

The construction of the correlated errors: every request has one shared draw (right or not,
and the random answer) and every prompt its own; a prompt uses the shared draw with
probability ``sqrt(RHO)``, else its own. Two prompts then both use the shared draw with
probability ``RHO``, and otherwise their draws are independent, so the correlation of their
error indicators is exactly ``RHO`` (and each prompt alone is still right with probability
``ACC``). Every draw is a hash of (seed, request kind, the request's inputs, prompt), so an
answer is the same in every run, and the cache keeps it.

The judge answers the observations of one data set: labelling binds it to the data set first
(``Judge.bind``), which replays the data once in the simulator.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rewardgym.wrappers.judges.base import Judge, JudgeRequest
from rewardgym.wrappers.judges.goal_truth import GoalTruth, dataset_fingerprint
from rewardgym.wrappers.judges.prompts import RUBRIC

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset

CALIBRATED = "calibrated"
"""The kind of a calibrated judge spec: ``calibrated:ACC`` or ``calibrated:ACC:RHO``."""
RATINGS: tuple[int, ...] = tuple(sorted(RUBRIC))
"""The answer space of a rating request."""

_TRUTHS: dict[str, GoalTruth] = {}
"""The goal truths built in this process, by data-set fingerprint (judges of one data set share)."""


def parse_calibrated(spec: str) -> tuple[float, float]:
    """``(accuracy, rho)`` of a ``calibrated:ACC[:RHO]`` spec; ``ValueError`` says what is wrong."""
    kind, *values = spec.split(":")
    if kind != CALIBRATED or len(values) not in (1, 2):
        raise ValueError(
            f"judge {spec!r}: write calibrated:ACC or calibrated:ACC:RHO, e.g. calibrated:0.75"
        )
    numbers = []
    for name, text in zip(("ACC", "RHO"), values, strict=False):
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"judge {spec!r}: {name}={text!r} is not a number") from None
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"judge {spec!r}: {name}={text} is outside [0, 1]")
        numbers.append(value)
    return numbers[0], numbers[1] if len(numbers) > 1 else 0.0


def shared_truth(data: TrajectoryDataset) -> GoalTruth:
    """The goal truth of ``data``, built once per process and data set."""
    key = dataset_fingerprint(data)
    if key not in _TRUTHS:
        if len(_TRUTHS) >= 4:  # bounded: a sweep labels one data set with many judges
            _TRUTHS.pop(next(iter(_TRUTHS)))
        _TRUTHS[key] = GoalTruth(data)
    return _TRUTHS[key]


def _digest(*parts: object) -> bytes:
    return hashlib.blake2b(repr(parts).encode("utf-8"), digest_size=64).digest()


def _unit(chunk: bytes) -> float:
    """A number in [0, 1) from eight bytes."""
    return int.from_bytes(chunk[:8], "big") / 2.0**64


def _bits(seed_bytes: bytes, n: int) -> list[bool]:
    """``n`` fair coin flips from ``seed_bytes`` (extended by hashing when more are needed)."""
    out: list[bool] = []
    block = seed_bytes
    while len(out) < n:
        out += [bool(byte >> k & 1) for byte in block for k in range(8)]
        block = hashlib.blake2b(block, digest_size=64).digest()
    return out[:n]


class CalibratedJudge(Judge):
    """Answers as the goal check does with probability ``accuracy`` (see the module docstring)."""

    def __init__(
        self, accuracy: float, rho: float = 0.0, seed: int = 0, truth: GoalTruth | None = None
    ) -> None:
        """A judge right with probability ``accuracy``, errors correlated ``rho`` across prompts."""
        super().__init__()
        for name, value in (("accuracy", accuracy), ("rho", rho)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"CalibratedJudge.{name}={value}: use a probability in [0, 1]")
        self.accuracy = float(accuracy)
        self.rho = float(rho)
        self.seed = int(seed)
        self.truth = truth
        self._name()

    def _name(self) -> None:
        """``identity``: spec, seed and the data set the truth comes from (cache keys read it)."""
        bound = self.truth.fingerprint if self.truth is not None else "unbound"
        self.identity = f"calibrated:{self.accuracy!r}:{self.rho!r}:seed{self.seed}:{bound}"

    def bind(self, data: TrajectoryDataset) -> None:
        """Take the goal check's answers from ``data``'s simulator (kept if already bound to it)."""
        if self.truth is None or self.truth.fingerprint != dataset_fingerprint(data):
            self.truth = shared_truth(data)
            self._name()

    def _bound(self) -> GoalTruth:
        if self.truth is None:
            raise RuntimeError(
                f"{self.identity}: the calibrated judge has no data set to take the goal check's "
                "answers from; bind it first (CalibratedJudge.bind(data); labelling does)"
            )
        return self.truth

    def cache_inputs(self, request: JudgeRequest) -> Any:
        """What the answer depends on: the observation's state id and the action, or the question."""
        t = request.transition
        if request.kind == "rate":
            state = self._bound().state(t)
            return ("rate", state, t.action) if state is not None else ("unknown", t.instruction)
        if request.kind == "structural":
            return (t.instruction, t.visible)
        if request.kind == "temporal":
            return (t.instruction, request.actions)
        return ("free", t.instruction, request.question, request.options, t.visible)

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        truth = self._bound()
        inputs = [self.cache_inputs(r) for r in requests]
        rated = {
            i: (x[1], truth.action_ids[x[2]])
            for i, x in enumerate(inputs)
            if x[0] == "rate" and x[2] in truth.action_ids
        }
        ratings = dict(zip(rated, truth.ratings_for(rated.values()), strict=True))
        shared: dict[tuple[str, str], bytes] = {}  # one shared draw per request, any prompt
        return [
            self._answer(r, truth, ratings.get(i), repr(x), shared)
            for i, (r, x) in enumerate(zip(requests, inputs, strict=True))
        ]

    def _answer(
        self,
        request: JudgeRequest,
        truth: GoalTruth,
        rating: int | None,
        material: str,
        shared: dict[tuple[str, str], bytes],
    ) -> str | None:
        t = request.transition
        draw = own = _digest(self.seed, request.kind, material, request.prompt.name)
        if self.rho > 0 and _unit(own[:8]) < math.sqrt(self.rho):
            key = (request.kind, material)
            if key not in shared:
                shared[key] = _digest(self.seed, request.kind, material)
            draw = shared[key]
        right = _unit(draw[8:16]) < self.accuracy
        noise = draw[16:]
        if request.kind == "rate":
            if rating is None:
                return None
            value = rating if right else RATINGS[int.from_bytes(noise[:8], "big") % len(RATINGS)]
            return str(value)
        if request.kind == "structural":
            relevant = truth.objects_in_view(t.instruction, t.visible)
            if relevant is None:
                return None
            if not right:
                flips = _bits(noise, len(t.visible))
                relevant = tuple(sorted({o for o, f in zip(t.visible, flips, strict=True) if f}))
            return ", ".join(relevant) or "none"
        if request.kind == "temporal":
            reached = truth.reaches_goal(t.instruction, request.actions)
            if reached is None:
                return None
            if not right:
                reached = _bits(noise, 1)[0]
            return "yes" if reached else "no"
        return None


__all__ = ["CALIBRATED", "RATINGS", "CalibratedJudge", "parse_calibrated", "shared_truth"]
