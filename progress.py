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
import time
from collections.abc import Iterable
from typing import IO, Any

LOG_INTERVAL_S = 30.0
"""Least seconds between two redraws of a bar whose stream is not a terminal."""


def _clock() -> float:
    """Seconds on a monotonic clock (a function, so a test can stand in for it)."""
    return time.monotonic()


class LogLines:
    """A bar's stream in a log: one line per ``interval`` seconds, without carriage returns.

    tqdm draws a state as ``"\\r" + text + padding``, redraws on every ``set_postfix`` whatever
    its ``mininterval`` (d3rlpy's bar does so every 10 steps), and ends a bar it leaves with a
    lone newline. Here the first state is a line, a later one only when the interval has
    passed since the last line, and the last state is written when the bar ends.
    """

    def __init__(self, stream: IO[str], interval: float = LOG_INTERVAL_S) -> None:
        self.stream = stream
        self.interval = interval
        self.last_line_at: float | None = None
        self.pending = ""

    def write(self, text: str) -> int:
        """Take one of tqdm's writes: a state (maybe held back), a blanking, or the end."""
        line = text.replace("\r", "").rstrip()
        now = _clock()
        if line and (self.last_line_at is None or now - self.last_line_at >= self.interval):
            self._line(line, now)
        elif line:
            self.pending = line
        elif "\n" in text and self.pending:  # the bar ends: its last state
            self._line(self.pending, now)
        return len(text)

    def _line(self, line: str, now: float) -> None:
        self.stream.write(line + "\n")
        self.last_line_at, self.pending = now, ""

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


def log_settings(stream: IO[str] | None, mininterval: float | None = None) -> dict[str, Any]:
    """The tqdm settings a text bar on ``stream`` needs: none on a terminal, the log's otherwise.

    ``mininterval`` (the caller's, else ``TQDM_MININTERVAL``, else :data:`LOG_INTERVAL_S`) is
    the least time between two lines; a setting the environment gives tqdm is left to it.
    """
    if is_terminal(stream):
        return {}
    if mininterval is None:
        mininterval = float(os.environ.get("TQDM_MININTERVAL", LOG_INTERVAL_S))
    settings = {"mininterval": mininterval, "ascii": True, "leave": True}
    kept = {k: v for k, v in settings.items() if f"TQDM_{k.upper()}" not in os.environ}
    # Not sys.stderr itself, so tqdm never sizes the bar by COLUMNS: a 10-character bar.
    lines = LogLines(sys.stderr if stream is None else stream, mininterval)
    return {**kept, "file": lines}


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
    log = log_settings(kwargs.get("file"), kwargs.get("mininterval"))
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
