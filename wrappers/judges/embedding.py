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

from rewardgym.embeddings import CachedEmbedder, SimilarityTable, shared_embedder
from rewardgym.wrappers.judges.base import Judge, JudgeRequest, Transition
from rewardgym.wrappers.judges.prompts import (
    Demonstration,
    Prompt,
    default_prompt_dir,
    load_prompts,
)

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
        self.identity = f"embedding:{self.embedder.name}:v2"
        self._thresholds: dict[str, tuple[float, float]] = {}

    def cache_inputs(self, request: JudgeRequest) -> Any:
        """Only the fields the embedding judge reads, so equal steps share one cached answer."""
        t, kind = request.transition, request.kind
        if kind == "rate":
            completed = t.completed if request.prompt.progress else ()
            return (t.instruction, t.action, *_scene(t), completed)
        if kind == "structural":
            return (t.instruction, t.visible)
        if kind == "temporal":
            return (t.instruction, request.actions)
        return (t.instruction, request.question, request.options, t.visible)

    def batch_cache_inputs(
        self, kind: str, prompt: Prompt, transitions: Sequence[Transition]
    ) -> list[Any]:
        """``cache_inputs`` of many transitions at once, without building their requests."""
        if kind == "rate" and prompt.progress:
            return [(t.instruction, t.action, *_scene(t), t.completed) for t in transitions]
        if kind == "rate":
            return [(t.instruction, t.action, *_scene(t), ()) for t in transitions]
        if kind == "structural":
            return [(t.instruction, t.visible) for t in transitions]
        return super().batch_cache_inputs(kind, prompt, transitions)

    def thresholds(self, prompt: Prompt) -> tuple[float, float]:
        """``(threshold_next, threshold_supportive)`` of ``prompt``: header, demonstrations or defaults."""
        if prompt.name in self._thresholds:
            return self._thresholds[prompt.name]
        by_rating: dict[int, list[float]] = {}
        table = SimilarityTable(self.embedder)  # demonstrations are embedded as they come
        # A prompt without examples (naive, chain of thought) is calibrated on the examples of
        # the shipped prompts, read with its own goal-phrase mode.
        for demo in prompt.demonstrations or shipped_demonstrations():
            phrases = goal_phrases(demo.instruction, prompt.phrases)
            by_rating.setdefault(demo.rating, []).append(_score(table, demo.action, phrases))
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

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        table = SimilarityTable(self.embedder, _batch_strings(requests))
        return [self._answer(request, table) for request in requests]

    def _answer(self, request: JudgeRequest, table: SimilarityTable) -> str:
        t, prompt = request.transition, request.prompt
        t_next, t_sup = self.thresholds(prompt)
        phrases = goal_phrases(t.instruction, prompt.phrases)
        if request.kind == "rate":
            return str(_rate(table, t, prompt, phrases, t_next, t_sup))
        if request.kind == "structural":
            if not t.visible:
                return "none"
            sims = table.similarity(t.visible, phrases).max(axis=1)
            relevant = sorted(o for o, s in zip(t.visible, sims, strict=True) if s >= t_sup)
            return ", ".join(relevant) or "none"
        if request.kind == "temporal":
            actions = tuple(a.lower() for a in request.actions)
            if not actions:
                return "no"
            covered = table.similarity(phrases, actions).max(axis=1) >= t_next
            return "yes" if bool(covered.all()) else "no"
        query = f"{request.question} {t.instruction}"
        candidates = tuple(request.options) or t.visible
        if not candidates:
            return "none"
        sims = table.similarity((query,), candidates)[0]
        return candidates[int(np.argmax(sims))]


@lru_cache(maxsize=1)
def shipped_demonstrations() -> tuple[Demonstration, ...]:
    """Every demonstration of the prompt files shipped with rewardgym."""
    prompts = load_prompts(len(list(default_prompt_dir().glob("*.txt"))))
    return tuple(d for p in prompts for d in p.demonstrations)


def _batch_strings(requests: Sequence[JudgeRequest]) -> set[str]:
    """Every string the answers to ``requests`` compare, gathered from their distinct parts."""
    goals: set[tuple[str, str]] = set()
    actions: set[tuple[str, str]] = set()
    histories: set[tuple[str, ...]] = set()
    names: set[tuple[str, ...]] = set()
    strings: set[str] = set()
    for request in requests:
        t = request.transition
        goals.add((t.instruction, request.prompt.phrases))
        actions.add((t.action, t.held))
        actions.update((a, "") for a in request.actions)
        histories.add(t.completed)
        names.add(t.visible)
        names.add(t.objects)
        strings.update(request.options)
        if request.question:
            strings.add(f"{request.question} {t.instruction}")
    for instruction, mode in goals:
        strings.update(goal_phrases(instruction, mode))
    for action, held in actions:
        if action:
            strings.update(_action_texts(action, held))
    for history in histories:
        strings.update(a.lower() for a in history)
    for visible in names:
        strings.update(visible)
    for request in requests:
        t = request.transition
        if t.held and t.facts:
            for o in t.visible:
                strings.update(_put_texts(t.held, o))
    return strings


@lru_cache(maxsize=65536)
def _action_texts(action: str, held: str = "") -> tuple[str, ...]:
    """The texts an action is compared by: its lower-cased name, its object if it has one, and,
    for putting down, what it does to the held object ("put the apple in the trash can")."""
    verb, obj = action_object(action)
    texts = [action.lower(), obj] if obj else [action.lower()]
    if held and obj and verb in ("put on", "put in", "put"):
        preposition = "in" if verb == "put in" else "on"
        texts.append(f"put the {held} {preposition} the {obj}")
    return tuple(texts)


def _score(table: SimilarityTable, action: str, phrases: tuple[str, ...], held: str = "") -> float:
    """The best similarity of the action's texts (``_action_texts``) to a goal phrase."""
    return table.best(_action_texts(action, held), phrases)


def _rate(
    table: SimilarityTable,
    t: Transition,
    prompt: Prompt,
    phrases: tuple[str, ...],
    t_next: float,
    t_sup: float,
) -> int:
    """The rubric rating of the logged action of ``t`` (see the module docstring, step 2-3)."""
    verb, obj = action_object(t.action)
    executable = (
        _possible(verb, obj, t)
        if t.facts
        else _executable(verb, obj, t.visible, t.held, t.reachable)
    )
    if not executable:
        return -2
    repeated = False
    if prompt.progress and t.completed:
        done = tuple(a.lower() for a in t.completed)
        covered = table.similarity(phrases, done).max(axis=1) >= t_next
        remaining = tuple(p for p, c in zip(phrases, covered, strict=True) if not c)
        phrases = remaining or phrases
        repeated = t.action.lower() in done
    score = _score(table, t.action, phrases, t.held)
    if score >= t_next:
        return 1 if repeated else 2
    if score >= t_sup:
        return 1
    if t.facts and (
        _explores(table, verb, obj, t, phrases, t_sup)
        or _delivers(table, verb, obj, t, phrases, t_sup)
    ):
        return 1
    return -1 if verb in SEARCH_VERBS else 0


def _put_texts(held: str, target: str) -> tuple[str, str]:
    return (f"put the {held} on the {target}", f"put the {held} in the {target}")


def _delivers(
    table: SimilarityTable,
    verb: str,
    obj: str,
    t: Transition,
    phrases: tuple[str, ...],
    t_sup: float,
) -> bool:
    """Whether the action goes to where the held, needed object most plausibly belongs.

    While holding an object that matches a goal phrase, going to (``find``) the visible object
    on or in which putting it matches the goal phrases best is supportive.
    """
    if verb not in SEARCH_VERBS or not t.held or obj == t.held or obj not in t.visible:
        return False
    if table.best((t.held,), phrases) < t_sup:
        return False
    targets = [o for o in t.visible if o != t.held]
    scores = [table.best(_put_texts(t.held, o), phrases) for o in targets]
    return targets[int(np.argmax(scores))] == obj


def _scene(t: Transition) -> tuple[Any, ...]:
    """The scene facts a rating reads (what the cache key of a rating holds besides the text)."""
    return (
        t.visible, t.held, t.reachable, t.facts, t.room, t.near, t.sitting, t.opened,
        t.closed, t.running, t.objects,
    )  # fmt: skip


def _explores(
    table: SimilarityTable,
    verb: str,
    obj: str,
    t: Transition,
    phrases: tuple[str, ...],
    t_sup: float,
) -> bool:
    """Whether the action searches for a needed object that is not in sight.

    The needed objects are those of the env's vocabulary that match a goal phrase at
    ``t_supportive``; while one of them is neither visible nor held, walking to another room,
    going to a closed container and opening it are supportive (it may be there or inside).
    """
    if not t.objects:
        return False
    if verb not in ("walk to", "go to") and not (verb in ("find", "open") and obj in t.closed):
        return False
    relevant = table.similarity(t.objects, phrases).max(axis=1) >= t_sup
    seen = {*t.visible, t.held}
    return any(r and o not in seen for o, r in zip(t.objects, relevant, strict=True))


def _possible(verb: str, obj: str, t: Transition) -> bool:
    """The common-sense preconditions of an action, read from the scene's facts.

    Walk to another room; find an object in view that is not in hand; grab, open, close,
    sit on, put on or in, and switch on only what the agent stands next to; grab with free
    hands; open what is closed (and not running), close what is open; put only when holding
    something, and into a container that is not closed; switch on what is off and not open.
    """
    if verb in ("walk to", "go to"):
        return obj in t.reachable
    if verb in SEARCH_VERBS:
        return obj in t.visible and obj != t.held
    if verb in ("grab", "pick up"):
        return not t.held and t.near == obj
    if t.near != obj:
        return False
    if verb == "open":
        return obj in t.closed and obj not in t.running
    if verb == "close":
        return obj in t.opened
    if verb == "sit on":
        return t.sitting != obj
    if verb.startswith("put"):
        return bool(t.held) and not (verb == "put in" and obj in t.closed)
    if verb in ("switch on", "turn on"):
        return obj not in t.running and obj not in t.opened
    return True


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
