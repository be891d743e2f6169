"""The synthetic shopper: a seeded generative model of shopping sessions, the embedded default data set.

Shoppers with hidden intents (category, features, budget, brand, patience, decisiveness) search,
filter, open products, read reviews, pick options, add to cart, check out and terminate on a
synthetic catalogue; every step carries a simplified-HTML page with uniquely named elements, an
action, a first-person rationale, a timestamp and metadata. The store (``browser.py``) applies
actions and the shopper (``shopper.py``) only decides; ``visit.py`` runs the one loop that both
the replay generator and the live store ``rewardgym/ShopStore-v0`` use. See
``docs/synthetic_shopper.md``.

Example:
    >>> from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig, generate_sessions
    >>> sessions = list(generate_sessions(SyntheticShopperConfig(sessions=2, seed=7)))
    >>> [s.session_id for s in sessions]
    ['syn-000001', 'syn-000002']
"""

from __future__ import annotations

from rewardgym.envs.shopping.synthetic.config import StoreConfig, SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.generate import (
    GENERATOR_VERSION,
    generate_sessions,
    intent_for_session,
    make_session,
    session_id,
)
from rewardgym.envs.shopping.synthetic.persona import persona_text
from rewardgym.envs.shopping.synthetic.variants import VARIANT_NAMES, store_variant
from rewardgym.envs.shopping.synthetic.visit import Visit, play

__all__ = [
    "GENERATOR_VERSION",
    "VARIANT_NAMES",
    "StoreConfig",
    "SyntheticShopperConfig",
    "Visit",
    "generate_sessions",
    "intent_for_session",
    "make_session",
    "persona_text",
    "play",
    "session_id",
    "store_variant",
]
