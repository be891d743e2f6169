"""Typed settings of simulated store visits: which intents, how a visit opens, what a policy's prompt context holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, Range, check_fields
from rewardgym.envs.shopping.context import (
    ContextMode,
    approx_token_count,
    check_context_limits,
)
from rewardgym.envs.shopping.live.env import Opening

FIRST_HELD_OUT_INTENT = 1_000_000
"""Intents from here on are no session of any replay corpus shorter than a million sessions."""


@dataclass(frozen=True)
class ContextOptions:
    """The context ``ShopStore-v0`` builds for a policy (as ``ShopSession-v0`` would for the same policy)."""

    context: ContextMode = "session"
    """``session`` = the whole visit so far; ``latest`` = the current page only."""
    max_context_chars: int | None = None
    """Character budget of the context (cut by the context mode's rules); None = no budget."""
    max_context_tokens: int | None = None
    """Token budget of the context, counted by ``count_tokens``; None = no budget."""
    count_tokens: Callable[[str], int] = approx_token_count
    """The token counter of that budget (an LLM policy's own tokenizer)."""
    persona: bool = False
    """Open the context with the visiting shopper's persona (``ShopStore-v0``'s ``persona=True``)."""

    def __post_init__(self) -> None:
        check_context_limits(self.max_context_chars, self.max_context_tokens)


@dataclass(frozen=True)
class SimulationConfig:
    """How many visits, from which intents, opened how, and how their statistics are bootstrapped."""

    visits: Annotated[int, Range(ge=2)] = 1000
    """Visits per store variant (the same intents visit every variant)."""
    first_intent: Annotated[int, NON_NEGATIVE] = FIRST_HELD_OUT_INTENT
    """Index of the first intent; visits take first_intent, first_intent + 1, ... (held out from training)."""
    opening: Opening = "first_step"
    """first_step: the ground-truth shopper's first step (it states the intent) is given, as in Shop-R1's protocol; home: the policy starts on the home page."""
    n_boot: Annotated[int, AT_LEAST_1] = 500
    """Bootstrap resamples of every interval."""
    seed: Annotated[int, SEED] = 0
    """Seed of the bootstrap and of the policies' sampling."""
    batch_size: Annotated[int, AT_LEAST_1] = 256
    """Visits open at once, over every store visited together: each turn, one batched policy call answers all of them, and a visit that ends makes room for the next."""
    max_steps: Annotated[int, Range(ge=2)] | None = None
    """Cut every visit (as truncated) after this many steps, the given first step included; None: the env's cap (40)."""
    max_idle_steps: Annotated[int, AT_LEAST_1] = 5
    """A visit ends (as truncated) after this many outputs in a row that did nothing (naming nothing on the page, or, without end_on_unparsed, unparsed)."""
    end_on_unparsed: bool = True
    """A visit ends as failed at an output that does not parse (a failed visit is no evidence of an A/B effect); False leaves the page as it is and counts the output as idle."""

    def __post_init__(self) -> None:
        """Refuse values outside their meaningful range, naming the field."""
        check_fields(self)
        if self.visits < 2:
            raise ValueError(f"SimulationConfig.visits must be >= 2 (got {self.visits})")
        if not 0 <= self.first_intent < 2**31 - self.visits:
            raise ValueError(
                f"SimulationConfig.first_intent must leave room for {self.visits} intents below 2**31 "
                f"(got {self.first_intent})"
            )
        if self.max_steps is not None and self.max_steps < 2:
            raise ValueError(f"SimulationConfig.max_steps must be >= 2 (got {self.max_steps})")
        if min(self.n_boot, self.batch_size, self.max_idle_steps) < 1:
            raise ValueError(
                "SimulationConfig.n_boot, batch_size and max_idle_steps must be >= 1 "
                f"(got {self.n_boot}, {self.batch_size} and {self.max_idle_steps})"
            )

    def intents(self) -> range:
        """The intent indices of the visits."""
        return range(self.first_intent, self.first_intent + self.visits)


__all__ = ["FIRST_HELD_OUT_INTENT", "ContextOptions", "SimulationConfig"]
