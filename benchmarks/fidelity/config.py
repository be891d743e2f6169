"""Settings of ``rewardgym bench fidelity``: the suite's config and its presets.

``demo`` runs the ground truth, its noise floor and the baselines on every store change with
200 intents per store (no learned simulator; its recorded run: ``docs/results/fidelity-demo.md``),
``tiny`` is for tests, ``quick`` adds the learned simulators trained by the shop suite's quick
preset with a smaller default model (its learned rows dominate its time: the arithmetic above
``PRESETS["quick"]`` and ``docs/live_store.md``), ``paper`` is for a GPU (more visits, the shop
suite's own quick models).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import tyro

from rewardgym.agents.llm.config import Decoding, ModelConfig
from rewardgym.agents.llm.served import ServedConfig, parse_served
from rewardgym.agents.simulation.config import FIRST_HELD_OUT_INTENT
from rewardgym.agents.simulation.policies import BASELINE_NAMES
from rewardgym.benchmarks.shop.config import BenchConfig
from rewardgym.benchmarks.shop.config import preset as shop_preset
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, Range, check_fields
from rewardgym.envs.shopping.synthetic.variants import STORE_CHANGES, VARIANT_NAMES, VariantName

if TYPE_CHECKING:
    from rewardgym.benchmarks.shop.plan import Plan

PresetName = Literal["demo", "tiny", "quick", "paper"]
"""The names of :data:`PRESETS`, as a ``Literal`` for tyro's choices (a test keeps both equal)."""


@dataclass(frozen=True)
class FidelityBenchConfig:
    """Which simulators visit which stores, how many times, and where the learned simulators come from."""

    name: Annotated[str, tyro.conf.Suppress] = "quick"
    """Preset name, recorded in results.json."""
    visits: Annotated[int, Range(ge=2)] = 800
    """Visits per store for the ground truth, its other seeds and the baselines (the same intents everywhere)."""
    llm_visits: Annotated[int, Range(ge=2)] = 16
    """Visits per store for each learned simulator (the first llm_visits of the same intents;
    the noise floor and baselines are also scored on them). Default: sized so that the quick
    preset's three learned rows fit its 30-minute budget on 2 cores (docs/live_store.md)."""
    first_intent: Annotated[int, NON_NEGATIVE] = FIRST_HELD_OUT_INTENT
    """First held-out intent; intents first_intent ... + visits - 1 visit every store."""
    variants: tuple[VariantName, ...] = STORE_CHANGES
    """Store changes, each an A/B test against the base store (default: all 20; see docs/live_store.md for why so many)."""
    noise_seeds: tuple[Annotated[int, SEED], ...] = (1, 2)
    """Seeds of the ground-truth shopper against itself (the noise floor rows)."""
    baselines: tuple[str, ...] = ("random", "always-terminate", "first-element", "frequency")
    """Baseline simulators, any of: random, always-terminate, first-element, frequency."""
    shop_rows: tuple[str, ...] = ("sft", "shop-r1")
    """Rows of the shop suite whose models visit the store as learned simulators, any of:
    zero-shot, rl-binary, sft, sft+rl-binary, shop-r1 (or another bench shop --only row); none
    when given no value."""
    shop: BenchConfig = field(default_factory=lambda: _quick_shop())
    """The shop-suite config that trains those models (when shop_run is not given): its model, prompt, sampling, SFT and GRPO runs; its first seed."""
    shop_run: Path | None = None
    """An earlier rewardgym bench shop output directory whose trained models (and chosen temperature) to reuse instead; shop must be the config it ran."""
    served: tuple[str, ...] = ()
    """Simulators served elsewhere, each openai:URL[#model] (vLLM, transformers serve), visiting as learned rows served/<model>."""
    served_client: ServedConfig = field(default_factory=ServedConfig)
    """How the served simulators are asked (key variable, endpoint, concurrency, timeouts, cache)."""
    decoding: Decoding = "constrained"
    """How the learned simulators decode: constrained to each page's actions (every output
    parses, so every visit runs until the simulator ends it or max_steps does), or free (the
    model's raw text, whose unparsed outputs end nothing and leave the page as it is)."""
    live_grpo: bool = True
    """Add the row trained with multi-turn GRPO on ShopStore-v0 (from the SFT model, at the shop config's GRPO budget)."""
    live_turns: Annotated[int, AT_LEAST_1] = 4
    """Deepest turn a live-store GRPO group is sampled at (its earlier turns are the policy's own)."""
    max_steps: Annotated[int, Range(ge=2)] = 20
    """Every visit (ground truth included) is cut after this many steps; 0.4% of ground-truth sessions are longer."""
    n_boot: Annotated[int, AT_LEAST_1] = 500
    """Bootstrap resamples of every interval."""
    seed: Annotated[int, SEED] = 0
    """Seed of the bootstrap and of the learned simulators' sampling."""
    batch_size: Annotated[int, AT_LEAST_1] = 2048
    """Visits open at once over every store (each turn one batched policy call answers them all; a visit that ends makes room for the next)."""

    def __post_init__(self) -> None:
        """Refuse values outside their meaningful range, naming the field."""
        check_fields(self)
        if not 2 <= self.llm_visits <= self.visits:
            raise ValueError(
                "FidelityBenchConfig needs 2 <= llm_visits <= visits "
                f"(got {self.llm_visits} and {self.visits})"
            )
        if self.max_steps < 2 or self.live_turns < 1:
            raise ValueError(
                "FidelityBenchConfig needs max_steps >= 2 and live_turns >= 1 "
                f"(got {self.max_steps} and {self.live_turns})"
            )
        if not self.variants:
            raise ValueError("FidelityBenchConfig.variants must name at least one store change")
        changes = tuple(name for name in VARIANT_NAMES if name != "base")
        _check_names("variants", self.variants, changes)
        _check_names("baselines", self.baselines, BASELINE_NAMES)
        if self.shop_rows:
            from rewardgym.benchmarks.shop.plan import methods

            _check_names("shop_rows", self.shop_rows, tuple(m.method for m in methods(self.shop)))
            self.shop_plan()  # a row whose start is not among shop_rows is refused here
        for spec in self.served:
            parse_served(spec, "FidelityBenchConfig.served (--served)")
        if self.shop_run is not None and not Path(self.shop_run).is_dir():
            raise ValueError(
                f"FidelityBenchConfig.shop_run (--shop-run) {str(self.shop_run)!r} is not a "
                "directory: name the --out folder of an earlier rewardgym bench shop run"
            )

    def shop_plan(self) -> Plan:
        """The shop suite's plan of ``sft`` and the ``shop_rows`` on the shop config's first seed."""
        from rewardgym.benchmarks.shop.plan import methods, plan_rows

        rows = [m for m in methods(self.shop) if m.method in ("sft", *self.shop_rows)]
        option = "FidelityBenchConfig.shop_rows (--shop-rows)"
        return plan_rows(self.shop, rows, seeds=self.shop.seeds[:1], option=option)


def _check_names(option: str, given: tuple[str, ...], choices: tuple[str, ...]) -> None:
    """Refuse a selector that names something unknown, or one thing twice, listing the choices."""
    unknown = [name for name in given if name not in choices]
    if unknown:
        raise ValueError(
            f"FidelityBenchConfig.{option} (--{option.replace('_', '-')}) has "
            f"{', '.join(map(repr, unknown))}: choose from {', '.join(choices)}"
        )
    if len(set(given)) != len(given):
        raise ValueError(f"FidelityBenchConfig.{option} names one entry twice: {given}")


def _quick_shop() -> BenchConfig:
    """The shop suite's quick preset with a smaller model, so that SFT, GRPO and store visits take less time.

    Its default model (hidden 256) takes 13 minutes of SFT alone on 2 cores; this one is the
    library's default model (``ModelConfig``: width 128) with a vocabulary trained on 200
    sessions, and half the SFT examples.
    """
    quick = shop_preset("quick")
    return dataclasses.replace(
        quick,
        name="fidelity-quick",
        default_model=ModelConfig(
            tokenizer_sessions=200,
        ),
        # the recipe fidelity-quick.md was recorded with (quick's before issue 50 moved it to
        # every row at 1e-3, action first); its re-sizing around simulators that end visits is
        # issue 50 item 4
        prompt=dataclasses.replace(quick.prompt, action_first=False),
        sft=dataclasses.replace(quick.sft, max_examples=1500, learning_rate=2e-3),
        seeds=(0,),
    )


PRESETS: dict[str, FidelityBenchConfig] = {
    # 200 intents a store, not 800: the scripted rows' time is linear in visits, and make demo
    # must fit in 10 minutes with all 21 stores.
    "demo": FidelityBenchConfig(
        name="demo",
        visits=200,
        llm_visits=2,
        shop_rows=(),
        live_grpo=False,
    ),
    "tiny": FidelityBenchConfig(
        name="tiny",
        visits=24,
        llm_visits=6,
        variants=("price-up-20", "half-results"),
        noise_seeds=(1,),
        baselines=("always-terminate", "frequency"),
        shop_rows=("sft",),
        shop=shop_preset("tiny"),
        live_grpo=False,
        n_boot=50,
    ),
    # quick's llm_visits (16, the class default) is sized for <= 25 min on 2 Zen 4 cores (the
    # issue 43 budget: 30), from recorded pages under docs/results/:
    # - learned rows: 3 (sft, shop-r1, shop-r1/live-store), scored one after another in one
    #   process; each steps its visits to all 21 stores together (one batched generation per
    #   turn), no two rows in parallel. CPU per output, one torch thread: 44 ms in full batches
    #   of 64, 57 ms a third full (perf-learned-visits.md). Outputs per visit: 6.9 at the ground
    #   truth's pace (same page), up to 19 for a simulator that never ends its visit (max_steps
    #   20, the first step given); the bound is used, as constrained simulators run long
    #   (issue 43: llm/sft had ended 8 of its 4,200 visits after 19 minutes).
    #   One row: 21 stores x 16 visits x 19 outputs x 0.057 s / 1 process = 364 s (133 s at
    #   6.9 outputs); three rows 1,092 s (396 s).
    # - training (SFT on 1,500 examples, the temperature choice, shop-r1 GRPO and live GRPO, 6
    #   steps each): 98.6 s (fidelity-quick.md).
    # - truth, noise seeds and baselines at 800 visits: 85.3 s over 6 stores (fidelity-demo.md;
    #   76.8 s on fidelity-quick.md), x 21 / 6 stores = 299 s.
    # Total 1,092 + 99 + 299 = 1,490 s = 24.8 min at the bound, 13.2 min at the truth's pace
    # (11.7 min at 44 ms); torch's second thread is uncounted margin for a slower machine.
    "quick": FidelityBenchConfig(),
    "paper": FidelityBenchConfig(
        name="paper",
        visits=5000,
        llm_visits=2000,
        noise_seeds=(1, 2, 3),
        shop=shop_preset("quick"),
        n_boot=2000,
    ),
}


def preset(name: str) -> FidelityBenchConfig:
    """The named preset (``demo``, ``tiny``, ``quick`` or ``paper``)."""
    if name not in PRESETS:
        raise ValueError(f"unknown bench fidelity preset {name!r}; choose one of {tuple(PRESETS)}")
    return PRESETS[name]


__all__ = ["PRESETS", "FidelityBenchConfig", "PresetName", "preset"]
