"""The ``rewardgym`` command line: each command is a frozen config dataclass that tyro parses.

A command is a frozen dataclass with a ``run()`` method, defined beside the code it runs; its
fields (nested configs included) are the options, and the attribute docstring under each field
is its ``--help`` text. A command with presets has a ``preset`` field and a flattened
``config`` field: ``--preset NAME`` picks the named config whose values every other option
(and ``--help``) then shows as its default, so each default lives in one place.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Command:
    """Where one ``rewardgym`` command lives: its dataclass and, if any, its named presets."""

    target: str
    """``module:Class`` of the frozen command dataclass (imported only when it runs)."""
    summary: str
    """One line for ``rewardgym --help``."""
    presets: str | None = None
    """``module:NAME`` of a ``dict[str, config]`` feeding the command's ``config`` field."""


COMMANDS: dict[tuple[str, ...], Command] = {
    ("data", "shop"): Command(
        "rewardgym.envs.shopping.commands:DataShop",
        "Generate the synthetic shopper corpus into a new session store.",
    ),
    ("data", "collect"): Command(
        "rewardgym.envs.trajectories.commands:DataCollect",
        "Collect perturbed-expert trajectories that carry only a success flag.",
    ),
    ("label", "coren"): Command(
        "rewardgym.agents.labelling.commands:LabelCoren",
        "Relabel a trajectory data set with COREN's dense reward.",
    ),
    ("bench", "shop"): Command(
        "rewardgym.benchmarks.shop:BenchShop",
        "Shop-R1's tables: baselines, zero-shot, SFT, GRPO rows and ablations.",
        presets="rewardgym.benchmarks.shop_config:PRESETS",
    ),
    ("bench", "embodied"): Command(
        "rewardgym.benchmarks.embodied:BenchEmbodied",
        "COREN's tables: reward schemes x offline agents, evaluated in the simulator.",
        presets="rewardgym.benchmarks.embodied_config:PRESETS",
    ),
    ("bench", "fidelity"): Command(
        "rewardgym.benchmarks.fidelity:BenchFidelity",
        "Shopper simulators on the live store: fidelity and A/B tables against the ground truth.",
        presets="rewardgym.benchmarks.fidelity_config:PRESETS",
    ),
    ("simulate", "ab"): Command(
        "rewardgym.agents.simulation.commands:SimulateAB",
        "Counterfactual A/B test: a simulator vs the ground-truth shopper on two store variants.",
    ),
    ("demo",): Command(
        "rewardgym.benchmarks.demo:Demo",
        "The main job: shopping baselines, then both suites at their quick presets.",
    ),
}


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


def _preset_name(args: Sequence[str], default: str, choices: Sequence[str]) -> str:
    """The value of ``--preset`` in ``args`` (either spelling), or ``default``."""
    name = default
    for i, arg in enumerate(args):
        if arg == "--preset" and i + 1 < len(args):
            name = args[i + 1]
        elif arg.startswith("--preset="):
            name = arg.split("=", 1)[1]
    if name not in choices:
        raise SystemExit(f"rewardgym: unknown --preset {name!r}; choose one of {tuple(choices)}")
    return name


def build(args: Sequence[str]) -> Any:
    """Parse ``args`` (without the program name) into a command dataclass, ready to ``run()``."""
    import dataclasses

    import tyro

    found = _find(args)
    if found is None:
        print(_overview(), file=sys.stderr if args else sys.stdout)
        raise SystemExit(0 if not args or args[0] in ("-h", "--help") else 2)
    words, command = found
    cls = _load(command.target)
    rest = list(args[len(words) :])
    default = None
    description = (cls.__doc__ or "").strip()
    if command.presets is not None:
        presets = _load(command.presets)
        fallback = next(f.default for f in dataclasses.fields(cls) if f.name == "preset")
        name = _preset_name(rest, str(fallback), list(presets))
        default = cls(preset=name, config=presets[name])
        description += (
            f"\n\nDefaults shown are the '{name}' preset's; presets: {', '.join(presets)} "
            "(`--preset NAME --help` shows another's)."
        )
    try:
        return tyro.cli(
            cls,
            args=rest,
            default=default,
            prog=f"rewardgym {' '.join(words)}",
            description=description,
        )
    except ValueError as err:  # a config's own validation (__post_init__) names the field
        raise SystemExit(f"rewardgym {' '.join(words)}: {err}") from err


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``rewardgym`` console script."""
    build(list(sys.argv[1:] if argv is None else argv)).run()


if __name__ == "__main__":
    main()
