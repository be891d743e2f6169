"""The store side of a synthetic session: what the shopper's browser shows and how pages change.

:class:`Browser` holds the current page (its kind, simplified HTML and metadata), the result
list with its filters, the open product with its chosen options, and the cart. The behaviour
model in :mod:`~rewardgym.envs.shopping.synthetic.shopper` only decides; the browser renders.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus

from rewardgym.envs.shopping.synthetic import pages
from rewardgym.envs.shopping.synthetic.catalogue import Catalogue, Product, filter_products
from rewardgym.envs.shopping.synthetic.categories import CATEGORY_BY_KEY

_PRICE_CAPS: tuple[float, ...] = (20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0)


@dataclass(slots=True)
class ResultList:
    """One result list: what the engine found for a query or category, and the filters applied."""

    heading: str
    query: str
    url: str
    found: tuple[Product, ...]
    category: str | None
    suggestion: str | None
    brand: str | None = None
    feature: str | None = None
    max_price: float | None = None
    sort: str | None = None
    page: int = 1
    filter_tried: bool = False
    suggestion_handled: bool = False

    def listing(self) -> tuple[Product, ...]:
        """The found products after the active filters and sort."""
        return filter_products(
            self.found,
            brand=self.brand,
            feature=self.feature,
            max_price=self.max_price,
            sort=self.sort,
        )

    def active(self) -> tuple[str, ...]:
        """Labels of the active filters and sort, for the clear-filters button and the URL."""
        labels = (
            self.brand,
            self.feature,
            f"under ${self.max_price:g}" if self.max_price else None,
            f"by {self.sort}" if self.sort else None,
        )
        return tuple(label for label in labels if label)

    def clear(self) -> None:
        """Drop every filter and the sort, back to page one."""
        self.brand = self.feature = self.max_price = self.sort = None
        self.page = 1


def price_caps(category: str | None) -> tuple[float, ...]:
    """The "under $X" filter buttons a category's result page offers (none for mixed results)."""
    if category is None:
        return ()
    low, high = CATEGORY_BY_KEY[category].price_range
    return tuple(c for c in _PRICE_CAPS if low * 1.3 < c < high * 0.9)[:3]


class Browser:
    """The page the shopper sees, plus the session state the store keeps (results, product, cart)."""

    def __init__(self, catalogue: Catalogue, results_per_page: int) -> None:
        self.catalogue = catalogue
        self.per_page = results_per_page
        self.results: ResultList | None = None
        self.product: Product | None = None
        self.colour: str | None = None
        self.size: str | None = None
        self.cart: list[tuple[Product, str]] = []
        self.order_total = ""
        self.kind = "home"
        self.html = ""
        self.meta: dict[str, Any] = {}

    def _show(self, kind: str, html: str, url: str) -> None:
        self.kind, self.html, self.meta = kind, html, {"page_type": kind, "url": url}

    @property
    def query(self) -> str:
        """The text in the search box: the latest query, empty before any search."""
        return self.results.query if self.results else ""

    def has(self, name: str) -> bool:
        """Whether the current page has an element named ``name``."""
        return f'name="{name}"' in self.html

    def show_home(self) -> None:
        """Show the landing page."""
        self._show("home", pages.render_home(len(self.cart)), "/")

    def open_query(self, query: str) -> None:
        """Run ``query`` through the search engine and show the first results page."""
        found = self.catalogue.search(query)
        self.results = ResultList(
            heading=f'Results for "{query}"',
            query=query,
            url=f"/search?q={quote_plus(query)}",
            found=found.products,
            category=found.category,
            suggestion=found.suggestion,
        )
        self.show_results()

    def open_category(self, key: str) -> None:
        """Show a category's listing, most reviewed first."""
        found = tuple(sorted(self.catalogue.by_category[key], key=lambda p: (-p.n_reviews, p.pid)))
        heading = key.replace("_", " ").title()
        self.results = ResultList(heading, "", f"/c/{key}", found, key, None)
        self.show_results()

    def visible(self) -> tuple[tuple[Product, ...], bool]:
        """The listings on the current results page, and whether a next page exists."""
        assert self.results is not None
        listing = self.results.listing()
        start = (self.results.page - 1) * self.per_page
        return listing[start : start + self.per_page], len(listing) > start + self.per_page

    def show_results(self) -> None:
        """Render the current result list at its current page, filters and sort."""
        res = self.results
        assert res is not None
        visible, has_next = self.visible()
        counts = Counter(p.brand for p in res.found)
        brands = {b for b, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:4]}
        if res.brand:
            brands.add(res.brand)
        html = pages.render_results(
            heading=res.heading,
            query=res.query,
            listing=visible,
            total=len(res.listing()),
            page=res.page,
            has_next=has_next,
            suggestion=res.suggestion,
            brands=tuple(sorted(brands)),
            features=CATEGORY_BY_KEY[res.category].features if res.category else (),
            price_caps=price_caps(res.category),
            active=res.active(),
            cart_count=len(self.cart),
        )
        suffix = "".join(f"&f={quote_plus(a)}" for a in res.active())
        page = f"&page={res.page}" if res.page > 1 else ""
        self._show("search_results", html, f"{res.url}{suffix}{page}")

    def open_product(self, product: Product) -> None:
        """Show ``product``'s page with no options chosen yet."""
        self.product, self.colour, self.size = product, None, None
        self.show_product()

    def show_product(self) -> None:
        """Render the open product's page with the options chosen so far."""
        assert self.product is not None
        html = pages.render_product(
            self.product,
            query=self.query,
            colour=self.colour,
            size=self.size,
            cart_count=len(self.cart),
        )
        self._show("product", html, f"/product/{self.product.pid}")

    def show_reviews(self) -> None:
        """Show the open product's reviews."""
        assert self.product is not None
        html = pages.render_reviews(self.product, query=self.query, cart_count=len(self.cart))
        self._show("reviews", html, f"/product/{self.product.pid}/reviews")

    def add_open_product(self) -> None:
        """Put the open product, with its chosen options, into the cart."""
        assert self.product is not None
        options = " ".join(o for o in (self.colour, self.size) if o)
        self.cart.append((self.product, options))

    def show_cart(self) -> None:
        """Show the cart."""
        self._show("cart", pages.render_cart(tuple(self.cart), query=self.query), "/cart")

    def show_checkout(self, promo: str | None) -> None:
        """Show checkout; orders of $50 or more ship free, a promo code takes 10% off the items."""
        items = tuple(self.cart)
        shipping = 0.0 if sum(p.price for p, _ in items) >= 50 else 5.99
        self.order_total = f"${pages.order_total(items, shipping, promo):.2f}"
        html = pages.render_checkout(items, shipping=shipping, promo=promo)
        self._show("checkout", html, "/checkout")

    def show_confirmation(self, order_id: str) -> None:
        """Show the confirmation of order ``order_id``; the cart is emptied."""
        self.cart.clear()
        self._show("confirmation", pages.render_confirmation(order_id), f"/order/{order_id}")


__all__ = ["Browser", "ResultList", "price_caps"]
