"""The seeded synthetic catalogue: products with titles, brands, prices, ratings, options and reviews, plus its search engine."""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import re
from dataclasses import dataclass, field

from rewardgym.envs.shopping.synthetic.categories import (
    CATEGORIES,
    REVIEW_COMPLAINT,
    REVIEW_MIXED,
    REVIEW_PRAISE,
    REVIEWER_NAMES,
    CategorySpec,
)

_PRICE_CAP = re.compile(r"under \$?(\d+)")
_TOKEN = re.compile(r"[a-z0-9$'-]+")
# Words a query template may add around the intent's own words; never flagged as typos.
QUERY_FILLER: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "and",
        "best",
        "buy",
        "cheap",
        "for",
        "good",
        "men's",
        "new",
        "top",
        "sale",
        "women's",
        "under",
        "with",
        "on",
        "the",
        "my",
    ]
)


@dataclass(frozen=True, slots=True)
class Review:
    """One customer review: who wrote it, how many stars, and what it says."""

    author: str
    stars: int
    text: str


@dataclass(frozen=True, slots=True)
class Product:
    """One catalogue item; ``title_features`` are the features its listing title shows."""

    pid: int
    category: str
    brand: str
    model: str
    title: str
    price: float
    rating: float
    n_reviews: int
    features: tuple[str, ...]
    title_features: tuple[str, ...]
    colours: tuple[str, ...]
    sizes: tuple[str, ...]
    reviews: tuple[Review, ...]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What the search engine returns: ranked products, the category it read, and a spelling fix."""

    products: tuple[Product, ...]
    category: str | None
    suggestion: str | None


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _make_reviews(rng: random.Random, spec: CategorySpec, rating: float) -> tuple[Review, ...]:
    reviews = []
    for _ in range(rng.randint(3, 5)):
        stars = max(1, min(5, round(rng.gauss(rating, 1.0))))
        if stars >= 4:
            text = rng.choice(REVIEW_PRAISE)
        elif stars <= 2:
            text = rng.choice(REVIEW_COMPLAINT)
        else:
            text = rng.choice(REVIEW_MIXED).format(feature=rng.choice(spec.features))
        reviews.append(Review(rng.choice(REVIEWER_NAMES), stars, text))
    return tuple(reviews)


def _make_category(
    rng: random.Random, spec: CategorySpec, count: int, first_pid: int
) -> list[Product]:
    names = [(b, m) for b in spec.brands for m in spec.models]
    rng.shuffle(names)
    low, high = spec.price_range
    products = []
    for k in range(count):
        brand, model = names[k % len(names)]
        if k >= len(names):
            model = f"{model} {k // len(names) + 1}"
        features = tuple(sorted(rng.sample(spec.features, rng.randint(2, 4))))
        shown = tuple(rng.sample(features, min(len(features), rng.randint(1, 2))))
        # Log-uniform prices: many cheap items, a few premium ones, as in real catalogues.
        price = round(math.exp(rng.uniform(math.log(low), math.log(high))), 0) - 0.01
        price += 8.0 * len(features) - 16.0
        price = max(round(low, 0) - 0.01, price)
        rating = round(min(5.0, max(2.0, rng.gauss(4.1, 0.5))), 1)
        colours = tuple(rng.sample(spec.colours, rng.randint(1, len(spec.colours))))
        sizes = spec.sizes if spec.sizes and rng.random() < 0.9 else ()
        words = " ".join(f.title() for f in shown)
        title = f"{brand} {model} {words} {spec.noun.title()}"
        products.append(
            Product(
                pid=first_pid + k,
                category=spec.key,
                brand=brand,
                model=model,
                title=title,
                price=round(price, 2),
                rating=rating,
                n_reviews=int(math.exp(rng.uniform(1.5, 8.0))),
                features=features,
                title_features=shown,
                colours=colours,
                sizes=sizes,
                reviews=_make_reviews(rng, spec, rating),
            )
        )
    return products


@dataclass(slots=True)
class Catalogue:
    """All products of one seed, indexed by category, with a small keyword search engine."""

    products: tuple[Product, ...]
    by_category: dict[str, tuple[Product, ...]]
    _vocab: frozenset[str] = field(default=frozenset(), repr=False)
    _fixes: dict[str, str] = field(default_factory=dict, repr=False)
    _patterns: tuple[tuple[str, re.Pattern[str]], ...] = field(default=(), repr=False)
    _cache: dict[str, SearchResult] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        words: set[str] = set(QUERY_FILLER)
        patterns = []
        for spec in CATEGORIES:
            phrases = (spec.noun, *spec.synonyms)
            alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
            patterns.append((spec.key, re.compile(rf"\b(?:{alternatives})s?\b")))
            for phrase in (*phrases, *spec.features, *(b.lower() for b in spec.brands)):
                words.update(phrase.split())
            for occasion in spec.occasions:
                words.update(_TOKEN.findall(occasion))
        fixes: dict[str, str] = {}
        for word in sorted(words):
            if len(word) >= 4 and word.isalpha():
                for variant in (word, *_deletions(word)):
                    fixes.setdefault(variant, word)
        self._vocab = frozenset(words)
        self._fixes = fixes
        self._patterns = tuple(patterns)

    def correct(self, token: str) -> str | None:
        """The known word one edit away from an unknown ``token``, or None when it is known or hopeless."""
        if token in self._vocab or len(token) < 4 or not token.isalpha():
            return None
        for variant in (token, *sorted(_deletions(token))):
            fix = self._fixes.get(variant)
            if fix is not None and fix != token:
                return fix
        return None

    def search(self, query: str) -> SearchResult:
        """Rank products for ``query`` by category, features, brand and price cap, with a spelling hint."""
        key = " ".join(query.lower().split())
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        tokens = _TOKEN.findall(key)
        fixed = [self.correct(t) or t for t in tokens]
        suggestion = " ".join(fixed) if fixed != tokens else None
        padded = f" {key} "
        category = next((k for k, pat in self._patterns if pat.search(key)), None)
        cap_match = _PRICE_CAP.search(key)
        cap = float(cap_match.group(1)) if cap_match else math.inf
        pool = self.by_category[category] if category else self.products
        scored = []
        for product in pool:
            hits = sum(1 for f in product.features if f" {f} " in padded)
            brand = product.brand.lower() in key
            if category is None and not hits and not brand:
                continue
            if product.price > cap:
                continue
            score = (
                2.0 * hits + 3.0 * brand + product.rating / 5 + math.log1p(product.n_reviews) / 10
            )
            scored.append((-score, product.pid, product))
        scored.sort(key=lambda item: (item[0], item[1]))
        result = SearchResult(tuple(p for _, _, p in scored), category, suggestion)
        self._cache[key] = result
        return result


def filter_products(
    products: tuple[Product, ...],
    *,
    brand: str | None = None,
    feature: str | None = None,
    max_price: float | None = None,
    sort: str | None = None,
) -> tuple[Product, ...]:
    """Narrow ``products`` by brand, feature and price cap, then sort by ``price`` or ``rating`` if asked."""
    out = [
        p
        for p in products
        if (brand is None or p.brand == brand)
        and (feature is None or feature in p.features)
        and (max_price is None or p.price <= max_price)
    ]
    if sort == "price":
        out.sort(key=lambda p: (p.price, p.pid))
    elif sort == "rating":
        out.sort(key=lambda p: (-p.rating, p.pid))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def build_catalogue(seed: int, products_per_category: int = 40) -> Catalogue:
    """Build (once per process and arguments) the catalogue that ``seed`` determines."""
    rng = random.Random(f"rewardgym-synthetic-catalogue:{seed}:{products_per_category}")
    products: list[Product] = []
    by_category: dict[str, tuple[Product, ...]] = {}
    for spec in CATEGORIES:
        items = _make_category(rng, spec, products_per_category, len(products))
        by_category[spec.key] = tuple(items)
        products.extend(items)
    return Catalogue(tuple(products), by_category)


def repriced(catalogue: Catalogue, factor: float) -> Catalogue:
    """``catalogue`` with every price multiplied by ``factor`` and rounded to the cent (itself at 1)."""
    if factor == 1.0:
        return catalogue
    by_category = {
        key: tuple(dataclasses.replace(p, price=round(p.price * factor, 2)) for p in items)
        for key, items in catalogue.by_category.items()
    }
    products = tuple(p for items in by_category.values() for p in items)
    return Catalogue(tuple(sorted(products, key=lambda p: p.pid)), by_category)


@functools.lru_cache(maxsize=16)
def priced_catalogue(seed: int, products_per_category: int, factor: float) -> Catalogue:
    """The catalogue of ``seed`` at ``factor`` times its prices (built once per process and arguments)."""
    return repriced(build_catalogue(seed, products_per_category), factor)


__all__ = [
    "QUERY_FILLER",
    "Catalogue",
    "Product",
    "Review",
    "SearchResult",
    "build_catalogue",
    "filter_products",
    "priced_catalogue",
    "repriced",
]
