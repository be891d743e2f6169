"""Every data set ``data collect`` writes carries a Minari id ``namespace/env/name-vN`` and Minari's recommended metadata."""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium
import pytest
from minari.dataset.minari_dataset import parse_dataset_id

import rewardgym
from rewardgym.cli import main
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.trajectories import CollectConfig, collect_dataset
from rewardgym.envs.trajectories.minari_io import minari_load_dataset, recommended_metadata

RECOMMENDED = ("dataset_id", "author", "algorithm_name", "code_permalink", "requirements")
"""The fields ``minari.create_dataset_from_buffers`` warns about when they are missing (less
``author_email``: rewardgym names no contact address)."""


@pytest.mark.parametrize(
    ("options", "dataset_id", "noise"),
    [
        ([], "rewardgym/household/perturbed-expert-v1", 0.15),
        (["--variant", "noisy"], "rewardgym/household/noisy-v1", 0.3),
        (["--env", "rewardgym/Household-v0"], "rewardgym/household/perturbed-expert-v0", 0.6),
    ],
)
def test_collected_data_sets_read_back_through_minari_with_their_id_and_metadata(
    tmp_path: Path, options: list[str], dataset_id: str, noise: float
) -> None:
    out = tmp_path / "set"
    main(["data", "collect", "--episodes", "3", "--out", str(out), *options])
    loaded = minari_load_dataset(out)
    metadata = loaded.storage.metadata
    assert loaded.id == metadata["dataset_id"] == dataset_id
    namespace, name, version = parse_dataset_id(dataset_id)
    assert namespace == "rewardgym/household" and f"{namespace}/{name}-v{version}" == dataset_id
    assert set(RECOMMENDED) <= set(metadata) and metadata["description"].startswith(
        "3 trajectories"
    )
    assert metadata["author"] == {"rewardgym"}
    assert f"noise {noise}" in metadata["algorithm_name"]
    assert metadata["code_permalink"].startswith(f"rewardgym=={rewardgym.__version__}: ")
    assert metadata["requirements"] == [
        f"rewardgym=={rewardgym.__version__}",
        f"gymnasium=={gymnasium.__version__}",
    ]
    with warnings.catch_warnings(record=True) as caught:  # Minari checks the requirements here
        warnings.simplefilter("always")
        loaded.recover_environment().close()
    assert not [w for w in caught if "requirement" in str(w.message) or "install" in str(w.message)]


def test_virtualhome_data_require_the_simulator_package() -> None:
    from importlib.metadata import version

    data = collect_dataset(CollectConfig(env=VIRTUALHOME_ID, episodes=1))
    metadata = recommended_metadata(data, None)
    assert metadata["dataset_id"] == "rewardgym/virtualhome/perturbed-expert-v0"
    assert f"virtualhome_eval=={version('virtualhome_eval')}" in metadata["requirements"]
    assert "give-up 0.3" in metadata["algorithm_name"]  # the default mix (issue 47 item 4)
