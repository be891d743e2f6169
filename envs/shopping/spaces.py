"""The Gymnasium spaces the shopping envs share: what the shopper has seen, and a text action."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gymnasium import spaces

from rewardgym.envs.conventions import brief
from rewardgym.envs.shopping.context import MAX_CONTEXT_CHARS
from rewardgym.envs.shopping.schema import ACTION_TYPES, ShopStep
from rewardgym.envs.spaces import UnicodeText
from rewardgym.errors import InvalidActionError

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


def text_action(action: Any, *, env: str) -> str:
    """``action`` when it is the policy's text (a ``str``); an :class:`InvalidActionError` otherwise.

    ``str(action)`` would score ``5``, ``None``, bytes or a list as a wrong answer (0) without a
    word, hiding a policy or a vector env that hands over the wrong thing.

    Example:
        >>> text_action(None, env="ShopSessionEnv")
        Traceback (most recent call last):
        ...
        rewardgym.errors.InvalidActionError: ShopSessionEnv.step takes the policy's text (a str), got NoneType: None
    """
    if isinstance(action, str):
        return action
    raise InvalidActionError(
        f"{env}.step takes the policy's text (a str), got {type(action).__name__}: {brief(action)}"
    )


__all__ = [
    "MAX_ACTION_TEXT",
    "MAX_TEXT",
    "action_space",
    "session_observation",
    "session_observation_fields",
    "text_action",
]
