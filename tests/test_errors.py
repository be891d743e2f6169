"""Issue 30 item 5: one exception hierarchy, ``rewardgym.errors``, and what the CLI does with it.

Every exception class of the package is defined in ``errors.py`` (the modules that raised one
before re-export it under its old name), derives from :class:`rewardgym.errors.Error` and keeps
the builtin base its callers catch. The command prints a user's mistake as one line with exit
status 2 and any other ``Error`` as one line with exit status 1.
"""

from __future__ import annotations

import ast
import builtins
import importlib
from pathlib import Path

import pytest

from rewardgym import cli, errors

ROOT = Path(__file__).resolve().parents[1]

# (module that raised it before, name, builtin base its callers catch)
OLD_HOMES: list[tuple[str, str, type[BaseException]]] = [
    ("rewardgym.envs.shopping.schema", "DataValidationError", ValueError),
    ("rewardgym.envs.shopping", "DataValidationError", ValueError),
    ("rewardgym.envs.shopping.session_log", "SessionLogError", ValueError),
    ("rewardgym.tokenizer_io", "RewrittenTokenizerFolder", ValueError),
    ("rewardgym.embeddings", "NotAnEmbeddingCacheError", FileExistsError),
    ("rewardgym.pretrained", "PretrainedPackageMissing", ImportError),
    ("rewardgym.wrappers.judges.cache", "NotACacheError", FileExistsError),
    ("rewardgym.wrappers.judges.cache", "NotACacheError", RuntimeError),
    ("rewardgym.wrappers.judges.openai", "JudgeUnavailableError", RuntimeError),
    ("rewardgym.wrappers.coren.label_output", "LabellingError", RuntimeError),
    ("rewardgym.wrappers.coren.labelling", "LabellingError", RuntimeError),
    ("rewardgym.agents.llm.callbacks", "TrainingDiverged", RuntimeError),
    ("rewardgym.benchmarks.shop.suite", "OutputsNoLongerParse", RuntimeError),
    ("rewardgym.benchmarks.perf.served_visits", "ServerUnavailable", RuntimeError),
    ("rewardgym.cli", "UserMistake", SystemExit),
]

BUILTIN_EXCEPTIONS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _exception_classes_outside_errors() -> list[str]:
    """``file:line: class`` for each public exception class defined outside ``errors.py``."""
    known = BUILTIN_EXCEPTIONS | set(errors.__all__)
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {"tests", "build", ".venv"} or rel == Path("errors.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            bases = {
                b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
            }
            if bases & known:
                found.append(f"{rel}:{node.lineno}: {node.name}")
    return found


def test_every_exception_class_lives_in_errors_py() -> None:
    assert _exception_classes_outside_errors() == []


@pytest.mark.parametrize("name", [n for n in errors.__all__ if n != "UserMistake"])
def test_every_error_derives_from_the_one_base(name: str) -> None:
    cls = getattr(errors, name)
    assert issubclass(cls, errors.Error) and cls.__doc__, name
    assert cls.__module__ == "rewardgym.errors"


def test_the_exit_of_a_refused_command_is_not_an_error() -> None:
    """``UserMistake`` is a ``SystemExit``: no ``except Exception`` can swallow the exit."""
    assert issubclass(errors.UserMistake, SystemExit)
    assert not issubclass(errors.UserMistake, Exception)
    mistake = errors.UserMistake("rewardgym data shop: --sessions must be positive, got 0")
    assert mistake.code == 2 and str(mistake).endswith("got 0")


@pytest.mark.parametrize(("module", "name", "builtin"), OLD_HOMES)
def test_old_names_still_import_and_keep_their_builtin_base(
    module: str, name: str, builtin: type[BaseException]
) -> None:
    cls = getattr(importlib.import_module(module), name)
    assert cls is getattr(errors, name)
    assert issubclass(cls, builtin)


def test_a_data_error_names_where_and_what() -> None:
    err = errors.DataValidationError(
        "must be a string", source="s.jsonl", location="line 3", field_name="url", value=7
    )
    assert str(err) == "s.jsonl:line 3 field 'url': must be a string (got 7)"
    assert isinstance(err, errors.UserError) and err.value == 7


class _Raises:
    def __init__(self, err: BaseException) -> None:
        self.err = err

    def run(self) -> None:
        raise self.err


@pytest.mark.parametrize(
    ("err", "status"),
    [
        (errors.UserError("--sessions must be positive,\n got 0"), 2),
        (errors.ApiKeyNotSet("openai judge: the API key variable K is not set"), 2),
        (errors.SessionLogError("runs/log: no steps.arrow"), 2),
        (errors.OutputBusyError("out is held by another run"), 2),
        (errors.PretrainedPackageMissing("install it with: pip install x"), 2),
        (errors.LabellingError("stopped, nothing written: every judge call failed"), 1),
        (errors.TrainingDiverged("sft: loss nan at step 3"), 1),
        (errors.JudgeUnavailableError("served policy: no answer"), 1),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_the_command_prints_one_line_and_exits_by_family(
    err: errors.Error,
    status: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(cli, "build", lambda args: _Raises(err))
    with pytest.raises(SystemExit) as stop:
        cli.main(["data", "shop"])
    if status == 2:  # the CLI printed the line itself
        assert stop.value.code == 2
        line = capsys.readouterr().err
    else:  # the line is the exit's code: Python prints it and exits with status 1
        assert isinstance(stop.value.code, str)
        line = stop.value.code
    assert line.strip().count("\n") == 0 and line.startswith("rewardgym data shop: ")
    assert " ".join(str(err).split()) in line


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception rewardgym did not raise on purpose is not dressed up as a message."""
    monkeypatch.setattr(cli, "build", lambda args: _Raises(KeyError("bug")))
    with pytest.raises(KeyError):
        cli.main(["data", "shop"])
