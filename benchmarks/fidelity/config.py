"""Settings of ``rewardgym bench fidelity``: the suite's config and its presets.

``demo`` runs the ground truth, its noise floor and the baselines on every store change with
200 intents per store (no learned simulator; its recorded run: ``docs/results/fidelity-demo.md``),
``tiny`` is for tests, ``quick`` adds the learned simulator trained by the shop suite's quick
preset, sampled at temperature 1 (its visits dominate its time: the arithmetic above
``PRESETS["quick"]`` and ``docs/live_store.md``), ``paper`` is for a GPU (more visits, the
Shop-R1 and live-store rows too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import tyro

from rewardgym.agents.llm.config import Decoding
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
    llm_visits: Annotated[int, Range(ge=2)] = 400
    """Visits per store for each learned simulator (the first llm_visits of the same intents;
    the noise floor and baselines are also scored on them). Default: the fewest of 100, 200,
    400 and 800 at which the ground truth's conversion effects are significant on at least 5
    of the 20 store changes (docs/live_store.md)."""
    first_intent: Annotated[int, NON_NEGATIVE] = FIRST_HELD_OUT_INTENT
    """First held-out intent; intents first_intent ... + visits - 1 visit every store."""
    variants: tuple[VariantName, ...] = STORE_CHANGES
    """Store changes, each an A/B test against the base store (default: all 20; see docs/live_store.md for why so many)."""
    noise_seeds: tuple[Annotated[int, SEED], ...] = (1, 2)
    """Seeds of the ground-truth shopper against itself (the noise floor rows)."""
    baselines: tuple[str, ...] = ("random", "always-terminate", "first-element", "frequency")
    """Baseline simulators, any of: random, always-terminate, first-element, frequency."""
    shop_rows: tuple[str, ...] = ("sft",)
    """Rows of the shop suite whose models visit the store as learned simulators, any of:
    zero-shot, rl-binary, sft, sft+rl-binary, shop-r1 (or another bench shop --only row); none
    when given no value."""
    shop: BenchConfig = field(default_factory=lambda: shop_preset("quick"))
    """The shop-suite config that trains those models (when shop_run is not given): its model, prompt, sampling, SFT and GRPO runs; its first seed. Default: bench shop's quick preset, so a bench shop --preset quick output serves as shop_run."""
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
    temperature: Annotated[float, Range(gt=0.0)] | None = 1.0
    """Sampling temperature of the learned simulators: 1.0 samples the model's own distribution
    of next actions, as a simulator of many shoppers should; None takes the one the shop suite
    chose on validation for exact match, a near-greedy policy's, which predicts a give-up almost
    nowhere, so its visits run to max_steps (docs/live_store.md)."""
    live_grpo: bool = False
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


PRESETS: dict[str, FidelityBenchConfig] = {
    # 200 intents a store, not 800: the scripted rows' time is linear in visits, and make demo
    # must fit in 10 minutes with all 21 stores.
    "demo": FidelityBenchConfig(
        name="demo",
        visits=200,
        llm_visits=2,
        shop_rows=(),
    ),
    "tiny": FidelityBenchConfig(
        name="tiny",
        visits=24,
        llm_visits=6,
        variants=("price-up-20", "half-results"),
        noise_seeds=(1,),
        baselines=("always-terminate", "frequency"),
        shop=shop_preset("tiny"),
        n_boot=50,
    ),
    # quick (the class defaults) is sized for <= 90 min on 2 cores (issue 50), from measured runs:
    # - llm_visits 400: the fewest tried at which the ground truth's conversion effects are
    #   significant on at least 5 of the 20 store changes (noise-floor runs at 100, 200, 400 and
    #   800 intents: 4, 3, 6 and 11 significant; docs/live_store.md).
    # - one learned row (llm/sft), sampled at temperature 1, which ends almost every visit
    #   before max_steps: sized at 21 stores x 400 visits x 6.75 outputs x 0.057 s (a 24-intent
    #   probe's rate) = 3,230 s; the recorded run (docs/results/fidelity-quick.md, 2 Zen 3
    #   cores alone) took 4,460 s for it, its visits a little longer (8.34 steps on the base
    #   store) and each output a little dearer with 2,048 visits open. A first attempt that
    #   shared the cores with a test run went about five times slower: run it alone.
    #   (batch_size also changes the random baseline's draws, so it stays at 2,048.)
    #   A second row (shop-r1, the live-store row) would double the learned time.
    # - training the quick SFT (every row, 1e-3; no temperature choice at a set temperature):
    #   about 7 min on Zen 3 (417 s of SFT on shop-quick.md), none with shop_run.
    # - truth, noise seeds and baselines at 800 visits: 547 s on Zen 3.
    # Recorded with shop_run: 83.7 min in all, within the 90 the issue allows; without shop_run
    # the SFT training adds about 7 min, just over it.
    "quick": FidelityBenchConfig(),
    "paper": FidelityBenchConfig(
        name="paper",
        visits=5000,
        llm_visits=2000,
        noise_seeds=(1, 2, 3),
        shop_rows=("sft", "shop-r1"),
        live_grpo=True,
        n_boot=2000,
    ),
}


def preset(name: str) -> FidelityBenchConfig:
    """The named preset (``demo``, ``tiny``, ``quick`` or ``paper``)."""
    if name not in PRESETS:
        raise ValueError(f"unknown bench fidelity preset {name!r}; choose one of {tuple(PRESETS)}")
    return PRESETS[name]


__all__ = ["PRESETS", "FidelityBenchConfig", "PresetName", "preset"]
