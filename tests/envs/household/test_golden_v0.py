"""Household-v0 is frozen: its seeded rollouts, expert scripts and collected data never change."""

from __future__ import annotations

from typing import Any


def test_household_v0_reproduces_its_recorded_digests(golden: Any) -> None:
    """Rollouts (obs, rewards, infos, executable sets, plans), scripts and a data set hash as recorded."""
    digests = {name: golden.digest(value) for name, value in golden.v0_payloads().items()}
    assert digests == golden.recorded("v0")
