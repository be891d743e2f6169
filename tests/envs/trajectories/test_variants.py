"""Named data-set variants, the collector's recover and give-up options, stitchable segments."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.commands import DataCollect
from rewardgym.envs.trajectories.variants import (
    DATASET_VARIANTS,
    SUITE_VARIANT,
    VIRTUALHOME_VARIANTS,
    segment_statistics,
    stitchable_segments,
    variant_config,
    variant_statistics,
)
from rewardgym.errors import UserError


def _fingerprint(data: TrajectoryDataset) -> str:
    digest = hashlib.sha1()
    for ep in data:
        digest.update(ep.actions.tobytes())
        digest.update(ep.expert.tobytes())
        digest.update(ep.rewards.tobytes())
        digest.update(repr(sorted(ep.extras.items())).encode())
    return digest.hexdigest()[:16]


def test_the_default_collector_is_unchanged_by_the_new_options() -> None:
    """Pinned on the code before ``recover`` / ``give_up`` existed (they draw nothing when 0)."""
    assert _fingerprint(collect_dataset(CollectConfig(episodes=60))) == "c571da42c7340ee1"
    custom = CollectConfig(episodes=40, noise=0.3, sibling_fraction=0.2, seed=3)
    assert _fingerprint(collect_dataset(custom)) == "09e02732a3ca447f"


def test_recovery_replans_after_perturbations_and_repairs_episodes() -> None:
    blind = collect_dataset(CollectConfig(episodes=100, noise=0.3, sibling_fraction=0.0))
    healed = collect_dataset(
        CollectConfig(episodes=100, noise=0.3, sibling_fraction=0.0, recover=1.0)
    )
    assert healed.success_rate > blind.success_rate + 0.2
    # Same seeds, same first perturbation: the episodes part ways only after it.
    assert any(not np.array_equal(a.actions, b.actions) for a, b in zip(blind, healed, strict=True))


def test_giving_up_cuts_the_demonstration_at_varied_points() -> None:
    config = CollectConfig(episodes=80, give_up=0.5, wander=2, sibling_fraction=0.0, noise=0.0)
    data = collect_dataset(config)
    quitters = [ep for ep in data if ep.extras["gave_up"]]
    assert 20 < len(quitters) < 60
    for ep in quitters:
        assert not ep.success
        assert ep.expert[:-2].all() and not ep.expert[-2:].any()  # expert steps, 2 random, end
    assert len({int(ep.expert.sum()) for ep in quitters}) >= 8  # cut at many points
    assert all(ep.success for ep in data if not ep.extras["gave_up"])  # no noise: the script


@pytest.mark.parametrize("name", ["recover", "give_up"])
def test_the_new_options_are_checked_naming_the_field(name: str) -> None:
    with pytest.raises(ValueError, match="wander"):
        CollectConfig(wander=-1)
    with pytest.raises(ValueError, match=name):
        CollectConfig(**{name: 1.5})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"{name}=0.5 needs expert='script'"):
        CollectConfig(env="rewardgym/Household-v0", **{name: 0.5})  # type: ignore[arg-type]


def test_stitchable_segments_are_the_maximal_runs_long_enough() -> None:
    flags = [1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]
    assert stitchable_segments(flags) == [(3, 7), (9, 12)]
    assert stitchable_segments(flags, min_steps=2) == [(0, 2), (3, 7), (9, 12)]
    assert stitchable_segments([]) == []
    stats = segment_statistics([(False, flags), (True, [1] * 9), (False, [0, 0])])
    assert stats["stitchable_share"] == pytest.approx(100 * 7 / 14)
    assert stats["failures_with_segment"] == 50.0
    assert stats["recovered_segments"] == 100.0  # both start after step 0
    assert stats["segment_steps"] == 3.5


def test_every_variant_loads_by_name_and_unknown_names_list_the_choices() -> None:
    for name in DATASET_VARIANTS:
        assert variant_config(name, episodes=5).episodes == 5
    with pytest.raises(ValueError, match="stitch"):
        variant_config("stich")
    for name in VIRTUALHOME_VARIANTS:  # each env has its own; another env has none
        assert variant_config(name, env="virtualhome").env == "rewardgym/VirtualHome-v0"
    with pytest.raises(ValueError, match="Household-v0 has no named data-set variants"):
        variant_config("coren", env="rewardgym/Household-v0")


def test_the_suite_variant_has_few_successes_and_skill_in_its_failures() -> None:
    data = collect_dataset(variant_config(SUITE_VARIANT, episodes=250))
    stats = variant_statistics(data)
    assert stats["success_rate"] <= 10.0
    assert stats["failures_with_segment"] >= 50.0  # most failures hold expert behaviour
    assert stats["recovered_segments"] > 0.0  # some of it resumed after a perturbation
    coren = variant_statistics(collect_dataset(variant_config("coren", episodes=100)))
    assert coren["success_rate"] > 2 * stats["success_rate"]


def test_data_collect_takes_a_variant_by_name(tmp_path: Path) -> None:
    out = tmp_path / "stitch"
    DataCollect(out=out, collect=CollectConfig(episodes=4), minari=False, variant="stitch").run()
    data = TrajectoryDataset.from_dir(out)
    assert len(data) == 4
    assert data.info["collect_config"]["give_up"] == DATASET_VARIANTS["stitch"].give_up
    with pytest.raises(UserError, match="unknown data-set variant"):  # one line, exit 2
        DataCollect(out=tmp_path / "x", collect=CollectConfig(episodes=1), variant="nope").run()
    assert not (tmp_path / "x").exists()
