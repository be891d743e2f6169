"""Plain data types of a logged shopping session: actions, steps, sessions, and their validation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from rewardgym.envs.shopping.canonical import same_text
from rewardgym.errors import DataValidationError

ActionType = Literal["click", "type_and_submit", "terminate"]
ACTION_TYPES: tuple[str, ...] = get_args(ActionType)

_SPACES = re.compile(r"\s+")


def normalize_text(value: str) -> str:
    """Lower-case, trim and collapse whitespace (exact match compares canonical forms instead)."""
    return _SPACES.sub(" ", value).strip().lower()


@dataclass(frozen=True, slots=True)
class ShopAction:
    """One shopper action: ``click`` a named element, ``type_and_submit`` text into one, or ``terminate``."""

    type: ActionType
    name: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        if self.type not in ACTION_TYPES:
            raise DataValidationError(
                f"unknown action type; expected one of {ACTION_TYPES}",
                field_name="type",
                value=self.type,
            )

    def to_dict(self) -> dict[str, str]:
        """The action as the paper's JSON: only the fields its type uses."""
        if self.type == "terminate":
            return {"type": "terminate"}
        if self.type == "click":
            return {"type": "click", "name": self.name}
        return {"type": "type_and_submit", "name": self.name, "text": self.text}

    def truth_dict(self) -> dict[str, str]:
        """All three fields (``type``, ``name``, ``text``), as ``info["truth"]`` carries them."""
        return {"type": self.type, "name": self.name, "text": self.text}

    @classmethod
    def from_dict(
        cls, raw: Any, *, source: str | None = None, location: str | None = None
    ) -> ShopAction:
        """Validate a logged action dict, naming the source and location on error."""
        if not isinstance(raw, dict):
            raise DataValidationError(
                "action must be an object",
                source=source,
                location=location,
                field_name="action",
                value=raw,
            )
        kind = raw.get("type")
        if kind not in ACTION_TYPES:
            raise DataValidationError(
                f"unknown action type; expected one of {ACTION_TYPES}",
                source=source,
                location=location,
                field_name="action.type",
                value=kind,
            )
        name = raw.get("name") or ""
        text = raw.get("text") or ""
        for key, val in (("name", name), ("text", text)):
            if not isinstance(val, str):
                raise DataValidationError(
                    "must be a string",
                    source=source,
                    location=location,
                    field_name=f"action.{key}",
                    value=val,
                )
        if kind in ("click", "type_and_submit") and not name.strip():
            raise DataValidationError(
                f"a {kind} action needs a non-empty element name",
                source=source,
                location=location,
                field_name="action.name",
                value=name,
            )
        if kind == "terminate":
            name, text = "", ""
        elif kind == "click":
            text = ""
        return cls(type=kind, name=name, text=text)


def actions_match(predicted: ShopAction | None, truth: ShopAction) -> bool:
    """Exact match: same type, and the same name and text in canonical form.

    Canonical form (:mod:`rewardgym.envs.shopping.canonical`) ignores case, punctuation and
    whitespace, as the reward's ROUGE-L does: ``PRODUCT-3-TITLE`` matches ``product_3_title``.
    """
    if predicted is None or predicted.type != truth.type:
        return False
    if truth.type == "terminate":
        return True
    if not same_text(predicted.name, truth.name):
        return False
    return truth.type == "click" or same_text(predicted.text, truth.text)


@dataclass(frozen=True, slots=True)
class ShopStep:
    """One logged human step: the page seen, the action taken, its rationale, time and metadata."""

    page: str
    action: ShopAction
    rationale: str | None = None
    timestamp: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ShopSession:
    """An ordered list of logged steps of one shopper, under the id the data gives it.

    ``persona`` describes the shopper behind the session (OPeRA's user table, the synthetic
    shopper's habits), or is None when the data has no such description.
    """

    session_id: str
    steps: tuple[ShopStep, ...]
    persona: str | None = None

    def __len__(self) -> int:
        return len(self.steps)


__all__ = [
    "ACTION_TYPES",
    "ActionType",
    "DataValidationError",
    "ShopAction",
    "ShopSession",
    "ShopStep",
    "actions_match",
    "normalize_text",
]
