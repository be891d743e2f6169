"""Latent shopper intents: what a simulated shopper wants, can pay and tolerates, and how it judges products."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from rewardgym.envs.shopping.synthetic.catalogue import Catalogue, Product
from rewardgym.envs.shopping.synthetic.categories import CATEGORY_BY_KEY, PROMO_CODES, CategorySpec
from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig

_NICE_STEPS: tuple[float, ...] = (10.0, 20.0, 25.0, 50.0)


@dataclass(frozen=True, slots=True)
class Intent:
    """The hidden goal of one shopper; sessions reveal it only through queries, clicks and rationales."""

    category: str
    must: tuple[str, ...]
    nice: tuple[str, ...]
    budget: float
    brand: str | None
    colour: str | None
    size: str | None
    occasion: str
    goal: Literal["buy", "browse"]
    patience: int
    decisiveness: float
    review_rate: float
    filter_rate: float
    min_rating: float
    browse_views: int
    promo_code: str | None

    @property
    def spec(self) -> CategorySpec:
        """The category this intent shops in."""
        return CATEGORY_BY_KEY[self.category]


def _nice_budget(value: float) -> float:
    step = next((s for s in reversed(_NICE_STEPS) if value >= 4 * s), 5.0)
    return max(step, round(value / step) * step)


def sample_intent(
    rng: random.Random, catalogue: Catalogue, config: SyntheticShopperConfig
) -> Intent:
    """Draw one shopper's intent; budgets anchor on real prices so most intents are satisfiable."""
    spec = rng.choice(tuple(CATEGORY_BY_KEY.values()))
    anchor = rng.choice(catalogue.by_category[spec.key])
    features = list(anchor.features) if rng.random() < 0.85 else list(spec.features)
    rng.shuffle(features)
    must = tuple(features[: 1 if rng.random() < 0.6 else 2])
    rest = [f for f in spec.features if f not in must]
    nice = (rng.choice(rest),) if rest and rng.random() < 0.5 else ()
    budget = _nice_budget(anchor.price * rng.uniform(0.9, 1.5))
    brand = anchor.brand if rng.random() < config.brand_rate else None
    low, high = config.decisiveness_range
    return Intent(
        category=spec.key,
        must=must,
        nice=nice,
        budget=budget,
        brand=brand,
        colour=rng.choice(spec.colours) if rng.random() < 0.6 else None,
        size=rng.choice(spec.sizes) if spec.sizes else None,
        occasion=rng.choice(spec.occasions),
        goal="buy" if rng.random() < config.buy_rate else "browse",
        patience=rng.randint(*config.patience_range),
        decisiveness=rng.uniform(low, high),
        review_rate=min(1.0, rng.uniform(0.0, 2.0 * config.review_rate)),
        filter_rate=min(1.0, rng.uniform(0.0, 2.0 * config.filter_rate)),
        min_rating=rng.choice((3.0, 3.5, 3.5, 4.0)),
        browse_views=rng.randint(2, 4),
        promo_code=rng.choice(PROMO_CODES) if rng.random() < config.promo_rate else None,
    )


def missing_features(product: Product, intent: Intent) -> tuple[str, ...]:
    """The intent's must-have features that ``product`` lacks."""
    return tuple(f for f in intent.must if f not in product.features)


PRICE_SLACK = 1.05
"""A product may cost this much of the budget before the shopper turns it down for its price."""
SALE_PRICE_SLACK = 1.15
"""The same for a product shown on sale: a deal framed against a higher "was" price stretches the budget
(reference-price effect; Thaler 1985, "Mental accounting and consumer choice")."""


def rejection_reason(
    product: Product, intent: Intent, *, on_sale: bool = False, rating_known: bool = True
) -> str | None:
    """Why the shopper turns ``product`` down (``feature``, ``price``, ``rating``, ``brand``), or None.

    ``on_sale``: the page shows a sale badge (the budget stretches to :data:`SALE_PRICE_SLACK`);
    ``rating_known``: the shopper has seen the product's rating (the store shows it, or it
    read the reviews), without which it cannot reject for the rating.
    """
    if product.category != intent.category:
        return "category"
    if missing_features(product, intent):
        return "feature"
    if product.price > intent.budget * (SALE_PRICE_SLACK if on_sale else PRICE_SLACK):
        return "price"
    if rating_known and product.rating < intent.min_rating:
        return "rating"
    if (
        intent.brand is not None
        and product.brand != intent.brand
        and product.price > intent.budget * 0.8
    ):
        return "brand"
    return None


def utility(product: Product, intent: Intent) -> float:
    """How well ``product`` fits ``intent`` once its page has shown every feature."""
    if product.category != intent.category:
        return -10.0
    hits = sum(1 for f in intent.must if f in product.features)
    score = 2.0 * hits - 2.5 * (len(intent.must) - hits)
    score += 0.8 * sum(1 for f in intent.nice if f in product.features)
    score += 1.0 if intent.brand is not None and product.brand == intent.brand else 0.0
    score -= 6.0 * max(0.0, product.price - intent.budget) / intent.budget
    score += product.rating - 4.0
    return score


def perceived_utility(product: Product, intent: Intent, *, rating_known: bool = True) -> float:
    """How well ``product`` seems to fit from its listing alone: title features, brand, price, rating (when shown; else an average 4.0)."""
    if product.category != intent.category:
        return -10.0
    shown = sum(1 for f in intent.must if f in product.title_features)
    # A must-have the title does not mention may still be there: half credit.
    score = 2.0 * shown + 0.6 * (len(intent.must) - shown)
    score += 0.8 * sum(1 for f in intent.nice if f in product.title_features)
    score += 1.0 if intent.brand is not None and product.brand == intent.brand else 0.0
    score -= 6.0 * max(0.0, product.price - intent.budget) / intent.budget
    if rating_known:
        score += product.rating - 4.0
    return score


def describe_need(intent: Intent) -> str:
    """A short noun phrase for the wanted item, e.g. ``a waterproof jacket``."""
    words = " ".join(intent.must)
    article = "an" if words[:1] in "aeiou" else "a"
    noun = intent.spec.noun
    if noun.endswith("s"):
        return f"{words} {noun}"
    return f"{article} {words} {noun}"


__all__ = [
    "PRICE_SLACK",
    "PROMO_CODES",
    "SALE_PRICE_SLACK",
    "Intent",
    "describe_need",
    "missing_features",
    "perceived_utility",
    "rejection_reason",
    "sample_intent",
    "utility",
]
