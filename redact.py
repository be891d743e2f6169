"""Credentials written into a URL (``http://user:password@host``) never reach what rewardgym prints or writes.

A served model or judge may be given as ``openai:http://alice:s3cret@host/v1``: httpx sends
that user and password as HTTP Basic auth, and everything shown or recorded (error lines, a
client's ``repr``, a cache identity, a report, ``results.json``'s command line) carries the
URL with its user information replaced by ``***``.

Example:
    >>> redact("openai:http://alice:s3cret@127.0.0.1:8000/v1#m failed")
    'openai:http://***@127.0.0.1:8000/v1#m failed'
    >>> redact("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
"""

from __future__ import annotations

import re

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s]*@")
"""A scheme's ``//`` and the user information after it, up to its last ``@`` before the path."""


def redact(text: str) -> str:
    """``text`` with the user information (user and password) of every URL in it replaced by ``***``."""
    return _USERINFO.sub(r"\1***@", text)


__all__ = ["redact"]
