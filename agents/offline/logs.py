"""d3rlpy's logging, quiet: warnings only, no colour codes off a terminal, expected ones dropped."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structlog.typing import EventDict, WrappedLogger


EXPECTED_D3RLPY_WARNINGS: frozenset[str] = frozenset(
    {"Skip building models since they're already built."}
)
"""d3rlpy warnings that our own calls cause on purpose (``fit_mdp`` builds before it fits, to
time the fit alone): dropped, so that a suite's log shows only warnings that mean something."""


def _drop_expected(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    """A structlog processor that drops the warnings of ``EXPECTED_D3RLPY_WARNINGS``."""
    import structlog

    if event.get("event") in EXPECTED_D3RLPY_WARNINGS:
        raise structlog.DropEvent
    return event


def quiet_d3rlpy_logs() -> None:
    """Keep d3rlpy's structlog messages to warnings, coloured only on a terminal.

    A suite of dozens of fits stays readable, and a log file gets no raw colour codes:
    d3rlpy configures a colouring console renderer when imported, so ours comes after it.
    """
    import logging
    import sys

    import d3rlpy.logging  # noqa: F401  (configures structlog on import)
    import structlog

    kept = [
        p
        for p in structlog.get_config()["processors"]
        if not isinstance(p, structlog.dev.ConsoleRenderer) and p is not _drop_expected
    ]
    structlog.configure(
        processors=[
            _drop_expected,
            *kept,
            structlog.dev.ConsoleRenderer(colors=sys.stdout.isatty()),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
    )


__all__ = ["EXPECTED_D3RLPY_WARNINGS", "quiet_d3rlpy_logs"]
