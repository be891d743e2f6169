"""Named changes to the synthetic store, for counterfactual A/B tests that no simulator saw in training.

Each variant is a function of a base :class:`~rewardgym.envs.shopping.synthetic.config.StoreConfig`
(by default the store of the replay corpus), so the same change applies to any base store.
Every change is carried out in the store's pages, and the ground-truth shopper reacts where a
shopper plausibly would (:mod:`~rewardgym.envs.shopping.synthetic.shopper`): prices, rankings,
page sizes and filters through its ordinary choices; sale badges, stock, hidden ratings, a slow
search and checkout charges through reactions of their own. Some changes have no effect on
what it buys by design (``no-listing-images``: a shopper who would click an image clicks the
title), so that a simulator can also be wrong by predicting an effect where there is none.

Example:
    >>> from rewardgym.envs.shopping.synthetic.variants import store_variant
    >>> store_variant("price-up-20").price_factor, store_variant("half-results").results_per_page
    (1.2, 2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal, cast, get_args

from rewardgym.envs.conventions import brief
from rewardgym.envs.shopping.synthetic.config import StoreConfig

VariantName = Literal[
    "base",
    "price-up-20",
    "price-down-20",
    "rank-by-rating",
    "half-results",
    "no-brand-filter",
    "price-up-10",
    "price-down-10",
    "rank-by-price",
    "more-results",
    "no-sort-buttons",
    "dearer-shipping",
    "free-shipping",
    "sale-badges",
    "out-of-stock",
    "slow-search",
    "no-listing-images",
    "hidden-ratings",
    "tax-at-checkout",
    "tax-in-price",
    "no-spelling-fix",
]
VARIANT_NAMES: tuple[str, ...] = get_args(VariantName)
STORE_CHANGES: tuple[VariantName, ...] = cast(
    "tuple[VariantName, ...]", tuple(name for name in VARIANT_NAMES if name != "base")
)
"""Every named change of the store (every variant but ``base``), in the order above."""


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


def _price_up_10(store: StoreConfig) -> StoreConfig:
    """Every price up 10%."""
    return dataclasses.replace(store, price_factor=round(store.price_factor * 1.1, 9))


def _price_down_10(store: StoreConfig) -> StoreConfig:
    """Every price down 10%."""
    return dataclasses.replace(store, price_factor=round(store.price_factor * 0.9, 9))


def _rank_by_price(store: StoreConfig) -> StoreConfig:
    """Result lists ranked by price (cheapest first) instead of relevance: a different default sort."""
    return dataclasses.replace(store, ranking="price")


def _more_results(store: StoreConfig) -> StoreConfig:
    """Twice as many results per page (5 -> 10), at most the catalogue's size per category."""
    per_page = min(store.products_per_category, store.results_per_page * 2)
    return dataclasses.replace(store, results_per_page=per_page)


def _no_sort(store: StoreConfig) -> StoreConfig:
    """The sort buttons (price, top rated) removed from every results page."""
    return dataclasses.replace(store, filters=tuple(f for f in store.filters if f != "sort"))


def _dearer_shipping(store: StoreConfig) -> StoreConfig:
    """Shipping $9.99 instead of $5.99, free only from $100 instead of $50."""
    return dataclasses.replace(store, shipping_fee=9.99, free_shipping_over=100.0)


def _free_shipping(store: StoreConfig) -> StoreConfig:
    """Free shipping on every order."""
    return dataclasses.replace(store, free_shipping_over=0.0)


def _sale_badges(store: StoreConfig) -> StoreConfig:
    """A "Sale: 20% off" badge over a struck-through higher price on 30% of products (the price charged unchanged)."""
    return dataclasses.replace(store, sale_share=0.3)


def _out_of_stock(store: StoreConfig) -> StoreConfig:
    """25% of products out of stock: listed as such, with no cart or buy button on their page."""
    return dataclasses.replace(store, out_of_stock_share=0.25)


def _slow_search(store: StoreConfig) -> StoreConfig:
    """Every search takes 3 seconds to show its results (the time is printed beside the result count)."""
    return dataclasses.replace(store, search_delay=3.0)


def _no_listing_images(store: StoreConfig) -> StoreConfig:
    """Listings without their image link (the title link stays)."""
    return dataclasses.replace(store, listing_images=False)


def _hidden_ratings(store: StoreConfig) -> StoreConfig:
    """Star ratings and rating counts hidden on listings, product and reviews pages (the reviews stay)."""
    return dataclasses.replace(store, show_ratings=False)


def _tax_at_checkout(store: StoreConfig) -> StoreConfig:
    """An 8% sales tax added at checkout; listed prices unchanged."""
    return dataclasses.replace(store, tax_rate=0.08, tax_in_price=False)


def _tax_in_price(store: StoreConfig) -> StoreConfig:
    """An 8% sales tax included in every listed price (labelled "incl. tax"), none added at checkout."""
    return dataclasses.replace(store, tax_rate=0.08, tax_in_price=True)


def _no_spelling_fix(store: StoreConfig) -> StoreConfig:
    """No "Did you mean" link for a query with a typo."""
    return dataclasses.replace(store, spelling_suggestions=False)


VARIANTS: dict[str, Callable[[StoreConfig], StoreConfig]] = {
    "base": _base,
    "price-up-20": _price_up,
    "price-down-20": _price_down,
    "rank-by-rating": _rank_by_rating,
    "half-results": _half_results,
    "no-brand-filter": _no_brand_filter,
    "price-up-10": _price_up_10,
    "price-down-10": _price_down_10,
    "rank-by-price": _rank_by_price,
    "more-results": _more_results,
    "no-sort-buttons": _no_sort,
    "dearer-shipping": _dearer_shipping,
    "free-shipping": _free_shipping,
    "sale-badges": _sale_badges,
    "out-of-stock": _out_of_stock,
    "slow-search": _slow_search,
    "no-listing-images": _no_listing_images,
    "hidden-ratings": _hidden_ratings,
    "tax-at-checkout": _tax_at_checkout,
    "tax-in-price": _tax_in_price,
    "no-spelling-fix": _no_spelling_fix,
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


__all__ = [
    "STORE_CHANGES",
    "VARIANTS",
    "VARIANT_NAMES",
    "VariantName",
    "describe_variant",
    "store_variant",
]
