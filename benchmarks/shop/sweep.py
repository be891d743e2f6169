"""Choose the shop suite's SFT recipe on the validation split: one SFT run per named candidate.

Each candidate is the preset's config (``--preset``, quick by default) with a few fields changed,
written as dotted paths (``prompt.element_ids=true``, ``default_model.hidden_size=256``,
``sft.learning_rate=1e-3``). For each candidate the script reads the training rows as ``bench
shop`` does (:class:`~rewardgym.benchmarks.shop.data.SuiteData`), builds the default model (its
tokenizer trained on the non-validation training sessions, shared by candidates whose model
settings agree), trains the SFT row (:func:`~rewardgym.agents.llm.sft.train_sft`) and scores it
on the first ``--validation-sessions`` sessions of the validation split (never the test split)
at each temperature, with a 95% bootstrap interval over sessions, once per training seed
(``--seeds``). ``baseline/frequency``, fitted on the same training sessions, is scored on the
same validation steps. Prints and writes (``sweep.json``, ``sweep.md`` under ``--out``, each
atomically; ``--out`` is claimed first, as the suites claim theirs) one row per candidate, seed
and temperature: validation exact match and its interval, type accuracy, exact match per action
type, the predicted action-type shares beside the truth's, and training seconds; then the paired
differences (:mod:`~rewardgym.benchmarks.shop.recipe_pairs`: seed k against seed k on the same
steps) of every candidate against ``--reference`` and against the lookup, and the winner: the
best candidate whose paired gain over the reference excludes 0, if any. The JSON is rewritten
after every candidate, and a rerun with ``--overwrite`` reuses every candidate whose settings
have not changed.

Built-in candidates (:data:`CANDIDATES`; ``--extra NAME:FIELD=VALUE,...`` adds more) cover
element ids, width, depth, vocabulary, examples, epochs, learning rate, warm-up and three
recipes: Shop-R1's rationale before the action (the presets write the action first), the
lookup's prediction as a line of the prompt (the lookup fitted on the training sessions only),
and a tokenizer that splits element names into their words. The paired recipe comparison that
chose the action-first order (docs/results/shop-sweep-recipe-pairs.md), alone on the cores,
ran while the presets wrote the rationale first (its candidate action-first is today's
baseline): ``python -m
rewardgym.benchmarks.shop.sweep --preset cpu --workers 2 --seeds 0 1 2 --temperatures 0.2
--candidates baseline action-first split-names lookup-hint --reference baseline``; with today's
presets the same comparison is ``--candidates baseline rationale-first split-names lookup-hint``
(their lookup-hint and split-names now add to the action-first order). The defaults are a toy
run (tiny preset, two candidates).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from rewardgym.agents.evaluation.intervals import bootstrap_intervals
from rewardgym.agents.evaluation.shopping import ShopEvaluation, score_outputs
from rewardgym.agents.llm.config import Decoding, ModelKind, PromptConfig
from rewardgym.agents.llm.dataset import DataArg, StepRow, row_actions, sample_rows, to_dataset
from rewardgym.atomic import write_atomic, write_json_atomic
from rewardgym.benchmarks.runner import RunnerArg, RunnerOptions
from rewardgym.benchmarks.shop.config import BenchConfig, PresetName, constrained_name, preset
from rewardgym.benchmarks.shop.data import SuiteData
from rewardgym.benchmarks.shop.recipe_pairs import (
    choose_winner,
    hits_of,
    paired_lines,
    render_pairs,
)
from rewardgym.benchmarks.tables import markdown_table
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, check_fields, undefined_as_null
from rewardgym.cli import SCRIPT_ERRORS, parse_args, refuse
from rewardgym.envs.shopping.schema import actions_match
from rewardgym.errors import UserError
from rewardgym.outputs import claim_output, releases_outputs

OUTPUT_KIND = "bench-shop-sweep"
"""The kind of a sweep's output directory (its ``.rewardgym-output.json`` marker)."""

TYPES = ("click", "type_and_submit", "terminate")
"""The action types whose predicted and true shares every row reports."""

PROG = "python -m rewardgym.benchmarks.shop.sweep"
"""How this script names itself in --help and in the one line of a refusal."""

CANDIDATES: dict[str, dict[str, object]] = {
    "baseline": {},
    "element-ids": {"prompt.element_ids": True},
    # The ids cost tokens: at quick's 384-token prompt a third of the prompts lose the first
    # rationale (the shopper's intent); 448 keeps it in about 99% of them.
    "element-ids-448": {"prompt.element_ids": True, "prompt.max_prompt_tokens": 448},
    "prompt-448": {"prompt.max_prompt_tokens": 448},
    "wide-256": {"default_model.hidden_size": 256, "default_model.intermediate_size": 704},
    "deep-6": {"default_model.num_layers": 6},
    "vocab-8192": {"default_model.vocab_size": 8192},
    # quick's SFT recipe before issue 50 (1,200 rows at 2e-3; the demo's): the type stays the
    # training marginal, so it never terminates
    "examples-1200": {"sft.max_examples": 1200, "sft.learning_rate": 2e-3},
    "epochs-2": {"sft.epochs": 2.0},
    "lr-5e-4": {"sft.learning_rate": 5e-4},
    "lr-4e-3": {"sft.learning_rate": 4e-3},
    "warmup-0.2": {"sft.warmup_ratio": 0.2},
    # Shop-R1's order, the rationale before the action (the presets write the action first since
    # issue 50's paired recipe sweep, docs/results/shop-sweep-recipe-pairs.md)
    "rationale-first": {"prompt.action_first": False},
    "lookup-hint": {"prompt.lookup_hint": True},
    "split-names": {"default_model.split_names": True},
}
"""Named overrides of the preset, each a candidate on its own (``baseline`` is the preset)."""

CHANGEABLE = ("default_model.", "prompt.", "sampling.", "sft.", "train_sessions")
"""What a candidate may change: the model, prompt, sampling, SFT run and training sessions.
Everything that picks the validation steps stays the preset's, so every row scores the same."""


def parse_extra(text: str) -> tuple[str, dict[str, object]]:
    """A candidate from ``NAME:FIELD=VALUE,FIELD=VALUE`` (values read as JSON, else as text).

    Example:
        >>> parse_extra("ids-wide:prompt.element_ids=true,default_model.hidden_size=256")
        ('ids-wide', {'prompt.element_ids': True, 'default_model.hidden_size': 256})
    """
    name, sep, body = text.partition(":")
    if not sep or not name.strip():
        raise ValueError(f"--extra {text!r}: write NAME:FIELD=VALUE,FIELD=VALUE")
    changes: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in body.split(","))):
        key, eq, raw = item.partition("=")
        if not eq:
            raise ValueError(f"--extra {text!r}: {item!r} is not FIELD=VALUE")
        try:
            changes[key.strip()] = json.loads(raw)
        except ValueError:
            changes[key.strip()] = raw.strip()
    return name.strip(), changes


def apply_changes(config: BenchConfig, name: str, changes: Mapping[str, object]) -> BenchConfig:
    """``config`` with the candidate's dotted fields changed; errors name the candidate and field."""
    for key, value in changes.items():
        if not key.startswith(CHANGEABLE):
            raise ValueError(
                f"candidate {name!r}: {key!r} cannot change in a sweep (it may change fields "
                f"under {', '.join(CHANGEABLE)})"
            )
        head, _, leaf = key.rpartition(".")
        parent = _config_at(config, name, key)
        fields = {f.name: f for f in dataclasses.fields(parent)}
        if leaf not in fields:
            raise ValueError(
                f"candidate {name!r}: no field {key!r}; {head or 'the config'} has {sorted(fields)}"
            )
        old = getattr(parent, leaf)
        optional = value is None and "None" in str(fields[leaf].type)  # e.g. int | None
        if old is not None and not optional and not isinstance(value, type(old)):
            if not (
                isinstance(old, float) and isinstance(value, int) and not isinstance(value, bool)
            ):
                raise ValueError(
                    f"candidate {name!r}: {key}={value!r} is a {type(value).__name__}, "
                    f"the field holds a {type(old).__name__} ({old!r})"
                )
            value = float(value)
        changed = dataclasses.replace(parent, **{leaf: value})
        config = dataclasses.replace(config, **{head: changed}) if head else changed
    return config


def _config_at(config: BenchConfig, name: str, key: str) -> Any:
    """The nested config that holds the last part of the dotted ``key``; errors name the candidate."""
    parent: Any = config
    parts = key.split(".")
    for depth, part in enumerate(parts[:-1]):
        fields = {f.name for f in dataclasses.fields(parent)}
        child = getattr(parent, part, None) if part in fields else None
        if not dataclasses.is_dataclass(child):
            where = ".".join(parts[: depth + 1])
            raise ValueError(
                f"candidate {name!r}: {key!r} reaches into {where!r}, which is "
                + ("no field" if part not in fields else f"a {type(child).__name__}, not a config")
                + f"; write FIELD=VALUE with a field of {'.'.join(parts[:depth]) or 'the config'}"
            )
        parent = child
    return parent


def _key(value: object) -> str:
    return hashlib.blake2b(repr(value).encode(), digest_size=8).hexdigest()


class Sweep:
    """One sweep: the preset's data, the shared base models, and every scored row."""

    def __init__(self, args: Config, out: Path, data: DataArg, progress: bool) -> None:
        self.args, self.out, self.data_arg, self.progress = args, out, data, progress
        self.base_config = preset(args.preset)
        self.datas: dict[int | None, SuiteData] = {}
        self.rows: list[dict[str, Any]] = []
        self.lookups: list[dict[str, Any]] = []
        self.started = time.perf_counter()
        self.planned: list[str] = []
        """Every chosen candidate's name: a page of a stopped sweep names those without rows."""

    def data(self, config: BenchConfig) -> SuiteData:
        """The suite's splits for the candidate's training sessions (read once per size)."""
        if config.train_sessions not in self.datas:
            self.datas[config.train_sessions] = SuiteData(
                self.data_arg,
                validation_fraction=config.validation_fraction,
                train_sessions=config.train_sessions,
                progress=self.progress,
            )
        return self.datas[config.train_sessions]

    def base_model(self, config: BenchConfig, data: SuiteData, seed: int) -> Path:
        """The named model, or the default model for these model settings and seed (built once)."""
        if config.model is not None:
            from rewardgym.pretrained import resolve_model

            return resolve_model(config.model)
        from rewardgym.agents.llm.model import create_default_model
        from rewardgym.envs.shopping.session_sources import resolve_sessions

        path = self.out / "bases" / _key((config.default_model, seed))
        if not (path / "config.json").is_file():
            log, train = resolve_sessions(data.data, "train")
            held = set(data.positions("validation"))
            sessions = [s for k, s in enumerate(train) if k not in held]
            create_default_model(path, log, sessions, config.default_model, seed=seed)
        return path

    def folder(self, name: str, seed: int) -> Path:
        """Where candidate ``name``'s trained model and result of training seed ``seed`` live."""
        return self.out / "candidates" / name.replace("/", "__") / f"seed-{seed}"

    def candidate(
        self, name: str, changes: Mapping[str, object], config: BenchConfig, seed: int
    ) -> list[dict[str, Any]]:
        """Train the candidate's SFT row with ``seed`` and score it on validation at every
        temperature and decoding."""
        from rewardgym.agents.llm.model import load_tokenizer
        from rewardgym.agents.llm.sft import train_sft

        args = self.args
        folder = self.folder(name, seed)
        signature = _key(
            (config, seed, args.validation_sessions, self.temperatures(), args.decodings)
        )
        done = folder / "result.json"
        if done.is_file():
            kept = _kept_result(done)
            if kept.get("signature") == signature:
                return list(kept["rows"])
        kind, prompt = model_prompt(config)
        clock = time.perf_counter()
        data = self.data(config)
        base = self.base_model(config, data, seed)
        base_s, clock = time.perf_counter() - clock, time.perf_counter()
        tokenizer = load_tokenizer(base)
        sft = dataclasses.replace(config.sft, seed=seed)
        train = sample_rows(data.rows(base, tokenizer, prompt, "train"), sft.max_examples, seed)
        valid = data.rows(base, tokenizer, prompt, "validation", args.validation_sessions)
        prompts_s = time.perf_counter() - clock
        result = train_sft(
            base,
            to_dataset(train),
            folder / "sft",
            sft,
            max_length=prompt.max_prompt_tokens + config.sampling.max_new_tokens,
            progress=self.progress,
            model_kind=kind,
            run=f"sweep candidate {name!r} (seed {seed})",
        )
        examples = len(train) * sft.epochs
        rows = []
        for temperature, decoding in itertools.product(self.temperatures(), args.decodings):
            start = time.perf_counter()
            scored = self.score(result.path, config, prompt, valid, temperature, decoding, seed)
            rows.append(
                {
                    "candidate": name if decoding == "free" else constrained_name(name),
                    "seed": seed,
                    "train_sessions": config.train_sessions,
                    "changes": dict(changes),
                    "temperature": temperature,
                    "decoding": decoding,
                    "examples": examples,
                    "train_s": result.seconds,
                    "examples_per_s": examples / result.seconds if result.seconds else 0.0,
                    "first_loss": result.first_loss,
                    "last_loss": result.last_loss,
                    "eval_s": time.perf_counter() - start,
                    "data_and_base_s": base_s,
                    "prompts_s": prompts_s,
                    **_figures(scored, args.bootstrap_samples),
                }
            )
        write_json_atomic(done, {"signature": signature, "rows": undefined_as_null(rows)})
        return rows

    def score(
        self,
        path: Path,
        config: BenchConfig,
        prompt: Any,
        rows: list[StepRow],
        temperature: float,
        decoding: Decoding = "free",
        seed: int = 0,
    ) -> ShopEvaluation:
        """Generate for ``rows`` at ``temperature`` with sampling seed ``seed`` and score as the
        env would (ids resolved)."""
        from rewardgym.agents.llm.policy import LLMPolicy

        sampling = dataclasses.replace(config.sampling, temperature=temperature, decoding=decoding)
        policy = LLMPolicy.from_path(path, prompt, sampling, seed=seed)
        actions = row_actions(rows) if decoding == "constrained" else None
        texts = policy.complete([r.prompt for r in rows], actions)
        return score_outputs(
            texts,
            [r.session for r in rows],
            [r.step for r in rows],
            [r.truth for r in rows],  # type: ignore[misc]
            [r.elements for r in rows],
        )

    def lookup(self, config: BenchConfig) -> dict[str, Any]:
        """``baseline/frequency`` fitted on the candidate's training sessions, on the same steps."""
        result = self.lookup_evaluation(config)
        train_sessions = len(self.data(config).positions("train"))
        return {
            "candidate": f"baseline/frequency ({train_sessions} training sessions)",
            "train_sessions": config.train_sessions,
            "sessions_fitted": train_sessions,
            **_figures(result, self.args.bootstrap_samples),
        }

    def lookup_evaluation(self, config: BenchConfig) -> ShopEvaluation:
        """The lookup's evaluation (every step's record) on the sweep's validation steps."""
        return self.data(config).lookup_evaluation("validation", self.args.validation_sessions)

    def temperatures(self) -> tuple[float, ...]:
        """The evaluation temperatures: ``--temperatures``, else the preset's candidates."""
        chosen = self.args.temperatures
        return chosen if chosen is not None else self.base_config.temperature_candidates

    def candidates(self) -> list[tuple[str, dict[str, object], BenchConfig]]:
        """Every chosen candidate's name, changes and config, checked before any work."""
        extra = dict(parse_extra(text) for text in self.args.extra)
        table = {**CANDIDATES, **extra}
        chosen = [m for n in self.args.candidates for m in (CANDIDATES if n == "all" else [n])]
        names = [*chosen, *(n for n in extra if n not in chosen)]
        unknown = [n for n in names if n not in table]
        if unknown:
            raise ValueError(
                f"--candidates {' '.join(unknown)}: no such candidate; choose from "
                f"{', '.join(CANDIDATES)} or add one with --extra NAME:FIELD=VALUE"
            )
        reference = self.args.reference
        if reference is not None and reference not in names:
            raise ValueError(
                f"--reference {reference}: not among the chosen candidates "
                f"({', '.join(dict.fromkeys(names)) or 'none'}); name one of them"
            )
        return [
            (n, table[n], apply_changes(self.base_config, n, table[n]))
            for n in dict.fromkeys(names)
        ]

    def meta(self) -> dict[str, Any]:
        """What ``record_results`` puts on a results page: suite, preset, wall time, provenance."""
        from rewardgym.benchmarks.provenance import run_provenance

        return {
            "suite": "shop",
            "preset": f"sweep-{self.args.preset}",
            "wall_seconds": time.perf_counter() - self.started,
            "candidates_done": len({row["candidate"] for row in self.rows}),
            "candidates_missing": [
                n for n in self.planned if n not in {row["candidate"] for row in self.rows}
            ],
            "smoke_test": self.args.preset == "tiny",  # a toy size: plumbing, not a result
            **run_provenance(),
        }

    def report(self) -> dict[str, Any]:
        """results as JSON and the Markdown tables; written to ``out`` atomically."""
        args = self.args
        steps = {row["n"] for row in [*self.rows, *self.lookups]}
        shares = [f"predicted_share_{t}" for t in TYPES] + [f"truth_share_{t}" for t in TYPES]
        table = markdown_table(
            [*self.rows, *self.lookups],
            [
                "candidate",
                "seed",
                "temperature",
                "exact",
                "type_accuracy",
                "exact_click",
                "exact_type_and_submit",
                "exact_terminate",
                *shares,
                "train_s",
            ],
            headers=[
                "candidate",
                "seed",
                "T",
                "exact match [95% CI]",
                "type acc.",
                "click exact",
                "type exact",
                "terminate exact",
                "pred click %",
                "pred type %",
                "pred terminate %",
                "truth click %",
                "truth type %",
                "truth terminate %",
                "train s",
            ],
            digits=1,
        )
        lookups = {row["train_sessions"]: hits_of(row["hits"]) for row in self.lookups}
        pairs = [
            line
            for size, lookup in lookups.items()
            for line in paired_lines(
                [r for r in self.rows if r["train_sessions"] == size],
                lookup,
                args.reference,
                samples=args.bootstrap_samples,
            )
        ]
        winner = choose_winner(pairs, args.reference)
        markdown = (
            f"# Shop SFT sweep ({args.preset}), validation split\n\n"
            f"Seeds {', '.join(str(k) for k in args.seeds)}; "
            f"{args.validation_sessions or 'all'} validation sessions "
            f"({', '.join(str(s) for s in sorted(steps))} steps); percent, 95% bootstrap "
            "intervals over sessions; predicted and true action-type shares of the scored "
            "steps.\n\n" + table + "\n\n" + render_pairs(pairs, args.reference, winner)
        )
        results = {
            "preset": args.preset,
            "seeds": list(args.seeds),
            "reference": args.reference,
            "validation_sessions": args.validation_sessions,
            "temperatures": list(self.temperatures()),
            "rows": self.rows,
            "lookup": self.lookups,
            "pairs": pairs,
            "winner": winner,
            "markdown": markdown,
            "meta": self.meta(),
        }
        write_json_atomic(self.out / "sweep.json", undefined_as_null(results))
        write_atomic(self.out / "sweep.md", markdown)
        return results


def _kept_result(path: Path) -> dict[str, Any]:
    """A candidate's earlier ``result.json``; a damaged one is an error naming the file."""
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as err:
        kept = err
    if not isinstance(kept, dict) or not isinstance(kept.get("rows", []), list):
        raise UserError(
            f"{path} is damaged ({kept if isinstance(kept, Exception) else 'not a result'}): "
            "delete it and rerun with --overwrite to train that candidate again"
        )
    return kept


def model_prompt(config: BenchConfig) -> tuple[ModelKind, PromptConfig]:
    """The candidate's model kind and its prompt (a pretrained model always gets instructions)."""
    kind: ModelKind = "scratch" if config.model is None else "pretrained"
    prompt = dataclasses.replace(
        config.prompt, instructions=config.prompt.instructions or kind == "pretrained"
    )
    return kind, prompt


def _figures(result: ShopEvaluation, samples: int) -> dict[str, Any]:
    metrics = result.metrics
    interval = bootstrap_intervals([result.records], "natural", samples=samples)
    lo, hi = interval.get("exact_match", [float("nan"), float("nan")])
    truth: Counter[str] = Counter(r.truth.type for r in result.records)
    return {
        "n": result.steps,
        "hits": [
            [r.session, r.step, int(actions_match(r.prediction, r.truth))] for r in result.records
        ],
        **{f"predicted_share_{t}": metrics.predicted_type_share.get(t, 0.0) for t in TYPES},
        **{f"truth_share_{t}": 100.0 * truth[t] / max(1, result.steps) for t in TYPES},
        "exact_match": metrics.exact_match,
        "exact_match_ci": [lo, hi],
        "exact": f"{metrics.exact_match:.1f} [{lo:.1f}, {hi:.1f}]",
        "type_accuracy": metrics.type_accuracy,
        "exact_click": metrics.per_type_exact.get("click", 0.0),
        "exact_type_and_submit": metrics.per_type_exact.get("type_and_submit", 0.0),
        "exact_terminate": metrics.per_type_exact.get("terminate", 0.0),
        "parse_rate": metrics.parse_rate,
    }


@releases_outputs  # --out stays locked for the run, so a second run on it is refused
def run_sweep(args: Config, *, data: DataArg = None, progress: bool = True) -> dict[str, Any]:
    """Run every chosen candidate and the lookup on the validation split; write and return results."""
    sweep = Sweep(args, Path(args.out), data, progress)
    chosen = sweep.candidates()  # a typo fails before the output is claimed
    sweep.planned = [name for name, _, _ in chosen]
    sweep.out = claim_output(args.out, OUTPUT_KIND, overwrite=args.overwrite or args.runner.resume)
    sizes = {config.train_sessions: config for *_, config in chosen}
    for config in sizes.values():  # before the first candidate trains
        if not sweep.data(config).positions("validation", args.validation_sessions):
            raise UserError(
                f"--preset {args.preset}: its validation split holds no session to score "
                f"(validation_fraction {config.validation_fraction}, train_sessions "
                f"{config.train_sessions}); use a larger preset or more training sessions"
            )
    sweep.lookups = [sweep.lookup(config) for config in sizes.values()]
    runner = args.runner
    units = len(chosen) * len(args.seeds)
    if runner.runner == "ray" or runner.resume or (args.workers > 1 and units > 1):
        _run_units(sweep, chosen, data)
        return sweep.report()
    for name, changes, config in chosen:
        for seed in args.seeds:
            sweep.rows.extend(sweep.candidate(name, changes, config, seed))
            sweep.report()
    return sweep.report()


def candidate_unit(
    args: Config,
    out: Path,
    data: DataArg,
    name: str,
    changes: dict[str, object],
    config: BenchConfig,
    seed: int,
) -> dict[str, Any]:
    """One candidate's training seed in a worker process, on one torch thread: its rows."""
    import torch

    torch.set_num_threads(1)  # the workers share the cores: one thread each
    return {"rows": Sweep(args, out, data, progress=False).candidate(name, changes, config, seed)}


def _run_units(
    sweep: Sweep, chosen: list[tuple[str, dict[str, object], BenchConfig]], data: DataArg
) -> None:
    """Every candidate's training seed as a runner unit (``args.workers`` processes here, or
    Ray); rows kept in the chosen order.

    The base models are built here first, so no two workers write the same folder; the report
    is rewritten as each candidate finishes (a stopped sweep keeps what it finished).
    """
    from rewardgym.benchmarks.runner import Unit, run_units

    seeds = sweep.args.seeds
    bases = {
        (name, seed): sweep.base_model(config, sweep.data(config), seed)
        for name, _, config in chosen
        for seed in seeds
    }

    def key(name: str, seed: int) -> str:
        return f"{name.replace('/', '__')}-seed-{seed}"

    units = [
        Unit(
            key(name, seed),
            candidate_unit,
            (sweep.args, sweep.out, data, name, dict(changes), config, seed),
            root=sweep.out,
            inputs=(bases[(name, seed)],) if config.model is None else (),
            outputs=(sweep.folder(name, seed),),
            gpu=True,  # an LLM trains on a GPU wherever torch finds one
        )
        for name, changes, config in chosen
        for seed in seeds
    ]
    done: dict[str, list[dict[str, Any]]] = {}

    def gather() -> None:
        sweep.rows = [row for n, _, _ in chosen for k in seeds for row in done.get(key(n, k), [])]

    def landed(unit: str, result: dict[str, Any]) -> None:
        done[unit] = result["rows"]
        gather()
        sweep.report()

    kept = run_units(
        units,
        sweep.args.runner,
        sweep.out,
        workers=sweep.args.workers,
        desc="candidates",
        quiet=not sweep.progress,
        on_result=landed,
    )
    for unit, result in kept.items():
        done[unit] = result["rows"]
    gather()


@dataclass(frozen=True)
class Config:
    """Which candidates to train on which preset, and how many validation sessions score them.

    Each candidate is one unit, run here (--workers processes) or on Ray (--runner ray).
    """

    preset: PresetName = "tiny"
    """The config every candidate starts from (quick: the real sweep; tiny: a toy run)."""
    candidates: tuple[str, ...] = ("baseline", "element-ids")
    """Built-in candidates to run, in order (see CANDIDATES in the module): baseline,
    element-ids, element-ids-448, prompt-448, wide-256, deep-6, vocab-8192, examples-1200,
    epochs-2, lr-5e-4, lr-4e-3, warmup-0.2, rationale-first, lookup-hint, split-names; all runs
    every one of them."""
    extra: tuple[str, ...] = ()
    """More candidates, each NAME:FIELD=VALUE,FIELD=VALUE with dotted fields of the preset
    (e.g. ids-wide:prompt.element_ids=true,default_model.hidden_size=256)."""
    seeds: tuple[Annotated[int, SEED], ...] = (0,)
    """Training seeds: each candidate trains and is scored once per seed (its model, data
    order and sampling); seed k of a candidate is paired with seed k of the reference."""
    reference: str | None = None
    """The candidate every other one is paired against, seed k with seed k on the same
    validation steps (e.g. baseline with --preset cpu: the cpu recipe); a winner is named only
    when its paired gain's interval excludes 0. None: pairs against the lookup only."""
    validation_sessions: Annotated[int, AT_LEAST_1] | None = 100
    """Validation sessions scored (None: all of them); the same for every row."""
    temperatures: Annotated[tuple[float, ...], NON_NEGATIVE] | None = None
    """Evaluation temperatures (None: the preset's temperature_candidates)."""
    decodings: tuple[Decoding, ...] = ("free",)
    """How each model is scored at each temperature: free, constrained to each page's
    actions, or both (one row each)."""
    bootstrap_samples: Annotated[int, AT_LEAST_1] = 2000
    """Bootstrap resamples of the validation sessions behind each interval."""
    workers: Annotated[int, AT_LEAST_1] = 1
    """Candidates trained at once, each in its own process on one torch thread (2 on two
    cores; with --runner ray the cluster's CPUs decide)."""
    out: Path = Path("results/shop-sweep")
    """Directory for sweep.json, sweep.md and the trained models (new or empty, or an earlier
    sweep's output with --overwrite, whose unchanged candidates are reused)."""
    overwrite: bool = False
    """Run again into an earlier sweep's output in --out."""
    runner: RunnerArg = field(default_factory=RunnerOptions)

    def __post_init__(self) -> None:
        """Refuse counts and temperatures outside their range before any candidate trains."""
        check_fields(self)
        if self.temperatures is not None and not self.temperatures:
            raise ValueError("Config.temperatures is empty: give at least one, or leave it unset")


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments, run the sweep and print its table."""
    args = parse_args(PROG, Config, argv, __doc__)
    start = time.perf_counter()
    try:
        results = run_sweep(args)
    except SCRIPT_ERRORS as err:  # a user's mistake: one line, before any work
        refuse(PROG, err)
    print(results["markdown"])
    print(
        f"shop sweep ({args.preset}): {time.perf_counter() - start:.0f} s; results in {args.out}/"
    )


if __name__ == "__main__":
    main()


__all__ = [
    "CANDIDATES",
    "CHANGEABLE",
    "OUTPUT_KIND",
    "Config",
    "apply_changes",
    "main",
    "model_prompt",
    "parse_extra",
    "run_sweep",
]
