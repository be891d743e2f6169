"""Household-v1 is pinned: seeded rollouts, expert scripts, data sets and their facts never drift."""

from __future__ import annotations

from typing import Any


def test_household_v1_reproduces_its_recorded_digests(golden: Any) -> None:
    """Rollouts with scripts and distances, step limits, both collected variants with their step
    facts and oracle rewards hash as recorded."""
    digests = {name: golden.digest(value) for name, value in golden.v1_payloads().items()}
    assert digests == golden.recorded("v1")
