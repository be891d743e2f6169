"""Progress bars that suit a terminal and a log alike: every tqdm bar of rewardgym opens here.

On a terminal a bar redraws itself in place as usual. When its stream is not a terminal (a
redirected log, a CI job), tqdm's redraws would pile up in the log as carriage returns, a bar
as wide as ``COLUMNS`` (which the CLI sets to 400 there, for its tables), and a bar over
thousands of steps would bury everything else. There a bar instead writes whole lines: its
first state, at most one line every :data:`LOG_INTERVAL_S` seconds, and its last state (also
for a bar that would vanish on a terminal, ``leave=False``), in plain ASCII with a 10-character
bar and nothing cut off. tqdm's ``TQDM_*`` environment variables (e.g. ``TQDM_MININTERVAL=5``)
still override these settings.

Example:
    >>> import io
    >>> log = io.StringIO()
    >>> for _ in progress_bar(range(1000), desc="steps", file=log, leave=False):
    ...     pass
    >>> for line in log.getvalue().splitlines():
    ...     print(line[:23])
    steps:   0%|          |
    steps: 100%|##########|
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import IO, Any

LOG_INTERVAL_S = 30.0
"""Least seconds between two redraws of a bar whose stream is not a terminal."""


class LogLines:
    """A bar's stream in a log: each redraw becomes one line, without carriage returns or blanking.

    tqdm draws a state as ``"\\r" + text + padding`` and clears a finished ``leave=False`` bar
    with spaces; here the text becomes a line of its own and the rest is dropped.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write the redraw ``text`` as one line (nothing for a blanking or a lone newline)."""
        line = text.replace("\r", "").rstrip()
        if line:
            self.stream.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        """Flush the underlying stream."""
        self.stream.flush()


def is_terminal(stream: IO[str] | None) -> bool:
    """Whether ``stream`` (``None``: standard error, tqdm's default) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def log_settings(stream: IO[str] | None) -> dict[str, Any]:
    """The tqdm settings a text bar on ``stream`` needs: none on a terminal, the log's otherwise.

    A setting the environment gives tqdm (``TQDM_MININTERVAL``, ...) is left to it.
    """
    if is_terminal(stream):
        return {}
    settings = {"mininterval": LOG_INTERVAL_S, "ascii": True, "leave": True}
    kept = {k: v for k, v in settings.items() if f"TQDM_{k.upper()}" not in os.environ}
    # Not sys.stderr itself, so tqdm never sizes the bar by COLUMNS: a 10-character bar.
    return {**kept, "file": LogLines(sys.stderr if stream is None else stream)}


def progress_bar(iterable: Iterable[Any] | None = None, **kwargs: Any) -> Any:
    """A ``tqdm.auto.tqdm`` bar (same arguments) that writes little when not on a terminal.

    A setting passed here wins over the log's (``mininterval=0`` redraws at every update), except
    ``leave`` and ``file``: in a log a bar always leaves its last line, on the stream given.
    """
    from tqdm.auto import tqdm
    from tqdm.autonotebook import tqdm as chosen
    from tqdm.std import tqdm as text_bar

    # Inside Jupyter tqdm.auto is a widget that draws in place: no log to spare there.
    if chosen is not text_bar:
        return tqdm(iterable, **kwargs)
    log = log_settings(kwargs.get("file"))
    if log:  # the log's stream and leave=True win; the caller's other settings win over the log's
        kwargs = {**log, **{k: v for k, v in kwargs.items() if k not in ("file", "leave")}}
    return tqdm(iterable, **kwargs)


def quiet_transformers_bars() -> None:
    """Turn off the bars transformers draws itself (``Loading weights``, downloads, shards).

    They cover a few seconds of loading, cannot go through :func:`progress_bar`, and would put
    their redraws into every log; the switch is process-wide, as transformers keeps it.
    """
    from transformers.utils import logging

    logging.disable_progress_bar()
