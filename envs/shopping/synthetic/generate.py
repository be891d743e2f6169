"""Public entry of the synthetic shopper: lazily generate reproducible sessions from a config."""

from __future__ import annotations

import random
from collections.abc import Iterator

from rewardgym.envs.shopping.schema import ShopSession
from rewardgym.envs.shopping.synthetic.catalogue import Catalogue, build_catalogue
from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.intents import Intent, sample_intent
from rewardgym.envs.shopping.synthetic.shopper import Shopper

_SPREAD_SECONDS = 90 * 24 * 3600.0
# Bumped whenever a change alters the sessions a config produces; caches should key on it.
GENERATOR_VERSION = 1


def session_id(index: int) -> str:
    """The id of the ``index``-th (0-based) synthetic session: ``syn-000001`` for index 0."""
    return f"syn-{index + 1:06d}"


def session_rng(seed: int, index: int) -> random.Random:
    """The private random stream of session ``index``; string seeds hash with SHA-512, stable across runs."""
    return random.Random(f"rewardgym-synthetic-session:{seed}:{index}")


def catalogue_for(config: SyntheticShopperConfig) -> Catalogue:
    """The catalogue that ``config`` shops in (built once per process and seed)."""
    return build_catalogue(config.seed, config.products_per_category)


def intent_for_session(config: SyntheticShopperConfig, index: int) -> Intent:
    """The hidden intent behind session ``index``, for analysis and tests; never in the data itself."""
    return sample_intent(session_rng(config.seed, index), catalogue_for(config), config)


def make_session(config: SyntheticShopperConfig, index: int) -> ShopSession:
    """Generate session ``index`` alone; it depends only on ``config``'s behaviour knobs, seed and ``index``."""
    catalogue = catalogue_for(config)
    rng = session_rng(config.seed, index)
    intent = sample_intent(rng, catalogue, config)
    start = config.start_time + rng.uniform(0.0, _SPREAD_SECONDS)
    steps = Shopper(rng, intent, catalogue, config, start).run()
    return ShopSession(session_id(index), steps)


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
