"""``bench fidelity`` finds the shop suite's models through the shop suite's own plan and layout."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from rewardgym.benchmarks.fidelity.config import preset
from rewardgym.benchmarks.fidelity.models import _reused, simulator_temperature
from rewardgym.benchmarks.shop.config import preset as shop_preset
from rewardgym.benchmarks.shop.plan import model_dir


def test_a_shop_run_is_read_where_bench_shop_wrote_each_model(tmp_path: Path) -> None:
    rows = ("sft", "rl-binary", "shop-r1", "shop-r1/no-sft")
    config = dataclasses.replace(preset("tiny"), shop_rows=rows, shop_run=tmp_path)
    plan = config.shop_plan()
    assert {t.name for t in plan.tasks} == {"sft-compact", *rows[1:]}
    for task in plan.tasks:
        (model_dir(tmp_path, task.seed, task.name) / "config.json").parent.mkdir(parents=True)
        (model_dir(tmp_path, task.seed, task.name) / "config.json").write_text("{}")
    (tmp_path / "results.json").write_text(json.dumps({"temperature_choice": {"chosen": 0.6}}))
    found, temperature = _reused(config, plan)
    assert temperature == 0.6
    assert found == {t.name: model_dir(tmp_path, 0, t.name) for t in plan.tasks}
    assert found["shop-r1/no-sft"] == tmp_path / "models" / "seed0" / "shop-r1__no-sft" / "model"
    # each row scores the model it scores in bench shop: rl-binary and no-sft start from base
    assert plan.chain(0, plan.model(0, "shop-r1/no-sft"))[0].start is None
    assert [t.name for t in plan.chain(0, plan.model(0, "shop-r1"))] == ["sft-compact", "shop-r1"]


def test_a_missing_model_and_a_row_without_its_start_are_refused(tmp_path: Path) -> None:
    config = dataclasses.replace(preset("tiny"), shop_rows=("sft", "shop-r1"), shop_run=tmp_path)
    with pytest.raises(FileNotFoundError, match=r"sft-compact/model"):
        _reused(config, config.shop_plan())
    with pytest.raises(ValueError, match=r"--shop-rows.*'shop-r1'; add shop-r1"):
        dataclasses.replace(preset("tiny"), shop_rows=("shop-r1/temp-1",))


def test_quick_samples_the_shop_quick_model_at_temperature_1_unless_told_otherwise() -> None:
    """Issue 50: a simulator samples the model's own distribution; the shop suite's choice (exact
    match, near-greedy) predicts give-ups almost nowhere, so its visits ran to max_steps."""
    quick = preset("quick")
    assert quick.shop == shop_preset("quick"), "a bench shop --preset quick output is its shop_run"
    assert quick.shop_rows == ("sft",) and not quick.live_grpo
    assert simulator_temperature(quick, 0.2) == 1.0
    assert simulator_temperature(dataclasses.replace(quick, temperature=None), 0.2) == 0.2
    assert simulator_temperature(dataclasses.replace(quick, temperature=None), None) is None
    with pytest.raises(ValueError, match="temperature"):
        dataclasses.replace(quick, temperature=0.0)
