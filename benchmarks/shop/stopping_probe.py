"""Which of the shopper's stops does a shop model see coming? P(terminate) on validation steps.

Reads top to bottom: load a model folder (a ``bench shop`` or sweep SFT checkpoint), build the
validation steps of its preset (the sweep's split rule, never test) and, for every step, score
the three action types given the prompt (and, in Shop-R1's rationale-first order, the gold
rationale): the model's probability of each type's JSON, normalised over the three. That is the
type a policy samples at temperature 1; greedy decoding takes its argmax.

Two tables. The first compares shares over every step: the truth's terminate share, the mean
P(terminate) (what sampling the type at temperature 1 predicts) and the share of steps whose
argmax type is terminate (what near-greedy decoding predicts), with the ranking quality of
P(terminate) (its AUC at telling the shopper's stops from the other steps). The second breaks the
shopper's stops down by the kind of the action before them (``buy`` is an order placed, a
``search`` or ``listing`` stop is a give-up on a results page, ...): how many, the mean
P(terminate) there and how often it is the argmax. A model that is calibrated but unsure of
give-ups predicts too few terminates at a low temperature and about the right share at 1.
Writes ``stopping.json`` and ``stopping.md`` under ``--out`` (claimed first, as the suites claim
theirs; ``record_results`` turns it into a page). The test split is never read.

Run, alone on the cores: ``python -m rewardgym.benchmarks.shop.stopping_probe --model
runs/shop-quick/models/seed0/sft-compact/model --preset quick --out results/shop-stopping``.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np

from rewardgym.agents.llm.continuations import continuation_probabilities
from rewardgym.agents.llm.dataset import StepRow
from rewardgym.atomic import write_atomic, write_json_atomic
from rewardgym.benchmarks.shop.config import PresetName, preset
from rewardgym.bounds import AT_LEAST_1, check_fields, undefined_as_null
from rewardgym.cli import SCRIPT_ERRORS, parse_args, refuse
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic.pages import action_kind
from rewardgym.outputs import claim_output, releases_outputs

OUTPUT_KIND = "bench-shop-stopping"
"""The kind of a stopping probe's output directory (its ``.rewardgym-output.json`` marker)."""
PROG = "python -m rewardgym.benchmarks.shop.stopping_probe"
"""How this script names itself in --help and in the one line of a refusal."""

TYPES = ("click", "type_and_submit", "terminate")
"""The action types, in the order their probabilities are reported."""


@dataclass(frozen=True)
class Config:
    """Which model, which validation steps."""

    model: Path
    """A model folder (e.g. a ``bench shop`` output's models/seed0/sft-compact/model)."""
    preset: PresetName = "quick"
    """Preset whose prompt and validation split are used (the model's own)."""
    validation_sessions: Annotated[int, AT_LEAST_1] = 100
    """Validation sessions read (the sweep's default)."""
    out: Path = Path("results/shop-stopping")
    """Output directory for stopping.json and stopping.md (new or empty, or an earlier probe's
    output with --overwrite)."""
    overwrite: bool = False
    """Write again into an earlier probe's output in --out."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def type_probabilities(
    model: Any, tokenizer: Any, row: StepRow, *, action_first: bool
) -> dict[str, float]:
    """The model's probability of each action type at ``row``, normalised over :data:`TYPES`."""
    rationale = json.loads(row.completion)["rationale"]
    written = format_output(rationale, ShopAction("terminate"), action_first=action_first)
    head = row.prompt + written.split('"type": ', 1)[0] + '"type":'
    tails = [f' "{kind}"' for kind in TYPES]
    return dict(zip(TYPES, continuation_probabilities(model, tokenizer, head, tails), strict=True))


def stop_context(row: StepRow) -> str:
    """What the shopper did just before this step: the previous action's kind, or ``start``."""
    return "start" if row.previous is None else action_kind(row.previous)


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """The probability that a random positive scores above a random negative (ties count half)."""
    if not positive or not negative:
        return float("nan")
    pos, neg = np.asarray(positive), np.asarray(negative)
    above = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(above / (len(pos) * len(neg)))


def summarise(
    rows: Sequence[StepRow],
    probs: Sequence[dict[str, float]],
    lookup: Sequence[ShopAction | None] | None = None,
) -> dict[str, Any]:
    """The figures of the module docstring from each row's type probabilities (and, given
    ``lookup``, the lookup baseline's action at each row, for its recall of the stops)."""
    stops = [r.truth is not None and r.truth.type == "terminate" for r in rows]
    p_stop = [p["terminate"] for p in probs]
    argmax = [max(p, key=p.__getitem__) == "terminate" for p in probs]
    contexts: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        contexts[stop_context(row)].append(index)
    n = len(rows)

    def context_cell(indices: list[int]) -> dict[str, Any]:
        stopped = [i for i in indices if stops[i]]
        cell: dict[str, Any] = {
            "steps": len(indices),
            "stops": len(stopped),
            "stop_rate": 100.0 * len(stopped) / len(indices),
            "mean_p_terminate": 100.0 * float(np.mean([p_stop[i] for i in indices])),
            "mean_p_at_stops": _percent_mean([p_stop[i] for i in stopped]),
            "argmax_at_stops": _percent_mean([float(argmax[i]) for i in stopped]),
        }
        if lookup is not None:
            said = [lookup[i] is not None and lookup[i].type == "terminate" for i in stopped]  # type: ignore[union-attr]
            cell["lookup_at_stops"] = _percent_mean([float(x) for x in said])
        return cell

    return {
        "steps": n,
        "stops": sum(stops),
        "truth_share": 100.0 * sum(stops) / n,
        "mean_p_terminate": 100.0 * float(np.mean(p_stop)),
        "argmax_share": 100.0 * sum(argmax) / n,
        "type_shares_t1": {k: 100.0 * float(np.mean([p[k] for p in probs])) for k in TYPES},
        "auc": auc(
            [p for p, s in zip(p_stop, stops, strict=True) if s],
            [p for p, s in zip(p_stop, stops, strict=True) if not s],
        ),
        "by_context": {
            context: context_cell(indices)
            for context, indices in sorted(
                contexts.items(), key=lambda kv: (-sum(stops[i] for i in kv[1]), kv[0])
            )
        },
    }


def _percent_mean(values: Sequence[float]) -> float | None:
    """The mean of ``values`` in percent, or None for none."""
    return 100.0 * float(np.mean(values)) if values else None


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def render(figures: dict[str, Any]) -> str:
    """The two markdown tables."""
    lookup = any("lookup_at_stops" in c for c in figures["by_context"].values())
    lines = [
        f"{figures['steps']} validation steps, {figures['stops']} of them the shopper's stops",
        "",
        "| truth's terminate share | mean P(terminate) (sampling at T 1) | argmax share (greedy) "
        "| AUC of P(terminate) |",
        "|---|---|---|---|",
        f"| {figures['truth_share']:.1f}% | {figures['mean_p_terminate']:.1f}% "
        f"| {figures['argmax_share']:.1f}% | {figures['auc']:.3f} |",
        "",
        "| previous action | steps | stops | stop rate | mean P(terminate) | mean P at stops "
        "| argmax terminate at stops |" + (" lookup terminates at stops |" if lookup else ""),
        "|---|---|---|---|---|---|---|" + ("---|" if lookup else ""),
    ]
    for context, cell in figures["by_context"].items():
        lines.append(
            f"| {context} | {cell['steps']} | {cell['stops']} | {cell['stop_rate']:.1f}% "
            f"| {cell['mean_p_terminate']:.1f}% | {_cell(cell['mean_p_at_stops'])} "
            f"| {_cell(cell['argmax_at_stops'])} |"
            + (f" {_cell(cell.get('lookup_at_stops'))} |" if lookup else "")
        )
    return "\n".join(lines) + "\n"


def lookup_actions(data: Any, rows: Sequence[StepRow], sessions: int) -> list[ShopAction | None]:
    """The lookup baseline's action at each of ``rows`` (fitted on the preset's training split)."""
    found = {
        (r.session, r.step): r.prediction
        for r in data.lookup_evaluation("validation", sessions).records
    }
    return [found[(row.session, row.step)] for row in rows]


@releases_outputs  # --out stays locked for the run, so a second run on it is refused
def run_probe(cfg: Config) -> dict[str, Any]:
    """Score every validation step's action types; write and return the figures and tables."""
    from rewardgym.benchmarks.provenance import run_provenance
    from rewardgym.benchmarks.shop.sensitivity_probe import validation_rows

    if not (cfg.model / "config.json").is_file():
        raise FileNotFoundError(f"--model {cfg.model} holds no trained model (no config.json)")
    out = claim_output(cfg.out, OUTPUT_KIND, overwrite=cfg.overwrite)
    started = time.perf_counter()
    config = preset(cfg.preset)
    model, tokenizer, data, rows = validation_rows(cfg.model, cfg.preset, cfg.validation_sessions)
    action_first = config.prompt.action_first
    probs = [type_probabilities(model, tokenizer, r, action_first=action_first) for r in rows]
    lookup = lookup_actions(data, rows, cfg.validation_sessions)
    figures = {"model": str(cfg.model), "preset": cfg.preset, **summarise(rows, probs, lookup)}
    figures["markdown"] = render(figures)
    figures["meta"] = {
        "suite": "shop",
        "preset": f"stopping-{cfg.preset}",
        "wall_seconds": time.perf_counter() - started,
        "smoke_test": bool(config.smoke_test),
        **run_provenance(),
    }
    write_json_atomic(out / "stopping.json", undefined_as_null(figures))
    write_atomic(out / "stopping.md", figures["markdown"])
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments, score the model's stops on validation, print the tables."""
    args = parse_args(PROG, Config, argv, __doc__)
    try:
        result = run_probe(args)
    except SCRIPT_ERRORS as err:  # a user's mistake: one line, before any work
        refuse(PROG, err)
    print(result["markdown"], end="")


if __name__ == "__main__":
    main()
