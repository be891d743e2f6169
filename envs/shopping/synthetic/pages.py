"""Simplified-HTML pages of the synthetic store, where every interactable element has a unique ``name``.

Pages follow the shape of the Shop-R1 paper's simplified HTML (scripts and styles removed, only
structure, text and named controls kept) and stay small, about 0.35-2.2 KB each, so that a
52,137-session corpus is cheap to store. Element names are built by the ``*_name`` helpers below,
which the shopper uses too, so an action's name always refers to an element of its page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic.catalogue import Product
from rewardgym.envs.shopping.synthetic.categories import CATEGORIES, slug

SEARCH_INPUT = "search_input"
PROMO_INPUT = "promo_code_input"
TEXT_INPUTS: frozenset[str] = frozenset({SEARCH_INPUT, PROMO_INPUT})
"""The text boxes of the store: the only elements a ``type_and_submit`` can name."""
STORE_NAME = "ShopSim"
DEFAULT_DISCOUNT = 0.10
SALE_MARKUP = 0.25
"""A sale badge's struck-through "was" price is this much above the price charged (shown as 20% off)."""


@dataclass(frozen=True, slots=True)
class Display:
    """How the store presents its products: images, ratings, tax labels, sale badges and stock notes.

    The defaults are the replay corpus's store, whose pages these settings leave byte for byte
    as they were; :class:`~rewardgym.envs.shopping.synthetic.config.StoreConfig` sets them.
    """

    images: bool = True
    """Listings carry an image link beside the title."""
    ratings: bool = True
    """Listings, product and reviews pages show the star rating and the number of ratings."""
    tax_included: bool = False
    """Prices are labelled as including tax."""
    sale: frozenset[int] = frozenset()
    """Pids shown with a sale badge and a struck-through "was" price."""
    sold_out: frozenset[int] = frozenset()
    """Pids shown as out of stock (their page offers no cart or buy button)."""


ACTION_KINDS: tuple[str, ...] = (
    "search",
    "category",
    "listing",
    "filter",
    "page",
    "option",
    "reviews",
    "back",
    "cart",
    "buy",
    "promo",
    "terminate",
    "other",
)
"""What an action does in the store, by the element it names (see :func:`action_kind`)."""

_KIND_BY_NAME: dict[str, str] = {
    "search_button": "search",
    "did_you_mean": "search",
    "clear_filters": "filter",
    "sort_price": "filter",
    "sort_rating": "filter",
    "next_page": "page",
    "prev_page": "page",
    "see_reviews": "reviews",
    "back_to_results": "back",
    "back_to_product": "back",
    "back_to_cart": "back",
    "continue_shopping": "back",
    "nav_home": "back",
    "add_to_cart": "cart",
    "nav_cart": "cart",
    "buy_now": "buy",
    "checkout": "buy",
    "place_order": "buy",
    "apply_promo": "promo",
}
_KIND_BY_PATTERN: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"product_\d+_(?:title|image)|cart_item_\d+"), "listing"),
    (re.compile(r"filter_(?:brand|feature|price_under)_\S+"), "filter"),
    (re.compile(r"option_(?:color|size)_\S+"), "option"),
    (re.compile(r"category_\w+"), "category"),
    (re.compile(r"remove_item_\d+"), "cart"),
)


_NAME = re.compile(r'\bname="([^"]*)"')


def element_names(html: str) -> list[str]:
    """The ``name`` of every element of a simplified-HTML page, in document order."""
    return _NAME.findall(html)


def action_kind(action: ShopAction) -> str:
    """One of :data:`ACTION_KINDS` for ``action``, read from its type and element name alone.

    Example:
        >>> from rewardgym.envs.shopping.schema import ShopAction
        >>> action_kind(ShopAction("click", "product_2_image")), action_kind(ShopAction("terminate"))
        ('listing', 'terminate')
    """
    if action.type == "terminate":
        return "terminate"
    if action.type == "type_and_submit":
        return {SEARCH_INPUT: "search", PROMO_INPUT: "promo"}.get(action.name, "other")
    kind = _KIND_BY_NAME.get(action.name)
    if kind is not None:
        return kind
    for pattern, kind in _KIND_BY_PATTERN:
        if pattern.fullmatch(action.name):
            return kind
    return "other"


def product_name(position: int, part: str) -> str:
    """Name of a listing's ``title`` or ``image`` link at 1-based ``position`` on a results page."""
    return f"product_{position}_{part}"


def brand_filter_name(brand: str) -> str:
    """Name of the results-page button that keeps only ``brand``."""
    return f"filter_brand_{slug(brand)}"


def feature_filter_name(feature: str) -> str:
    """Name of the results-page button that keeps only products with ``feature``."""
    return f"filter_feature_{slug(feature)}"


def price_filter_name(cap: float) -> str:
    """Name of the results-page button that keeps only products under ``cap`` dollars."""
    return f"filter_price_under_{cap:g}"


def option_name(kind: str, value: str) -> str:
    """Name of a product-page option button, ``kind`` being ``color`` or ``size``."""
    return f"option_{kind}_{slug(value)}"


def category_name(key: str) -> str:
    """Name of the home-page link to a category."""
    return f"category_{key}"


def _header(query: str, cart_count: int) -> str:
    return (
        f'<header><a name="nav_home">{STORE_NAME}</a>'
        f'<input name="{SEARCH_INPUT}" type="text" placeholder="Search" value="{escape(query)}"/>'
        f'<button name="search_button">Search</button>'
        f'<a name="nav_cart">Cart ({cart_count})</a></header>'
    )


def _page(query: str, cart_count: int, body: str) -> str:
    return f"<html><body>{_header(query, cart_count)}<main>{body}</main></body></html>"


def _stars(rating: float) -> str:
    return f"{rating:.1f} stars"


def _price(product: Product, display: Display) -> str:
    """The price as a listing or product page shows it: sale badge, "was" price, tax label."""
    label = f"${product.price:.2f}" + (" incl. tax" if display.tax_included else "")
    if product.pid in display.sale:
        was = round(product.price * (1 + SALE_MARKUP), 2)
        return f"<span>Sale: 20% off</span> <s>${was:.2f}</s> {label}"
    return label


def render_home(cart_count: int = 0) -> str:
    """The store's landing page: the search box and one link per category."""
    links = "".join(
        f'<li><a name="{category_name(spec.key)}">{spec.key.replace("_", " ").title()}</a></li>'
        for spec in CATEGORIES
    )
    return _page("", cart_count, f"<h1>Welcome to {STORE_NAME}</h1><nav><ul>{links}</ul></nav>")


def render_results(
    *,
    heading: str,
    query: str,
    listing: tuple[Product, ...],
    total: int,
    page: int,
    has_next: bool,
    suggestion: str | None,
    brands: tuple[str, ...],
    features: tuple[str, ...],
    price_caps: tuple[float, ...],
    active: tuple[str, ...],
    cart_count: int,
    sorts: bool = True,
    display: Display = Display(),
    search_seconds: float = 0.0,
) -> str:
    """A search or category results page: spelling hint, filter and sort bar, listings, pagination.

    ``search_seconds`` (when above 0) is printed beside the result count, as search engines
    print the time a search took.
    """
    took = f" ({search_seconds:.1f} seconds)" if search_seconds > 0 else ""
    parts = [f"<h1>{escape(heading)}</h1><p>{total} results{took}</p>"]
    if suggestion:
        parts.append(f'<p>Did you mean <a name="did_you_mean">{escape(suggestion)}</a>?</p>')
    buttons = [
        *(f'<button name="{brand_filter_name(b)}">{b}</button>' for b in brands),
        *(f'<button name="{feature_filter_name(f)}">{f}</button>' for f in features),
        *(f'<button name="{price_filter_name(c)}">Under ${c:g}</button>' for c in price_caps),
    ]
    if sorts:
        buttons.append('<button name="sort_price">Price: low to high</button>')
        buttons.append('<button name="sort_rating">Top rated</button>')
    if active:
        buttons.append(f'<button name="clear_filters">Clear: {", ".join(active)}</button>')
    parts.append(f"<div>{''.join(buttons)}</div><ul>")
    for position, product in enumerate(listing, start=1):
        image = f'<a name="{product_name(position, "image")}">img</a>' if display.images else ""
        rating = f" {_stars(product.rating)} ({product.n_reviews})" if display.ratings else ""
        stock = " <em>Out of stock</em>" if product.pid in display.sold_out else ""
        parts.append(
            f'<li>{image}<a name="{product_name(position, "title")}">{product.title}</a>'
            f" {_price(product, display)}{rating}{stock}</li>"
        )
    parts.append("</ul>")
    if page > 1:
        parts.append('<button name="prev_page">Previous</button>')
    if has_next:
        parts.append(f'<button name="next_page">Next (page {page + 1})</button>')
    return _page(query, cart_count, "".join(parts))


def render_product(
    product: Product,
    *,
    query: str,
    colour: str | None,
    size: str | None,
    cart_count: int,
    display: Display = Display(),
) -> str:
    """A product page: title, price, rating, features, colour and size options, cart buttons (or a stock note)."""
    if display.ratings:
        rating = f"{_stars(product.rating)} "
        reviews = f'<a name="see_reviews">{product.n_reviews} ratings</a>'
    else:
        rating, reviews = "", '<a name="see_reviews">Read reviews</a>'
    parts = [
        '<a name="back_to_results">Back to results</a>',
        f"<h1>{product.title}</h1><p>{_price(product, display)} {rating}",
        f"{reviews}</p>",
        f"<ul>{''.join(f'<li>{f}</li>' for f in product.features)}</ul>",
    ]
    if len(product.colours) > 1:
        parts.append(f"<div>Colour: {colour or 'select'} ")
        parts.extend(
            f'<button name="{option_name("color", c)}">{c}</button>' for c in product.colours
        )
        parts.append("</div>")
    else:
        parts.append(f"<p>Colour: {product.colours[0]}</p>")
    if product.sizes:
        parts.append(f"<div>Size: {size or 'select'} ")
        parts.extend(f'<button name="{option_name("size", s)}">{s}</button>' for s in product.sizes)
        parts.append("</div>")
    if product.pid in display.sold_out:
        parts.append("<p>Out of stock: this item cannot be ordered right now.</p>")
    else:
        parts.append('<button name="add_to_cart">Add to cart</button>')
        parts.append('<button name="buy_now">Buy now</button>')
    return _page(query, cart_count, "".join(parts))


def render_reviews(
    product: Product, *, query: str, cart_count: int, display: Display = Display()
) -> str:
    """A product's reviews page, with a link back to the product and one back to the results."""
    reviews = "".join(f"<li>{r.stars}/5 {r.author}: {r.text}</li>" for r in product.reviews)
    score = f"{_stars(product.rating)}, {product.n_reviews} ratings" if display.ratings else ""
    body = (
        f'<a name="back_to_product">Back to {product.title}</a>'
        f"<h1>Reviews: {product.title}</h1><p>{score}</p><ul>{reviews}</ul>"
        '<a name="back_to_results">Back to results</a>'
    )
    return _page(query, cart_count, body)


def render_cart(items: tuple[tuple[Product, str], ...], *, query: str) -> str:
    """The cart: one line per item (with its chosen options), the subtotal, checkout and go-on links."""
    lines = "".join(
        f'<li><a name="cart_item_{i}">{p.title}</a> {options} ${p.price:.2f}'
        f'<button name="remove_item_{i}">Remove</button></li>'
        for i, (p, options) in enumerate(items, start=1)
    )
    subtotal = sum(p.price for p, _ in items)
    body = (
        f"<h1>Shopping cart</h1><ul>{lines}</ul><p>Subtotal: ${subtotal:.2f}</p>"
        '<button name="checkout">Proceed to checkout</button>'
        '<a name="continue_shopping">Continue shopping</a>'
    )
    return _page(query, len(items), body)


def order_total(
    items: tuple[tuple[Product, str], ...],
    shipping: float,
    promo: str | None,
    rate: float = DEFAULT_DISCOUNT,
    tax: float = 0.0,
) -> float:
    """The amount due: items plus shipping plus ``tax``, less ``rate`` (10%) of the items when a promo code is applied."""
    subtotal = sum(p.price for p, _ in items)
    return round(subtotal + shipping + tax - (subtotal * rate if promo else 0.0), 2)


def sales_tax(
    items: tuple[tuple[Product, str], ...], promo: str | None, rate: float, tax_rate: float
) -> float:
    """The tax added at checkout: ``tax_rate`` of the items after the promo discount, to the cent."""
    subtotal = sum(p.price for p, _ in items)
    return round(subtotal * (1 - (rate if promo else 0.0)) * tax_rate, 2)


def render_checkout(
    items: tuple[tuple[Product, str], ...],
    *,
    shipping: float,
    promo: str | None,
    rate: float = DEFAULT_DISCOUNT,
    tax: float = 0.0,
) -> str:
    """The checkout page: order summary, shipping, tax (when added here), a promo-code box and the place-order button."""
    subtotal = sum(p.price for p, _ in items)
    discount = round(subtotal * rate, 2) if promo else 0.0
    promo_line = f"<p>Promo {escape(promo)}: -${discount:.2f}</p>" if promo else ""
    tax_line = f"<p>Sales tax: ${tax:.2f}</p>" if tax > 0 else ""
    body = (
        f"<h1>Checkout</h1><p>{len(items)} item(s): ${subtotal:.2f}</p>"
        f"<p>Shipping: ${shipping:.2f}</p>{promo_line}{tax_line}"
        f"<p>Total: ${order_total(items, shipping, promo, rate, tax):.2f}</p>"
        f'<input name="{PROMO_INPUT}" type="text" placeholder="Promo code" value=""/>'
        '<button name="apply_promo">Apply</button>'
        '<button name="place_order">Place order</button>'
        '<a name="back_to_cart">Back to cart</a>'
    )
    return _page("", len(items), body)


def render_confirmation(order_id: str) -> str:
    """The order confirmation page shown after the order is placed."""
    body = (
        f"<h1>Thank you!</h1><p>Order {order_id} is confirmed and will ship soon.</p>"
        '<a name="continue_shopping">Continue shopping</a>'
    )
    return _page("", 0, body)


__all__ = [
    "ACTION_KINDS",
    "PROMO_INPUT",
    "SALE_MARKUP",
    "SEARCH_INPUT",
    "TEXT_INPUTS",
    "Display",
    "action_kind",
    "brand_filter_name",
    "category_name",
    "element_names",
    "feature_filter_name",
    "option_name",
    "order_total",
    "price_filter_name",
    "product_name",
    "render_cart",
    "render_checkout",
    "render_confirmation",
    "render_home",
    "render_product",
    "render_results",
    "sales_tax",
]
