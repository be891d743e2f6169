"""The judge interface: requests, the abstract ``Judge`` and the parsers of its text answers.

Every backend answers a batch of requests with one text (or ``None``) per request. A rating
request asks for an integer on COREN's rubric (-2..2); a question request asks the structural
question, the temporal (backward) question, or a free question. ``None`` means the backend
could not answer at all (a timeout, a server error after its retries): such answers are not
cached, so a rerun asks again. A text that does not parse is an abstention, and it is cached.
"""

from __future__ import annotations

import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardgym.wrappers.judges.prompts import RUBRIC, Prompt

REQUEST_KINDS: tuple[str, ...] = ("rate", "structural", "temporal", "free")


@dataclass(frozen=True)
class Transition:
    """What a judge sees of one step: instruction, observation text, action and the scene's facts.

    ``visible`` names the objects in view, ``held`` the object in hand (empty for none),
    ``reachable`` further targets the agent may name (other rooms), and ``completed`` the
    actions executed so far. Where the env documents its fact fields (``facts``), ``room`` is
    the agent's room, ``near`` and ``sitting`` what it stands next to and sits on, ``opened``,
    ``closed`` and ``running`` the visible containers that are open or closed and the devices
    that are on, and ``objects`` every object the env can name. A judge that reads text only
    uses ``observation``.
    """

    instruction: str
    observation: str
    action: str
    visible: tuple[str, ...] = ()
    held: str = ""
    reachable: tuple[str, ...] = ()
    completed: tuple[str, ...] = ()
    room: str = ""
    near: str = ""
    sitting: str = ""
    opened: tuple[str, ...] = ()
    closed: tuple[str, ...] = ()
    running: tuple[str, ...] = ()
    objects: tuple[str, ...] = ()
    facts: bool = False


@dataclass(frozen=True)
class JudgeRequest:
    """One call to a judge: a kind, the prompt, the transition and the kind's extra inputs."""

    kind: str
    prompt: Prompt
    transition: Transition
    actions: tuple[str, ...] = ()
    question: str = ""
    options: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Reject an unknown request kind."""
        if self.kind not in REQUEST_KINDS:
            raise ValueError(f"JudgeRequest.kind={self.kind!r}: use one of {REQUEST_KINDS}")

    def text(self) -> str:
        """The prompt text an LLM judge reads for this request."""
        t = self.transition
        return self.prompt.render(
            self.kind,
            {
                "instruction": t.instruction,
                "observation": t.observation,
                "action": t.action,
                "actions": ", ".join(self.actions) or "none",
                "question": self.question,
                "visible": ", ".join(t.visible) or "none",
            },
        )


@dataclass
class JudgeStats:
    """Thread-safe counters of one judge: backend calls, failures, retries, seconds in calls.

    ``seconds`` is the wall time spent inside the backend (cache hits never reach it), so
    ``seconds / calls`` is the judge's cold cost per request.
    """

    calls: int = 0
    failures: int = 0
    retries: int = 0
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(
        self, calls: int = 0, failures: int = 0, retries: int = 0, seconds: float = 0.0
    ) -> None:
        """Add to the counters."""
        with self._lock:
            self.calls += calls
            self.failures += failures
            self.retries += retries
            self.seconds += seconds

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return {"calls": self.calls, "failures": self.failures, "retries": self.retries}


class Judge(ABC):
    """A backend that answers rubric ratings and questions about embodied transitions."""

    identity: str = "judge"

    def __init__(self) -> None:
        """Start with zeroed counters."""
        self.stats = JudgeStats()

    def __deepcopy__(self, memo: dict[int, Any]) -> Judge:
        """The judge itself: a backend is a shared service, so a copied env spec shares it."""
        return self

    @abstractmethod
    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        """Answer every request with a text, or ``None`` where the backend failed."""

    def complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        """Answer a batch of requests (one backend call each) and count them."""
        if not requests:
            return []
        start = time.perf_counter()
        answers = self._complete(requests)
        seconds = time.perf_counter() - start
        if len(answers) != len(requests):
            raise RuntimeError(
                f"judge {self.identity} returned {len(answers)} answers for {len(requests)} requests"
            )
        failures = sum(a is None for a in answers)
        self.stats.add(calls=len(requests), failures=failures, seconds=seconds)
        return answers

    def bind(self, data: Any) -> None:  # noqa: B027  (a hook: most judges read no data set)
        """Read the data set about to be judged; a judge that answers from its simulator does."""

    def cache_inputs(self, request: JudgeRequest) -> Any:
        """What this judge's answer depends on, for the cache key (LLM judges: the prompt text)."""
        return request.text()

    def batch_cache_inputs(
        self, kind: str, prompt: Prompt, transitions: Sequence[Transition]
    ) -> list[Any]:
        """The hashable ``cache_inputs`` of a ``kind`` request under ``prompt`` for each transition."""
        return [
            freeze_inputs(self.cache_inputs(JudgeRequest(kind, prompt, t))) for t in transitions
        ]

    def rate(self, requests: Sequence[JudgeRequest]) -> list[int | None]:
        """Rubric ratings for ``rate`` requests; ``None`` is an abstention."""
        return [parse_rating(a) for a in self.complete(requests)]

    def ask(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        """Free-text answers to question requests; ``None`` where the backend failed."""
        return self.complete(requests)


def freeze_inputs(value: Any) -> Any:
    """A hashable copy of cache inputs made of nested lists and tuples (lists become tuples)."""
    if isinstance(value, str | tuple):
        return value
    if isinstance(value, list):
        return tuple(freeze_inputs(v) for v in value)
    return value


_INT = re.compile(r"(?<![\d.])([+-]?\d+)(?![\d.])")
_RATING_LINE = re.compile(r"rating\s*[:=]\s*([+-]?\d+)", re.IGNORECASE)


def parse_rating(answer: str | None) -> int | None:
    """The rubric integer in ``answer``: after a last ``Rating:`` if any, else the only integer.

    Returns ``None`` (an abstention) when nothing, several conflicting integers, or a value
    outside -2..2 is found.
    """
    if answer is None:
        return None
    marked = _RATING_LINE.findall(answer)
    if marked:
        value = int(marked[-1])
        return value if value in RUBRIC else None
    found = {int(m) for m in _INT.findall(answer)}
    if len(found) != 1:
        return None
    value = found.pop()
    return value if value in RUBRIC else None


def parse_yes_no(answer: str | None) -> bool | None:
    """``True`` for an answer that starts with yes, ``False`` for no, ``None`` otherwise."""
    if answer is None:
        return None
    words = re.findall(r"[a-z]+", answer.lower())
    if not words:
        return None
    if words[0] in ("yes", "true"):
        return True
    if words[0] in ("no", "false"):
        return False
    return None


def parse_object_list(answer: str | None) -> tuple[str, ...] | None:
    """The comma-separated object names in ``answer`` (lower-cased, sorted); ``()`` for none."""
    if answer is None:
        return None
    text = answer.strip().splitlines()[0] if answer.strip() else ""
    text = text.strip().strip(".").lower()
    if not text:
        return None
    if text in ("none", "nothing", "no objects"):
        return ()
    items = [re.sub(r"^(the|a|an)\s+", "", item.strip()) for item in re.split(r",|;| and ", text)]
    return tuple(sorted({item for item in items if item}))


__all__ = [
    "REQUEST_KINDS",
    "Judge",
    "JudgeRequest",
    "JudgeStats",
    "Transition",
    "freeze_inputs",
    "parse_object_list",
    "parse_rating",
    "parse_yes_no",
]
