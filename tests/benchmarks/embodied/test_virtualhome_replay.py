"""VirtualHome-v0's acceptance checks at a small budget: expert replays, and a random policy that fails."""

from __future__ import annotations

from rewardgym.benchmarks.embodied.virtualhome_replay import random_policy, replay_programs


def test_the_first_programs_replay_to_success() -> None:
    replays = replay_programs(limit=12)
    assert [r.program for r in replays if not r.success] == []
    assert all(r.unmet == () for r in replays)


def test_a_uniformly_random_policy_rarely_succeeds() -> None:
    rates = random_policy("test", steps=30, limit=10)
    assert rates["episodes"] == 10
    assert rates["success_rate"] <= 10.0  # at most one of ten (about 1.5% over the 68)
    assert 5.0 < rates["executed_share"] < 40.0
