"""The offline embedding judge: rubric ratings and answers from all-MiniLM-L6-v2 similarities.

What it does, per prompt (see ``docs/coren.md``):

1. It splits the instruction into *goal phrases* the way the prompt's ``phrases`` header says:
   the whole instruction (``instruction``), its clauses (``clauses``), its noun runs
   (``objects``) or consecutive content-word pairs (``pairs``).
2. It rates an action ``-2`` when a text rule says it cannot be executed (its object is not
   visible, held or reachable; putting with empty hands; grabbing with full hands).
   Otherwise it takes ``s``, the best cosine similarity of the action text or its object to a
   goal phrase, and maps ``s >= threshold_next`` to 2, ``s >= threshold_supportive`` to 1,
   a search (find, walk to) below that to -1 and anything else to 0.
3. The thresholds come from the prompt header if given, else from the prompt's
   demonstrations (midpoints between the mean similarities of adjacent ratings), else
   defaults tuned for MiniLM. A ``progress: yes`` prompt (the chain of thought) drops the goal
   phrases that completed actions already cover and caps a repeated action at 1.
4. Structural question: the visible objects whose similarity to a goal phrase reaches
   ``threshold_supportive``. Temporal question: "yes" when every goal phrase is matched by
   some action at ``threshold_next``. A free question: the most similar option, or the most
   similar visible object.

What it cannot do: it knows no physics or order (it cannot tell "next" from "later"), reads
no state beyond names (a closed container or a distant object looks the same as a near one),
and paraphrases that MiniLM does not place near the object names (abstract instructions such
as "keep the apple cold") get weak, often neutral ratings.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from rewardgym.envs.trajectories.embeddings import CachedEmbedder
from rewardgym.wrappers.coren.embeddings import shared_embedder, similarity
from rewardgym.wrappers.coren.judges.base import Judge, JudgeRequest
from rewardgym.wrappers.coren.prompts import Prompt

DEFAULT_THRESHOLD_NEXT = 0.6
DEFAULT_THRESHOLD_SUPPORTIVE = 0.4
SEARCH_VERBS: tuple[str, ...] = ("walk to", "go to", "find", "look for", "look at", "search")
_VERBS: tuple[str, ...] = (
    "walk to",
    "go to",
    "look for",
    "look at",
    "sit on",
    "put on",
    "put in",
    "pick up",
    "switch on",
    "switch off",
    "turn on",
    "turn off",
    "find",
    "grab",
    "open",
    "close",
    "put",
    "toggle",
    "drop",
    "search",
)
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "in",
        "on",
        "into",
        "onto",
        "of",
        "for",
        "from",
        "with",
        "and",
        "then",
        "it",
        "its",
        "is",
        "are",
        "be",
        "me",
        "my",
        "you",
        "your",
        "i",
        "we",
        "us",
        "our",
        "this",
        "that",
        "these",
        "those",
        "please",
        "first",
        "next",
        "after",
        "afterwards",
        "once",
        "done",
        "when",
        "finished",
        "followed",
        "by",
        "steps",
        "step",
        "so",
        "some",
        "up",
        "out",
        "over",
        "at",
        "there",
        "here",
        "now",
        "while",
        "can",
        "could",
        "would",
        "like",
        "want",
        "should",
        "need",
        "make",
        "sure",
        "get",
        "go",
        "do",
        "have",
        "has",
        "let",
        "lets",
        "let's",
        "by",
        "as",
    ]
)
_ACTION_WORDS = frozenset(
    [
        "put",
        "place",
        "grab",
        "take",
        "find",
        "walk",
        "open",
        "close",
        "sit",
        "switch",
        "turn",
        "start",
        "heat",
        "warm",
        "store",
        "bring",
        "leave",
        "keep",
        "fetch",
        "hold",
        "load",
        "set",
        "wash",
        "watch",
        "read",
        "use",
        "pick",
        "locate",
        "seize",
        "slide",
        "position",
        "power",
        "grasp",
        "shut",
        "lay",
        "return",
        "move",
        "carry",
    ]
)
_CLAUSE_SPLIT = re.compile(r"[,;.:!?]|\band then\b|\bthen\b|\band\b|\bafter that\b|\bnext\b")


@lru_cache(maxsize=65536)
def action_object(action: str) -> tuple[str, str]:
    """Split an action name into its verb and its object, e.g. ``("put in", "fridge")``."""
    lowered = action.strip().lower()
    for verb in _VERBS:
        if lowered == verb or lowered.startswith(verb + " "):
            return verb, lowered[len(verb) :].strip()
    head, _, rest = lowered.partition(" ")
    return head, rest.strip()


@lru_cache(maxsize=65536)
def goal_phrases(instruction: str, mode: str) -> tuple[str, ...]:
    """The goal phrases of ``instruction`` under one of the prompt ``phrases`` modes."""
    text = instruction.strip().lower()
    if mode == "instruction":
        return (text,)
    words = re.findall(r"[a-z']+", text)
    if mode == "clauses":
        clauses = [c.strip() for c in _CLAUSE_SPLIT.split(text)]
        found = [c for c in clauses if any(w not in _STOP for w in re.findall(r"[a-z']+", c))]
        return tuple(dict.fromkeys(found)) or (text,)
    if mode == "objects":
        runs: list[str] = []
        current: list[str] = []
        for word in [*words, "."]:
            if word in _STOP or word in _ACTION_WORDS or word == ".":
                if current:
                    runs.append(" ".join(current))
                current = []
            else:
                current.append(word)
        return tuple(dict.fromkeys(runs)) or (text,)
    if mode == "pairs":
        content = [w for w in words if w not in _STOP]
        pairs = [f"{a} {b}" for a, b in itertools.pairwise(content)]
        return tuple(dict.fromkeys(pairs)) or (" ".join(content) or text,)
    raise ValueError(f"unknown goal-phrase mode {mode!r}")


class EmbeddingJudge(Judge):
    """Rates and answers by sentence-embedding similarity; deterministic and offline."""

    def __init__(self, embedder: CachedEmbedder | None = None) -> None:
        """Use ``embedder`` (all-MiniLM-L6-v2 from the offline package by default)."""
        super().__init__()
        self.embedder = embedder if embedder is not None else shared_embedder("minilm")
        self.identity = f"embedding:{self.embedder.name}:v1"
        self._thresholds: dict[str, tuple[float, float]] = {}

    def cache_inputs(self, request: JudgeRequest) -> Any:
        """Only the fields the embedding judge reads, so equal steps share one cached answer."""
        t, kind = request.transition, request.kind
        if kind == "rate":
            completed = t.completed if request.prompt.progress else ()
            return (t.instruction, t.action, t.visible, t.held, t.reachable, completed)
        if kind == "structural":
            return (t.instruction, t.visible)
        if kind == "temporal":
            return (t.instruction, request.actions)
        return (t.instruction, request.question, request.options, t.visible)

    def thresholds(self, prompt: Prompt) -> tuple[float, float]:
        """``(threshold_next, threshold_supportive)`` of ``prompt``: header, demonstrations or defaults."""
        if prompt.name in self._thresholds:
            return self._thresholds[prompt.name]
        by_rating: dict[int, list[float]] = {}
        for demo in prompt.demonstrations:
            phrases = goal_phrases(demo.instruction, prompt.phrases)
            by_rating.setdefault(demo.rating, []).append(self._score(demo.action, phrases))
        means = {rating: float(np.mean(v)) for rating, v in by_rating.items()}
        low = [means[r] for r in (0, -1) if r in means]
        t_next = DEFAULT_THRESHOLD_NEXT
        t_sup = DEFAULT_THRESHOLD_SUPPORTIVE
        if 2 in means and 1 in means:
            t_next = (means[2] + means[1]) / 2
        if 1 in means and low:
            t_sup = (means[1] + max(low)) / 2
        t_sup = min(t_sup, t_next)
        result = (
            prompt.threshold_next if prompt.threshold_next is not None else t_next,
            prompt.threshold_supportive if prompt.threshold_supportive is not None else t_sup,
        )
        self._thresholds[prompt.name] = result
        return result

    def _sim(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        return similarity(self.embedder, a, b)

    def _score(self, action: str, phrases: Sequence[str]) -> float:
        _, obj = action_object(action)
        texts = [action.lower(), obj] if obj else [action.lower()]
        return float(self._sim(texts, list(phrases)).max())

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        strings: set[str] = set()
        for request in requests:
            t = request.transition
            strings.update(goal_phrases(t.instruction, request.prompt.phrases))
            strings.update(a.lower() for a in (t.action, *t.completed, *request.actions) if a)
            strings.update(action_object(a)[1] for a in (t.action, *request.actions) if a)
            strings.update(t.visible)
            strings.update(request.options)
            if request.question:
                strings.add(f"{request.question} {t.instruction}")
        self.embedder.embed(sorted(s for s in strings if s))
        return [self._answer(request) for request in requests]

    def _answer(self, request: JudgeRequest) -> str:
        t, prompt = request.transition, request.prompt
        t_next, t_sup = self.thresholds(prompt)
        phrases = goal_phrases(t.instruction, prompt.phrases)
        if request.kind == "rate":
            return str(self._rate(t, prompt, phrases, t_next, t_sup))
        if request.kind == "structural":
            if not t.visible:
                return "none"
            sims = self._sim(list(t.visible), list(phrases)).max(axis=1)
            relevant = sorted(o for o, s in zip(t.visible, sims, strict=True) if s >= t_sup)
            return ", ".join(relevant) or "none"
        if request.kind == "temporal":
            actions = [a.lower() for a in request.actions]
            if not actions:
                return "no"
            covered = self._sim(list(phrases), actions).max(axis=1) >= t_next
            return "yes" if bool(covered.all()) else "no"
        query = f"{request.question} {t.instruction}"
        candidates = list(request.options) or list(t.visible)
        if not candidates:
            return "none"
        sims = self._sim([query], candidates)[0]
        return candidates[int(np.argmax(sims))]

    def _rate(
        self, t: Any, prompt: Prompt, phrases: tuple[str, ...], t_next: float, t_sup: float
    ) -> int:
        verb, obj = action_object(t.action)
        if not _executable(verb, obj, t.visible, t.held, t.reachable):
            return -2
        repeated = False
        if prompt.progress and t.completed:
            done = [a.lower() for a in t.completed]
            covered = self._sim(list(phrases), done).max(axis=1) >= t_next
            remaining = tuple(p for p, c in zip(phrases, covered, strict=True) if not c)
            phrases = remaining or phrases
            repeated = t.action.lower() in done
        score = self._score(t.action, phrases)
        if score >= t_next:
            return 1 if repeated else 2
        if score >= t_sup:
            return 1
        return -1 if verb in SEARCH_VERBS else 0


def _executable(
    verb: str, obj: str, visible: tuple[str, ...], held: str, reachable: tuple[str, ...]
) -> bool:
    """A text-only executability check; without any known names it accepts every action."""
    if not (visible or held or reachable):
        return True
    if verb.startswith("put") and not held:
        return False
    if verb in ("grab", "pick up") and held:
        return False
    if verb in SEARCH_VERBS and obj and obj == held:
        return False
    if not obj or verb.startswith("put"):
        return not obj or obj in visible or obj in reachable
    return obj in visible or obj == held or obj in reachable


__all__ = ["SEARCH_VERBS", "EmbeddingJudge", "action_object", "goal_phrases"]
