"""The Gymnasium spaces the shopping envs share: what the shopper has seen, and a text action."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gymnasium import spaces

from rewardgym.envs.shopping.context import MAX_CONTEXT_CHARS
from rewardgym.envs.shopping.schema import ACTION_TYPES, ShopStep
from rewardgym.envs.spaces import UnicodeText

MAX_TEXT = MAX_CONTEXT_CHARS
"""Longest context or page text an observation holds."""
MAX_ACTION_TEXT = 1 << 16
"""Longest action text (the policy's output), and of each past action's name and text."""


def session_observation_fields() -> dict[str, spaces.Space]:
    """``context``, ``page`` and ``history`` (past actions), the fields of every shopping observation."""
    past_action = spaces.Dict(
        {
            "type": spaces.Discrete(len(ACTION_TYPES)),
            "name": UnicodeText(MAX_ACTION_TEXT),
            "text": UnicodeText(MAX_ACTION_TEXT),
        }
    )
    return {
        "context": UnicodeText(MAX_TEXT),
        "page": UnicodeText(MAX_TEXT),
        "history": spaces.Sequence(past_action, stack=False),
    }


def session_observation(steps: Sequence[ShopStep], page: str, context: str) -> dict[str, Any]:
    """The ``context``, ``page`` and ``history`` of an observation, each cut to its space."""
    history = tuple(
        {
            "type": ACTION_TYPES.index(s.action.type),
            "name": s.action.name[:MAX_ACTION_TEXT],
            "text": s.action.text[:MAX_ACTION_TEXT],
        }
        for s in steps
    )
    return {"context": context, "page": page[:MAX_TEXT], "history": history}


def action_space() -> UnicodeText:
    """The action space of the shopping envs: any text up to ``MAX_ACTION_TEXT`` characters."""
    return UnicodeText(MAX_ACTION_TEXT)


__all__ = [
    "MAX_ACTION_TEXT",
    "MAX_TEXT",
    "action_space",
    "session_observation",
    "session_observation_fields",
]
