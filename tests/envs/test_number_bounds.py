"""Issue 34 items 4 and 5 in the envs: a NaN or infinite step cap and a NaN OPeRA time are refused.

``Household-v0/v1(max_steps=nan)`` used to build an env that never truncates (``steps >= nan``
is always false); one NaN timestamp in an OPeRA file silently turned off the time ordering of
its session (every comparison with NaN is false).
"""

from __future__ import annotations

import math
from pathlib import Path

import gymnasium as gym
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rewardgym  # noqa: F401 - registers the envs
from rewardgym.envs.shopping.loaders import load_opera
from rewardgym.envs.shopping.schema import DataValidationError


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Household-v0 is an old version
@pytest.mark.parametrize("version", ["v0", "v1"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0, "20"])
def test_household_refuses_a_step_cap_that_is_no_count(version: str, value: object) -> None:
    with pytest.raises(ValueError, match=r"Household(V1)?Env\.max_steps=") as caught:
        gym.make(f"rewardgym/Household-{version}", max_steps=value)
    assert repr(value) in str(caught.value) and "\n" not in str(caught.value)


def test_a_nan_opera_timestamp_names_file_row_and_field(tmp_path: Path) -> None:
    rows = [
        {
            "session_id": "A",
            "action_id": f"a{i}",
            "timestamp": t,
            "action_type": "click",
            "semantic_id": "x",
            "simplified_html": "<p/>",
            "rationale": None,
            "input_text": None,
        }
        for i, t in enumerate([2.0, math.nan, 1.0])
    ]
    path = tmp_path / "OPeRA_filtered" / "action" / "train-00000.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(DataValidationError) as caught:
        list(load_opera([path]))
    message = str(caught.value)
    assert str(path) in message and "row 1" in message and "timestamp" in message
