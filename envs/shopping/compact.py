"""Compact renderings of a simplified-HTML page: its named elements, its title, and a tag-free text.

A page's interactable elements are the tags carrying a ``name`` attribute (the Shop-R1 page
convention: every such element has a unique name). :func:`compact_page` rewrites a page as
plain lines of text in which each named element reads ``[name] label`` (an input shows its
``value``), block tags start a new line and every other tag is dropped, so nothing a predictor
needs (names, labels, prices, ratings, headings) is lost while the markup is; a label whose
words all appear in its element's name (``[filter_feature_long_battery] long battery``) is
dropped as redundant. With ``ids=True`` each element reads ``[i] name`` instead, ``i`` its
short id (:func:`page_elements`: 1, 2, ... in the order the page first names them; the
``element_ids`` option of the shopping envs, :mod:`rewardgym.envs.shopping.element_ids`).
Everything here is regular-expression based and tolerant of broken HTML: it never raises on a
string.
"""

from __future__ import annotations

import html
import re

from rewardgym.envs.shopping.canonical import canonical_tokens

_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^<>]*)>|<!--.*?-->", re.DOTALL)
_ATTR = re.compile(r"""([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""")
_NAME = re.compile(r"""<[a-zA-Z][^<>]*?\bname\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_HEADING = re.compile(r"<(h1|title)\b[^>]*>(.*?)</\1\s*>", re.DOTALL | re.IGNORECASE)
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLOCK = frozenset(
    [
        "html",
        "body",
        "header",
        "main",
        "footer",
        "nav",
        "section",
        "article",
        "aside",
        "div",
        "p",
        "ul",
        "ol",
        "li",
        "table",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "form",
        "br",
        "hr",
    ]
)
_DROP = frozenset(("script", "style"))
MAX_TITLE_CHARS = 120
"""A past page's title is cut to this many characters."""


def page_names(page: str) -> list[str]:
    """The ``name`` of every named element of ``page``, in document order (duplicates kept)."""
    return [html.unescape(a if a is not None and a != "" else b) for a, b in _NAME.findall(page)]


def page_title(page: str) -> str:
    """The page's first ``<h1>`` (or ``<title>``) text, tags stripped and cut, or ``""``."""
    match = _HEADING.search(page)
    if match is None:
        return ""
    text = _SPACES.sub(" ", html.unescape(_TAG.sub(" ", match.group(2)))).strip()
    return text[:MAX_TITLE_CHARS]


def _attributes(raw: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, dq, sq, bare in _ATTR.findall(raw):
        found.setdefault(key.lower(), html.unescape(dq or sq or bare))
    return found


def _render(page: str, ids: bool) -> tuple[str, dict[str, int]]:
    """The compact text of ``page`` and its element ids (each name's first position, from 1)."""
    parts: list[str] = []
    found: dict[str, int] = {}
    position = 0
    skipping: str | None = None
    named: set[str] | None = None  # the canonical tokens of the element whose label is next
    for match in _TAG.finditer(page):
        if skipping is None:
            label = html.unescape(page[position : match.start()])
            words = canonical_tokens(label)
            if not (named is not None and words and set(words) <= named):
                parts.append(label)
            named = None
        position = match.end()
        closing, tag = match.group(1), (match.group(2) or "").lower()
        if not tag:  # a comment
            continue
        if skipping is not None:
            if closing and tag == skipping:
                skipping = None
            continue
        if tag in _DROP and not closing:
            skipping = tag
            continue
        if tag in _BLOCK:
            parts.append("\n")
        if closing:
            parts.append(" ")
            continue
        attrs = _attributes(match.group(3) or "")
        name = attrs.get("name")
        if name is None:
            parts.append(" ")
            continue
        number = found.setdefault(name, len(found) + 1)
        value = attrs.get("value")
        shown = f"[{number}] {name}" if ids else f"[{name}"
        shown += f' value="{value}"' if value else ""
        parts.append(f" {shown} " if ids else f" {shown}] ")
        named = set(canonical_tokens(name))
    if skipping is None:
        parts.append(html.unescape(page[position:]))
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line), found


def compact_page(page: str, *, ids: bool = False) -> str:
    """The page as text lines, each named element as ``[name] label`` (module docstring).

    With ``ids`` each named element reads ``[i] name label``, ``i`` its id in
    :func:`page_elements`.

    Example:
        >>> page = '<p><a name="product_1_title">Trail Jacket</a> $49</p><button name="buy">Buy</button>'
        >>> print(compact_page(page))
        [product_1_title] Trail Jacket $49
        [buy]
        >>> print(compact_page(page, ids=True))
        [1] product_1_title Trail Jacket $49
        [2] buy
    """
    return _render(page, ids)[0]


def page_elements(page: str) -> tuple[str, ...]:
    """The page's element names as :func:`compact_page` meets them, each once: id ``i`` is the i-th.

    Elements inside ``<script>`` or ``<style>`` are no elements; a name repeated later on the page
    keeps its first id.
    """
    return tuple(_render(page, False)[1])


def element_list(page: str) -> str:
    """The page's elements as one line of ``[i] name`` (what survives the tightest budget with ids)."""
    return " ".join(f"[{i}] {name}" for i, name in enumerate(page_elements(page), start=1))


def names_only(page: str, *, ids: bool = False) -> str:
    """The page reduced to its element names, one line: what survives the tightest budget.

    With ``ids`` each name is shown after its id, as ``[i] name``.
    """
    if ids:
        return "elements: " + element_list(page)
    return "elements: " + " ".join(dict.fromkeys(page_names(page)))


def page_change(page: str, previous: str | None) -> str:
    """A past page in one line: its title and the element names it added to the page before."""
    names = list(dict.fromkeys(page_names(page)))
    if previous is not None:
        before = set(page_names(previous))
        added = [n for n in names if n not in before]
        kept = len(names) - len(added)
        detail = f"new: {' '.join(added)}" if added else "no new elements"
        detail += f" (+{kept} as before)" if kept else ""
    else:
        detail = f"elements: {' '.join(names)}" if names else "no elements"
    title = page_title(page)
    return f"{title} | {detail}" if title else detail


__all__ = [
    "MAX_TITLE_CHARS",
    "compact_page",
    "element_list",
    "names_only",
    "page_change",
    "page_elements",
    "page_names",
    "page_title",
]
