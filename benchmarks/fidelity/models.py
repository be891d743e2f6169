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

LIVE_ROW = "shop-r1/live-store"
"""The row trained with multi-turn GRPO on ``ShopStore-v0``."""


def _reused(
    config: FidelityBenchConfig, seed: int, sft: str
) -> tuple[dict[str, Path], float | None]:
    """Model folders of an earlier ``bench shop`` output (its SFT cold start ``sft``), and the temperature it chose."""
    root = Path(config.shop_run or ".")
    models = root / "models" / f"seed{seed}"
    found = {"sft": models / sft / "model"}
    found.update(
        {row: models / row.replace("/", "__") / "model" for row in config.shop_rows if row != "sft"}
    )
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


def learned_simulators(
    config: FidelityBenchConfig, root: Path, *, progress: bool = True
) -> list[SimPolicy]:
    """Train (or reuse) the learned simulators under ``root``; return them as store visitors."""
    from rewardgym.agents.llm.grpo import GRPOOptions, train_grpo
    from rewardgym.agents.simulation.live_grpo import LiveEnv
    from rewardgym.benchmarks.shop.rows import methods
    from rewardgym.benchmarks.shop.suite import Suite, sft_key

    shop = config.shop
    rows = {m.method: m for m in methods(shop)}
    unknown = [r for r in config.shop_rows if r not in rows]
    if unknown:
        raise ValueError(f"shop_rows {unknown} are not rows of the shop suite ({list(rows)})")
    seed = shop.seeds[0]
    suite = Suite(shop, root / "shop", None, progress)
    prompt = suite.prompt(rows["sft"])
    if config.shop_run is not None:
        paths, temperature = _reused(config, seed, sft_key(prompt))
    else:
        base = suite.base_model(seed)
        paths = {"sft": suite.sft(base, seed, rows["sft"])}
        temperature = suite.choose_temperature(paths["sft"], rows["sft"])
        for row in config.shop_rows:
            if row != "sft":
                paths[row] = suite.grpo(paths["sft"], rows[row], seed)
    if config.live_grpo:
        live = LiveEnv(prompt, max_turns=config.live_turns)
        options = GRPOOptions(progress=progress, desc=f"row {LIVE_ROW!r}", model_kind=suite.kind)
        grpo = replace(shop.grpo, seed=seed)
        result = train_grpo(paths["sft"], live, root / "live-store", None, grpo, options)
        paths[LIVE_ROW] = result.path
    sampling = replace(shop.sampling, decoding=config.decoding)
    sampling = sampling if temperature is None else replace(sampling, temperature=temperature)
    wanted = [*config.shop_rows, *([LIVE_ROW] if config.live_grpo else [])]
    return [
        LLMSimPolicy.from_path(
            paths[row], prompt=prompt, sampling=sampling, seed=config.seed, name=f"llm/{row}"
        )
        for row in wanted
    ]


__all__ = ["LIVE_ROW", "learned_simulators"]
