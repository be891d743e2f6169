"""Public entry of the synthetic shopper: lazily generate reproducible sessions from a config."""

from __future__ import annotations

from collections.abc import Iterator

from rewardgym.envs.shopping.schema import ShopSession
from rewardgym.envs.shopping.synthetic.catalogue import Catalogue, build_catalogue
from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.intents import Intent
from rewardgym.envs.shopping.synthetic.visit import (
    Visit,
    play,
    session_id,
    session_rng,
    visit_intent,
)

# Bumped whenever a change alters the sessions a config produces; caches should key on it.
GENERATOR_VERSION = 1


def catalogue_for(config: SyntheticShopperConfig) -> Catalogue:
    """The catalogue that ``config`` shops in (built once per process and seed)."""
    return build_catalogue(config.seed, config.products_per_category)


def intent_for_session(config: SyntheticShopperConfig, index: int) -> Intent:
    """The hidden intent behind session ``index``, for analysis and tests; never in the data itself."""
    return visit_intent(config.store(), config, index)


def make_session(config: SyntheticShopperConfig, index: int) -> ShopSession:
    """Generate session ``index`` alone; it depends only on ``config``'s behaviour knobs, seed and ``index``.

    It is the ground-truth shopper's visit ``index`` to the store ``config.store()``, played
    by the same code that serves ``rewardgym/ShopStore-v0``.
    """
    return play(Visit(index, store=config.store(), shopper=config))


def generate_sessions(config: SyntheticShopperConfig) -> Iterator[ShopSession]:
    """Yield ``config.sessions`` sessions one by one, deterministic given ``config.seed``.

    Example:
        >>> from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig, generate_sessions
        >>> first = next(generate_sessions(SyntheticShopperConfig(sessions=3, seed=0)))
        >>> first.session_id, first.steps[-1].action.type
        ('syn-000001', 'terminate')
    """
    for index in range(config.sessions):
        yield make_session(config, index)


__all__ = [
    "GENERATOR_VERSION",
    "catalogue_for",
    "generate_sessions",
    "intent_for_session",
    "make_session",
    "session_id",
    "session_rng",
]
