"""The store side of a visit: what the shopper's browser shows, and how each action changes it.

:class:`Browser` holds the current page (its kind, simplified HTML and metadata), the result
list with its filters, the open product with its chosen options, the cart and the promo code,
all under a :class:`~rewardgym.envs.shopping.synthetic.config.StoreConfig`. :meth:`Browser.apply`
is the one implementation of the store's reaction to an action, used both when the replay
generator writes sessions and when ``rewardgym/ShopStore-v0`` serves a live visit; the behaviour
model in :mod:`~rewardgym.envs.shopping.synthetic.shopper` only decides.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic import pages
from rewardgym.envs.shopping.synthetic.catalogue import Catalogue, Product, filter_products
from rewardgym.envs.shopping.synthetic.categories import CATEGORY_BY_KEY
from rewardgym.envs.shopping.synthetic.config import StoreConfig

_PRICE_CAPS: tuple[float, ...] = (20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0)
_SORTS: dict[str, str] = {"sort_price": "price", "sort_rating": "rating"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one action did to the store: whether it took effect, its kind, and a note saying what or why not."""

    applied: bool
    kind: str
    note: str
    product: int | None = None
    """The pid of the product page the action opened, if it opened one."""
    order_total: float | None = None
    """The amount of the order the action placed, if it placed one."""
    wait: float = 0.0
    """Seconds the store took to show the page the action asked for (a slow search)."""


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


def picked(kind: str, seed: int, pid: int, share: float) -> bool:
    """Whether product ``pid`` of catalogue ``seed`` is among the ``share`` that ``kind`` (sale, stock) marks; a fixed hash, no random stream."""
    return share > 0 and zlib.crc32(f"{kind}:{seed}:{pid}".encode()) < share * 2**32


def display_for(catalogue: Catalogue, config: StoreConfig) -> pages.Display:
    """How a store with ``config`` presents ``catalogue``'s products (the pids on sale and out of stock included)."""
    seed = config.catalogue_seed

    def marked(kind: str, share: float) -> frozenset[int]:
        if share <= 0:
            return frozenset()
        return frozenset(p.pid for p in catalogue.products if picked(kind, seed, p.pid, share))

    return pages.Display(
        images=config.listing_images,
        ratings=config.show_ratings,
        tax_included=config.tax_in_price and config.tax_rate > 0,
        sale=marked("sale", config.sale_share),
        sold_out=marked("stock", config.out_of_stock_share),
    )


def _ranked(products: tuple[Product, ...], ranking: str) -> tuple[Product, ...]:
    if ranking == "rating":
        return tuple(sorted(products, key=lambda p: (-p.rating, p.pid)))
    if ranking == "price":
        return tuple(sorted(products, key=lambda p: (p.price, p.pid)))
    return products


class Browser:
    """The page the shopper sees, plus the session state the store keeps (results, product, cart)."""

    def __init__(self, catalogue: Catalogue, config: StoreConfig) -> None:
        self.catalogue = catalogue
        self.config = config
        self.display = display_for(catalogue, config)
        self.per_page = config.results_per_page
        self.results: ResultList | None = None
        self.results_serial = 0
        self.product: Product | None = None
        self.colour: str | None = None
        self.size: str | None = None
        self.cart: list[tuple[Product, str]] = []
        self.promo: str | None = None
        self.order_total = ""
        self.charges = (0.0, 0.0, 0.0)
        """Items subtotal, shipping and tax of the checkout page shown last."""
        self.kind = "home"
        self.html = ""
        self.meta: dict[str, Any] = {}
        # Controls whose name encodes a value (a brand slug, a listing position): name -> value.
        self.targets: dict[str, Any] = {}

    def _show(self, kind: str, html: str, url: str) -> None:
        self.kind, self.html, self.meta = kind, html, {"page_type": kind, "url": url}

    @property
    def query(self) -> str:
        """The text in the search box: the latest query, empty before any search."""
        return self.results.query if self.results else ""

    def has(self, name: str) -> bool:
        """Whether the current page has an element named ``name``."""
        # Page text never holds a raw quote (queries are escaped), so this finds attributes only.
        return '"' not in name and f'name="{name}"' in self.html

    def show_home(self) -> None:
        """Show the landing page."""
        self.targets = {}
        self._show("home", pages.render_home(len(self.cart)), "/")

    def _new_results(self, results: ResultList) -> None:
        self.results = results
        self.results_serial += 1
        self.show_results()

    def on_sale(self, product: Product) -> bool:
        """Whether ``product`` is shown with a sale badge."""
        return product.pid in self.display.sale

    def in_stock(self, product: Product) -> bool:
        """Whether ``product`` can be ordered (it is not shown as out of stock)."""
        return product.pid not in self.display.sold_out

    def open_query(self, query: str) -> None:
        """Run ``query`` through the search engine and show the first results page."""
        found = self.catalogue.search(query)
        suggestion = found.suggestion if self.config.spelling_suggestions else None
        self._new_results(
            ResultList(
                heading=f'Results for "{query}"',
                query=query,
                url=f"/search?q={quote_plus(query)}",
                found=_ranked(found.products, self.config.ranking),
                category=found.category,
                suggestion=suggestion,
            )
        )

    def open_category(self, key: str) -> None:
        """Show a category's listing, most reviewed first under the ``relevance`` ranking."""
        found = tuple(sorted(self.catalogue.by_category[key], key=lambda p: (-p.n_reviews, p.pid)))
        heading = key.replace("_", " ").title()
        ranked = _ranked(found, self.config.ranking)
        self._new_results(ResultList(heading, "", f"/c/{key}", ranked, key, None))

    def visible(self) -> tuple[tuple[Product, ...], bool]:
        """The listings on the current results page, and whether a next page exists."""
        assert self.results is not None
        listing = self.results.listing()
        start = (self.results.page - 1) * self.per_page
        return listing[start : start + self.per_page], len(listing) > start + self.per_page

    def price_caps(self) -> tuple[float, ...]:
        """The price-cap filters the current result list offers (none when the store has no price filter)."""
        if self.results is None or "price" not in self.config.filters:
            return ()
        return price_caps(self.results.category)

    def show_results(self) -> None:
        """Render the current result list at its current page, filters and sort."""
        res = self.results
        assert res is not None
        filters = self.config.filters
        visible, has_next = self.visible()
        brands: set[str] = set()
        if "brand" in filters:
            counts = Counter(p.brand for p in res.found)
            brands = {b for b, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:4]}
            if res.brand:
                brands.add(res.brand)
        features = CATEGORY_BY_KEY[res.category].features if res.category else ()
        features = features if "feature" in filters else ()
        caps = self.price_caps()
        html = pages.render_results(
            heading=res.heading,
            query=res.query,
            listing=visible,
            total=len(res.listing()),
            page=res.page,
            has_next=has_next,
            suggestion=res.suggestion,
            brands=tuple(sorted(brands)),
            features=features,
            price_caps=caps,
            active=res.active(),
            cart_count=len(self.cart),
            sorts="sort" in filters,
            display=self.display,
            search_seconds=self.config.search_delay if res.query else 0.0,
        )
        self.targets = {
            **{pages.brand_filter_name(b): ("brand", b) for b in brands},
            **{pages.feature_filter_name(f): ("feature", f) for f in features},
            **{pages.price_filter_name(c): ("max_price", c) for c in caps},
            **{
                pages.product_name(i, part): product
                for i, product in enumerate(visible, start=1)
                for part in (("title", "image") if self.display.images else ("title",))
            },
        }
        suffix = "".join(f"&f={quote_plus(a)}" for a in res.active())
        page = f"&page={res.page}" if res.page > 1 else ""
        self._show("search_results", html, f"{res.url}{suffix}{page}")

    def open_product(self, product: Product) -> None:
        """Show ``product``'s page with no options chosen yet."""
        self.product, self.colour, self.size = product, None, None
        self.show_product()

    def show_product(self) -> None:
        """Render the open product's page with the options chosen so far."""
        product = self.product
        assert product is not None
        html = pages.render_product(
            product,
            query=self.query,
            colour=self.colour,
            size=self.size,
            cart_count=len(self.cart),
            display=self.display,
        )
        colours = product.colours if len(product.colours) > 1 else ()
        self.targets = {
            **{pages.option_name("color", c): ("colour", c) for c in colours},
            **{pages.option_name("size", s): ("size", s) for s in product.sizes},
        }
        self._show("product", html, f"/product/{product.pid}")

    def show_reviews(self) -> None:
        """Show the open product's reviews."""
        assert self.product is not None
        self.targets = {}
        html = pages.render_reviews(
            self.product, query=self.query, cart_count=len(self.cart), display=self.display
        )
        self._show("reviews", html, f"/product/{self.product.pid}/reviews")

    def add_open_product(self) -> None:
        """Put the open product, with its chosen options, into the cart."""
        assert self.product is not None
        options = " ".join(o for o in (self.colour, self.size) if o)
        self.cart.append((self.product, options))

    def show_cart(self) -> None:
        """Show the cart."""
        self.targets = {
            **{f"cart_item_{i}": p for i, (p, _) in enumerate(self.cart, start=1)},
            **{f"remove_item_{i}": i - 1 for i in range(1, len(self.cart) + 1)},
        }
        self._show("cart", pages.render_cart(tuple(self.cart), query=self.query), "/cart")

    def show_checkout(self) -> None:
        """Show checkout: free shipping from the store's threshold, the promo discount if a code was applied, tax unless prices include it."""
        config, items = self.config, tuple(self.cart)
        subtotal = sum(p.price for p, _ in items)
        shipping = 0.0 if subtotal >= config.free_shipping_over else config.shipping_fee
        rate = config.promo_discount
        tax_rate = 0.0 if config.tax_in_price else config.tax_rate
        tax = pages.sales_tax(items, self.promo, rate, tax_rate) if tax_rate else 0.0
        self.charges = (subtotal, shipping, tax)
        self.order_total = f"${pages.order_total(items, shipping, self.promo, rate, tax):.2f}"
        html = pages.render_checkout(items, shipping=shipping, promo=self.promo, rate=rate, tax=tax)
        self.targets = {}
        self._show("checkout", html, "/checkout")

    def show_confirmation(self, order_id: str) -> None:
        """Show the confirmation of order ``order_id``; the cart and the promo code are cleared."""
        self.cart.clear()
        self.promo = None
        self.targets = {}
        self._show("confirmation", pages.render_confirmation(order_id), f"/order/{order_id}")

    def apply(self, action: ShopAction, rng: random.Random) -> Outcome:
        """Carry out ``action`` on the current page; one that names nothing here leaves the page as it is.

        ``rng`` draws what the store itself makes up (order numbers). The returned
        :class:`Outcome` says whether the action took effect and, in words, what it did or why not.
        """
        kind = pages.action_kind(action)
        if action.type == "terminate":
            return Outcome(True, kind, "ended the visit")
        name = action.name
        if not self.has(name):
            return Outcome(False, kind, f"no element named {name!r} on this {self.kind} page")
        if action.type == "type_and_submit":
            return self._submit(name, action.text, kind)
        if name in pages.TEXT_INPUTS:
            return Outcome(False, kind, f"{name!r} is a text box: type_and_submit into it")
        return self._click(name, kind, rng)

    def _submit(self, name: str, text: str, kind: str) -> Outcome:
        if name not in pages.TEXT_INPUTS:
            return Outcome(False, kind, f"{name!r} is not a text box; click it instead")
        if not text.strip():
            return Outcome(False, kind, f"nothing typed into {name!r}")
        if name == pages.SEARCH_INPUT:
            self.open_query(text)
            return Outcome(True, kind, f"searched for {text!r}", wait=self.config.search_delay)
        if text.strip().upper() not in {c.upper() for c in self.config.promo_codes}:
            self.show_checkout()
            return Outcome(True, kind, f"promo code {text!r} refused")
        self.promo = text
        self.show_checkout()
        return Outcome(True, kind, f"promo code {text!r} applied")

    def _click(self, name: str, kind: str, rng: random.Random) -> Outcome:
        res, target = self.results, self.targets.get(name)
        if name in ("nav_home", "continue_shopping"):
            self.show_home()
        elif name in ("nav_cart", "back_to_cart"):
            self.show_cart()
        elif name == "search_button":
            if not self.query:
                return Outcome(False, kind, "the search box is empty: type_and_submit a query")
            self.open_query(self.query)
            return Outcome(True, kind, f"clicked {name!r}", wait=self.config.search_delay)
        elif name.startswith("category_") and name.removeprefix("category_") in CATEGORY_BY_KEY:
            self.open_category(name.removeprefix("category_"))
        elif isinstance(target, Product):
            self.open_product(target)
            return Outcome(True, kind, f"opened {target.title}", product=target.pid)
        elif name == "back_to_results" and res is not None:
            self.show_results()
        elif res is not None and self.kind == "search_results":
            return self._on_results_control(name, kind, res, target)
        elif self.product is not None and self.kind in ("product", "reviews"):
            return self._on_product_control(name, kind, target)
        elif self.kind == "cart" and isinstance(target, int):
            del self.cart[target]
            self.show_cart()
        elif name == "checkout" and self.cart:
            self.show_checkout()
        elif name == "place_order" and self.cart:
            total = float(self.order_total.lstrip("$"))
            self.show_confirmation(f"SS-{rng.randrange(10**6):06d}")
            return Outcome(True, kind, f"placed an order of ${total:.2f}", order_total=total)
        else:
            return Outcome(False, kind, f"{name!r} does nothing on this {self.kind} page")
        return Outcome(True, kind, f"clicked {name!r}")

    def _on_results_control(self, name: str, kind: str, res: ResultList, target: Any) -> Outcome:
        if name == "clear_filters":
            res.clear()
        elif name in _SORTS:
            res.sort, res.page = _SORTS[name], 1
        elif isinstance(target, tuple):
            field, value = target
            setattr(res, field, value)
            res.page = 1
        elif name == "next_page":
            res.page += 1
        elif name == "prev_page":
            res.page = max(1, res.page - 1)
        elif name == "did_you_mean" and res.suggestion:
            self.open_query(res.suggestion)
            note = f"searched for {res.suggestion!r}"
            return Outcome(True, kind, note, wait=self.config.search_delay)
        else:
            return Outcome(False, kind, f"{name!r} does nothing on this results page")
        self.show_results()
        return Outcome(True, kind, f"clicked {name!r}")

    def _on_product_control(self, name: str, kind: str, target: Any) -> Outcome:
        if name == "see_reviews":
            self.show_reviews()
        elif name == "back_to_product":
            self.show_product()
        elif isinstance(target, tuple) and self.kind == "product":
            field, value = target
            setattr(self, field, value)
            self.show_product()
        elif name == "add_to_cart":
            self.add_open_product()
            self.show_cart()
        elif name == "buy_now":
            self.add_open_product()
            self.show_checkout()
        else:
            return Outcome(False, kind, f"{name!r} does nothing on this {self.kind} page")
        return Outcome(True, kind, f"clicked {name!r}")


__all__ = ["Browser", "Outcome", "ResultList", "display_for", "picked", "price_caps"]
