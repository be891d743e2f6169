"""Progress bars that suit a terminal and a log alike: every tqdm bar of rewardgym opens here.

On a terminal a bar redraws itself in place as usual. When its stream is not a terminal (a
redirected log, a CI job, a notebook's captured stderr), each redraw would become one more line
of the log, and a bar over thousands of steps would bury everything else; there a bar is
redrawn at most every :data:`LOG_INTERVAL_S` seconds, is :data:`LOG_NCOLS` characters wide and
uses plain ASCII, so a log holds its first line, one line per half minute and its last line.
tqdm's own ``TQDM_*`` environment variables (e.g. ``TQDM_MININTERVAL=5``) still override this.

Example:
    >>> import io
    >>> log = io.StringIO()
    >>> for _ in progress_bar(range(1000), desc="steps", file=log):
    ...     pass
    >>> for line in log.getvalue().split("\\r")[1:]:
    ...     print(line[:31].rstrip())
    steps:   0%|
    steps: 100%|###################
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import IO, Any

LOG_INTERVAL_S = 30.0
"""Least seconds between two redraws of a bar whose stream is not a terminal."""

LOG_NCOLS = 80
"""Width of a bar whose stream is not a terminal (the ``COLUMNS`` of a log can be far wider)."""


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
    settings = {"mininterval": LOG_INTERVAL_S, "ncols": LOG_NCOLS, "ascii": True}
    return {k: v for k, v in settings.items() if f"TQDM_{k.upper()}" not in os.environ}


def progress_bar(iterable: Iterable[Any] | None = None, **kwargs: Any) -> Any:
    """A ``tqdm.auto.tqdm`` bar (same arguments) that writes little when not on a terminal.

    A setting passed here wins over the log's (``mininterval=0`` redraws at every update).
    """
    from tqdm.auto import tqdm
    from tqdm.autonotebook import tqdm as chosen
    from tqdm.std import tqdm as text_bar

    # Inside Jupyter tqdm.auto is a widget that draws in place: no log to spare there.
    log = log_settings(kwargs.get("file")) if chosen is text_bar else {}
    return tqdm(iterable, **{**log, **kwargs})


def quiet_transformers_bars() -> None:
    """Turn off the bars transformers draws itself (``Loading weights``, downloads, shards).

    They cover a few seconds of loading, cannot go through :func:`progress_bar`, and would put
    their redraws into every log; the switch is process-wide, as transformers keeps it.
    """
    from transformers.utils import logging

    logging.disable_progress_bar()
