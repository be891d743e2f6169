"""The actions a page allows: a click on a named element, typing into a named input, or terminate.

Shop-R1's action space over one simplified-HTML page: ``click`` names an element that is not a
text field, ``type_and_submit`` names an ``<input>`` or ``<textarea>`` (with free text), and
``terminate`` is always allowed. Names are the page's own (in the order
:func:`~rewardgym.envs.shopping.compact.page_elements` meets them), or, with ``ids=True``, the
short ids ``[i]`` that the ``element_ids`` option lists (:mod:`rewardgym.envs.shopping.element_ids`).
Constrained decoding restricts a policy's output to exactly these actions.

Example:
    >>> page = '<input name="search_input"/><a name="product_1_title">Jacket</a>'
    >>> PageActions.of_page(page)
    PageActions(clickable=('product_1_title',), inputs=('search_input',))
    >>> PageActions.of_page(page, ids=True)
    PageActions(clickable=('[2]',), inputs=('[1]',))
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from rewardgym.envs.shopping.compact import page_elements
from rewardgym.envs.shopping.element_ids import element_id

_FIELD = re.compile(
    r"""<(?:input|textarea)\b[^<>]*?\bname\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE
)


def input_names(page: str) -> frozenset[str]:
    """The names of the page's text fields (``<input>`` and ``<textarea>`` elements)."""
    return frozenset(html.unescape(a or b) for a, b in _FIELD.findall(page))


@dataclass(frozen=True, slots=True)
class PageActions:
    """The element names a page lets a policy click, and those it lets a policy type into."""

    clickable: tuple[str, ...]
    inputs: tuple[str, ...]

    @classmethod
    def of_page(cls, page: str, *, ids: bool = False) -> PageActions:
        """The actions ``page`` allows, named by element name or (``ids``) by element id."""
        fields = input_names(page)
        elements = page_elements(page)
        shown = [element_id(i) if ids else name for i, name in enumerate(elements, start=1)]
        return cls(
            clickable=tuple(s for s, n in zip(shown, elements, strict=True) if n not in fields),
            inputs=tuple(s for s, n in zip(shown, elements, strict=True) if n in fields),
        )


__all__ = ["PageActions", "input_names"]
