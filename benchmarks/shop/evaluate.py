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
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro

from rewardgym.agents.evaluation.shopping import Protocol, StepRecord, protocol_records
from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
from rewardgym.agents.llm.dataset import VALIDATION_FRACTION
from rewardgym.agents.llm.served import ServedConfig, is_served, parse_served
from rewardgym.bounds import AT_LEAST_1, SEED, Range, check_fields
from rewardgym.envs.shopping.metrics import protocol_match

OUTPUT_KIND = "shop-eval"
"""The kind of an ``eval shop --out`` directory (its ``.rewardgym-output.json`` marker)."""

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
    """A model folder (train sft/grpo OUT/model, a bench shop model, any local HF causal LM with
    safetensors) or a served model, openai:URL[#model] (settings under --served.*)."""
    out: Path | None = None
    """Directory for eval.json (the figures and every step's prediction) and eval.md; none: print only."""
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
    sampling: Annotated[SamplingConfig, tyro.conf.arg(name="")] = field(
        default_factory=SamplingConfig
    )
    seed: Annotated[int, SEED] = 0
    """Sampling seed."""
    served: ServedConfig = field(default_factory=ServedConfig)
    """How an openai:URL model is asked (key variable, concurrency, timeouts, cache, prompt budget)."""
    overwrite: bool = False
    """Replace OUT when it holds an earlier eval of this command."""
    samples: Annotated[int, AT_LEAST_1] = 2000
    """Bootstrap draws of each interval."""

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

    def policy(self) -> Any:
        """The policy the model names: an ``LLMPolicy`` on a local folder, or a ``ServedPolicy``."""
        if is_served(self.model):
            from rewardgym.agents.llm.served import ServedPolicy

            prompt = dataclasses.replace(
                self.prompt, max_prompt_tokens=self.served.max_prompt_tokens
            )
            return ServedPolicy.from_spec(
                self.model, prompt, self.sampling, self.served, seed=self.seed
            )
        from rewardgym.agents.llm.policy import LLMPolicy
        from rewardgym.pretrained import resolve_model

        path = resolve_model(self.model)
        if not (path / "config.json").is_file():
            raise FileNotFoundError(
                f"--model {self.model!r}: no config.json there; name a model folder (e.g. "
                "runs/sft/model) or a served model, openai:URL[#model]"
            )
        return LLMPolicy.from_path(path, self.prompt, self.sampling, seed=self.seed)

    def run(self) -> None:
        """Load the model, read the split's steps, generate, score, print the table."""
        from rich.console import Console

        from rewardgym.agents.evaluation.shopping import complete_and_score
        from rewardgym.agents.llm.dataset import split_sessions, step_rows
        from rewardgym.atomic import write_json_atomic
        from rewardgym.benchmarks.shop.report import build_rows
        from rewardgym.outputs import atomic_output, prepare_output

        if self.out is not None:
            prepare_output(self.out, OUTPUT_KIND, overwrite=self.overwrite)
        policy = self.policy()
        env_split, positions = split_sessions(
            self.data, self.split, validation_fraction=self.validation_fraction
        )
        rows = step_rows(
            policy.prompts,
            data=self.data,
            split=env_split,
            env_kwargs=policy.env_kwargs(),
            sessions=positions[: self.sessions],
            progress=False,
            action_first=policy.prompt_config.action_first,
        )
        result, texts = complete_and_score(policy, rows, self.sampling.decoding)
        name = Path(self.model).name if not is_served(self.model) else self.model
        (row,) = build_rows(
            {name: [result.records]}, [], [name], self.protocol, samples=self.samples
        )
        text = table(row)
        title = (
            f"{self.model} on the {self.split} split ({len(positions[: self.sessions])} "
            f"sessions), {self.sampling.decoding} decoding, {self.protocol} protocol"
        )
        Console(soft_wrap=True).print(f"{title}\n\n{text}", markup=False, highlight=False)
        if self.out is None:
            return
        options = json.loads(json.dumps(dataclasses.asdict(self), default=str))
        record = {
            "model": self.model,
            "split": self.split,
            "sessions": len(positions[: self.sessions]),
            "options": options,
            "metrics": row,
            "steps": step_records(result.records, texts, self.protocol),
        }
        with atomic_output(self.out, OUTPUT_KIND, overwrite=self.overwrite) as tmp:
            write_json_atomic(tmp / "eval.json", record)
            (tmp / "eval.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")


__all__ = ["OUTPUT_KIND", "EvalShop", "step_records", "table"]
