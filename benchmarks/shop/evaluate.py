"""``rewardgym eval shop``: score a saved or served shopper model with the shop suite's metrics.

What ``eval household`` is for the embodied agents: one model, one split, the suite's own
functions. The rows are the suite's (:func:`~rewardgym.agents.llm.dataset.split_sessions` and
:func:`~rewardgym.agents.llm.dataset.step_rows`: validation is the hashed share of the env's
training split, test the env's test split), the outputs are generated and scored by
:func:`~rewardgym.agents.evaluation.shopping.complete_and_score` (what ``bench shop`` scores
every model row with), and the figures are a ``bench shop`` row
(:func:`~rewardgym.benchmarks.shop.report.build_rows`: exact match, type accuracy, type F1,
per type, parse rate, with 95% session-bootstrap intervals). Kept light at import time: torch
and transformers load only when the command runs.

A train sft/grpo model is prompted as its run recorded (:meth:`EvalShop.prompt_config`), a
lookup-hint prompt with the lookup fitted on the training sessions, at the suites' temperature
(:data:`EVAL_TEMPERATURE`). A served model is asked as ``simulate ab`` asks one
(:class:`~rewardgym.agents.llm.served.ServedPolicy`: a preflight, and the run stops after
``--served.max-consecutive-failures`` unanswered requests in a row); a step whose request got no
answer is counted apart and not scored. OUT is claimed (marked and held) before the work, so a
second run on it is refused meanwhile and an answer cache inside it is the run's own.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro

from rewardgym.agents.evaluation.commands import MAX_SAMPLES
from rewardgym.agents.evaluation.shopping import Protocol, StepRecord, protocol_records
from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
from rewardgym.agents.llm.dataset import VALIDATION_FRACTION
from rewardgym.agents.llm.served import ServedConfig, is_served, parse_served
from rewardgym.bounds import AT_LEAST_1, SEED, Range, between, check_fields
from rewardgym.envs.shopping.metrics import protocol_match
from rewardgym.errors import JudgeUnavailableError, UserError
from rewardgym.redact import redact

OUTPUT_KIND = "shop-eval"
"""The kind of an ``eval shop --out`` directory (its ``.rewardgym-output.json`` marker)."""

EVAL_TEMPERATURE = 0.2
"""Default sampling temperature: the suites' (docs/results/shop-quick chose 0.2 on validation
for its rows; the breakdown scores at 0.2), so ``eval shop`` reproduces a results page's row."""

COLUMNS = (
    "exact_match",
    "type_accuracy",
    "type_f1",
    "exact_click",
    "exact_type_and_submit",
    "exact_terminate",
    "parse_rate",
)
HEADERS = ("exact %", "type acc %", "type F1 %", "click exact", "type exact", "terminate exact")


def step_records(
    records: Sequence[StepRecord], texts: Sequence[str], protocol: Protocol
) -> list[dict[str, Any]]:
    """Every step as JSON: where it is, the human's action, the output, its parse, whether it
    matches, and whether ``protocol`` scores it (``paper`` resamples the steps).

    Example:
        >>> from rewardgym.envs.shopping.schema import ShopAction
        >>> done = ShopAction("terminate")
        >>> step_records([StepRecord(4, 2, done, done)], ['{"action": ...}'], "natural")[0]["exact"]
        True
    """
    scored = {(r.session, r.step) for r in protocol_records(records, protocol)}
    return [
        {
            "session": r.session,
            "step": r.step,
            "truth": r.truth.to_dict(),
            "prediction": None if r.prediction is None else r.prediction.to_dict(),
            "exact": protocol_match(r.prediction, r.truth, similar=protocol == "paper"),
            "scored": (r.session, r.step) in scored,
            "output": text,
        }
        for r, text in zip(records, texts, strict=True)
    ]


def table(row: Mapping[str, Any]) -> str:
    """The row as a markdown table: each figure with its 95% interval, and the parse rate."""
    cells = []
    for key in COLUMNS[:-1]:
        low, high = row.get(f"{key}_ci", (float("nan"), float("nan")))
        cells.append(f"{row[key]:.1f} [{low:.1f}, {high:.1f}]" if key in row else "")
    head = ["steps", *HEADERS, "parses %"]
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        f"| {row['n_steps']} | {' | '.join(cells)} | {row['parse_rate']:.1f} |",
    ]
    return "\n".join(lines)


@dataclass(frozen=True)
class EvalShop:
    """Score a saved shopper model (or one served at openai:URL) on a split of the session data: exact match, type accuracy and F1, per type, with 95% intervals."""

    model: str
    """A model folder (train sft/grpo OUT/model, or that OUT itself; a bench shop model; any
    local HF causal LM with safetensors) or a served model, openai:URL[#model] (settings under
    --served.*)."""
    out: Path | None = None
    """Directory for eval.json (the figures and every step's prediction) and eval.md, held by
    this run while it works; none: print only."""
    split: Literal["validation", "test"] = "test"
    """validation (the hashed share of the training split that train sft/grpo never see) or test."""
    data: str | None = None
    """Session data: JSONL, Parquet, store or OPeRA directory (default: the embedded corpus)."""
    sessions: Annotated[int, AT_LEAST_1] | None = None
    """Score only the split's first this many sessions (None: all of them)."""
    validation_fraction: Annotated[float, Range(ge=0, lt=1)] = VALIDATION_FRACTION
    """Share of the training split held out as validation (as the model's training run had it)."""
    protocol: Protocol = "natural"
    """natural: every step; paper: Shop-R1's resampled steps and similar-text rule."""
    prompt: Annotated[PromptConfig, tyro.conf.arg(name="")] = field(default_factory=PromptConfig)
    recorded_prompt: bool = True
    """Prompt a train sft/grpo model as it was trained: each prompt option left at its
    default takes the value its run recorded (config.json beside model/: --element-ids,
    --action-first, --max-prompt-tokens...); --no-recorded-prompt uses the options as given."""
    sampling: Annotated[SamplingConfig, tyro.conf.arg(name="")] = field(
        default_factory=lambda: SamplingConfig(temperature=EVAL_TEMPERATURE)
    )
    seed: Annotated[int, SEED] = 0
    """Sampling seed."""
    served: ServedConfig = field(default_factory=ServedConfig)
    """How an openai:URL model is asked (key variable, concurrency, timeouts, cache, prompt budget)."""
    overwrite: bool = False
    """Replace OUT when it holds an earlier eval of this command."""
    samples: Annotated[int, between(1, MAX_SAMPLES)] = 2000
    """Bootstrap draws of each interval (1..100000)."""

    def __post_init__(self) -> None:
        """Refuse numbers out of range, an empty split and a served model spec that is no URL."""
        check_fields(self)
        if self.split == "validation" and self.validation_fraction == 0:
            raise ValueError("--split validation with --validation-fraction 0 holds no session")
        if is_served(self.model):
            parse_served(self.model, "--model")
            if self.sampling.decoding != "free":
                raise ValueError(
                    f"--decoding {self.sampling.decoding}: a served model samples by its "
                    "server's rules; constrained decoding needs a local model folder"
                )
            if self.prompt.lookup_hint:
                raise ValueError(
                    "--lookup-hint: a served model is prompted without the lookup's line; it "
                    "needs a local model folder (the lookup is fitted on the training sessions)"
                )

    def model_folder(self) -> Path:
        """The local model folder ``--model`` names: a train sft/grpo run folder stands for
        its ``model/``; ``UserError`` when the folder holds no model."""
        from rewardgym.agents.llm.commands import GRPO_KIND, SFT_KIND
        from rewardgym.agents.llm.model import check_model_folder
        from rewardgym.outputs import owner
        from rewardgym.pretrained import resolve_model

        path = resolve_model(self.model)
        run = owner(path)
        if run is not None and run.get("kind") in (SFT_KIND, GRPO_KIND):
            if not (path / "model" / "config.json").is_file():
                raise UserError(
                    f"--model {self.model}: a {run['kind']} run folder without its trained "
                    "model/ (the run stopped before saving it); finish that run, or name a "
                    "model folder"
                )
            path = path / "model"
        elif not (path / "config.json").is_file():
            raise UserError(
                f"--model {self.model!r}: no config.json there; name a model folder (e.g. "
                "runs/sft/model, or the run folder runs/sft) or a served model, "
                "openai:URL[#model]"
            )
        check_model_folder(path)
        return path

    def prompt_config(self, folder: Path | None) -> PromptConfig:
        """The prompt options the model is scored with: a served model's are the options with
        --served.max-prompt-tokens; a local model's, the options over what its run recorded."""
        from rewardgym.agents.llm.commands import recorded_prompt

        if folder is None:
            return dataclasses.replace(self.prompt, max_prompt_tokens=self.served.max_prompt_tokens)
        recorded = recorded_prompt(folder) if self.recorded_prompt else None
        if recorded is None:
            return self.prompt
        default = PromptConfig()
        given = {
            f.name: getattr(self.prompt, f.name)
            for f in dataclasses.fields(PromptConfig)
            if getattr(self.prompt, f.name) != getattr(default, f.name)
        }
        return dataclasses.replace(recorded, **given)

    def lookup(self, folder: Path) -> Any:
        """The lookup of a ``lookup_hint`` prompt: fitted on --data's training sessions (less
        validation), the first --train-sessions of them when the model's run recorded that."""
        from rewardgym.agents.llm.commands import SessionOptions, recorded_run

        found = recorded_run(folder) or {}
        limit = found.get("options", {}).get("sessions", {}).get("train_sessions")
        options = SessionOptions(
            data=self.data,
            validation_fraction=self.validation_fraction,
            train_sessions=limit if isinstance(limit, int) and limit >= 1 else None,
        )
        return options.lookup()

    def policy(self, folder: Path | None = None) -> Any:
        """The policy the model names: an ``LLMPolicy`` on a local folder (``folder``, else
        :meth:`model_folder`), or a ``ServedPolicy``."""
        if is_served(self.model):
            from rewardgym.agents.llm.served import ServedPolicy

            return ServedPolicy.from_spec(
                self.model, self.prompt_config(None), self.sampling, self.served, seed=self.seed
            )
        from rewardgym.agents.llm.policy import LLMPolicy

        folder = folder if folder is not None else self.model_folder()
        prompt = self.prompt_config(folder)
        lookup = self.lookup(folder) if prompt.lookup_hint else None
        return LLMPolicy.from_path(folder, prompt, self.sampling, seed=self.seed, lookup=lookup)

    def run(self) -> None:
        """Check OUT and the inputs, hold OUT, generate, score, print the table and write it."""
        from rewardgym.outputs import releases_outputs

        releases_outputs(self._run)()

    def _run(self) -> None:
        from rewardgym.agents.llm.dataset import split_sessions
        from rewardgym.outputs import claim_output, prepare_output

        # OUT is checked first (a folder of the user's is refused at once), then the model,
        # the policy and the data, and only then claimed: held while the run works (a second
        # run on it is refused), and marked first, so an answer cache inside it is the run's
        # own (that policy, which opens its cache, is made once OUT is claimed).
        inside = False
        if self.out is not None:
            prepare_output(self.out, OUTPUT_KIND, overwrite=self.overwrite)
            inside = self._cache_inside(self.out)
        folder = None if is_served(self.model) else self.model_folder()
        policy = None if inside else self.policy(folder)
        env_split, positions = split_sessions(
            self.data, self.split, validation_fraction=self.validation_fraction
        )
        out = None
        if self.out is not None:
            out = claim_output(self.out, OUTPUT_KIND, overwrite=self.overwrite)
        policy = policy if policy is not None else self.policy(folder)
        self._evaluate(policy, env_split, positions[: self.sessions], out)

    def _cache_inside(self, out: Path) -> bool:
        """Whether the answer cache lies inside OUT (kept there); a cache that is OUT itself
        is refused."""
        cache = self.served.cache
        if cache is None:
            return False
        where, folder = cache.expanduser().resolve(), out.expanduser().resolve()
        if where == folder:
            raise UserError(
                f"--served.cache {cache} is --out itself; name a file, e.g. {out / 'cache.sqlite'}"
            )
        return folder in where.parents

    def _evaluate(
        self, policy: Any, env_split: str, positions: list[int], out: Path | None
    ) -> None:
        """Generate for the split's steps, score the answered ones, print and write the figures."""
        from rich.console import Console

        from rewardgym.agents.evaluation.shopping import complete_and_score, score_rows
        from rewardgym.agents.llm.dataset import step_rows
        from rewardgym.atomic import write_atomic, write_json_atomic
        from rewardgym.benchmarks.shop.report import build_rows
        from rewardgym.markdown_text import heading

        served = is_served(self.model)
        if served:
            policy.preflight()  # a dead server stops the run within seconds
        rows = step_rows(
            policy.prompts,
            data=self.data,
            split=env_split,
            env_kwargs=policy.env_kwargs(),
            sessions=positions,
            progress=False,
            action_first=policy.prompt_config.action_first,
        )
        unanswered: list[dict[str, int]] = []
        if served:  # unanswered requests are counted apart, never scored as wrong answers
            got = policy.answers([r.prompt for r in rows])
            kept = [i for i, answer in enumerate(got) if answer is not None]
            unanswered = [
                {"session": r.session, "step": r.step}
                for r, answer in zip(rows, got, strict=True)
                if answer is None
            ]
            if not kept:
                raise JudgeUnavailableError(
                    f"served policy: none of the {len(rows)} steps got an answer from "
                    f"{policy.endpoint.url} (last: {policy.endpoint.last_error})"
                )
            texts = [str(got[i]) for i in kept]
            result = score_rows([rows[i] for i in kept], texts)
        else:
            result, texts = complete_and_score(policy, rows, self.sampling.decoding)
        shown = redact(self.model)
        name = shown if served else Path(self.model).name
        (row,) = build_rows(
            {name: [result.records]}, [], [name], self.protocol, samples=self.samples
        )
        text = table(row)
        title = (
            f"{shown} on the {self.split} split ({len(positions)} sessions), "
            f"{self.sampling.decoding} decoding, {self.protocol} protocol"
        )
        note = unanswered_note(len(unanswered), len(rows))
        body = f"{text}\n\n{note}" if note else text
        Console(soft_wrap=True).print(f"{title}\n\n{body}", markup=False, highlight=False)
        if out is None:
            return
        options = json.loads(json.dumps(dataclasses.asdict(self), default=str))
        options["model"] = shown
        record: dict[str, Any] = {
            "model": shown,
            "split": self.split,
            "sessions": len(positions),
            "options": options,
            "prompt": dataclasses.asdict(policy.prompt_config),
            "metrics": row,
            "steps": step_records(result.records, texts, self.protocol),
        }
        if served:
            record["served"] = {
                "requests": policy.requests,
                "unanswered_requests": policy.failures,
                "unanswered_steps": unanswered,
            }
        write_json_atomic(out / "eval.json", record)
        write_atomic(out / "eval.md", f"# {heading(title)}\n\n{body}\n")


def unanswered_note(unanswered: int, steps: int) -> str:
    """What the table says of the steps a served model left unanswered (none: nothing).

    Example:
        >>> print(unanswered_note(2, 10))  # doctest: +NORMALIZE_WHITESPACE
        The server left 2 of 10 steps unanswered (no answer after every retry: a transport
        failure, not the model's output); they are not scored: the figures are over the 8
        answered steps.
        >>> unanswered_note(0, 10)
        ''
    """
    if not unanswered:
        return ""
    return (
        f"The server left {unanswered} of {steps} steps unanswered (no answer after every "
        "retry: a transport failure, not the model's output); they are not scored: the "
        f"figures are over the {steps - unanswered} answered steps."
    )


__all__ = [
    "EVAL_TEMPERATURE",
    "OUTPUT_KIND",
    "EvalShop",
    "step_records",
    "table",
    "unanswered_note",
]
