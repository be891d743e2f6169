"""The Gymnasium conventions every rewardgym env keeps: checked reset options, no step outside an episode.

Gymnasium leaves both to each environment: ``OrderEnforcing`` refuses a step before the first
``reset`` only when the env came from ``gym.make``, nothing refuses a step after the episode
ended, and an unknown ``options`` key is silently ignored (a typo in ``{"sesion": 3}`` plays a
random session). The envs check both here, and every value they echo in an error passes
through :func:`brief`, so that a megabyte-long option never fills a terminal.
"""

from __future__ import annotations

import reprlib
from collections.abc import Collection, Mapping, Sized
from typing import Any

import gymnasium as gym

ECHO_CHARS = 80
"""The most characters of a value that an error message repeats."""

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = ECHO_CHARS


def brief(value: object) -> str:
    """``repr(value)`` cut to :data:`ECHO_CHARS` characters, saying how long a cut value was.

    Example:
        >>> brief("ok"), brief("x" * 1_000_000)[-30:]
        ("'ok'", "xxxx'... (str, 1,000,000 long)")
    """
    text = _REPR.repr(value)
    cut_text = isinstance(value, str | bytes) and len(value) > ECHO_CHARS
    if len(text) <= ECHO_CHARS and not cut_text:
        return text
    size = f", {len(value):,} long" if isinstance(value, Sized) else ""
    return f"{text[:ECHO_CHARS]}... ({type(value).__name__}{size})"


def check_options(options: object, allowed: Collection[str], *, env: str) -> dict[str, Any]:
    """``options`` as a dict (``None`` is empty), or a ``ValueError`` naming each unknown key and the valid keys.

    Example:
        >>> check_options({"sesion": 3}, ("session",), env="ShopSessionEnv")
        Traceback (most recent call last):
        ...
        ValueError: ShopSessionEnv.reset: unknown option 'sesion'; the valid keys are 'session'
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(
            f"{env}.reset: options must be a dict or None, got {type(options).__name__} "
            f"{brief(options)}"
        )
    unknown = [key for key in options if key not in allowed]
    if unknown:
        names = ", ".join(brief(key) for key in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        valid = (
            "the valid keys are " + ", ".join(repr(key) for key in sorted(allowed))
            if allowed
            else "this env takes no options"
        )
        plural = "s" if len(unknown) > 1 else ""
        raise ValueError(f"{env}.reset: unknown option{plural} {names}{more}; {valid}")
    return dict(options)


class EpisodeGate:
    """Whether ``step`` may run: after ``reset``, until the episode terminates or truncates.

    Example:
        >>> gate = EpisodeGate("HouseholdEnv")
        >>> gate.check()
        Traceback (most recent call last):
        ...
        gymnasium.error.ResetNeeded: HouseholdEnv.step: no episode has started; call reset() first
        >>> gate.open(); gate.check(); gate.close_if(terminated=False, truncated=True)
        >>> gate.check()
        Traceback (most recent call last):
        ...
        gymnasium.error.ResetNeeded: HouseholdEnv.step: the episode was truncated; call reset() first
    """

    def __init__(self, env: str) -> None:
        self.env = env
        self._closed: str | None = "no episode has started"

    def open(self) -> None:
        """A new episode has started: ``step`` may run."""
        self._closed = None

    def check(self) -> None:
        """Raise Gymnasium's ``ResetNeeded`` when no episode is running."""
        if self._closed is not None:
            raise gym.error.ResetNeeded(f"{self.env}.step: {self._closed}; call reset() first")

    def close_if(self, *, terminated: bool, truncated: bool) -> None:
        """End the episode when the step just taken terminated or truncated it."""
        if terminated:
            self._closed = "the episode terminated"
        elif truncated:
            self._closed = "the episode was truncated"


__all__ = ["ECHO_CHARS", "EpisodeGate", "brief", "check_options"]
