"""Extract the ``{"rationale": ..., "action": {...}}`` object from raw LLM output, never raising.

What is accepted, in order of preference:

1. the whole output, stripped, when it is one JSON object;
2. the body of the first fenced code block (```` ```json ... ``` ```` or ```` ``` ... ``` ````)
   that is one JSON object;
3. the first JSON object found by scanning left to right from each ``{`` (so leading or trailing
   prose is ignored), preferring the first one that holds an ``action`` key.

Anything else (no object, a JSON list, a bare string) is a parse failure with a reason.
An output has the paper's *format* when the object holds both ``rationale`` and ``action``.
The action is valid when ``action.type`` is one of ``click``, ``type_and_submit``,
``terminate``; a missing or non-string ``name`` / ``text`` reads as empty.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from rewardgym.envs.shopping.schema import ACTION_TYPES, ShopAction

_FENCE = re.compile(r"```(?:[a-zA-Z]+)?\s*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()
# Outputs longer than this are scanned only up to it: a policy that rambles cannot stall the env.
MAX_SCAN_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class ParsedOutput:
    """What a raw policy output says: its JSON object, rationale and action, or why it failed."""

    obj: dict[str, Any] | None
    rationale: str | None
    action: ShopAction | None
    error: str | None

    @property
    def has_format(self) -> bool:
        """True when the output is one JSON object holding both ``rationale`` and ``action``."""
        return self.obj is not None and "rationale" in self.obj and "action" in self.obj

    def to_info(self) -> dict[str, Any]:
        """A JSON-ready summary for ``info["prediction"]``."""
        return {
            "action": self.action.truth_dict() if self.action else None,
            "rationale": self.rationale,
            "error": self.error,
        }


def _whole_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _scan_objects(text: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    start = text.find("{")
    while start != -1:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
            start = text.find("{", end)
        else:
            start = text.find("{", start + 1)
    return found


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object an LLM output carries, by the rules in this module's docstring, or None."""
    if not isinstance(text, str):
        return None
    text = text[:MAX_SCAN_CHARS].strip()
    whole = _whole_object(text)
    if whole is not None:
        return whole
    for block in _FENCE.findall(text):
        fenced = _whole_object(block.strip())
        if fenced is not None:
            return fenced
    objects = _scan_objects(text)
    for obj in objects:
        if "action" in obj:
            return obj
    return objects[0] if objects else None


def action_from_json(raw: Any) -> tuple[ShopAction | None, str | None]:
    """Read a predicted action leniently: a valid type is enough, missing strings read as empty."""
    if not isinstance(raw, dict):
        return None, "action is not an object"
    kind = raw.get("type")
    if not isinstance(kind, str) or kind.strip().lower() not in ACTION_TYPES:
        return None, f"unknown action type {kind!r}"
    kind = kind.strip().lower()
    name = raw.get("name")
    text = raw.get("text")
    name = name if isinstance(name, str) else ""
    text = text if isinstance(text, str) else ""
    if kind == "terminate":
        return ShopAction("terminate"), None
    if kind == "click":
        return ShopAction("click", name=name), None
    return ShopAction("type_and_submit", name=name, text=text), None


def parse_output(text: str) -> ParsedOutput:
    """Parse a raw policy output into rationale and action; failures carry a reason, never raise."""
    obj = extract_json_object(text)
    if obj is None:
        return ParsedOutput(None, None, None, "no JSON object found")
    rationale = obj.get("rationale")
    rationale = rationale if isinstance(rationale, str) else None
    if "action" not in obj:
        return ParsedOutput(obj, rationale, None, "object has no 'action' key")
    action, error = action_from_json(obj["action"])
    return ParsedOutput(obj, rationale, action, error)


def format_output(rationale: str, action: ShopAction) -> str:
    """The canonical completion a policy is trained to emit for (rationale, action)."""
    return json.dumps({"rationale": rationale, "action": action.to_dict()}, ensure_ascii=False)


__all__ = [
    "MAX_SCAN_CHARS",
    "ParsedOutput",
    "action_from_json",
    "extract_json_object",
    "format_output",
    "parse_output",
]
