"""Where a sweep's SFT models lose to the lookup: validation exact match by the target's element kind.

Reads a finished sweep's output (:mod:`rewardgym.benchmarks.shop.sweep`, ``--sweep``), scores the
SFT model of each named candidate (``--candidates``; its settings from ``sweep.json``) and
``baseline/frequency`` (fitted on the same training sessions) on the same validation steps the
sweep scored, and groups the steps by the kind of the logged action's target:
``product_N_title``, ``back_to_results``, ``option_*``, ``add_to_cart``, ... (digits become
``N``; ``filter_``, ``option_``, ``category_`` and ``sort_`` names are one kind each), with
``type_and_submit`` and ``terminate`` as their own kinds. Per kind and policy it reports the
exact match (percent of that kind's steps) and how often the policy predicted that kind, so a
policy that wins by always taking the common branch shows up beside one that branches and is
wrong. A second table breaks the gold ``type_and_submit`` steps down by what they type (the
session's first search, a search again, a promo code; :func:`typed_queries`): how often each
policy typed, into the right field, the exact or a similar text, how many of the gold text's
words it typed, and how many of them the prompt shows. A sweep run over several
seeds is broken down on its first seed's models. Writes ``breakdown.json`` and
``breakdown.md`` under ``--out`` (claimed first, as the suites claim theirs; ``record_results``
turns it into a page). The test split is never read.

Run, alone on the cores: ``OMP_NUM_THREADS=1 python -m rewardgym.benchmarks.shop.breakdown
--sweep results/shop-sweep --candidates all all-ids448 --out results/shop-breakdown``.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np

from rewardgym.agents.evaluation.shopping import StepRecord
from rewardgym.agents.llm.dataset import StepRow
from rewardgym.atomic import write_atomic, write_json_atomic
from rewardgym.benchmarks.shop.sweep import Config as SweepConfig
from rewardgym.benchmarks.shop.sweep import Sweep, apply_changes, model_prompt
from rewardgym.benchmarks.tables import markdown_table
from rewardgym.bounds import NON_NEGATIVE, check_fields, undefined_as_null
from rewardgym.cli import SCRIPT_ERRORS, parse_args, refuse
from rewardgym.envs.shopping.canonical import (
    canonical_tokens,
    same_text,
    similar_text,
)
from rewardgym.envs.shopping.schema import ShopAction, actions_match
from rewardgym.errors import UserError
from rewardgym.outputs import claim_output, releases_outputs

OUTPUT_KIND = "bench-shop-breakdown"
"""The kind of a breakdown's output directory (its ``.rewardgym-output.json`` marker)."""
FAMILIES = ("filter", "option", "category", "sort")
"""Element name prefixes that count as one kind each (``option_color_white`` is ``option_*``)."""

TYPED = ("typed", "right_field", "exact_text", "similar_text", "gold_words", "gold_in_prompt")
"""The typed-query figures of :func:`typed_queries`, each a percent of the kind's gold steps."""

PROG = "python -m rewardgym.benchmarks.shop.breakdown"
"""How this script names itself in --help and in the one line of a refusal."""


def target_kind(action: ShopAction) -> str:
    """The kind of an action's target: the type for non-clicks, else the element's name shape."""
    if action.type != "click":
        return action.type
    family = action.name.split("_", 1)[0]
    if family in FAMILIES and "_" in action.name:
        return f"{family}_*"
    return re.sub(r"\d+", "N", action.name)


def by_kind(records: Iterable[StepRecord]) -> dict[str, dict[str, float]]:
    """Per target kind: gold steps, exact matches (percent of them) and predictions of that kind."""
    gold: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    predicted: Counter[str] = Counter()
    for record in records:
        kind = target_kind(record.truth)
        gold[kind] += 1
        hits[kind] += int(actions_match(record.prediction, record.truth))
        if record.prediction is not None:
            predicted[target_kind(record.prediction)] += 1
    kinds = sorted(set(gold) | set(predicted), key=lambda k: (-gold[k], k))
    return {
        kind: {
            "steps": gold[kind],
            "exact": 100.0 * hits[kind] / gold[kind] if gold[kind] else 0.0,
            "predicted": predicted[kind],
        }
        for kind in kinds
    }


def query_kind(row: StepRow) -> str:
    """What a logged ``type_and_submit`` step types: the session's first search, a search
    again, a promo code, or another field (by its name)."""
    name = row.truth.name if row.truth is not None else ""
    if "promo" in name:
        return "promo code"
    if "search" in name:
        again = any(
            line.startswith("Step ") and "type_and_submit" in line and "search" in line
            for line in row.prompt.splitlines()
        )
        return "search again" if again else "first search"
    return name


def typed_queries(
    rows: Sequence[StepRow], records: Sequence[StepRecord]
) -> dict[str, dict[str, float]]:
    """Per :func:`query_kind` of the gold typed steps: how many, and in percent of them how
    often the policy typed, into the right field, the exact text, the paper's similar text; the
    mean share of the gold text's words the typed text has, and the mean share of them the
    prompt shows (what a policy could copy)."""
    found: dict[str, list[list[float]]] = {}
    for row, record in zip(rows, records, strict=True):
        truth = record.truth
        if truth.type != "type_and_submit":
            continue
        predicted = record.prediction
        typed = predicted is not None and predicted.type == "type_and_submit"
        field = typed and same_text(predicted.name, truth.name)  # type: ignore[union-attr]
        text = predicted.text if typed else ""  # type: ignore[union-attr]
        gold = set(canonical_tokens(truth.text))
        words = len(gold & set(canonical_tokens(text))) / len(gold) if gold else 0.0
        shown = set(canonical_tokens(row.prompt))
        copyable = len(gold & shown) / len(gold) if gold else 0.0
        exact = field and same_text(text, truth.text)
        similar = field and similar_text(text, truth.text)
        found.setdefault(query_kind(row), []).append(
            [typed, field, exact, similar, words, copyable]
        )
    return {
        kind: {
            "steps": len(values),
            **{k: 100.0 * float(np.mean([v[i] for v in values])) for i, k in enumerate(TYPED)},
        }
        for kind, values in sorted(found.items(), key=lambda item: -len(item[1]))
    }


def render_typed(columns: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """The typed-query table: one line per policy and query kind."""
    rows = [
        {"policy": name, "kind": kind, **figures}
        for name, column in columns.items()
        for kind, figures in column.items()
    ]
    return markdown_table(
        rows,
        ["policy", "kind", "steps", *TYPED],
        headers=[
            "policy",
            "gold query kind",
            "steps",
            "typed %",
            "right field %",
            "exact text %",
            "similar text %",
            "gold words typed %",
            "gold words in prompt %",
        ],
        digits=1,
    )


@dataclass(frozen=True)
class Config:
    """Which sweep's models to break down, at which temperature, and where to write the table."""

    sweep: Path
    """A finished sweep's --out folder (its sweep.json and candidates/NAME/sft/model)."""
    candidates: tuple[str, ...]
    """Candidates of that sweep whose SFT models are scored (names as in its table)."""
    temperature: Annotated[float, NON_NEGATIVE] = 0.2
    """Sampling temperature of every model (the sweep's: 0.2)."""
    out: Path = Path("results/shop-breakdown")
    """Directory for breakdown.json and breakdown.md (new or empty, or an earlier breakdown's
    output with --overwrite)."""
    overwrite: bool = False
    """Write again into an earlier breakdown's output in --out."""

    def __post_init__(self) -> None:
        """Refuse a temperature outside its range and no candidate, before any work."""
        check_fields(self)
        if not self.candidates:
            raise ValueError("Config.candidates is empty: name at least one candidate")


def _sweep_rows(sweep: Path) -> tuple[dict[str, Any], dict[str, Mapping[str, object]]]:
    path = sweep / "sweep.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: pass the --out folder of a finished sweep")
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        rows: dict[str, Mapping[str, object]] = {
            row["candidate"]: dict(row["changes"]) for row in saved["rows"]
        }
        missing = [k for k in ("preset", "seeds", "validation_sessions") if k not in saved]
        if missing:
            raise KeyError(missing[0])
    except (OSError, ValueError, RecursionError, KeyError, TypeError) as err:
        raise UserError(
            f"{path} is not a finished sweep's result ({type(err).__name__}: {err}); pass the "
            "--out folder of a finished sweep, or run the sweep again"
        ) from None
    return saved, rows


@releases_outputs  # --out stays locked for the run, so a second run on it is refused
def run_breakdown(args: Config, *, data: Any = None) -> dict[str, Any]:
    """Score each candidate's model and the lookup on the sweep's validation steps, by kind."""
    saved, changes = _sweep_rows(args.sweep)
    missing = [n for n in args.candidates if n not in changes]
    if missing:
        raise ValueError(
            f"--candidates {' '.join(missing)}: not in {args.sweep / 'sweep.json'}; it holds "
            f"{', '.join(changes) or 'no candidate'}"
        )
    seed = int(saved["seeds"][0])
    sweep_args = SweepConfig(
        preset=saved["preset"], seeds=(seed,), validation_sessions=saved["validation_sessions"]
    )
    sweep = Sweep(sweep_args, args.sweep, data, progress=False)
    models = {name: sweep.folder(name, seed) / "sft" / "model" for name in args.candidates}
    for model in models.values():
        if not (model / "config.json").is_file():
            raise FileNotFoundError(f"{model} holds no trained model; rerun the sweep")
    out = claim_output(args.out, OUTPUT_KIND, overwrite=args.overwrite)
    started = time.perf_counter()
    columns: dict[str, dict[str, dict[str, float]]] = {}
    typed: dict[str, dict[str, dict[str, float]]] = {}
    from rewardgym.agents.llm.model import load_tokenizer

    lookup_done: set[int | None] = set()
    for name in args.candidates:
        config = apply_changes(sweep.base_config, name, changes[name])
        suite_data = sweep.data(config)
        if config.train_sessions not in lookup_done:
            lookup_done.add(config.train_sessions)
            columns[f"lookup ({len(suite_data.positions('train'))} sessions)"] = by_kind(
                sweep.lookup_evaluation(config).records
            )
        _, prompt = model_prompt(config)
        base = sweep.base_model(config, suite_data, seed)
        rows = suite_data.rows(
            base, load_tokenizer(base), prompt, "validation", sweep_args.validation_sessions
        )
        scored = sweep.score(models[name], config, prompt, rows, args.temperature, seed=seed)
        columns[name] = by_kind(scored.records)
        typed[name] = typed_queries(rows, scored.records)
    markdown = render(columns, saved, args) + "\n" + TYPED_HEAD + render_typed(typed) + "\n"
    result = {
        "sweep": str(args.sweep),
        "temperature": args.temperature,
        "columns": columns,
        "typed": typed,
        "markdown": markdown,
        "meta": _meta(saved, started),
    }
    write_json_atomic(out / "breakdown.json", undefined_as_null(result))
    write_atomic(out / "breakdown.md", markdown)
    return result


def render(
    columns: Mapping[str, Mapping[str, Mapping[str, float]]],
    saved: Mapping[str, Any],
    args: Config,
) -> str:
    """The table: one line per target kind, exact match and predicted count per policy."""
    kinds: dict[str, int] = {}
    for column in columns.values():
        for kind, figures in column.items():
            kinds[kind] = max(kinds.get(kind, 0), int(figures["steps"]))
    rows = []
    for kind in sorted(kinds, key=lambda k: (-kinds[k], k)):
        row: dict[str, Any] = {"kind": kind, "steps": kinds[kind]}
        for name, column in columns.items():
            figures = column.get(kind, {"exact": 0.0, "predicted": 0})
            row[name] = f"{figures['exact']:.1f} ({int(figures['predicted'])})"
        rows.append(row)
    table = markdown_table(
        rows,
        ["kind", "steps", *columns],
        headers=["target kind", "gold steps", *columns],
        digits=1,
    )
    return (
        f"# Shop sweep breakdown ({saved['preset']}), validation split\n\n"
        f"Seed {saved['seeds'][0]}; {saved['validation_sessions'] or 'all'} validation sessions; "
        f"temperature {args.temperature} for the models. Each cell: exact match in percent of "
        "the kind's gold steps (the number of times the policy predicted that kind).\n\n"
        + table
        + "\n"
    )


TYPED_HEAD = (
    "## Typed queries\n\nPer kind of gold type_and_submit step (first search of the session, "
    "a search again, a promo code): percent of its steps where the model typed, into the right "
    "field, the exact text (canonical), a similar text (the paper's rule), the mean share of "
    "the gold text's words it typed, and the mean share of them the prompt shows.\n\n"
)


def _meta(saved: Mapping[str, Any], started: float) -> dict[str, Any]:
    from rewardgym.benchmarks.provenance import run_provenance

    return {
        "suite": "shop",
        "preset": f"breakdown-{saved['preset']}",
        "wall_seconds": time.perf_counter() - started,
        "smoke_test": bool(saved.get("meta", {}).get("smoke_test", False)),
        **run_provenance(),
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments, score the models and the lookup by target kind, print the table."""
    args = parse_args(PROG, Config, argv, __doc__)
    try:
        result = run_breakdown(args)
    except SCRIPT_ERRORS as err:  # a user's mistake: one line, before any work
        refuse(PROG, err)
    print(result["markdown"])


if __name__ == "__main__":
    main()


__all__ = [
    "FAMILIES",
    "OUTPUT_KIND",
    "TYPED",
    "Config",
    "by_kind",
    "main",
    "query_kind",
    "render_typed",
    "run_breakdown",
    "target_kind",
    "typed_queries",
]
