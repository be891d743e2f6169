"""Named changes to the synthetic store, for counterfactual A/B tests that no simulator saw in training.

Each variant is a function of a base :class:`~rewardgym.envs.shopping.synthetic.config.StoreConfig`
(by default the store of the replay corpus), so the same change applies to any base store.

Example:
    >>> from rewardgym.envs.shopping.synthetic.variants import store_variant
    >>> store_variant("price-up-20").price_factor, store_variant("half-results").results_per_page
    (1.2, 2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal, get_args

from rewardgym.envs.conventions import brief
from rewardgym.envs.shopping.synthetic.config import StoreConfig

VariantName = Literal[
    "base", "price-up-20", "price-down-20", "rank-by-rating", "half-results", "no-brand-filter"
]
VARIANT_NAMES: tuple[str, ...] = get_args(VariantName)


def _base(store: StoreConfig) -> StoreConfig:
    """The store unchanged."""
    return store


def _price_up(store: StoreConfig) -> StoreConfig:
    """Every price up 20%."""
    return dataclasses.replace(store, price_factor=round(store.price_factor * 1.2, 9))


def _price_down(store: StoreConfig) -> StoreConfig:
    """Every price down 20% (a sale): the one change here that should raise sales."""
    return dataclasses.replace(store, price_factor=round(store.price_factor * 0.8, 9))


def _rank_by_rating(store: StoreConfig) -> StoreConfig:
    """Result lists ranked by rating (best first) instead of relevance."""
    return dataclasses.replace(store, ranking="rating")


def _half_results(store: StoreConfig) -> StoreConfig:
    """Half as many results per page, rounded down (5 -> 2), at least one."""
    return dataclasses.replace(store, results_per_page=max(1, store.results_per_page // 2))


def _no_brand_filter(store: StoreConfig) -> StoreConfig:
    """The brand filter buttons removed from every results page."""
    return dataclasses.replace(store, filters=tuple(f for f in store.filters if f != "brand"))


VARIANTS: dict[str, Callable[[StoreConfig], StoreConfig]] = {
    "base": _base,
    "price-up-20": _price_up,
    "price-down-20": _price_down,
    "rank-by-rating": _rank_by_rating,
    "half-results": _half_results,
    "no-brand-filter": _no_brand_filter,
}


def store_variant(name: str, base: StoreConfig | None = None) -> StoreConfig:
    """The store ``base`` (default: the replay corpus's) changed as variant ``name`` says."""
    change = VARIANTS.get(name)
    if change is None:
        raise ValueError(f"unknown store variant {brief(name)}; choose one of {VARIANT_NAMES}")
    return change(base if base is not None else StoreConfig())


def describe_variant(name: str) -> str:
    """One line saying what variant ``name`` changes."""
    store_variant(name)
    return (VARIANTS[name].__doc__ or name).strip()


__all__ = ["VARIANTS", "VARIANT_NAMES", "VariantName", "describe_variant", "store_variant"]
