"""The rewardgym command line: one command per job, each with its options and their help.

A command is a frozen dataclass with a ``run()`` method, defined beside the code it runs; its
fields (nested configs included) are the options, and the attribute docstring under each field
is its ``--help`` text. A command with presets has a ``preset`` field and a flattened
``config`` field: ``--preset NAME`` picks the named config whose values every other option
(and ``--help``) then shows as its default, so each default lives in one place.

A mistake of the user's (a bad value, a name that is not one of the choices, an output that
would replace their files) prints one line naming the option and exits 2; a run that stopped
without its result (any other :class:`rewardgym.errors.Error`: a judge that never answers, a
training that diverged) prints one line and exits 1; Ctrl-C prints one line and exits 130.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from rewardgym.cli_help import flowing_docstrings, help_registry
from rewardgym.errors import Error, PretrainedPackageMissing, UserError, UserMistake
from rewardgym.outputs import owner
from rewardgym.redact import redact


@dataclass(frozen=True)
class Command:
    """Where one ``rewardgym`` command lives: its dataclass and, if any, its named presets."""

    target: str
    """``module:Class`` of the frozen command dataclass (imported only when it runs)."""
    summary: str
    """One line for ``rewardgym --help``."""
    presets: str | None = None
    """``module:NAME`` of a ``dict[str, config]`` feeding the command's ``config`` field."""
    env_presets: str | None = None
    """``module:NAME`` of a ``dict[env, dict[str, config]]``: the presets of each value of the
    command's ``--env`` (then ``presets`` is unused)."""


COMMANDS: dict[tuple[str, ...], Command] = {
    ("data", "shop"): Command(
        "rewardgym.envs.shopping.commands:DataShop",
        "Generate the synthetic shopper corpus into a new session log.",
    ),
    ("data", "collect"): Command(
        "rewardgym.envs.trajectories.commands:DataCollect",
        "Collect perturbed-expert trajectories that carry only a success flag.",
    ),
    ("label", "coren"): Command(
        "rewardgym.wrappers.coren.commands:LabelCoren",
        "Relabel a trajectory data set with COREN's dense reward.",
    ),
    ("train", "offline"): Command(
        "rewardgym.agents.offline.commands:TrainOffline",
        "Train CQL, IQL or BC on a trajectory data set and save the agent.",
    ),
    ("train", "sft"): Command(
        "rewardgym.agents.llm.commands:TrainSFT",
        "Fine-tune the LLM shopper policy on session logs (the default model unless given).",
    ),
    ("train", "grpo"): Command(
        "rewardgym.agents.llm.commands:TrainGRPO",
        "Train an LLM shopper policy with GRPO against a registered Shop-R1 reward.",
    ),
    ("eval", "household"): Command(
        "rewardgym.agents.evaluation.commands:EvalHousehold",
        "Score a saved offline agent on the household env's splits, with 95% intervals.",
    ),
    ("eval", "shop"): Command(
        "rewardgym.benchmarks.shop.evaluate:EvalShop",
        "Score a saved or served shopper model on a split of the sessions, with 95% intervals.",
    ),
    ("bench", "shop"): Command(
        "rewardgym.benchmarks.shop.suite:BenchShop",
        "Shop-R1's tables: baselines, zero-shot, SFT, GRPO rows and ablations.",
        presets="rewardgym.benchmarks.shop.config:PRESETS",
    ),
    ("bench", "embodied"): Command(
        "rewardgym.benchmarks.embodied.suite:BenchEmbodied",
        "COREN's tables: reward schemes x offline agents, evaluated in the simulator.",
        presets="rewardgym.benchmarks.embodied.config:PRESETS",
        env_presets="rewardgym.benchmarks.embodied.virtualhome_presets:ENV_PRESETS",
    ),
    ("bench", "fidelity"): Command(
        "rewardgym.benchmarks.fidelity.suite:BenchFidelity",
        "Shopper simulators on the live store: fidelity and A/B tables against the ground truth.",
        presets="rewardgym.benchmarks.fidelity.config:PRESETS",
    ),
    ("simulate", "ab"): Command(
        "rewardgym.agents.simulation.commands:SimulateAB",
        "Counterfactual A/B test: a simulator vs the ground-truth shopper on two store variants.",
    ),
    ("serve",): Command(
        "rewardgym.integrations.openenv_serve:Serve",
        "Serve a rewardgym env to OpenEnv clients (needs rewardgym[openenv]), 127.0.0.1 by default.",
    ),
    ("demo",): Command(
        "rewardgym.benchmarks.demo:Demo",
        "The main job: the shop, embodied and live-store (fidelity) suites at their demo presets.",
    ),
}


USER_ERRORS: tuple[type[Exception], ...] = (
    UserError,
    PretrainedPackageMissing,
    FileExistsError,
    FileNotFoundError,
    NotADirectoryError,
    IsADirectoryError,
    PermissionError,
)
"""What a command raises for a mistake of the user's: one line and exit status 2, no traceback."""

SCRIPT_ERRORS: tuple[type[Exception], ...] = (*USER_ERRORS, ValueError)
"""What the ``python -m rewardgym...`` scripts refuse in one line: also a config's ValueError."""

T = TypeVar("T")

LOG_COLUMNS = "400"
"""Width of rich's output when stdout is not a terminal, so a log never breaks a line at 80."""

LOG_RULE_WIDTH = 80
"""Width of a heading rule (``Console.rule``) when stdout is not a terminal: tables stay wide."""


def one_line(prog: str, problem: object) -> str:
    """``prog: problem`` on one line (each run of whitespace in ``problem`` becomes a space).

    A user and password written in a URL are shown as ``***`` (:func:`rewardgym.redact.redact`).
    """
    return redact(f"{prog}: {' '.join(str(problem).split())}")


def refuse(prog: str, problem: object) -> NoReturn:
    """Print ``prog: problem`` as one line on stderr and exit with status 2 (a user's mistake)."""
    message = one_line(prog, problem)
    print(message, file=sys.stderr)
    raise UserMistake(message)


def stop(prog: str, failure: Error) -> NoReturn:
    """Exit with status 1 after ``prog: failure`` as one line on stderr (a run that failed).

    The line is the ``SystemExit``'s code, which Python prints on the way out.
    """
    raise SystemExit(one_line(prog, failure)) from None


def _load(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _overview() -> str:
    width = max(len(" ".join(words)) for words in COMMANDS)
    lines = [
        "usage: rewardgym COMMAND [OPTIONS]   (rewardgym COMMAND --help for its options)",
        "",
        (__doc__ or "").splitlines()[0],
        "",
        "commands:",
    ]
    lines += [f"  {' '.join(w):<{width}}  {c.summary}" for w, c in COMMANDS.items()]
    return "\n".join(lines)


def _find(args: Sequence[str]) -> tuple[tuple[str, ...], Command] | None:
    for words, command in sorted(COMMANDS.items(), key=lambda item: -len(item[0])):
        if tuple(args[: len(words)]) == words:
            return words, command
    return None


def _unknown_command(args: Sequence[str]) -> str:
    """One line naming the unknown command and the nearest real one (or all of them)."""
    names = [" ".join(words) for words in COMMANDS]
    given = " ".join(args[:2]) if args[0] in {w[0] for w in COMMANDS} else args[0]
    close = difflib.get_close_matches(given, names, n=1, cutoff=0.6)
    hint = f"did you mean '{close[0]}'?" if close else f"commands: {', '.join(names)}."
    return f"unknown command '{given}'; {hint} (rewardgym --help describes each)"


def _preset_name(
    args: Sequence[str], default: str, choices: Sequence[str], flag: str = "--preset"
) -> str:
    """The value of ``flag`` (``--preset``) in ``args`` (either spelling), or ``default``."""
    name = default
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            name = args[i + 1]
        elif arg.startswith(f"{flag}="):
            name = arg.split("=", 1)[1]
    if name not in choices:
        close = difflib.get_close_matches(name, choices, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UserError(f"unknown {flag} {name!r}{hint}; choose one of {', '.join(choices)}")
    return name


class _Unrecognized(Exception):
    """Tokens tyro does not know (perhaps options placed after a subcommand they are not of)."""

    def __init__(self, tokens: Sequence[str]) -> None:
        super().__init__(tokens)
        self.tokens = list(tokens)


def _one_line_errors(*, unknown: bool = False) -> contextlib.AbstractContextManager[None]:
    """Let tyro hand a rejected value or a failed ``__post_init__`` to us as a UserError.

    tyro draws those in a box; through its (private, optional) parse-error hook they become
    one line like every other user error. Without the hook, tyro's box stays. With
    ``unknown``, tokens tyro does not know raise :class:`_Unrecognized` (see :func:`_misplaced`).
    """
    try:
        from tyro import _errors
    except ImportError:  # pragma: no cover - a tyro without the hook
        return contextlib.nullcontext()

    def hook(event: Any) -> None:
        argument = getattr(event, "argument", None)
        flag = "/".join(argument.lowered.name_or_flags) if argument is not None else ""
        if isinstance(event, _errors.InvalidChoice):
            close = difflib.get_close_matches(event.value, event.choices, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UserError(
                f"{flag} {event.value!r}{hint}: choose one of {', '.join(event.choices)}"
            )
        if isinstance(event, _errors.InstantiationFailure):
            raise UserError(f"{flag}: {event.message}" if flag else event.message)
        if isinstance(event, _errors.UnrecognizedArgs) and unknown:
            raise _Unrecognized(event.tokens)

    return _errors.on_parse_error(hook)


def _misplaced(prog: str, cli: Any, args: list[str], tokens: list[str]) -> str | None:
    """One line saying where ``tokens`` go, if they are options of ``prog`` after a subcommand.

    tyro applies an option to the subcommand just before it, so ``... algorithm:bc --n-steps
    5`` offers ``--n-steps`` to ``algorithm:bc``, which has none. When the same argv with those
    tokens moved before the subcommand parses (``cli(argv)`` fails for no unknown token), they
    were only misplaced; otherwise None, and tyro's own message stands.
    """
    from tyro import _errors

    if not tokens or tokens[0] not in args:
        return None
    first = args.index(tokens[0])
    words = [i for i, a in enumerate(args[:first]) if ":" in a and not a.startswith("-")]
    if not words:
        return None
    at = words[-1]
    tail = list(args[at:])
    for token in tokens:
        if token not in tail:
            return None
        tail.remove(token)

    def probe(event: Any) -> None:
        raise _Unrecognized(getattr(event, "tokens", []))

    with _errors.on_parse_error(probe):
        try:
            cli([*args[:at], *tokens, *tail])
        except _Unrecognized as again:
            if again.tokens:  # unknown before the subcommand too: not a misplaced option
                return None
        except (ValueError, SystemExit):
            pass
    flags = " ".join(t for t in tokens if t.startswith("-")) or " ".join(tokens)
    return (
        f"{flags} is an option of '{prog}', not of its subcommand {args[at]}: put it before "
        f"{args[at]} ('{prog} {args[at]} --help' lists the subcommand's own options)"
    )


def parse_args(prog: str, cls: type[T], argv: Sequence[str] | None, description: str | None) -> T:
    """Parse ``argv`` into ``cls`` as the ``rewardgym`` commands parse theirs.

    For the ``python -m rewardgym...`` scripts: a rejected value or a config's own check
    (``__post_init__``) prints one line naming the option and exits 2, never a box or a
    traceback.
    """
    import tyro

    try:
        with _one_line_errors(), flowing_docstrings():
            return tyro.cli(
                cls, args=argv, prog=prog, description=description, registry=help_registry()
            )
    except ValueError as err:
        refuse(prog, err)


def build(args: Sequence[str]) -> Any:
    """Parse ``args`` (without the program name) into a command dataclass, ready to ``run()``."""
    import dataclasses

    import tyro

    found = _find(args)
    if found is None:
        if not args or args[0] in ("-h", "--help"):
            print(_overview())
            raise SystemExit(0)
        refuse("rewardgym", _unknown_command(args))
    words, command = found
    prog = f"rewardgym {' '.join(words)}"
    cls = _load(command.target)
    rest = list(args[len(words) :])
    default = None
    description = (cls.__doc__ or "").strip()
    try:
        if command.presets is not None:
            defaults = {f.name: f.default for f in dataclasses.fields(cls)}
            chosen: dict[str, str] = {}
            presets = _load(command.presets)
            if command.env_presets is not None:
                by_env = _load(command.env_presets)
                chosen["env"] = _preset_name(rest, str(defaults["env"]), list(by_env), "--env")
                presets = by_env[chosen["env"]]
            name = _preset_name(rest, str(defaults["preset"]), list(presets))
            default = cls(preset=name, config=presets[name], **chosen)
            of = f" of --env {chosen['env']}" if chosen else ""
            description += (
                f"\n\nDefaults shown are the '{name}' preset's{of}; presets: "
                f"{', '.join(presets)} (--preset NAME --help shows another's)."
            )

        def cli(argv: list[str]) -> Any:
            return tyro.cli(
                cls,
                args=argv,
                default=default,
                prog=prog,
                description=description,
                registry=help_registry(),
            )

        with flowing_docstrings():
            try:
                with _one_line_errors(unknown=True):
                    return cli(rest)
            except _Unrecognized as unknown:
                line = _misplaced(prog, cli, rest, unknown.tokens)
                if line is not None:
                    refuse(prog, line)
            with _one_line_errors():  # tyro's own message for an unknown option
                return cli(rest)
    except ValueError as err:  # a config's own validation (__post_init__) names the field
        refuse(prog, err)


@contextlib.contextmanager
def _plain_output() -> Iterator[None]:
    """While a command runs with stdout not a terminal, let rich lay lines out wide.

    Tables and long lines then stay whole, and a heading rule stays :data:`LOG_RULE_WIDTH`
    wide instead of drawing ``LOG_COLUMNS`` dashes.
    """
    if sys.stdout.isatty() or "COLUMNS" in os.environ:
        yield
        return
    from unittest import mock

    from rich.console import Console

    os.environ["COLUMNS"] = LOG_COLUMNS
    try:
        with mock.patch.object(Console, "rule", _log_rule):
            yield
    finally:
        os.environ.pop("COLUMNS", None)


def _log_rule(console: Any, title: str = "", **style: Any) -> None:
    """``Console.rule`` (same arguments) drawn at most :data:`LOG_RULE_WIDTH` wide."""
    from rich.rule import Rule

    console.print(Rule(title, **style), width=min(console.width, LOG_RULE_WIDTH))


def _interrupted(prog: str, command: Any) -> str:
    """The one line after Ctrl-C: what was kept and how to go on."""
    again = "run the same command again"
    out = getattr(command, "out", None)
    if out is not None and owner(out) is not None and not getattr(command, "overwrite", True):
        again += " with --overwrite"  # this run had already claimed --out
    return (
        f"{prog}: interrupted (Ctrl-C). Every file is written whole or not at all, so nothing "
        f"is half-written; {again} to resume (cached work, such as judge answers, embeddings "
        "and trained models, is reused)."
    )


def _quiet_old_gym() -> None:
    """Keep the old gym package (d3rlpy imports it) from printing a notice about itself.

    rewardgym runs on gymnasium; that notice would be the first four lines of every suite's
    log and of every one-line error of a command whose module imports d3rlpy.
    """
    with contextlib.suppress(ImportError):
        import gym_notices.notices

        gym_notices.notices.notices.clear()


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``rewardgym`` console script."""
    _quiet_old_gym()
    args = list(sys.argv[1:] if argv is None else argv)
    found = _find(args)
    prog = f"rewardgym {' '.join(found[0])}" if found else "rewardgym"
    command = None
    try:
        command = build(args)
        with _plain_output():
            command.run()
    except KeyboardInterrupt:
        print(_interrupted(prog, command), file=sys.stderr)
        raise SystemExit(130) from None
    except USER_ERRORS as err:
        refuse(prog, err)
    except Error as err:  # not the user's mistake, yet a reason with what to do: no traceback
        stop(prog, err)
    except BrokenPipeError:  # e.g. `rewardgym bench shop --help | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
