"""The policy's prompt, built from a ``ShopSession-v0`` observation as Shop-R1 prompts its model.

The prompt states the task and the action space, shows the session context the env built (by
default the compact session: every action and rationale, one line per past page, the current
page tag-free) and asks for a single JSON object. An instruct model (a tokenizer with a chat
template) gets the instructions as the system message and the rest as the user message, through
its own template; the default model gets plain text. The env cuts the context to the prompt's
token budget by the context mode's rules (:meth:`PromptBuilder.env_kwargs` hands it the budget
and the tokenizer's count; with ``PromptConfig.persona`` the env opens the context with the
shopper's persona); a context still over budget loses tokens from its left, oldest,
side. With ``PromptConfig.lookup_hint`` one more line after the context gives the lookup
baseline's predicted action for the step (:data:`LOOKUP_LINE`, the ``lookup`` a builder is
given: ``FrequencyAgent.predict`` fitted on training sessions); the context budget keeps room
for it. With ``PromptConfig.action_first`` the instructions ask for the action first. The token budget also caps the context's characters
(:data:`~rewardgym.envs.shopping.context.MAX_CHARS_PER_TOKEN` a token), so a tokenizer that
reads a long run without spaces as one token cannot let a megabyte into the prompt. The completion a model is trained to emit is
:func:`rewardgym.envs.shopping.parsing.format_output`'s canonical JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rewardgym.agents.llm.config import PromptConfig
from rewardgym.envs.shopping.compact import page_elements
from rewardgym.envs.shopping.context import char_cap
from rewardgym.envs.shopping.element_ids import with_ids
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.errors import UserError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

INSTRUCTIONS = (
    "You simulate a human shopper. Every usable element of a page has a unique name, shown as "
    "[name]. Predict the shopper's next rationale (one first-person sentence) and action as one "
    'JSON object {"rationale": R, "action": A}, A being {"type": "click", "name": N}, '
    '{"type": "type_and_submit", "name": N, "text": T} or {"type": "terminate"}.\n'
)
ID_INSTRUCTIONS = INSTRUCTIONS.replace(
    "shown as [name].", 'shown as [i] name; an action may name it by its id i, as N = "[i]".'
)
"""The instructions when the context lists element ids (``PromptConfig.element_ids``)."""
SHOP_R1_ORDER = '{"rationale": R, "action": A}'
ACTION_FIRST_ORDER = '{"action": A, "rationale": R}'
"""The object the instructions ask for with ``PromptConfig.action_first``."""
LOOKUP_LINE = "\n# The lookup predicts: {action}"
"""The line ``PromptConfig.lookup_hint`` adds after the context (the action as the policy's JSON)."""
LOOKUP_RESERVE = 16
"""Context tokens kept for the lookup's action beyond a terminate line (a longer one cuts the
context further from its left side, so the prompt never outgrows its budget)."""
Lookup = Callable[[Mapping[str, Any]], ShopAction | None]
"""What the prompt asks for the lookup's predicted action of an observation (None: it has no
guess, and terminates, as ``FrequencyAgent.act`` then does)."""
CONTEXT_HEADER = "# Session so far\n"
TRUNCATED = "[earlier context truncated]\n"
FOOTER = "\n# Next step: one JSON object\n"
# Re-tokenising a cut context can merge bytes differently at the cut; keep this many in hand.
_TOKEN_MARGIN = 8
_COUNT_CACHE = 1 << 14


def env_kwargs(config: PromptConfig) -> dict[str, Any]:
    """Keyword arguments of ``gym.make("rewardgym/ShopSession-v0", ...)`` without a token budget.

    :meth:`PromptBuilder.env_kwargs` adds the token budget of a given tokenizer.
    """
    return {
        "context": config.context,
        "max_context_chars": config.max_context_chars,
        "element_ids": config.element_ids,
        "persona": config.persona,
    }


class TokenCounter:
    """Counts a text's tokens with a tokenizer (no special tokens), caching recent texts.

    The env calls it once per context block; blocks repeat across the steps of a session.
    """

    def __init__(self, tokenizer: PreTrainedTokenizerBase) -> None:
        self.tokenizer = tokenizer
        self._cache: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        """Number of tokens of ``text``."""
        count = self._cache.get(text)
        if count is None:
            count = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
            if len(self._cache) >= _COUNT_CACHE:
                self._cache.clear()
            self._cache[text] = count
        return count

    def __getstate__(self) -> dict[str, Any]:
        return {"tokenizer": self.tokenizer, "_cache": {}}


def uses_chat_template(tokenizer: PreTrainedTokenizerBase, config: PromptConfig) -> bool:
    """Whether prompts go through the tokenizer's chat template under ``config``."""
    return config.chat_template == "auto" and bool(getattr(tokenizer, "chat_template", None))


def task_statement(*, element_ids: bool = False, action_first: bool = False) -> str:
    """The instructions a prompt opens with: names or ids, and the output order asked for."""
    told = ID_INSTRUCTIONS if element_ids else INSTRUCTIONS
    return told.replace(SHOP_R1_ORDER, ACTION_FIRST_ORDER) if action_first else told


def lookup_line(action: ShopAction) -> str:
    """The prompt line that states the lookup's predicted ``action`` (:data:`LOOKUP_LINE`)."""
    return LOOKUP_LINE.format(action=json.dumps(action.to_dict(), ensure_ascii=False))


class PromptBuilder:
    """Turns observations into prompts that fit ``max_prompt_tokens`` of a given tokenizer.

    ``lookup`` gives the lookup's predicted action of an observation; a config with
    ``lookup_hint`` needs it to prompt an observation.
    """

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        config: PromptConfig,
        lookup: Lookup | None = None,
    ) -> None:
        self.tokenizer = tokenizer
        self.config = config
        self.lookup = lookup
        self.chat = uses_chat_template(tokenizer, config)
        self.count = TokenCounter(tokenizer)
        fixed = self.count(self.frame(TRUNCATED))
        self.hint_reserve = (
            self.count(lookup_line(ShopAction("terminate"))) + LOOKUP_RESERVE
            if config.lookup_hint
            else 0
        )
        self.context_budget = config.max_prompt_tokens - fixed - _TOKEN_MARGIN - self.hint_reserve
        if self.context_budget < 16:
            raise UserError(
                f"PromptConfig.max_prompt_tokens={config.max_prompt_tokens} leaves "
                f"{self.context_budget} tokens of context after the {fixed}-token instructions; "
                "raise it"
            )

    def env_kwargs(self) -> dict[str, Any]:
        """``gym.make`` keyword arguments whose context fits this builder's token budget."""
        return {
            **env_kwargs(self.config),
            "max_context_tokens": self.context_budget,
            "count_tokens": self.count,
        }

    def frame(self, context: str, hint: str = "") -> str:
        """The whole prompt around an already-fitted context and its lookup line, if any
        (chat template or plain text)."""
        config = self.config
        if not self.chat:
            return build_prompt(
                context + hint,
                instructions=config.instructions,
                element_ids=config.element_ids,
                action_first=config.action_first,
            )
        messages = [{"role": "user", "content": CONTEXT_HEADER + context + hint + FOOTER}]
        if config.instructions:
            told = task_statement(element_ids=config.element_ids, action_first=config.action_first)
            messages.insert(0, {"role": "system", "content": told.strip()})
        text = self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
        return str(text)

    def context_tail(self, context: str, budget: int | None = None) -> str:
        """The context, cut from its left side to ``budget`` tokens (the builder's context budget
        by default) and its character cap (marked when cut)."""
        budget = self.context_budget if budget is None else budget
        chars = char_cap(None, budget)
        cut = len(context) > chars
        tail = context[-chars:] if cut else context
        if self.count(tail) > budget:
            ids = self.tokenizer(tail, add_special_tokens=False)["input_ids"]
            tail = str(self.tokenizer.decode(ids[-budget:], skip_special_tokens=True))
            cut = True
        return TRUNCATED + tail if cut else tail

    def hint(self, observation: Mapping[str, Any]) -> str:
        """The lookup's line for ``observation`` (empty without ``lookup_hint``), naming the
        element by its id when the prompt lists ids."""
        if not self.config.lookup_hint:
            return ""
        if self.lookup is None:
            raise ValueError(
                "PromptConfig.lookup_hint=True: this prompt builder was given no lookup; pass "
                "lookup=FrequencyAgent().fit(training sessions).predict (bench shop and its "
                "sweep fit it on the training sessions)"
            )
        action = self.lookup(observation) or ShopAction("terminate")
        if self.config.element_ids:
            action = with_ids(action, page_elements(str(observation["page"])))
        return lookup_line(action)

    def __call__(self, observation: Mapping[str, Any]) -> str:
        """The prompt for one observation (its ``context`` field, and the lookup's line)."""
        hint = self.hint(observation)
        budget = self.context_budget + self.hint_reserve - (self.count(hint) if hint else 0)
        return self.frame(self.context_tail(str(observation["context"]), budget), hint)


def build_prompt(
    context: str,
    *,
    instructions: bool = True,
    element_ids: bool = False,
    action_first: bool = False,
) -> str:
    """The plain-text prompt around an already-fitted context."""
    told = task_statement(element_ids=element_ids, action_first=action_first)
    return (told if instructions else "") + CONTEXT_HEADER + context + FOOTER


__all__ = [
    "CONTEXT_HEADER",
    "FOOTER",
    "ID_INSTRUCTIONS",
    "INSTRUCTIONS",
    "LOOKUP_LINE",
    "TRUNCATED",
    "Lookup",
    "PromptBuilder",
    "TokenCounter",
    "build_prompt",
    "env_kwargs",
    "lookup_line",
    "task_statement",
    "uses_chat_template",
]
