"""Typed settings of simulated store visits: which intents, how a visit opens, what a policy's prompt context holds."""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.envs.shopping.context import ContextMode
from rewardgym.envs.shopping.live.env import Opening

FIRST_HELD_OUT_INTENT = 1_000_000
"""Intents from here on are no session of any replay corpus shorter than a million sessions."""


@dataclass(frozen=True)
class ContextOptions:
    """The context ``ShopStore-v0`` builds for a policy (as ``ShopSession-v0`` would for the same policy)."""

    context: ContextMode = "session"
    """``session`` = the whole visit so far; ``latest`` = the current page only."""
    max_context_chars: int | None = None
    """Character budget of the context (oldest pages are dropped first); None = no budget."""


@dataclass(frozen=True)
class SimulationConfig:
    """How many visits, from which intents, opened how, and how their statistics are bootstrapped."""

    visits: int = 1000
    """Visits per store variant (the same intents visit every variant)."""
    first_intent: int = FIRST_HELD_OUT_INTENT
    """Index of the first intent; visits take ``first_intent``, ``first_intent + 1``, ... (held out from training)."""
    opening: Opening = "first_step"
    """``first_step``: the ground-truth shopper's first step (it states the intent) is given, as in Shop-R1's protocol; ``home``: the policy starts on the home page."""
    n_boot: int = 500
    """Bootstrap resamples of every interval."""
    seed: int = 0
    """Seed of the bootstrap and of the policies' sampling."""
    batch_size: int = 32
    """Visits stepped together (one batched policy call per step)."""

    def __post_init__(self) -> None:
        if self.visits < 2:
            raise ValueError(f"SimulationConfig.visits must be >= 2 (got {self.visits})")
        if not 0 <= self.first_intent < 2**31 - self.visits:
            raise ValueError(
                f"SimulationConfig.first_intent must leave room for {self.visits} intents below 2**31 "
                f"(got {self.first_intent})"
            )
        if self.n_boot < 1 or self.batch_size < 1:
            raise ValueError(
                "SimulationConfig.n_boot and batch_size must be >= 1 "
                f"(got {self.n_boot} and {self.batch_size})"
            )

    def intents(self) -> range:
        """The intent indices of the visits."""
        return range(self.first_intent, self.first_intent + self.visits)


__all__ = ["FIRST_HELD_OUT_INTENT", "ContextOptions", "SimulationConfig"]
