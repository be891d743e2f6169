"""Build the prompt context a policy sees: the whole session, the latest page, or a compact session.

Three modes (``ShopSession-v0``'s ``context=`` option):

* ``"session"`` (Shop-R1's default): every earlier step shows its page, the action taken and the
  rationale given, then the current page. Under a budget the oldest pages are replaced by a
  short marker first, then the oldest whole steps are dropped, and only then is the current
  page cut at its end.
* ``"latest"``: the current page alone (the paper's latest-step ablation).
* ``"compact"``: the session reduced to what a predictor needs. Each past page is one line (its
  title and the element names it added to the page before, :func:`~rewardgym.envs.shopping.
  compact.page_change`), every past action (as the JSON the policy emits) and rationale is kept,
  and the current page is rewritten tag-free with each element as ``[name] label``
  (:func:`~rewardgym.envs.shopping.compact.compact_page`). Under a budget it cuts, in this
  order, until the text fits: past pages' new-element lists (oldest first), then past page
  titles, then rationales other than the first (oldest first), then actions other than the
  last :data:`KEEP_ACTIONS`, then the current page's text other than its element names. The
  first rationale (the shopper's stated intent), the last :data:`KEEP_ACTIONS` actions and the
  current page's element names are kept while anything else is left to cut; below that
  minimum the first rationale goes, then the remaining actions, and last the text is cut at
  its end as in the other modes.

With ``element_ids=True`` (the envs' option of the same name,
:mod:`~rewardgym.envs.shopping.element_ids`) the current page lists its elements with short ids:
in compact mode each element reads ``[i] name`` in place (and the tightest budget keeps
``elements: [1] name [2] name ...``); in the other modes the current page's block opens with
an ``### Elements`` line of ``[i] name``, which is cut only as the last resort. Past pages and
past actions keep names: an id means an element of the current page only.

With a ``persona`` (the envs' ``persona=True``: the shopper's description from the session log)
the context opens with a ``Shopper persona:`` block, counted in the budget and kept whole
while it takes at most half of it (a longer persona is cut at its end to half); the mode's
own rules then fit the rest into what is left.

Every context is at most :data:`MAX_CONTEXT_CHARS` characters (the env's ``Text`` space bound)
whatever budget is set, so a session of huge pages still yields a valid observation. A token
budget also caps the characters, at :data:`MAX_CHARS_PER_TOKEN` a token: a counter may count a
run without spaces as one token (the word count does, and a WordPiece tokenizer reads a long
word as one unknown token), so without the cap a 30M-character page fitted 200 tokens. Budgets are
counted per block (blocks end at a newline, so token counts add up) and the assembled text is
checked once more at the end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from rewardgym.envs.shopping.compact import (
    compact_page,
    element_list,
    names_only,
    page_change,
    page_title,
)
from rewardgym.envs.shopping.schema import ShopStep

ContextMode = Literal["session", "latest", "compact"]
CONTEXT_MODES: tuple[str, ...] = ("session", "latest", "compact")
OMITTED_PAGE = "[page omitted to fit the context budget]"
MAX_CONTEXT_CHARS = 1 << 26
"""Hard cap of any context, the length bound of ``ShopSession-v0``'s ``context`` space."""
MAX_CHARS_PER_TOKEN = 16
"""Characters a token budget allows per token, whatever the counter says.

Contexts of the synthetic corpus average 3 (``session``) to 5.6 (``compact``) characters per
word-count token, at most 6.6; a tokenizer's tokens are shorter still. 16 cuts none of them.
"""
KEEP_ACTIONS = 3
"""Compact mode never cuts the last this many actions."""
_TOKEN = re.compile(r"\w+|[^\w\s]")

Counter = Callable[[str], int]


def approx_token_count(text: str) -> int:
    """Words plus punctuation marks: a tokenizer-free estimate of a text's token count."""
    return len(_TOKEN.findall(text))


def _action_json(step: ShopStep) -> str:
    return json.dumps(step.action.to_dict(), ensure_ascii=False)


def _step_block(number: int, page: str, step: ShopStep) -> str:
    rationale = step.rationale or ""
    return (
        f"## Step {number}\n### Page\n{page}\n### Action\n{_action_json(step)}\n"
        f"### Rationale\n{rationale}\n"
    )


def _current_block(number: int, page: str, ids: bool = False) -> str:
    elements = f"### Elements\n{element_list(page)}\n" if ids else ""
    return f"## Step {number} (current)\n{elements}### Page\n{page}\n"


@dataclass
class _Budget:
    max_chars: int
    max_tokens: int | None
    count_tokens: Counter

    def over(self, text: str) -> bool:
        if len(text) > self.max_chars:
            return True
        return self.max_tokens is not None and self.count_tokens(text) > self.max_tokens

    def cut(self, text: str) -> str:
        """The text cut at its end until it fits (the last resort of every mode)."""
        text = text[: self.max_chars]
        while self.max_tokens is not None and text:
            count = self.count_tokens(text)
            if count <= self.max_tokens:
                break
            text = text[: max(0, min(len(text) - 1, len(text) * self.max_tokens // count))]
        return text


def check_context_limits(max_chars: object, max_tokens: object) -> None:
    """Refuse a context budget that is not ``None`` (no limit) or a positive integer.

    ``-1`` would read as "no limit" and ``0`` as an empty context, neither what a budget means;
    a float or a bool is not a count.

    Example:
        >>> check_context_limits(None, 2048)
        >>> check_context_limits(-1, None)
        Traceback (most recent call last):
        ...
        ValueError: max_context_chars=-1: use a positive integer, or None for no limit
    """
    for name, value in (("max_context_chars", max_chars), ("max_context_tokens", max_tokens)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}={value!r}: use a positive integer, or None for no limit")


def char_cap(max_chars: int | None, max_tokens: int | None) -> int:
    """The most characters a context may hold under a budget of ``max_chars`` and ``max_tokens``.

    Example:
        >>> char_cap(None, 200), char_cap(1000, 200), char_cap(None, None) == MAX_CONTEXT_CHARS
        (3200, 1000, True)
    """
    cap = MAX_CONTEXT_CHARS if max_chars is None else min(max_chars, MAX_CONTEXT_CHARS)
    return cap if max_tokens is None else min(cap, max_tokens * MAX_CHARS_PER_TOKEN)


def build_context(
    history: Sequence[ShopStep],
    current_page: str,
    *,
    mode: ContextMode = "session",
    max_chars: int | None = None,
    max_tokens: int | None = None,
    count_tokens: Counter = approx_token_count,
    element_ids: bool = False,
    persona: str | None = None,
) -> str:
    """The context text for predicting the step after ``history`` on ``current_page``.

    ``element_ids`` lists the current page's elements with short ids; ``persona`` opens the
    context with the shopper's description (module docstring).
    """
    if mode not in CONTEXT_MODES:
        raise ValueError(f"context must be one of {CONTEXT_MODES}, got {mode!r}")
    check_context_limits(max_chars, max_tokens)
    cap = char_cap(max_chars, max_tokens)
    budget = _Budget(cap, max_tokens, count_tokens)
    head = _persona_block(persona, budget) if persona else ""
    if head:
        used = count_tokens(head) if max_tokens is not None else 0
        rest = None if max_tokens is None else max_tokens - used
        budget = _Budget(cap - len(head), rest, count_tokens)
    if mode == "compact":
        return head + _compact(history, current_page, budget, element_ids)
    past = list(history) if mode == "session" else []
    return head + _session(past, len(history), current_page, budget, element_ids)


def _persona_block(persona: str, budget: _Budget) -> str:
    """The context's opening ``Shopper persona:`` block, cut to half of ``budget`` ("" if nothing fits)."""
    block = f"Shopper persona:\n{persona.strip()}\n"
    half = _Budget(
        budget.max_chars // 2,
        None if budget.max_tokens is None else budget.max_tokens // 2,
        budget.count_tokens,
    )
    if not half.over(block):
        return block
    # One character and one token are kept for the block's closing newline.
    room = _Budget(
        max(0, half.max_chars - 1),
        None if half.max_tokens is None else max(0, half.max_tokens - 1),
        budget.count_tokens,
    )
    cut = room.cut(block.rstrip("\n"))
    return cut + "\n" if "\n" in cut else ""


def _session(
    past: list[ShopStep], n_history: int, current_page: str, budget: _Budget, ids: bool
) -> str:
    first = n_history - len(past) + 1
    pages = [s.page for s in past]
    current = _current_block(first + len(past), current_page, ids)
    cost = _Costs(budget)
    marker = "[{} earlier steps omitted to fit the context budget]\n"

    def blocks(dropped: int) -> list[str]:
        head = [marker.format(dropped)] if dropped else []
        body = [
            _step_block(first + i, p, s)
            for i, (p, s) in enumerate(zip(pages, past, strict=True))
            if i >= dropped
        ]
        return [*head, *body, current]

    # Oldest pages go first, then whole oldest steps, and only then the current page's tail.
    dropped = 0
    oldest = 0
    while cost.over(blocks(dropped)) and oldest < len(pages):
        pages[oldest] = OMITTED_PAGE
        oldest += 1
    while cost.over(blocks(dropped)) and dropped < len(past):
        dropped += 1
    return cost.finish(blocks(dropped))


class _Costs:
    """Block-wise budget checks: each distinct block is measured once."""

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self._tokens: dict[str, int] = {}

    def over(self, blocks: Sequence[str]) -> bool:
        chars = sum(len(b) for b in blocks)
        if chars > self.budget.max_chars:
            return True
        if self.budget.max_tokens is None:
            return False
        tokens = 0
        for block in blocks:
            if block not in self._tokens:
                self._tokens[block] = self.budget.count_tokens(block)
            tokens += self._tokens[block]
        return tokens > self.budget.max_tokens

    def finish(self, blocks: Sequence[str]) -> str:
        text = "".join(blocks)
        return self.budget.cut(text) if self.budget.over(text) else text


@dataclass
class _PastStep:
    number: int
    step: ShopStep
    change: str
    title: str
    page_level: int = 2  # 2 = title and new names, 1 = title only, 0 = none
    rationale: bool = True
    action: bool = True

    def block(self) -> str:
        lines = []
        if self.page_level == 2:
            lines.append(f"Step {self.number} page: {self.change}")
        elif self.page_level == 1 and self.title:
            lines.append(f"Step {self.number} page: {self.title}")
        if self.action:
            lines.append(f"Step {self.number} action: {_action_json(self.step)}")
        if self.rationale and self.step.rationale:
            lines.append(f"Step {self.number} rationale: {self.step.rationale}")
        return "".join(line.replace("\n", " ") + "\n" for line in lines)


def _compact(history: Sequence[ShopStep], current_page: str, budget: _Budget, ids: bool) -> str:
    previous: list[str | None] = [None, *(s.page for s in history)]
    past = [
        _PastStep(i + 1, step, page_change(step.page, previous[i]), page_title(step.page))
        for i, step in enumerate(history)
    ]
    number = len(history) + 1
    full_page = compact_page(current_page, ids=ids)
    current = [f"Step {number} (current) page:\n{full_page}\n"]
    cost = _Costs(budget)

    def blocks() -> list[str]:
        cut = [p for p in past if not (p.action and p.rationale and p.page_level == 2)]
        head = []
        if cut:
            head.append(f"[{len(cut)} earlier steps shortened to fit the context budget]\n")
        return [*head, *(p.block() for p in past), *current]

    def relax(steps: Sequence[_PastStep], field: str, value: int | bool) -> bool:
        """Cut ``field`` of the given steps, oldest first, until the text fits."""
        for item in steps:
            if not cost.over(blocks()):
                return True
            setattr(item, field, value)
        return not cost.over(blocks())

    fits = (
        relax(past, "page_level", 1)
        or relax(past, "page_level", 0)
        or relax(past[1:], "rationale", False)
        or relax(past[: max(0, len(past) - KEEP_ACTIONS)], "action", False)
    )
    if not fits:
        current = [f"Step {number} (current) page:\n{names_only(current_page, ids=ids)}\n"]
        # Past the protected minimum: the intent goes, then the last actions, then the end.
        if not relax(past[:1], "rationale", False):
            relax(past, "action", False)
    return cost.finish(blocks())


__all__ = [
    "CONTEXT_MODES",
    "KEEP_ACTIONS",
    "MAX_CHARS_PER_TOKEN",
    "MAX_CONTEXT_CHARS",
    "OMITTED_PAGE",
    "ContextMode",
    "approx_token_count",
    "build_context",
    "char_cap",
    "check_context_limits",
]
