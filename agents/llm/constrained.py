"""Decoding constrained to a page's actions: every completion is Shop-R1's JSON naming a real element.

The grammar is the canonical completion :func:`~rewardgym.envs.shopping.parsing.format_output`
writes, ``{"rationale": "...", "action": {...}}`` (or, with ``action_first``,
``{"action": {...}, "rationale": "..."}``), with the action restricted to what the
current page allows (:class:`~rewardgym.envs.shopping.page_actions.PageActions`): ``click`` on
one of its clickable names, ``type_and_submit`` on one of its input names with free text, or
``terminate``. The rationale and the typed text are free text without quotes, backslashes or
control characters, each cut to a token budget, so that the whole object always fits the
generation budget and always parses.

Masks come from llguidance (the Low-level Guidance library behind OpenAI's, vLLM's and
llama.cpp's structured outputs). It was chosen over xgrammar because every prompt here has its
own grammar (the page's names): llguidance computes each token mask lazily from the grammar
with no per-grammar compilation, while xgrammar compiles each grammar against the vocabulary
first; ``benchmarks/perf/constrained_decoding.py`` measures both against free decoding in one
run. The masks enter ``model.generate`` as a ``LogitsProcessor`` applied before temperature
and nucleus filtering (:meth:`ActionGrammar.processors`), so sampling renormalises over the
allowed tokens only; the policy's self-certainty is still read from the raw logits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.envs.shopping.page_actions import PageActions
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction

if TYPE_CHECKING:
    import torch
    from transformers import LogitsProcessorList, PreTrainedTokenizerBase

FREE_TEXT = r'/[^"\\\x00-\x1f]*/'
"""A JSON string's body without quotes, backslashes or control characters (never an escape)."""
TEXT_TOKENS = 16
"""Token budget of a ``type_and_submit`` text (a search query or a promo code)."""
SLACK = 2
"""Tokens added to the budget for merges across the free text's edges."""


def _quoted(text: str) -> str:
    """``text`` as a Lark string literal (ASCII, escaped) matching the JSON string of ``text``."""
    return json.dumps(json.dumps(text, ensure_ascii=False), ensure_ascii=True)


def action_grammar(
    actions: PageActions,
    rationale_tokens: int,
    text_tokens: int = TEXT_TOKENS,
    *,
    action_first: bool = False,
) -> str:
    """The Lark grammar (llguidance's dialect) of a completion on a page allowing ``actions``,
    in Shop-R1's order or, with ``action_first``, the action before the rationale."""
    choices = ["terminate"]
    start = (
        'start: "{\\"action\\": " action ", \\"rationale\\": \\"" rationale "\\"}"'
        if action_first
        else 'start: "{\\"rationale\\": \\"" rationale "\\", \\"action\\": " action "}"'
    )
    lines = [
        start,
        f"rationale[max_tokens={max(1, rationale_tokens)}]: {FREE_TEXT}",
        'terminate: "{\\"type\\": \\"terminate\\"}"',
    ]
    if actions.clickable:
        choices.append("click")
        lines.append('click: "{\\"type\\": \\"click\\", \\"name\\": " CLICKABLE "}"')
        lines.append("CLICKABLE: " + " | ".join(_quoted(n) for n in actions.clickable))
    if actions.inputs:
        choices.append("typed")
        lines.append(
            'typed: "{\\"type\\": \\"type_and_submit\\", \\"name\\": " INPUT '
            '", \\"text\\": \\"" text "\\"}"'
        )
        lines.append("INPUT: " + " | ".join(_quoted(n) for n in actions.inputs))
        lines.append(f"text[max_tokens={max(1, text_tokens)}]: {FREE_TEXT}")
    lines.insert(1, "action: " + " | ".join(choices))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Budget:
    """A row's token budgets: its rationale's, and its whole completion's (EOS included).

    The rationale gets what ``max_new_tokens`` leaves after the fixed text and the page's
    longest action, tokenized canonically; the whole completion is allowed that plus the
    fixed text and longest action at one token per byte, the most any tokenization of them
    can take in a byte-level vocabulary, so that no row is ever cut before its JSON closes.
    """

    rationale: int
    total: int


RATIONALE_KEY = '"rationale": "'
"""Where a completion's rationale starts, in either order."""


class ActionGrammar:
    """Builds llguidance masks for one tokenizer; one instance per policy (the wrap costs ~1 s)."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        eos_token_ids: Sequence[int],
        vocab_size: int | None = None,
        text_tokens: int = TEXT_TOKENS,
        *,
        action_first: bool = False,
    ) -> None:
        import llguidance.hf

        if not getattr(tokenizer, "is_fast", False):
            raise ValueError(
                f"constrained decoding needs a fast (Rust) tokenizer; {type(tokenizer).__name__} "
                "is not one: save the model with a tokenizer.json, or decode freely"
            )
        self.tokenizer = tokenizer
        self.eos_token_ids = tuple(int(t) for t in eos_token_ids)
        self.text_tokens = text_tokens
        self.action_first = action_first
        self._ll = llguidance.hf.from_tokenizer(
            tokenizer,  # type: ignore[arg-type]
            n_vocab=vocab_size,
            eos_token=list(self.eos_token_ids),
        )
        self.vocab = self._ll.vocab_size
        self._reserves = lru_cache(maxsize=4096)(self._reserve)

    def _reserve(self, actions: PageActions) -> tuple[int, int]:
        """Tokens the longest completion of ``actions`` takes besides its rationale, EOS
        included: tokenized canonically (the text before the rationale and the text after it
        apart), and at most (one per byte, the typed text at its budget)."""
        candidates = [ShopAction("terminate")]
        candidates += [ShopAction("click", name=n) for n in actions.clickable]
        candidates += [ShopAction("type_and_submit", name=n) for n in actions.inputs]
        heads, tails = [], []
        for action in candidates:
            text = format_output("", action, action_first=self.action_first)
            cut = text.index(RATIONALE_KEY) + len(RATIONALE_KEY)
            heads.append(text[:cut])
            tails.append(text[cut:])
        typed = [self.text_tokens if a.type == "type_and_submit" else 0 for a in candidates]
        encode = self.tokenizer
        pieces = zip(
            encode(heads, add_special_tokens=False)["input_ids"],
            encode(tails, add_special_tokens=False)["input_ids"],
            typed,
            strict=True,
        )
        canonical = max(len(head) + len(tail) + extra for head, tail, extra in pieces)
        most = max(
            len(h.encode()) + len(t.encode()) + extra
            for h, t, extra in zip(heads, tails, typed, strict=True)
        )
        return canonical + 1, most + 1

    def budget(self, actions: PageActions, max_new_tokens: int) -> Budget:
        """The budgets of a row on a page allowing ``actions`` under ``max_new_tokens``; a
        budget too small for any rationale still gives it one token (:class:`Budget`)."""
        canonical, most = self._reserves(actions)
        rationale = max(1, max_new_tokens - canonical - SLACK)
        return Budget(rationale, rationale + SLACK + most)

    def processors(
        self,
        rows: Sequence[PageActions],
        max_new_tokens: int,
        temperature: float,
        top_p: float,
    ) -> tuple[LogitsProcessorList, int]:
        """The logits processors of one batch (mask, then temperature and nucleus) and its budget.

        Pass them to ``generate`` with a generation config whose own temperature and top-p are
        neutral, so that no warper runs before the mask.
        """
        from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopPLogitsWarper

        budgets = [self.budget(a, max_new_tokens) for a in rows]
        grammars = [
            action_grammar(a, b.rationale, self.text_tokens, action_first=self.action_first)
            for a, b in zip(rows, budgets, strict=True)
        ]
        chain: list[Any] = [GrammarMask(self._ll, grammars, self.eos_token_ids)]
        if temperature > 0 and temperature != 1.0:
            chain.append(TemperatureLogitsWarper(temperature))
        if temperature > 0 and top_p < 1.0:
            chain.append(TopPLogitsWarper(top_p))
        return LogitsProcessorList(chain), max(b.total for b in budgets)


class GrammarMask:
    """A ``LogitsProcessor``: each row's logits outside its grammar's next tokens set to -inf.

    One instance serves one ``generate`` call: it feeds each row's sampled token to that row's
    matcher before masking the next position. A row whose grammar is complete may only end
    (one of ``eos_token_ids``); a row that has ended is left as it is, since ``generate``
    pads it from then on.
    """

    def __init__(
        self, tokenizer: Any, grammars: Sequence[str], eos_token_ids: Sequence[int]
    ) -> None:
        import llguidance

        lark = llguidance.LLMatcher.grammar_from_lark
        self.matchers = [llguidance.LLMatcher(tokenizer, lark(g)) for g in grammars]
        for matcher, grammar in zip(self.matchers, grammars, strict=True):
            if matcher.is_error():
                raise ValueError(f"bad action grammar: {matcher.get_error()}\n{grammar}")
        self.executor = llguidance.LLExecutor()
        self.vocab = tokenizer.vocab_size
        self.eos = frozenset(int(t) for t in eos_token_ids)
        self.complete = [False] * len(grammars)
        self.ended = [False] * len(grammars)
        self._started = False

    def _advance(self, row: int, token: int) -> None:
        if self.complete[row]:
            self.ended[row] = token in self.eos
            return
        matcher = self.matchers[row]
        if not matcher.consume_token(token):
            raise RuntimeError(f"row {row}: token {token} broke its grammar")
        self.complete[row] = matcher.is_stopped()
        self.ended[row] = token in self.eos

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """Advance every live row's matcher by its last token, then mask the next token."""
        import torch
        from llguidance.numpy import allocate_token_bitmask, fill_next_token_bitmask_par

        rows = len(self.matchers)
        if self._started:
            for row, token in enumerate(input_ids[:, -1].tolist()):
                if not self.ended[row]:
                    self._advance(row, int(token))
        self._started = True
        live = [(m, row) for row, m in enumerate(self.matchers) if not self.complete[row]]
        bitmask = allocate_token_bitmask(rows, self.vocab)  # every token allowed
        if live:
            fill_next_token_bitmask_par(self.executor, live, bitmask)
        bits = np.unpackbits(bitmask.view(np.uint8), axis=1, bitorder="little")
        width = scores.shape[-1]
        allowed = np.zeros((rows, width), dtype=bool)
        shared = min(width, bits.shape[1])
        allowed[:, :shared] = bits[:, :shared].astype(bool)
        for row in range(rows):
            if self.complete[row] and not self.ended[row]:
                allowed[row] = False
                allowed[row, [t for t in self.eos if t < width]] = True
        mask = torch.from_numpy(allowed).to(scores.device)
        return scores.masked_fill(~mask, float("-inf"))


__all__ = ["TEXT_TOKENS", "ActionGrammar", "Budget", "GrammarMask", "action_grammar"]
