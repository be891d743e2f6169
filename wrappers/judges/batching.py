"""Ask one kind of judge request about many steps: once per distinct judge input, cached.

Labelling asks every step under every prompt, and most of those requests repeat: the
embedding judge, for one, reads neither the observation text nor (outside the chain of
thought) the history. ``ask_steps`` groups the requests by the judge's own cache inputs
(``Judge.batch_cache_inputs``), builds one request and one cache key per group, answers the
groups through the cache (ordered by instruction, so that a batch shares goal phrases and
similarities), and returns an ``AnswerTable``: the distinct answers and, for every
(step, prompt), which of them is its answer. A custom ``complete`` function instead receives
every request, undeduplicated, in step-major order (the one-call-at-a-time baseline).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from rewardgym.wrappers.judges.base import Judge, JudgeRequest, Transition
from rewardgym.wrappers.judges.cache import JudgeCache, answer_unique, inputs_key
from rewardgym.wrappers.judges.prompts import Prompt

CompleteFn = Callable[[Sequence[JudgeRequest]], list[str | None]]
"""Answers a list of requests (one text or ``None`` each)."""

T = TypeVar("T")
U = TypeVar("U")


@dataclass
class AnswerTable:
    """The answers of one kind of request: step ``s`` under prompt ``n`` got ``answers[index[s, n]]``."""

    answers: list[str | None]
    index: np.ndarray

    def parsed(self, parse: Callable[[str | None], T]) -> list[T]:
        """``parse`` applied to every distinct answer, in the order of ``answers``."""
        return map_distinct(parse, self.answers)


def map_distinct(fn: Callable[[T], U], items: Sequence[T]) -> list[U]:
    """``[fn(x) for x in items]``, calling ``fn`` once per distinct item (items repeat heavily)."""
    known: dict[T, U] = {}
    return [known[x] if x in known else known.setdefault(x, fn(x)) for x in items]


def ask_steps(
    kind: str,
    transitions: Sequence[Transition],
    prompts: Sequence[Prompt],
    judge: Judge,
    cache: JudgeCache | None = None,
    batch_size: int = 256,
    progress: Callable[[int], None] | None = None,
    complete: CompleteFn | None = None,
) -> AnswerTable:
    """Ask a ``kind`` request about every transition under every prompt, once per distinct input."""
    shape = (len(transitions), len(prompts))
    if complete is not None:
        requests = [JudgeRequest(kind, p, t) for t in transitions for p in prompts]
        answers = complete(requests)
        if progress is not None:
            progress(len(requests))
        return AnswerTable(answers, np.arange(len(requests), dtype=np.int64).reshape(shape))
    owners: list[JudgeRequest] = []
    keys: list[str] = []
    index = np.empty(shape, dtype=np.int64)
    for n, prompt in enumerate(prompts):
        slots: dict[Any, int] = {}
        inputs = judge.batch_cache_inputs(kind, prompt, transitions)
        ids = np.asarray([slots.setdefault(x, len(slots)) for x in inputs], dtype=np.int64)
        firsts = np.unique(ids, return_index=True)[1].tolist()
        # A batch of one instruction shares most of a judge's work (goal phrases, similarities).
        order = sorted(range(len(firsts)), key=lambda i: transitions[firsts[i]].instruction)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        distinct = list(slots)
        index[:, n] = len(owners) + rank[ids]
        owners += [JudgeRequest(kind, prompt, transitions[firsts[i]]) for i in order]
        keys += [inputs_key(judge, kind, prompt, distinct[i]) for i in order]
    weight = np.bincount(index.ravel(), minlength=len(owners))
    store = cache if cache is not None else JudgeCache(None)
    answers = answer_unique(judge, owners, keys, store, weight, batch_size, progress)
    return AnswerTable(answers, index)


__all__ = ["AnswerTable", "CompleteFn", "ask_steps", "map_distinct"]
