"""Short element ids: a page's elements listed as ``[i] name``, and an action naming one by ``[i]``.

The ``element_ids=True`` option of ``ShopSession-v0`` and ``ShopStore-v0`` (off by default, so
a pretrained model sees Shop-R1's own format). Element ``i`` of a page is the i-th name of
:func:`~rewardgym.envs.shopping.compact.page_elements` (counting from 1, in the order the page
first names them). The context lists every element as ``[i] name``, and wherever an action
names an element (``click``'s and ``type_and_submit``'s ``name``) it may give the id instead:
``{"type": "click", "name": "[3]"}``. The env resolves the id to the element's name before
anything scores the action, so exact match, ``info["prediction"]``, ``info["parsed_output"]``
and every reward wrapper see the named action, exactly as if the policy had written the name;
a name is still accepted as it is. An id that is not on the page makes the output an invalid
action (no action, with an error saying so), scored as a miss like an output that does not parse.

Example:
    >>> from rewardgym.envs.shopping.parsing import parse_output
    >>> elements = ("search_input", "product_1_title")
    >>> resolve_ids(parse_output('{"rationale": "r", "action": {"type": "click", "name": "[2]"}}'), elements).action
    ShopAction(type='click', name='product_1_title', text='')
    >>> resolve_ids(parse_output('{"rationale": "r", "action": {"type": "click", "name": "[9]"}}'), elements).error
    'element id [9] is not on the page (its elements are [1] to [2])'
    >>> with_ids(ShopAction("type_and_submit", "search_input", "rain jacket"), elements)
    ShopAction(type='type_and_submit', name='[1]', text='rain jacket')
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from rewardgym.envs.shopping.parsing import ParsedOutput
from rewardgym.envs.shopping.schema import ShopAction

_ID = re.compile(r"\s*\[\s*(\d{1,9})\s*\]\s*")


def element_id(number: int) -> str:
    """How element ``number`` is written in a context and in an action: ``[number]``."""
    return f"[{number}]"


def resolve_name(name: str, elements: Sequence[str]) -> tuple[str | None, str | None]:
    """The element name an action's ``name`` stands for, or ``(None, why)`` for an unknown id.

    A name that is no id (or that is itself an element's name) is returned as it is.
    """
    match = _ID.fullmatch(name)
    if match is None or name in elements:
        return name, None
    number = int(match.group(1))
    if 1 <= number <= len(elements):
        return elements[number - 1], None
    listed = f"its elements are [1] to [{len(elements)}]" if elements else "it has no elements"
    return None, f"element id [{number}] is not on the page ({listed})"


def resolve_ids(parsed: ParsedOutput, elements: Sequence[str]) -> ParsedOutput:
    """``parsed`` with an element id in its action replaced by the element's name (module docstring)."""
    action = parsed.action
    if action is None or action.type == "terminate":
        return parsed
    name, error = resolve_name(action.name, elements)
    if name is None:
        return dataclasses.replace(parsed, action=None, error=error)
    if name == action.name:
        return parsed
    return dataclasses.replace(parsed, action=dataclasses.replace(action, name=name))


def with_ids(action: ShopAction, elements: Sequence[str]) -> ShopAction:
    """``action`` naming its element by id (the SFT target with ids); a name not on the page stays."""
    if action.type == "terminate" or action.name not in elements:
        return action
    return dataclasses.replace(action, name=element_id(list(elements).index(action.name) + 1))


__all__ = ["element_id", "resolve_ids", "resolve_name", "with_ids"]
