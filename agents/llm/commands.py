"""``rewardgym train sft`` and ``rewardgym train grpo``: train the LLM shopper policy on session logs.

Kept light at import time: torch, transformers and TRL load only when a command runs. The
options are the library's configs, flattened (``SFTRunConfig`` or ``GRPORunConfig``, and
``PromptConfig``), so each default lives in one place. Both commands train on the suite's
training split (:func:`~rewardgym.agents.llm.dataset.split_sessions`: the env's training
sessions less the hashed validation share), so ``bench shop``'s validation and test sessions stay
unseen. The inputs (model folder, data, numbers, reward) are checked before OUT is claimed.
OUT is a marked output directory (``rewardgym.outputs.claim_output``) holding ``model/`` (the
trained model, a plain transformers folder that ``load_model`` reads, renamed into place whole),
``config.json`` (the options, and the start model and its kind; written once the model is, so
it always describes the model beside it) and ``trainer/`` (TRL's working files; GRPO resumes a
run of the same options from its last complete checkpoint, and starts over otherwise).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import tyro

from rewardgym.agents.llm.config import (
    GRPORunConfig,
    ModelConfig,
    ModelKind,
    PromptConfig,
    SamplingConfig,
    SFTRunConfig,
)
from rewardgym.agents.llm.dataset import VALIDATION_FRACTION
from rewardgym.bounds import AT_LEAST_1, Range, check_fields
from rewardgym.errors import UserError
from rewardgym.wrappers.shop_r1 import reward_config

if TYPE_CHECKING:
    from rewardgym.agents.llm.dataset import StepRow
    from rewardgym.agents.llm.prompt import Lookup

SFT_KIND = "train-sft"
"""The kind of a ``train sft --out`` directory (its ``.rewardgym-output.json`` marker)."""

GRPO_KIND = "train-grpo"
"""The kind of a ``train grpo --out`` directory."""

CONFIG_FILE = "config.json"
"""The options a run trained with, beside its ``model/`` folder (written with the model)."""

RUN_FILE = "run.json"
"""In ``train grpo``'s ``trainer/``: the options of the run its checkpoints belong to."""


@dataclass(frozen=True)
class SessionOptions:
    """Which sessions a command trains on: the data, and how much of its training split."""

    data: str | None = None
    """Session data: JSONL, Parquet, store or OPeRA directory (default: the embedded corpus)."""
    train_sessions: Annotated[int, AT_LEAST_1] | None = None
    """Read only the first this many training sessions (None: all of them)."""
    validation_fraction: Annotated[float, Range(ge=0, lt=1)] = VALIDATION_FRACTION
    """Share of the env's training sessions held out (bench shop's validation split; 0 trains
    on every training session)."""

    def __post_init__(self) -> None:
        """Refuse numbers out of range, naming the option."""
        check_fields(self)

    def positions(self) -> list[int]:
        """Positions, in the env's training split, of the sessions trained on."""
        from rewardgym.agents.llm.dataset import split_sessions

        _, positions = split_sessions(
            self.data, "train", validation_fraction=self.validation_fraction
        )
        return positions[: self.train_sessions]

    def lookup(self) -> Lookup:
        """The lookup a ``lookup_hint`` prompt states: ``baseline/frequency`` fitted on the
        sessions trained on (never validation or test), as ``bench shop`` fits it."""
        from rewardgym.agents.baselines.shop import FrequencyAgent
        from rewardgym.envs.shopping.session_sources import resolve_sessions

        log, train = resolve_sessions(self.data, "train")
        return FrequencyAgent().fit(log.session(train[k]) for k in self.positions()).predict

    def rows(self, model: Path, prompt: PromptConfig) -> list[StepRow]:
        """Every step of the training sessions as rows, prompted for ``model``'s tokenizer
        (with the lookup's line when ``prompt.lookup_hint`` asks for it)."""
        from rewardgym.agents.llm.dataset import step_rows
        from rewardgym.agents.llm.model import load_tokenizer
        from rewardgym.agents.llm.prompt import PromptBuilder

        lookup = self.lookup() if prompt.lookup_hint else None
        builder = PromptBuilder(load_tokenizer(model), prompt, lookup)
        return step_rows(
            builder,
            data=self.data,
            split="train",
            env_kwargs=builder.env_kwargs(),
            sessions=self.positions(),
            progress=False,
            action_first=prompt.action_first,
        )


def recorded_run(model: Path) -> dict[str, Any] | None:
    """The ``config.json`` that ``train sft``/``train grpo`` wrote beside the model it saved at
    ``model`` (its options, start model and kind); None for any other folder. A damaged record
    is refused, naming the file."""
    from rewardgym.outputs import owner

    found = owner(model.parent)
    record = model.parent / CONFIG_FILE
    if found is None or found.get("kind") not in (SFT_KIND, GRPO_KIND) or not record.is_file():
        return None
    try:
        value = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("options", {}), dict):
        raise UserError(
            f"{record}: not the JSON record of the run that trained the model beside it; "
            "train it again, or copy model/ elsewhere and name that folder"
        )
    return value


def recorded_kind(model: Path) -> ModelKind:
    """The kind ``train sft``/``train grpo`` recorded for the model it saved at ``model``;
    ``pretrained`` for any other folder. A damaged record is refused, naming the file."""
    found = recorded_run(model)
    if found is None:
        return "pretrained"
    kind = found.get("model_kind")
    if kind not in ("scratch", "pretrained"):
        raise UserError(
            f"{model.parent / CONFIG_FILE}: no readable model_kind (scratch or pretrained) for "
            "the model beside it; pass --model-kind"
        )
    return cast("ModelKind", kind)


def recorded_prompt(model: Path) -> PromptConfig | None:
    """The prompt options the run that saved ``model`` recorded (:func:`recorded_run`; None
    without them); options that are not a ``PromptConfig``'s are refused, naming the file."""
    found = recorded_run(model)
    options = None if found is None else found.get("options", {}).get("prompt")
    if options is None:
        return None
    try:
        return PromptConfig(**options)
    except (TypeError, ValueError) as err:
        raise UserError(
            f"{model.parent / CONFIG_FILE}: its prompt options are not PromptConfig's ({err}); "
            "pass --no-recorded-prompt and give the prompt options"
        ) from err


def record(command: Any, start: Path, kind: ModelKind) -> dict[str, Any]:
    """The JSON of ``config.json``: every option, the start model and its kind."""
    options = dataclasses.asdict(command)
    return {
        "options": json.loads(json.dumps(options, default=str)),
        "start_model": str(start),
        "model_kind": kind,
    }


def start_over_unless(out: Path, run: dict[str, Any]) -> None:
    """Keep ``out/trainer``'s checkpoints only when a run of the same options (``run``) wrote them.

    Otherwise they and the data-order log go, so that ``train grpo --overwrite`` with other
    options (another --model, --steps, --reward...) starts over instead of resuming another
    run's weights; ``run`` is then recorded as the options the checkpoints belong to.
    """
    from rewardgym.agents.llm.grpo import ORDER_LOG
    from rewardgym.atomic import remove_tree, write_json_atomic

    trainer = out / "trainer"
    try:
        previous = json.loads((trainer / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    if previous == run:
        return
    if trainer.exists():  # moved aside first: a kill mid-removal leaves no half checkpoint
        remove_tree(trainer)
    (out / ORDER_LOG).unlink(missing_ok=True)
    write_json_atomic(trainer / RUN_FILE, run)


@dataclass(frozen=True)
class TrainSFT:
    """Fine-tune a model on the sessions' steps (context -> rationale + action JSON); save it to OUT."""

    out: Path
    """Directory of the run: model/ (the trained model), config.json and trainer/ (new or
    empty, or an earlier train sft output with --overwrite)."""
    model: Path | None = None
    """A local model folder (save_pretrained; safetensors). None: build the default model from
    scratch (its tokenizer trained on the training sessions) into OUT/base."""
    model_kind: ModelKind | None = None
    """scratch or pretrained: picks the learning rate and gradient checkpointing. None:
    scratch for the default model, the recorded kind for a train sft/grpo model, else pretrained."""
    sessions: Annotated[SessionOptions, tyro.conf.arg(name="")] = field(
        default_factory=SessionOptions
    )
    sft: Annotated[SFTRunConfig, tyro.conf.arg(name="")] = field(default_factory=SFTRunConfig)
    prompt: Annotated[PromptConfig, tyro.conf.arg(name="")] = field(default_factory=PromptConfig)
    default_model: ModelConfig = field(default_factory=ModelConfig)
    """Size of the default model (used only without --model)."""
    max_completion_tokens: Annotated[int, AT_LEAST_1] = SamplingConfig.max_new_tokens
    """Completion budget in tokens: a training example is cut at the prompt's budget plus this."""
    overwrite: bool = False
    """Replace OUT when it is an earlier train sft output (model/ and config.json are replaced
    only once training succeeded)."""

    def __post_init__(self) -> None:
        """Refuse numbers out of range, naming the option."""
        check_fields(self)

    def sft_config(self) -> SFTRunConfig:
        """The ``SFTRunConfig`` this command trains with."""
        return self.sft

    def kind(self) -> ModelKind:
        """The model's kind (the option, else decided as its help says)."""
        if self.model_kind is not None:
            return self.model_kind
        return "scratch" if self.model is None else recorded_kind(self.model)

    def run(self) -> None:
        """Claim OUT, build or read the start model, train on the training split, save it."""
        from rewardgym.outputs import releases_outputs

        releases_outputs(self._run)()

    def _run(self) -> None:
        from rich.console import Console

        from rewardgym.agents.llm.dataset import sample_rows, to_dataset
        from rewardgym.agents.llm.model import check_model_folder
        from rewardgym.agents.llm.sft import train_sft
        from rewardgym.atomic import write_json_atomic
        from rewardgym.outputs import claim_output, prepare_output

        # OUT is checked first (a folder of the user's is refused at once), then the inputs,
        # and only then claimed: a bad input leaves no claimed OUT behind to refuse the rerun.
        prepare_output(self.out, SFT_KIND, overwrite=self.overwrite)
        if self.model is not None:
            check_model_folder(self.model)
        kind = self.kind()
        self.sessions.positions()
        out = claim_output(self.out, SFT_KIND, overwrite=self.overwrite)
        start = self.model if self.model is not None else self.build_default(out / "base")
        rows = self.sessions.rows(start, self.prompt)
        rows = sample_rows(rows, self.sft.max_examples, self.sft.seed)
        result = train_sft(
            start,
            to_dataset(rows),
            out,
            self.sft,
            max_length=self.prompt.max_prompt_tokens + self.max_completion_tokens,
            model_kind=kind,
            run="train sft",
        )
        write_json_atomic(out / CONFIG_FILE, record(self, start, kind))
        Console(soft_wrap=True).print(
            f"SFT trained {result.steps} steps on {len(rows)} examples in {result.seconds:.0f} s "
            f"(loss {result.first_loss:.3f} -> {result.last_loss:.3f}); saved to {result.path}",
            markup=False,
            highlight=False,
        )

    def build_default(self, path: Path) -> Path:
        """The default model with its tokenizer trained on the training sessions, saved at ``path``."""
        from rewardgym.agents.llm.model import create_default_model
        from rewardgym.envs.shopping.session_sources import resolve_sessions

        store, train = resolve_sessions(self.sessions.data, "train")
        sessions = [train[k] for k in self.sessions.positions()]
        return create_default_model(path, store, sessions, self.default_model, seed=self.sft.seed)


@dataclass(frozen=True)
class TrainGRPO:
    """Train MODEL with GRPO against a registered Shop-R1 reward on the sessions' steps; save it to OUT."""

    model: Path
    """The start model's folder, e.g. OUT/model of a train sft run (it is also the KL reference)."""
    out: Path
    """Directory of the run: model/, config.json and trainer/ (checkpoints; a rerun with
    --overwrite and the same options resumes from the last complete one)."""
    reward: str = "full"
    """The Shop-R1 reward by its registered name (rewardgym.wrappers.shop_r1.REWARDS): full,
    no-format, no-rationale, no-dars, binary-action, kang or binary."""
    model_kind: ModelKind | None = None
    """scratch or pretrained: picks the learning rate and gradient checkpointing. None: the
    kind train sft/grpo recorded for MODEL, else pretrained."""
    sessions: Annotated[SessionOptions, tyro.conf.arg(name="")] = field(
        default_factory=SessionOptions
    )
    grpo: Annotated[GRPORunConfig, tyro.conf.arg(name="")] = field(default_factory=GRPORunConfig)
    prompt: Annotated[PromptConfig, tyro.conf.arg(name="")] = field(default_factory=PromptConfig)
    overwrite: bool = False
    """Take OUT again when it is an earlier train grpo output: with the same options the run
    resumes from its last complete checkpoint before --steps (a killed run goes on, never past
    --steps); with other options it starts over (the old checkpoints are removed). model/ and
    config.json are replaced only once training succeeded."""

    def __post_init__(self) -> None:
        """Refuse a reward name that is not registered, listing the registered ones."""
        reward_config(self.reward)

    def grpo_config(self) -> GRPORunConfig:
        """The ``GRPORunConfig`` this command trains with."""
        return self.grpo

    def run_identity(self, kind: ModelKind) -> dict[str, Any]:
        """What ``trainer/`` records as the run its checkpoints belong to: the options with
        every path resolved (``runs/g`` and ``$PWD/runs/g`` are one run), less --overwrite."""
        data = self.sessions.data
        if data is not None and Path(data).expanduser().exists():
            data = str(Path(data).expanduser().resolve())
        same = dataclasses.replace(
            self,
            model=self.model.expanduser().resolve(),
            out=self.out.expanduser().resolve(),
            sessions=dataclasses.replace(self.sessions, data=data),
            overwrite=False,
        )
        return record(same, same.model, kind)

    def run(self) -> None:
        """Claim OUT, replay the training steps through the reward, train, save the policy."""
        from rewardgym.outputs import releases_outputs

        releases_outputs(self._run)()

    def _run(self) -> None:
        from functools import partial

        from rich.console import Console

        from rewardgym.agents.llm.dataset import sample_rows, to_dataset
        from rewardgym.agents.llm.grpo import GRPOOptions, ReplayEnv, train_grpo
        from rewardgym.agents.llm.model import check_model_folder
        from rewardgym.atomic import write_json_atomic
        from rewardgym.outputs import claim_output, prepare_output
        from rewardgym.wrappers.shop_r1 import ShopR1Reward

        # OUT is checked first (a folder of the user's is refused at once), then every input
        # (the model, the data, the prompts built from them), and only then claimed and an
        # earlier run's checkpoints removed: a bad input leaves OUT as it was.
        prepare_output(self.out, GRPO_KIND, overwrite=self.overwrite)
        check_model_folder(self.model)
        kind = self.model_kind if self.model_kind is not None else recorded_kind(self.model)
        rows = self.sessions.rows(self.model, self.prompt)
        rows = sample_rows(rows, self.grpo.max_examples, self.grpo.seed)
        # The reward reads info["truth"], not the context: the replay env renders the latest
        # page (and resolves element ids when the prompt lists them), as bench shop does.
        replay = {"context": "latest", "element_ids": self.prompt.element_ids}
        env = ReplayEnv(to_dataset(rows), self.sessions.data, replay)
        wrapper = partial(ShopR1Reward, config=reward_config(self.reward))
        options = GRPOOptions(desc="train grpo", model_kind=kind)
        out = claim_output(self.out, GRPO_KIND, overwrite=self.overwrite)
        start_over_unless(out, self.run_identity(kind))
        result = train_grpo(self.model, env, out, wrapper, self.grpo, options)
        write_json_atomic(out / CONFIG_FILE, record(self, self.model, kind))
        rewards = result.series("reward")
        trend = f" (reward {rewards[0]:.3f} -> {rewards[-1]:.3f})" if rewards else ""
        Console(soft_wrap=True).print(
            f"GRPO with the {self.reward} reward trained {result.steps} steps on {len(rows)} "
            f"prompts in {result.seconds:.0f} s{trend}; saved to {result.path}",
            markup=False,
            highlight=False,
        )


__all__ = [
    "CONFIG_FILE",
    "GRPO_KIND",
    "RUN_FILE",
    "SFT_KIND",
    "SessionOptions",
    "TrainGRPO",
    "TrainSFT",
    "recorded_kind",
    "recorded_prompt",
    "recorded_run",
    "start_over_unless",
]
