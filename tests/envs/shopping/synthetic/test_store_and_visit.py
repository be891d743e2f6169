"""The store side of the synthetic shopper: Browser.apply, StoreConfig, variants, and the one Visit loop."""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic import (
    GENERATOR_VERSION,
    StoreConfig,
    SyntheticShopperConfig,
    Visit,
    generate_sessions,
    make_session,
    play,
    store_variant,
)
from rewardgym.envs.shopping.synthetic.browser import Browser
from rewardgym.envs.shopping.synthetic.catalogue import build_catalogue, priced_catalogue
from rewardgym.envs.shopping.synthetic.pages import ACTION_KINDS, action_kind, element_names
from rewardgym.envs.shopping.synthetic.variants import VARIANT_NAMES, describe_variant

# sha256 of the first 200 default sessions (seed 0) as GENERATOR_VERSION 1 has always written
# them, measured on the generator before the store/shopper split; a change must bump the version.
GOLDEN_V1 = "81f9e0b163b56029b42ded092005314c67cf8c3cccea517abb5fb60d8bdd2cbc"
PRICE = re.compile(r"\$(\d+\.\d\d)")


def digest(sessions) -> str:
    h = hashlib.sha256()
    for s in sessions:
        for st in s.steps:
            row = [s.session_id, st.page, st.action.to_dict(), st.rationale, st.timestamp, st.meta]
            h.update(json.dumps(row, sort_keys=True).encode())
    return h.hexdigest()


def test_generated_sessions_are_those_of_their_generator_version() -> None:
    assert GENERATOR_VERSION == 1
    assert digest(generate_sessions(SyntheticShopperConfig(sessions=200, seed=0))) == GOLDEN_V1


def test_the_generator_is_the_ground_truth_visit_loop() -> None:
    config = SyntheticShopperConfig(seed=4, results_per_page=3, products_per_category=12)
    for index in range(30):
        visit = Visit(index, store=config.store(), shopper=config)
        assert play(visit) == make_session(config, index)
        assert all(o.applied for o in visit.outcomes)


def browser(config: StoreConfig | None = None) -> Browser:
    config = config or StoreConfig()
    view = Browser(priced_catalogue(config.catalogue_seed, 40, config.price_factor), config)
    view.show_home()
    return view


def click(view: Browser, name: str):
    return view.apply(ShopAction("click", name), random.Random(0))


def search(view: Browser, text: str):
    return view.apply(ShopAction("type_and_submit", "search_input", text), random.Random(0))


def test_a_full_purchase_through_apply() -> None:
    view = browser()
    assert search(view, "waterproof jacket").applied and view.kind == "search_results"
    assert 'value="waterproof jacket"' in view.html
    opened = click(view, "product_1_image")
    assert opened.applied and opened.product == view.product.pid and view.kind == "product"
    for name in [n for n in element_names(view.html) if n.startswith("option_")][:1]:
        assert click(view, name).applied
    assert click(view, "add_to_cart").applied and view.kind == "cart" and len(view.cart) == 1
    assert click(view, "checkout").applied and view.kind == "checkout"
    coded = view.apply(ShopAction("type_and_submit", "promo_code_input", "save10"), random.Random())
    assert coded.applied and "applied" in coded.note and "Promo save10" in view.html
    placed = click(view, "place_order")
    assert placed.applied and placed.order_total is not None and placed.order_total > 0
    assert view.kind == "confirmation" and not view.cart


def test_an_action_naming_nothing_on_the_page_leaves_it_and_says_why() -> None:
    view = browser()
    before = view.html
    for action in (
        ShopAction("click", "add_to_cart"),
        ShopAction("click", 'search_input" x="'),
        ShopAction("click", "search_input"),
        ShopAction("type_and_submit", "nav_cart", "x"),
        ShopAction("type_and_submit", "search_input", "   "),
    ):
        outcome = view.apply(action, random.Random(0))
        assert not outcome.applied and outcome.note, action
        assert view.html == before
    assert (
        "no element named 'add_to_cart'"
        in view.apply(ShopAction("click", "add_to_cart"), random.Random(0)).note
    )


def test_filters_sorts_paging_and_back() -> None:
    view = browser()
    search(view, "backpack")
    assert view.has("next_page")
    first = view.visible()[0]
    assert click(view, "next_page").applied and view.visible()[0] != first
    assert click(view, "sort_price").applied
    prices = [p.price for p in view.results.listing()]
    assert prices == sorted(prices) and view.results.page == 1
    brand = next(n for n in element_names(view.html) if n.startswith("filter_brand_"))
    assert click(view, brand).applied
    assert {p.brand for p in view.results.listing()} == {view.results.brand}
    assert click(view, "clear_filters").applied and view.results.active() == ()
    click(view, "product_2_title")
    assert click(view, "see_reviews").applied and view.kind == "reviews"
    assert click(view, "back_to_results").applied and view.kind == "search_results"
    assert click(view, "nav_cart").applied and view.kind == "cart"
    assert not click(view, "checkout").applied, "an empty cart cannot check out"


def test_variants_change_what_the_store_shows() -> None:
    assert set(VARIANT_NAMES) >= {
        "base",
        "price-up-20",
        "price-down-20",
        "rank-by-rating",
        "half-results",
        "no-brand-filter",
    }
    assert all(describe_variant(name) for name in VARIANT_NAMES)
    base, dearer = browser(), browser(store_variant("price-up-20"))
    for view in (base, dearer):
        search(view, "desk lamp")
    for cheap, dear in zip(base.results.found, dearer.results.found, strict=False):
        assert dear.pid == cheap.pid and dear.price == pytest.approx(cheap.price * 1.2, abs=0.006)
    rated = browser(store_variant("rank-by-rating"))
    search(rated, "desk lamp")
    ratings = [p.rating for p in rated.results.found]
    assert ratings == sorted(ratings, reverse=True)
    half = browser(store_variant("half-results"))
    search(half, "desk lamp")
    assert len(half.visible()[0]) == 2 and len(base.visible()[0]) == 5
    plain = browser(store_variant("no-brand-filter"))
    search(plain, "desk lamp")
    assert not any(n.startswith("filter_brand_") for n in element_names(plain.html))
    assert any(n.startswith("filter_brand_") for n in element_names(base.html))
    with pytest.raises(ValueError, match="unknown store variant"):
        store_variant("prices-down")


def test_intents_do_not_depend_on_the_store_variant() -> None:
    shopper = SyntheticShopperConfig()
    for index in (0, 5, 1_000_003):
        intents = {
            name: Visit(index, store=store_variant(name), shopper=shopper).intent
            for name in VARIANT_NAMES
        }
        assert len(set(intents.values())) == 1


def test_store_config_rejects_bad_values() -> None:
    for kwargs, field in (
        ({"results_per_page": 0}, "results_per_page"),
        ({"ranking": "random"}, "ranking"),
        ({"price_factor": 0.0}, "price_factor"),
        ({"filters": ("brand", "brand")}, "filters"),
        ({"filters": ("colour",)}, "filters"),
        ({"promo_discount": 1.0}, "promo_discount"),
    ):
        with pytest.raises(ValueError, match=field):
            StoreConfig(**kwargs)


def test_repricing_keeps_the_catalogue_otherwise_equal() -> None:
    base = build_catalogue(0, 40)
    assert priced_catalogue(0, 40, 1.0) is base
    dear = priced_catalogue(0, 40, 1.5)
    assert [p.pid for p in dear.products] == [p.pid for p in base.products]
    assert all(d.title == b.title for d, b in zip(dear.products, base.products, strict=True))


def test_every_logged_action_has_a_known_kind() -> None:
    kinds = {
        action_kind(step.action)
        for s in generate_sessions(SyntheticShopperConfig(sessions=300, seed=0))
        for step in s.steps
    }
    assert kinds <= set(ACTION_KINDS) and "other" not in kinds
    assert {"search", "listing", "filter", "option", "reviews", "back", "cart", "buy"} <= kinds
