"""Extract the ``{"rationale": ..., "action": {...}}`` object from raw LLM output, never raising.

What is accepted, in order of preference:

1. the whole output, stripped, when it is one JSON object;
2. the body of the first fenced code block (```` ```json ... ``` ```` or ```` ``` ... ``` ````)
   that is one JSON object;
3. the first JSON object found by scanning left to right from each ``{`` (so leading or trailing
   prose is ignored), preferring the first one that holds an ``action`` key.

Anything else (no object, a JSON list, a bare string) is a parse failure with a reason.
The action is valid when ``action.type`` is one of ``click``, ``type_and_submit``,
``terminate``; a missing or non-string ``name`` / ``text`` reads as empty. Two readings of the
paper's *format*: :attr:`ParsedOutput.has_valid_format` (the reward's default) needs a string
``rationale`` and an ``action`` object of a valid type; :attr:`ParsedOutput.has_format` (the
lenient reading) only needs both keys, whatever they hold.

Work is bounded whatever the output: rule 1 is one linear ``json.loads`` of the whole text (so
a valid object of any length parses), fenced blocks are tried at most :data:`MAX_CANDIDATES`
times, and the scan of rule 3 tries at most :data:`MAX_CANDIDATES` ``{`` positions, skipping
those inside an object already decoded. A hostile megabyte costs milliseconds, and it is
parsed once per step: the env hands its :class:`ParsedOutput` to reward wrappers in
``info["parsed_output"]``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rewardgym.envs.shopping.schema import ACTION_TYPES, ShopAction

_FENCE = re.compile(r"```(?:[a-zA-Z]+)?\s*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()
MAX_CANDIDATES = 64
"""Most fenced blocks, and most ``{`` positions, tried per output: a bound on the parser's work."""


@dataclass(frozen=True, slots=True)
class ParsedOutput:
    """What a raw policy output says: its JSON object, rationale and action, or why it failed."""

    obj: dict[str, Any] | None
    rationale: str | None
    action: ShopAction | None
    error: str | None
    source: str = field(default="", repr=False, compare=False)
    """The raw output this was parsed from (a reference, not a copy)."""

    @property
    def has_format(self) -> bool:
        """Lenient format: the output's JSON object holds both ``rationale`` and ``action`` keys."""
        return self.obj is not None and "rationale" in self.obj and "action" in self.obj

    @property
    def has_valid_format(self) -> bool:
        """Strict format: a string ``rationale`` and an ``action`` object with a valid type."""
        return self.has_format and self.rationale is not None and self.action is not None

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
    tries = 0
    while start != -1 and tries < MAX_CANDIDATES:
        tries += 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
            if "action" in value:
                break
        start = text.find("{", end)
    return found


def _fenced_blocks(text: str) -> list[str]:
    blocks = []
    for match in _FENCE.finditer(text):
        blocks.append(match.group(1))
        if len(blocks) >= MAX_CANDIDATES:
            break
    return blocks


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object an LLM output carries, by the rules in this module's docstring, or None."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    whole = _whole_object(text)
    if whole is not None:
        return whole
    if "```" in text:
        for block in _fenced_blocks(text):
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
    source = text if isinstance(text, str) else ""
    obj = extract_json_object(text)
    if obj is None:
        return ParsedOutput(None, None, None, "no JSON object found", source)
    rationale = obj.get("rationale")
    rationale = rationale if isinstance(rationale, str) else None
    if "action" not in obj:
        return ParsedOutput(obj, rationale, None, "object has no 'action' key", source)
    action, error = action_from_json(obj["action"])
    return ParsedOutput(obj, rationale, action, error, source)


def format_output(rationale: str, action: ShopAction, *, action_first: bool = False) -> str:
    """The canonical completion a policy is trained to emit for (rationale, action).

    Shop-R1's order puts the rationale first; ``action_first`` writes the action before it (a
    recipe variant, ``PromptConfig.action_first``). :func:`parse_output` reads either order.
    """
    fields = {"rationale": rationale, "action": action.to_dict()}
    if action_first:
        fields = {"action": fields["action"], "rationale": rationale}
    return json.dumps(fields, ensure_ascii=False)


__all__ = [
    "MAX_CANDIDATES",
    "ParsedOutput",
    "action_from_json",
    "extract_json_object",
    "format_output",
    "parse_output",
]
