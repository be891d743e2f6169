"""Household versions load apart: the engine and Household-v1 never import Household-v0's modules."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

V0 = "rewardgym.envs.household.v0"


def _loaded_after(statement: str) -> list[str]:
    """The ``rewardgym`` modules a fresh interpreter holds after running ``statement``."""
    probe = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=300
    )
    return [m for m in json.loads(done.stdout.splitlines()[-1]) if m.startswith("rewardgym")]


@pytest.mark.parametrize(
    "statement",
    [
        "import rewardgym.envs.household.v1.env",
        "import rewardgym.envs.household.engine.env",
        "import gymnasium, rewardgym; gymnasium.make('rewardgym/Household-v1').reset(seed=0)",
        "from rewardgym.envs.household import success_rate",
    ],
)
def test_loading_v1_or_the_engine_loads_no_v0_module(statement: str) -> None:
    loaded = _loaded_after(statement)
    assert "rewardgym.envs.household" in loaded
    assert not [m for m in loaded if m == V0 or m.startswith(V0 + ".")]


def test_the_package_still_names_household_v0() -> None:
    loaded = _loaded_after("from rewardgym.envs.household import HouseholdEnv, TASKS")
    assert f"{V0}.env" in loaded
