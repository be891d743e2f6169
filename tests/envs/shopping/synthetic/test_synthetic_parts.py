"""Unit tests of the synthetic shopper's parts: catalogue, search filters, typos and page rendering."""

from __future__ import annotations

import random
import re

from rewardgym.envs.shopping.synthetic import pages
from rewardgym.envs.shopping.synthetic.catalogue import build_catalogue, filter_products
from rewardgym.envs.shopping.synthetic.categories import CATEGORIES, slug
from rewardgym.envs.shopping.synthetic.queries import add_typo

NAME = re.compile(r'\bname="([^"]+)"')


def test_catalogue_is_fixed_by_its_seed() -> None:
    a, b = build_catalogue(11, 12), build_catalogue(11, 12)
    assert a.products == b.products
    assert a.products != build_catalogue(12, 12).products
    assert len(a.products) == 12 * len(CATEGORIES)
    assert all(p.price > 0 and 2.0 <= p.rating <= 5.0 and p.reviews for p in a.products)
    assert all(set(p.title_features) <= set(p.features) for p in a.products)


def test_filters_and_sorts_narrow_the_listing() -> None:
    products = build_catalogue(0).by_category["jackets"]
    cheap = filter_products(products, max_price=100.0, sort="price")
    assert cheap and all(p.price <= 100.0 for p in cheap)
    assert [p.price for p in cheap] == sorted(p.price for p in cheap)
    rated = filter_products(products, feature="waterproof", sort="rating")
    assert all("waterproof" in p.features for p in rated)
    assert [p.rating for p in rated] == sorted((p.rating for p in rated), reverse=True)


def test_typo_changes_one_long_word_by_one_slip() -> None:
    rng = random.Random(0)
    for _ in range(200):
        typoed = add_typo(rng, "cheap waterproof jacket")
        changed = [
            (a, b)
            for a, b in zip(["cheap", "waterproof", "jacket"], typoed.split(), strict=True)
            if a != b
        ]
        assert len(changed) <= 1
        for before, after in changed:
            assert abs(len(before) - len(after)) <= 1 and len(before) >= 5
    assert add_typo(rng, "a bag") == "a bag"


def test_result_page_names_are_unique_and_built_by_the_helpers() -> None:
    products = build_catalogue(0).by_category["running_shoes"][:6]
    html = pages.render_results(
        heading='Results for "trail running shoes"',
        query="trail running shoes",
        listing=products,
        total=40,
        page=2,
        has_next=True,
        suggestion="trail running shoes",
        brands=("Stride", "Velox"),
        features=("trail", "wide fit"),
        price_caps=(50.0, 100.0),
        active=("Stride",),
        cart_count=0,
    )
    names = NAME.findall(html)
    assert len(names) == len(set(names))
    for expected in (
        pages.SEARCH_INPUT,
        pages.product_name(6, "title"),
        pages.brand_filter_name("Stride"),
        pages.feature_filter_name("wide fit"),
        pages.price_filter_name(50.0),
        "did_you_mean",
        "clear_filters",
        "prev_page",
        "next_page",
    ):
        assert expected in names
    assert 500 < len(html) < 2600


def test_product_page_offers_its_options_and_cart_buttons() -> None:
    product = next(
        p for p in build_catalogue(0).by_category["jackets"] if p.sizes and len(p.colours) > 1
    )
    html = pages.render_product(product, query="", colour=None, size=None, cart_count=0)
    names = NAME.findall(html)
    assert len(names) == len(set(names))
    assert {pages.option_name("color", c) for c in product.colours} <= set(names)
    assert {pages.option_name("size", s) for s in product.sizes} <= set(names)
    assert {"add_to_cart", "buy_now", "see_reviews", "back_to_results"} <= set(names)


def test_checkout_total_applies_shipping_and_promo() -> None:
    product = build_catalogue(0).products[0]
    items = ((product, "black"),)
    assert pages.order_total(items, 5.99, None) == round(product.price + 5.99, 2)
    assert pages.order_total(items, 0.0, "SAVE10") == round(product.price * 0.9, 2)
    assert slug("Nomad Co") == "nomad_co" and slug("over-ear") == "over_ear"
