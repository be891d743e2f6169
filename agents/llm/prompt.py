"""The policy's prompt, built from a ``ShopSession-v0`` observation as Shop-R1 prompts its model.

The prompt states the task and the action space, shows the session context the env built (every
earlier page, action and rationale, then the current page; or the current page alone under
``context="latest"``) and asks for a single JSON object. When the prompt exceeds the model's
budget the context loses tokens from its left, oldest, side; the instructions and the current
page's end are kept. The completion a model is trained to emit is
:func:`rewardgym.envs.shopping.parsing.format_output`'s canonical JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rewardgym.agents.llm.config import PromptConfig

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

INSTRUCTIONS = (
    "You simulate a human shopper. Pages are simplified HTML; every usable element has a unique "
    "name. Predict the shopper's next rationale (one first-person sentence) and action: "
    '{"type": "click", "name": N}, {"type": "type_and_submit", "name": N, "text": T} or '
    '{"type": "terminate"}.\n'
)
CONTEXT_HEADER = "# Session so far\n"
TRUNCATED = "[earlier context truncated]\n"
FOOTER = '\n# Next step\nOutput a single JSON object {"rationale": ..., "action": {...}}.\n'
# Re-tokenising a cut context can merge bytes differently at the cut; keep this many in hand.
_TOKEN_MARGIN = 8


def env_kwargs(config: PromptConfig) -> dict[str, Any]:
    """Keyword arguments of ``gym.make("rewardgym/ShopSession-v0", ...)`` for this prompt config."""
    return {"context": config.context, "max_context_chars": config.max_context_chars}


def _count(tokenizer: PreTrainedTokenizerBase, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


class PromptBuilder:
    """Turns observations into prompts that fit ``max_prompt_tokens`` of a given tokenizer."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, config: PromptConfig) -> None:
        self.tokenizer = tokenizer
        self.config = config
        fixed = _count(tokenizer, INSTRUCTIONS + CONTEXT_HEADER + TRUNCATED + FOOTER)
        self.context_budget = config.max_prompt_tokens - fixed - _TOKEN_MARGIN
        if self.context_budget < 16:
            raise ValueError(
                f"PromptConfig.max_prompt_tokens={config.max_prompt_tokens} leaves "
                f"{self.context_budget} tokens of context after the {fixed}-token instructions; "
                "raise it"
            )

    def context_tail(self, context: str) -> str:
        """The context, cut from its left side to the token budget (marked when cut)."""
        ids = self.tokenizer(context, add_special_tokens=False)["input_ids"]
        if len(ids) <= self.context_budget:
            return context
        tail = str(self.tokenizer.decode(ids[-self.context_budget :], skip_special_tokens=True))
        return TRUNCATED + tail

    def __call__(self, observation: Mapping[str, Any]) -> str:
        """The prompt for one observation (its ``context`` field)."""
        return build_prompt(self.context_tail(str(observation["context"])))


def build_prompt(context: str) -> str:
    """The prompt around an already-fitted context: instructions, context, the output request."""
    return INSTRUCTIONS + CONTEXT_HEADER + context + FOOTER


__all__ = [
    "CONTEXT_HEADER",
    "FOOTER",
    "INSTRUCTIONS",
    "TRUNCATED",
    "PromptBuilder",
    "build_prompt",
    "env_kwargs",
]
