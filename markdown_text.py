"""Untrusted text made safe inside a Markdown page: one line, no HTML tag, no broken table.

A value a run recorded (a model name, a command, a results table a suite wrote) can hold a
line break that opens a heading of its own, or ``<script>`` that a Markdown viewer renders
as HTML. These helpers show such text as text: control characters escaped, and every ``<``
that could open a tag, a comment or an autolink written as ``&lt;`` (a ``<`` before a space
or a digit, as in ``a < b``, stays as is).

Example:
    >>> heading("served/m\\n# <img src=x onerror=alert(1)>")
    'served/m\\\\n# &lt;img src=x onerror=alert(1)>'
    >>> cell("a|b")
    'a\\\\|b'
"""

from __future__ import annotations

import re

_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")


def no_html(text: str) -> str:
    """``text`` with every ``<`` that could open an HTML tag, comment or autolink escaped."""
    return _TAG_OPEN.sub("&lt;", text)


def printable(text: str) -> str:
    """``text`` on one line: a line break, tab or other control character shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def heading(text: str) -> str:
    """``text`` safe in a Markdown heading or line: one line, no HTML."""
    return no_html(printable(text))


def no_links(text: str) -> str:
    r"""``text`` safe in a Markdown line that opens no link or image: ``\``, ``[`` and ``]`` escaped.

    Example:
        >>> no_links("[x](javascript:alert(1))")
        '\\[x\\](javascript:alert(1))'
    """
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def cell(text: str) -> str:
    """``text`` safe in one Markdown table cell: one line, no HTML, every ``|`` escaped."""
    return heading(text).replace("|", "\\|")


__all__ = ["cell", "heading", "no_html", "no_links", "printable"]
