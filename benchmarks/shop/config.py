"""Settings of ``rewardgym bench shop``: the suite's config and its presets.

``demo`` runs the lookup, SFT and Shop-R1 rows for ``make demo``, ``tiny`` is a smoke test of the
plumbing, ``quick`` for 2 CPU cores, ``cpu`` carries the suite's claims on 2 CPU cores (main
rows on two seeds, GRPO long enough to move a row), ``smol`` runs SFT + GRPO with LoRA
(rank 16) on the pretrained SmolLM2-135M-Instruct (meant for a GPU), ``paper`` is a GPU run with
Shop-R1's hyperparameters (arXiv 2507.17842, Sec. 4). Every setting of a preset was chosen on the
validation split (carved from the training sessions), never on test: see ``docs/llm_agents.md``
("Choosing settings") for the sweeps behind the quick preset. The main row's evaluation
temperature is chosen inside each run, on the validation split.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Literal

import tyro

from rewardgym.agents.evaluation.shopping import Protocol
from rewardgym.agents.llm.config import (
    GRPORunConfig,
    ModelConfig,
    PromptConfig,
    SamplingConfig,
    SFTRunConfig,
)
from rewardgym.agents.llm.dataset import VALIDATION_FRACTION
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, Range, check_fields
from rewardgym.wrappers.shop_r1 import ShopR1Config

SHARE = Range(gt=0, lt=1, what="a share")
"""A share of the training sessions strictly between none and all."""

PresetName = Literal["demo", "tiny", "quick", "cpu", "smol", "paper"]
"""The names of :data:`PRESETS`, as a ``Literal`` for tyro's choices (a test keeps both equal)."""


CONSTRAINED_SUFFIX = "/constrained"
"""A row scored with decoding constrained to each page's actions is named ``METHOD/constrained``."""


def constrained_name(method: str) -> str:
    """The name of ``method``'s row scored with constrained decoding."""
    return method + CONSTRAINED_SUFFIX


@dataclass(frozen=True)
class BenchConfig:
    """Everything ``rewardgym bench shop`` needs: model, prompt, training runs, evaluation sizes."""

    name: Annotated[str, tyro.conf.Suppress] = "quick"
    """Preset name, recorded in results.json."""
    model: str | None = None
    """A named pretrained model (smollm2-135m) or a local Hugging Face folder; None builds
    the default small model (tokenizer trained on the corpus, weights from scratch)."""
    default_model: ModelConfig = field(default_factory=ModelConfig)
    """The default model's size (ignored when model is set)."""
    prompt: PromptConfig = field(default_factory=PromptConfig)
    """Prompt construction."""
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    """Evaluation sampling (its temperature is replaced by the one chosen on validation)."""
    sft: SFTRunConfig = field(default_factory=SFTRunConfig)
    """The SFT cold start shared by every SFT row."""
    grpo: GRPORunConfig = field(default_factory=GRPORunConfig)
    """Every GRPO row's run."""
    reward: ShopR1Config = field(default_factory=ShopR1Config)
    """The Shop-R1 reward the GRPO rows train with (defaults: the paper's weights): shop-r1 uses
    it as it is, each ablation row changes the one term it removes, the rl-binary rows reduce it
    to the exact-match term. results.json records every weight of each row's reward."""
    protocol: Protocol = "natural"
    """Which protocol the headline tables use: natural (every test step, the corpus's mix)
    or paper (first steps given as context, class-balanced steps, similar typed text counts
    as exact; Shop-R1 Sec. 4.1). Both are always computed and reported."""
    train_sessions: Annotated[int, AT_LEAST_1] | None = None
    """Training sessions read into prompt-completion rows; None reads them all."""
    validation_fraction: Annotated[float, SHARE] = VALIDATION_FRACTION
    """Share of the training sessions held out as the validation split."""
    validation_sessions: Annotated[int, AT_LEAST_1] | None = 40
    """Validation sessions scored when choosing the temperature (None: all of them)."""
    eval_sessions: Annotated[int, AT_LEAST_1] | None = None
    """Test sessions scored for the main rows and the baselines; None scores the whole split."""
    ablation_eval_sessions: Annotated[int, AT_LEAST_1] | None = None
    """Test sessions scored for the ablation and temperature rows (the first of the main rows'
    sessions); None: as many as the main rows."""
    seeds: tuple[Annotated[int, SEED], ...] = (0,)
    """Training seeds of the main rows; intervals pool every seed's run."""
    ablation_seeds: Annotated[tuple[int, ...], SEED] | None = None
    """Training seeds of the ablation rows; None: the main rows' seeds."""
    split_test_across_seeds: bool = False
    """Main rows: the k-th of n training seeds scores every n-th test session (from the k-th),
    so a row's pooled runs cover each test session once and its interval pools the seeds."""
    eval_seeds: tuple[Annotated[int, SEED], ...] = (0,)
    """Sampling seeds per trained model at evaluation."""
    constrained_rows: bool = True
    """Score every main model row a second time decoding constrained to each page's actions
    (row NAME/constrained: same model, test steps and seeds), beside its free decoding. Free
    decoding is the paper's (its format reward scores whether outputs parse), so GRPO trains
    free either way."""
    temperature_candidates: tuple[Annotated[float, NON_NEGATIVE], ...] = (0.6,)
    """Evaluation temperatures tried on the validation split with the first seed's SFT model;
    the best (by exact match) is the main rows' temperature."""
    temperatures: tuple[Annotated[float, NON_NEGATIVE], ...] = (0.2, 1.0)
    """The Shop-R1 model's temperature sweep rows (reported on test, chosen on nothing)."""
    separate_latest_sft: bool = False
    """Train a separate SFT model on latest-page prompts for the latest-context row."""
    stop_when_unparsable: bool = True
    """Stop the run when the first seed's SFT model has no validation output that parses (a
    wrecked model), instead of reporting rows of zeros."""
    baselines: bool = True
    """Score the baselines (frequency, random, always-terminate, first-element) as rows, and on
    the embedded synthetic corpus the reference rows (shopper-argmax, shopper-resample)."""
    reference_resamples: Annotated[int, AT_LEAST_1] = 1000
    """Fresh draws of the synthetic shopper per test step behind reference/shopper-argmax."""
    train_workers: Annotated[int, AT_LEAST_1] = 1
    """Processes that train the models (one torch thread each) before evaluation; 1 trains in
    this process. Training seeds and GRPO rows run side by side, each once its start is trained."""
    bootstrap_samples: Annotated[int, AT_LEAST_1] = 2000
    """Bootstrap resamples of the test sessions behind every 95% interval."""
    rows: Annotated[tuple[str, ...] | None, tyro.conf.Suppress] = None
    """The rows this preset runs when --only is not given (None: every row)."""
    smoke_test: Annotated[bool, tyro.conf.Suppress] = False
    """A preset that only checks the plumbing (its models train for seconds): the report marks
    its model rows as a smoke test, not a result."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range (sizes that score nothing), no seed, and a
        default-model tokenizer option beside a named model."""
        check_fields(self)
        for name in ("seeds", "eval_seeds", "temperature_candidates"):
            if not getattr(self, name):
                raise ValueError(f"BenchConfig.{name} is empty: give at least one value")
        if self.model is not None and self.default_model.split_names:
            raise ValueError(
                "BenchConfig.default_model.split_names=True shapes the default model's "
                f"tokenizer, but model={self.model!r} brings its own: unset one of them"
            )

    def replace(self, **changes: object) -> BenchConfig:
        """A copy with top-level fields changed (and checked), as ``EmbodiedBenchConfig.replace``."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def _quick() -> BenchConfig:
    return BenchConfig(
        name="quick",
        default_model=ModelConfig(
            vocab_size=4096,
            hidden_size=192,
            intermediate_size=512,
            tokenizer_sessions=300,
        ),
        # The action before the rationale: chosen on validation over 3 seeds, +3.3 [+1.2, +5.1]
        # points of exact match over the rationale-first order, paired (docs/results/
        # shop-sweep-recipe-pairs.md; split names and the lookup hint: noise; issue 50)
        prompt=PromptConfig(max_prompt_tokens=384, instructions=False, action_first=True),
        sampling=SamplingConfig(max_new_tokens=64, batch_size=64),
        # Every training row at 1e-3 (the cpu recipe), not 1,200 rows at 2e-3: at that size the
        # model's action type is its training marginal whatever the page or rationale (P(terminate)
        # 0.11 on a thank-you page after the gold "Order placed, I'm done shopping."), so decoding
        # at the chosen 0.2 never ends a session (issue 50). About 3.3x the SFT time.
        sft=SFTRunConfig(
            epochs=1.0,
            learning_rate=1e-3,
            pretrained_learning_rate=5e-5,
            warmup_ratio=0.05,
        ),
        grpo=GRPORunConfig(
            steps=6,
            learning_rate=1e-4,
            pretrained_learning_rate=1e-6,
            beta=0.0,
            num_generations=6,
            prompts_per_step=2,
            max_completion_tokens=64,
            save_steps=100,
        ),
        train_sessions=400,
        validation_sessions=24,
        eval_sessions=100,
        ablation_eval_sessions=16,
        seeds=(0, 1),
        ablation_seeds=(0,),
        split_test_across_seeds=True,
        temperature_candidates=(0.2, 0.6),
        temperatures=(0.6, 1.0),
        train_workers=2,
    )


def _cpu() -> BenchConfig:
    """The quick preset's model and recipe sized to carry the suite's claims on 2 CPU cores, no GPU.

    Main rows on training seeds 0 and 1 (each scoring half of 200 test sessions, about 1,970
    steps per row), ablation and temperature rows on seed 0 (40 test sessions, about 390 steps),
    GRPO long enough to move a row (80 steps of 2 prompts x 8 completions, 1,280 completions a
    run; quick: 72), every model trained in two processes of one thread each.

    Sizing, from measured rates (docs/results/shop-demo.md, two threads: 6 GRPO steps x 12
    completions in 7.8 s, 0.11 s a completion, 951 evaluation completions in 24.3 s, 39 a
    second, 456 sessions prompted in 15.2 s; docs/llm_agents.md: SFT at 19 examples a second on
    one thread; issue 21: the shopper reference, 12 s per 100 sessions at 1,000 draws), taking
    one thread at 0.15 s a GRPO completion:

    * GRPO: 14 runs (3 main rows x 2 seeds + 8 ablations) x 1,280 completions x 0.15 s =
      2,690 process-seconds, over 2 workers 1,345 s;
    * SFT on every training row (about 3,900) at learning rate 1e-3, the recipe the validation
      sweeps chose (docs/results/shop-sweep-quick.md, shop-sweep-sessions.md and
      shop-sweep-recipe.md), 2 seeds side by side at 17 a second: 230 s;
    * evaluation: 5 main rows x 1,970 + 10 rows x 390 + 40 validation sessions x 2
      temperatures x 390 steps = 14,530 completions / 39 a second: 373 s;
    * prompts: (400 train + 40 validation + 200 test sessions) x 2 contexts in this process
      and 400 train sessions x 2 contexts per worker, 2,880 sessions x 0.033 s: 96 s;
    * references on 200 sessions 25 s, base models 12 s, worker start-up 30 s;
    * ``sft/persona``: one more SFT cold start (seed 0, every training row, 230
      process-seconds, beside the other trainings) and its 390 test steps, about 2 min.

    About 2,110 s (35 min) alone on the cores: the 75-minute budget leaves 2.1x for a slower
    machine.
    """
    quick = _quick()
    return dataclasses.replace(
        quick,
        name="cpu",
        grpo=dataclasses.replace(quick.grpo, steps=80, num_generations=8, prompts_per_step=2),
        validation_sessions=40,
        eval_sessions=200,
        ablation_eval_sessions=40,
    )


def _demo() -> BenchConfig:
    """The rows that carry the suite's finding at a size for ``make demo``.

    The lookup baseline, SFT and Shop-R1 on the quick preset's model, prompt and GRPO settings:
    one seed, 40 test sessions, no ablations. SFT keeps the
    1,200-row recipe at 2e-3 that fits ``make demo``'s 10 minutes (quick's every-row SFT would
    take about 3.3x as long); at that size the model's action type is its training marginal,
    so the demo's policies seldom end a session (shop-demo.md: SFT predicts terminate on 1.0% of
    steps; issue 50): the demo shows the pipeline, the quick and cpu presets carry the findings.
    """
    quick = _quick()
    return dataclasses.replace(
        quick,
        name="demo",
        sft=dataclasses.replace(quick.sft, max_examples=1200, learning_rate=2e-3),
        validation_sessions=16,
        eval_sessions=40,
        ablation_eval_sessions=None,
        seeds=(0,),
        ablation_seeds=None,
        split_test_across_seeds=False,
        temperature_candidates=(0.6,),
        bootstrap_samples=1000,
        rows=("baseline/frequency", "baseline/random", "sft", "shop-r1"),
    )


def _tiny() -> BenchConfig:
    return BenchConfig(
        name="tiny",
        default_model=ModelConfig(
            vocab_size=1024,
            hidden_size=32,
            num_layers=1,
            num_heads=2,
            num_kv_heads=1,
            intermediate_size=64,
            max_positions=512,
            tokenizer_sessions=30,
        ),
        prompt=PromptConfig(max_prompt_tokens=224),
        sampling=SamplingConfig(max_new_tokens=24, batch_size=32),
        sft=SFTRunConfig(
            epochs=1.0,
            learning_rate=1e-2,
            pretrained_learning_rate=1e-5,
            max_examples=64,
        ),
        grpo=GRPORunConfig(
            steps=2,
            learning_rate=1e-4,
            pretrained_learning_rate=1e-6,
            num_generations=2,
            prompts_per_step=2,
            max_completion_tokens=24,
            save_steps=2,
        ),
        train_sessions=12,
        validation_fraction=0.2,
        validation_sessions=2,
        eval_sessions=2,
        ablation_eval_sessions=2,
        temperatures=(1.0,),
        stop_when_unparsable=False,
        bootstrap_samples=200,
        smoke_test=True,
    )


def _smol() -> BenchConfig:
    """SmolLM2-135M-Instruct (meant for a GPU): SFT and GRPO train LoRA adapters of rank 16
    (alpha 32) on every linear layer but the LM head, merged into the saved models."""
    return BenchConfig(
        name="smol",
        model="smollm2-135m",
        prompt=PromptConfig(max_prompt_tokens=1024),
        sampling=SamplingConfig(max_new_tokens=96, batch_size=32),
        sft=SFTRunConfig(
            epochs=2.0,
            learning_rate=2e-3,
            pretrained_learning_rate=5e-5,
            batch_size=16,
            max_examples=8000,
            lora_rank=16,
        ),
        grpo=GRPORunConfig(
            steps=100,
            learning_rate=2e-5,
            pretrained_learning_rate=1e-6,
            max_completion_tokens=96,
            lora_rank=16,
        ),
        eval_sessions=200,
        ablation_eval_sessions=80,
        seeds=(0, 1),
        ablation_seeds=(0,),
        temperature_candidates=(0.2, 0.6),
    )


def _paper() -> BenchConfig:
    return BenchConfig(
        name="paper",
        prompt=PromptConfig(context="session", max_prompt_tokens=30_000),
        sampling=SamplingConfig(max_new_tokens=256, batch_size=64),
        sft=SFTRunConfig(),
        grpo=GRPORunConfig(max_completion_tokens=256),
        seeds=(0, 1, 2),
        temperature_candidates=(0.2, 0.6, 1.0),
        temperatures=(0.2, 0.4, 0.8, 1.0),
        separate_latest_sft=True,
    )


PRESETS: dict[str, BenchConfig] = {
    "demo": _demo(),
    "tiny": _tiny(),
    "quick": _quick(),
    "cpu": _cpu(),
    "smol": _smol(),
    "paper": _paper(),
}
"""The suite's named configs: ``demo`` (the main rows for ``make demo``), ``tiny`` (tests),
``quick`` (2 CPU cores), ``cpu`` (the claims on 2 CPU cores: two seeds, longer GRPO), ``smol``
(SmolLM2-135M-Instruct, GPU), ``paper`` (Shop-R1's hyperparameters, GPU)."""


def preset(name: str) -> BenchConfig:
    """The named preset (see :data:`PRESETS`)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; expected one of {tuple(PRESETS)}")
    return PRESETS[name]


__all__ = [
    "CONSTRAINED_SUFFIX",
    "PRESETS",
    "BenchConfig",
    "PresetName",
    "constrained_name",
    "preset",
]
