"""Build the prompt context a policy sees: the whole session so far, or the latest page only.

The layout follows Shop-R1: every earlier step shows its page, the action taken and the
rationale given, then the current page. When a budget (characters or tokens) is set, the
oldest pages are replaced by a short marker first, then the oldest whole steps are dropped,
and only then is the current page cut at its end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Literal

from rewardgym.envs.shopping.schema import ShopStep

ContextMode = Literal["session", "latest"]
OMITTED_PAGE = "[page omitted to fit the context budget]"
_TOKEN = re.compile(r"\w+|[^\w\s]")


def approx_token_count(text: str) -> int:
    """Words plus punctuation marks: a tokenizer-free estimate of a text's token count."""
    return len(_TOKEN.findall(text))


def _step_block(number: int, page: str, step: ShopStep) -> str:
    action = json.dumps(step.action.to_dict(), ensure_ascii=False)
    rationale = step.rationale or ""
    return f"## Step {number}\n### Page\n{page}\n### Action\n{action}\n### Rationale\n{rationale}\n"


def _current_block(number: int, page: str) -> str:
    return f"## Step {number} (current)\n### Page\n{page}\n"


def build_context(
    history: Sequence[ShopStep],
    current_page: str,
    *,
    mode: ContextMode = "session",
    max_chars: int | None = None,
    max_tokens: int | None = None,
    count_tokens: Callable[[str], int] = approx_token_count,
) -> str:
    """The context text for predicting the step after ``history`` on ``current_page``."""
    if mode not in ("session", "latest"):
        raise ValueError(f"context must be 'session' or 'latest', got {mode!r}")
    past = list(history) if mode == "session" else []
    first = len(history) - len(past) + 1
    pages = [s.page for s in past]
    dropped = 0

    def render() -> str:
        blocks = (
            [f"[{dropped} earlier steps omitted to fit the context budget]\n"] if dropped else []
        )
        blocks += [
            _step_block(first + i, p, s)
            for i, (p, s) in enumerate(zip(pages, past, strict=True))
            if i >= dropped
        ]
        blocks.append(_current_block(first + len(past), current_page))
        return "".join(blocks)

    def over(text: str) -> bool:
        if max_chars is not None and len(text) > max_chars:
            return True
        return max_tokens is not None and count_tokens(text) > max_tokens

    # Oldest pages go first, then whole oldest steps, and only then the current page's tail.
    text = render()
    oldest = 0
    while over(text) and oldest < len(pages):
        pages[oldest] = OMITTED_PAGE
        oldest += 1
        text = render()
    while over(text) and dropped < len(past):
        dropped += 1
        text = render()
    if max_chars is not None and len(text) > max_chars:
        text = text[:max_chars]
    while max_tokens is not None and text and (count := count_tokens(text)) > max_tokens:
        text = text[: max(0, min(len(text) - 1, len(text) * max_tokens // count))]
    return text


__all__ = ["OMITTED_PAGE", "ContextMode", "approx_token_count", "build_context"]
