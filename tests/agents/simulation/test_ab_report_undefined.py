"""An A/B report says why an effect is undefined instead of printing a bare ``n/a`` (issue 23.5)."""

from __future__ import annotations

import re

from rewardgym.agents.simulation import resolve_policy
from rewardgym.agents.simulation.config import SimulationConfig
from rewardgym.agents.simulation.experiment import report_markdown, run_ab
from rewardgym.envs.shopping.synthetic import StoreConfig, store_variant


def test_a_simulator_that_never_buys_gets_a_reason_for_its_basket_value() -> None:
    experiment = run_ab(
        resolve_policy("always-terminate"),
        store_a=StoreConfig(),
        store_b=store_variant("price-up-20"),
        config=SimulationConfig(visits=12, n_boot=20),
    )
    report = report_markdown(experiment)
    basket = next(line for line in report.splitlines() if line.startswith("| basket_value |"))
    simulated, _, error = basket.split(" | ")[1:4]
    assert simulated == "n/a (no order in one store)"
    assert error == "n/a (an effect is n/a)"
    cells = [cell.strip() for line in report.splitlines() for cell in line.split("|")]
    assert "n/a" not in cells, "a table cell says n/a without saying why"
    assert not re.search(r"\bnan\b", report, flags=re.IGNORECASE)
