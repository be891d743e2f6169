"""The knobs of the synthetic shopper and of the store it visits, as frozen dataclasses whose defaults give the default data set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, get_args

from rewardgym.bounds import (
    AT_LEAST_1,
    FINITE,
    NON_NEGATIVE,
    POSITIVE,
    PROBABILITY,
    SEED,
    Range,
    at_least,
    between,
    check_fields,
)
from rewardgym.envs.shopping.synthetic.categories import PROMO_CODES

Ranking = Literal["relevance", "rating", "price"]
FilterKind = Literal["brand", "feature", "price", "sort"]
FILTER_KINDS: tuple[str, ...] = get_args(FilterKind)
MAX_PRODUCTS_PER_CATEGORY = 10_000
"""The largest catalogue per category (80,000 products in all). Building the catalogue and
every search scale with it: at 10,000 the catalogue takes about 5 s and 240 MiB and a session
about 70 ms (2 cores, 2026-12-01), 250 times the default of 40; a value such as 100,000,000
would run for hours and exhaust memory before the first session."""
CATALOGUE_SIZE = between(1, MAX_PRODUCTS_PER_CATEGORY)
"""The range of ``products_per_category``."""


def _check_catalogue(owner: str, products_per_category: int, results_per_page: int) -> None:
    """Refuse a catalogue size or page size outside ``1 <= results_per_page <= products_per_category <= MAX``."""
    if not 1 <= results_per_page <= products_per_category <= MAX_PRODUCTS_PER_CATEGORY:
        raise ValueError(
            f"{owner} needs 1 <= results_per_page <= products_per_category <= "
            f"{MAX_PRODUCTS_PER_CATEGORY:,} (got {results_per_page} and {products_per_category})"
        )


@dataclass(frozen=True)
class StoreConfig:
    """How the synthetic store is set up: its catalogue, ranking, prices, page size and filters.

    The defaults are the store every replay session of the default corpus was generated in
    (:meth:`SyntheticShopperConfig.store`); ``rewardgym/ShopStore-v0`` takes one of these, and
    :mod:`~rewardgym.envs.shopping.synthetic.variants` names the changed stores of the A/B tests.
    """

    catalogue_seed: Annotated[int, SEED] = 0
    """Seed of the catalogue (and of the intents' random streams: intent ``i`` is session ``i`` of this seed)."""
    products_per_category: Annotated[int, CATALOGUE_SIZE] = 40
    """Catalogue size per category (8 categories; at most 10,000)."""
    results_per_page: Annotated[int, AT_LEAST_1] = 5
    """Products listed on one results page."""
    ranking: Ranking = "relevance"
    """Order of a result list: the search engine's ``relevance`` (most reviewed first on a category page), top ``rating`` first, or lowest ``price`` first."""
    price_factor: Annotated[float, POSITIVE] = 1.0
    """Every catalogue price is multiplied by this (rounded to the cent); 1.2 is "prices up 20%"."""
    filters: tuple[FilterKind, ...] = ("brand", "feature", "price", "sort")
    """Which filter buttons the results pages offer: ``brand``, ``feature``, ``price`` caps and the ``sort`` buttons."""
    promo_codes: tuple[str, ...] = PROMO_CODES
    """Codes the checkout accepts (case-insensitive); any other code is refused."""
    promo_discount: Annotated[float, Range(ge=0, lt=1, what="a share")] = 0.10
    """Share of the items' price a valid promo code takes off."""
    free_shipping_over: Annotated[float, NON_NEGATIVE] = 50.0
    """Orders whose items cost at least this ship free."""
    shipping_fee: Annotated[float, NON_NEGATIVE] = 5.99
    """Shipping charged below ``free_shipping_over``."""
    tax_rate: Annotated[float, between(0, 1)] = 0.0
    """Sales tax on the items' price (0.08 = 8%); none in the replay corpus's store."""
    tax_in_price: bool = False
    """Show every price with the tax included (what is listed is what is paid) instead of adding it at checkout."""
    sale_share: Annotated[float, between(0, 1)] = 0.0
    """Share of products whose listing and page show a "Sale" badge over a struck-through, higher "was" price; the price charged is unchanged."""
    out_of_stock_share: Annotated[float, between(0, 1)] = 0.0
    """Share of products that are out of stock: listed as such, and their page has no cart or buy button."""
    search_delay: Annotated[float, NON_NEGATIVE] = 0.0
    """Seconds a search takes to show its results; a delay is printed beside the result count, as search engines print their time."""
    listing_images: bool = True
    """Whether every results listing has an image link beside its title."""
    show_ratings: bool = True
    """Whether listings, product and reviews pages show the star rating and the number of ratings (the reviews themselves stay readable)."""
    spelling_suggestions: bool = True
    """Whether a query with a typo gets a "Did you mean" link."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range, a page larger than the catalogue, and unknown names."""
        check_fields(self)
        _check_catalogue("StoreConfig", self.products_per_category, self.results_per_page)
        if self.ranking not in get_args(Ranking):
            raise ValueError(
                f"StoreConfig.ranking must be one of {get_args(Ranking)} (got {self.ranking!r})"
            )
        unknown = [f for f in self.filters if f not in FILTER_KINDS]
        if unknown or len(set(self.filters)) != len(self.filters):
            raise ValueError(
                f"StoreConfig.filters must be distinct names from {FILTER_KINDS} (got {self.filters})"
            )


@dataclass(frozen=True)
class SyntheticShopperConfig:
    """How many synthetic sessions to make, from which seed, and how the simulated shoppers behave.

    Every shopper draws a hidden intent (category, must-have and nice-to-have features, budget,
    maybe a brand, colour and size, a goal of buying or browsing, patience and decisiveness)
    from the ranges below; the defaults give sessions of about 10 steps with roughly 77% clicks,
    12% ``type_and_submit`` and one ``terminate`` each (see ``docs/synthetic_shopper.md``).
    Session ``i`` depends only on ``seed`` and ``i``, never on ``sessions``.
    """

    sessions: Annotated[int, NON_NEGATIVE] = 2000
    """Number of sessions to generate (the paper's corpus has 52,137)."""
    seed: Annotated[int, SEED] = 0
    """Seed of the catalogue and of every shopper's private random stream."""
    products_per_category: Annotated[int, CATALOGUE_SIZE] = 40
    """Catalogue size per category (8 categories; at most 10,000)."""
    results_per_page: Annotated[int, AT_LEAST_1] = 5
    """Products listed on one search-results page."""
    buy_rate: Annotated[float, PROBABILITY] = 0.6
    """Fraction of shoppers who mean to buy; the rest browse and compare."""
    decisiveness_range: Annotated[tuple[float, float], PROBABILITY] = (0.5, 0.95)
    """Uniform range of the probability of clicking the listing that best fits the intent."""
    patience_range: Annotated[tuple[int, int], NON_NEGATIVE] = (2, 6)
    """Uniform range of disappointments (bad listings, rejected products) tolerated before giving up."""
    review_rate: Annotated[float, PROBABILITY] = 0.35
    """Mean probability of opening a promising product's reviews before buying."""
    filter_rate: Annotated[float, PROBABILITY] = 0.3
    """Mean probability of using a filter or sort button on a fresh result list."""
    brand_rate: Annotated[float, PROBABILITY] = 0.25
    """Fraction of shoppers with a preferred brand."""
    category_browse_rate: Annotated[float, PROBABILITY] = 0.12
    """Fraction of shoppers who start from a category link instead of the search box."""
    typo_rate: Annotated[float, PROBABILITY] = 0.1
    """Probability that a typed query contains one typo."""
    synonym_rate: Annotated[float, PROBABILITY] = 0.3
    """Probability that a query names the product by a synonym (a paraphrase of the category)."""
    image_click_rate: Annotated[float, PROBABILITY] = 0.15
    """Probability of clicking a listing's image rather than its title."""
    promo_rate: Annotated[float, PROBABILITY] = 0.25
    """Fraction of buyers who type a promo code at checkout."""
    abandon_rate: Annotated[float, PROBABILITY] = 0.08
    """Probability of abandoning at the cart or at checkout instead of going on."""
    max_steps: Annotated[int, at_least(4)] = 40
    """Hard cap on a session's length; the last step is always terminate."""
    start_time: Annotated[float, FINITE] = 1_735_689_600.0
    """Earliest session start, in Unix seconds (2025-01-01 UTC); starts spread over 90 days."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range, a page larger than the catalogue, and reversed ranges."""
        check_fields(self)
        _check_catalogue(
            "SyntheticShopperConfig", self.products_per_category, self.results_per_page
        )
        low, high = self.decisiveness_range
        if not low <= high:
            raise ValueError(
                f"SyntheticShopperConfig.decisiveness_range must satisfy 0 <= low <= high <= 1 "
                f"(got {self.decisiveness_range})"
            )
        if not self.patience_range[0] <= self.patience_range[1]:
            raise ValueError(
                f"SyntheticShopperConfig.patience_range must satisfy 0 <= low <= high "
                f"(got {self.patience_range})"
            )

    def store(self) -> StoreConfig:
        """The store this config's sessions are generated in: its catalogue seed and page size, default otherwise."""
        return StoreConfig(
            catalogue_seed=self.seed,
            products_per_category=self.products_per_category,
            results_per_page=self.results_per_page,
        )


__all__ = [
    "FILTER_KINDS",
    "MAX_PRODUCTS_PER_CATEGORY",
    "FilterKind",
    "Ranking",
    "StoreConfig",
    "SyntheticShopperConfig",
]
