"""The knobs of the synthetic shopper, in one frozen dataclass whose defaults give the default data set."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SyntheticShopperConfig:
    """How many synthetic sessions to make, from which seed, and how the simulated shoppers behave.

    Every shopper draws a hidden intent (category, must-have and nice-to-have features, budget,
    maybe a brand, colour and size, a goal of buying or browsing, patience and decisiveness)
    from the ranges below; the defaults give sessions of about 10 steps with roughly 77% clicks,
    12% ``type_and_submit`` and one ``terminate`` each (see ``docs/synthetic_shopper.md``).
    Session ``i`` depends only on ``seed`` and ``i``, never on ``sessions``.
    """

    sessions: int = 2000
    """Number of sessions to generate (the paper's corpus has 52,137)."""
    seed: int = 0
    """Seed of the catalogue and of every shopper's private random stream."""
    products_per_category: int = 40
    """Catalogue size per category (8 categories)."""
    results_per_page: int = 5
    """Products listed on one search-results page."""
    buy_rate: float = 0.6
    """Fraction of shoppers who mean to buy; the rest browse and compare."""
    decisiveness_range: tuple[float, float] = (0.5, 0.95)
    """Uniform range of the probability of clicking the listing that best fits the intent."""
    patience_range: tuple[int, int] = (2, 6)
    """Uniform range of disappointments (bad listings, rejected products) tolerated before giving up."""
    review_rate: float = 0.35
    """Mean probability of opening a promising product's reviews before buying."""
    filter_rate: float = 0.3
    """Mean probability of using a filter or sort button on a fresh result list."""
    brand_rate: float = 0.25
    """Fraction of shoppers with a preferred brand."""
    category_browse_rate: float = 0.12
    """Fraction of shoppers who start from a category link instead of the search box."""
    typo_rate: float = 0.1
    """Probability that a typed query contains one typo."""
    synonym_rate: float = 0.3
    """Probability that a query names the product by a synonym (a paraphrase of the category)."""
    image_click_rate: float = 0.15
    """Probability of clicking a listing's image rather than its title."""
    promo_rate: float = 0.25
    """Fraction of buyers who type a promo code at checkout."""
    abandon_rate: float = 0.08
    """Probability of abandoning at the cart or at checkout instead of going on."""
    max_steps: int = 40
    """Hard cap on a session's length; the last step is always ``terminate``."""
    start_time: float = 1_735_689_600.0
    """Earliest session start, in Unix seconds (2025-01-01 UTC); starts spread over 90 days."""

    def __post_init__(self) -> None:
        if self.sessions < 0:
            raise ValueError(f"SyntheticShopperConfig.sessions must be >= 0 (got {self.sessions})")
        if self.products_per_category < self.results_per_page or self.results_per_page < 1:
            raise ValueError(
                "SyntheticShopperConfig needs 1 <= results_per_page <= products_per_category "
                f"(got {self.results_per_page} and {self.products_per_category})"
            )
        if self.max_steps < 4:
            raise ValueError(
                f"SyntheticShopperConfig.max_steps must be >= 4 (got {self.max_steps})"
            )
        for name in (
            "buy_rate",
            "review_rate",
            "filter_rate",
            "brand_rate",
            "category_browse_rate",
            "typo_rate",
            "synonym_rate",
            "image_click_rate",
            "promo_rate",
            "abandon_rate",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"SyntheticShopperConfig.{name} must lie in [0, 1] (got {value})")
        low, high = self.decisiveness_range
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(
                f"SyntheticShopperConfig.decisiveness_range must satisfy 0 <= low <= high <= 1 "
                f"(got {self.decisiveness_range})"
            )
        if not 0 <= self.patience_range[0] <= self.patience_range[1]:
            raise ValueError(
                f"SyntheticShopperConfig.patience_range must satisfy 0 <= low <= high "
                f"(got {self.patience_range})"
            )


__all__ = ["SyntheticShopperConfig"]
