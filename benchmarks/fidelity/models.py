"""The learned simulators of ``bench fidelity``: the shop suite's SFT and Shop-R1 models, and multi-turn GRPO on the live store.

The SFT and Shop-R1 models are trained by the shop suite's own code
(:class:`rewardgym.benchmarks.shop.suite.Suite`, run with the config ``shop``; its sampling temperature
chosen on the validation split as the suite chooses it), or read from an earlier
``rewardgym bench shop`` output (``shop_run``). The live-store row starts from the same SFT
model and trains with :func:`~rewardgym.agents.llm.grpo.train_grpo` on
:class:`~rewardgym.agents.simulation.live_grpo.LiveEnv` at the shop preset's GRPO budget, so it differs from the Shop-R1 row only in where its states come
from: the policy's own visits to the live store instead of logged sessions.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from rewardgym.agents.simulation.policies import LLMSimPolicy, SimPolicy
from rewardgym.benchmarks.fidelity.config import FidelityBenchConfig
from rewardgym.benchmarks.shop.plan import Plan, model_dir

LIVE_ROW = "shop-r1/live-store"
"""The row trained with multi-turn GRPO on ``ShopStore-v0``."""


def _reused(config: FidelityBenchConfig, plan: Plan) -> tuple[dict[str, Path], float | None]:
    """The planned models of an earlier ``bench shop`` output (where it wrote them), and the temperature it chose."""
    root = Path(config.shop_run or ".")
    found = {task.name: model_dir(root, task.seed, task.name) for task in plan.tasks}
    missing = [str(p) for p in found.values() if not (p / "config.json").is_file()]
    if missing:
        raise FileNotFoundError(
            f"shop_run {root} lacks the models {missing}; run `rewardgym bench shop --out {root}` "
            "with those rows first, or leave shop_run unset to train them here"
        )
    temperature = None
    results = root / "results.json"
    if results.is_file():
        choice = json.loads(results.read_text()).get("temperature_choice") or {}
        temperature = choice.get("chosen")
    return found, temperature


def simulator_temperature(config: FidelityBenchConfig, chosen: float | None) -> float | None:
    """The learned simulators' sampling temperature: the config's, else the shop suite's ``chosen``."""
    return chosen if config.temperature is None else config.temperature


def learned_simulators(
    config: FidelityBenchConfig, root: Path, *, progress: bool = True
) -> list[SimPolicy]:
    """Train (or reuse) the learned simulators under ``root``; return them as store visitors.

    The shop suite's plan (:meth:`~rewardgym.benchmarks.fidelity.config.FidelityBenchConfig.shop_plan`)
    says which model each row scores, so a row trains from the start it has in ``bench shop``.
    """
    from rewardgym.agents.llm.grpo import GRPOOptions, train_grpo
    from rewardgym.agents.simulation.live_grpo import LiveEnv
    from rewardgym.benchmarks.shop.plan import methods
    from rewardgym.benchmarks.shop.suite import Suite

    shop = config.shop
    plan = config.shop_plan()
    seed = plan.seeds[0]
    suite = Suite(shop, root / "shop", None, progress)
    sft_row = {m.method: m for m in methods(shop)}["sft"]
    prompt = suite.prompt(sft_row)
    temperature: float | None = None
    if config.shop_run is not None:
        trained, temperature = _reused(config, plan)
    else:
        trained, sft = {}, plan.model(seed, "sft")
        for task in plan.tasks:
            trained[task.name] = suite.train(task)
            # chosen before any GRPO run, as the shop suite does; not needed at a set one
            if task.name == sft and config.temperature is None:
                temperature = suite.choose_temperature(trained[sft], sft_row)
    paths = {}
    for row in ("sft", *config.shop_rows):
        model = plan.model(seed, row)
        paths[row] = suite.base_model(seed) if model is None else trained[model]
    if config.live_grpo:
        live = LiveEnv(prompt, max_turns=config.live_turns)
        options = GRPOOptions(progress=progress, desc=f"row {LIVE_ROW!r}", model_kind=suite.kind)
        grpo = replace(shop.grpo, seed=seed)
        result = train_grpo(paths["sft"], live, root / "live-store", None, grpo, options)
        paths[LIVE_ROW] = result.path
    sampling = replace(shop.sampling, decoding=config.decoding)
    temperature = simulator_temperature(config, temperature)
    sampling = sampling if temperature is None else replace(sampling, temperature=temperature)
    wanted = [*config.shop_rows, *([LIVE_ROW] if config.live_grpo else [])]
    return [
        LLMSimPolicy.from_path(
            paths[row], prompt=prompt, sampling=sampling, seed=config.seed, name=f"llm/{row}"
        )
        for row in wanted
    ]


__all__ = ["LIVE_ROW", "learned_simulators", "simulator_temperature"]
