"""The store changes of the A/B tests: each is carried out in the pages, and the ground-truth shopper reacts where a shopper would."""

from __future__ import annotations

import random
import re

import pytest

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic import StoreConfig, SyntheticShopperConfig, Visit, play
from rewardgym.envs.shopping.synthetic.browser import Browser
from rewardgym.envs.shopping.synthetic.catalogue import priced_catalogue
from rewardgym.envs.shopping.synthetic.pages import element_names
from rewardgym.envs.shopping.synthetic.shopper import Shopper, unexpected_charges
from rewardgym.envs.shopping.synthetic.variants import (
    STORE_CHANGES,
    VARIANT_NAMES,
    VARIANTS,
    describe_variant,
    store_variant,
)
from rewardgym.envs.shopping.synthetic.visit import listed_price_factor, visit_intent

SHOPPER = SyntheticShopperConfig()
PRICE = re.compile(r"\$(\d+\.\d\d)")


def browser(name: str = "base") -> Browser:
    config = store_variant(name)
    catalogue = priced_catalogue(config.catalogue_seed, 40, listed_price_factor(config))
    view = Browser(catalogue, config)
    view.show_home()
    return view


def act(view: Browser, action: ShopAction):
    return view.apply(action, random.Random(0))


def click(view: Browser, name: str):
    return act(view, ShopAction("click", name))


def search(view: Browser, text: str = "desk lamp"):
    return act(view, ShopAction("type_and_submit", "search_input", text))


def test_every_change_is_named_described_and_differs_from_the_base() -> None:
    assert tuple(VARIANTS) == VARIANT_NAMES and VARIANT_NAMES[1:] == STORE_CHANGES
    assert len(STORE_CHANGES) == 20
    assert len({store_variant(name) for name in VARIANT_NAMES}) == len(VARIANT_NAMES)
    assert all(describe_variant(name) for name in STORE_CHANGES)


def test_sale_badges_and_stock_show_on_listings_and_product_pages() -> None:
    sale, stock, base = browser("sale-badges"), browser("out-of-stock"), browser()
    share = sum(map(sale.on_sale, sale.catalogue.products)) / len(sale.catalogue.products)
    assert 0.2 < share < 0.4 and not any(map(base.on_sale, base.catalogue.products))
    for view in (sale, stock, base):
        search(view)
    assert "Sale: 20% off" in sale.html and "<s>$" in sale.html and "Sale" not in base.html
    badged = next(p for p in sale.visible()[0] if sale.on_sale(p))
    was, now = (float(x) for x in re.findall(r"<s>\$(\d+\.\d\d)</s> \$(\d+\.\d\d)", sale.html)[0])
    assert was > now and badged.price in [p.price for p in base.visible()[0]]
    gone = next(p for p in stock.catalogue.products if not stock.in_stock(p))
    stock.open_product(gone)
    assert "Out of stock" in stock.html and not stock.has("add_to_cart")
    assert not click(stock, "add_to_cart").applied and not click(stock, "buy_now").applied


def test_hidden_ratings_images_and_spelling_fix_leave_the_pages() -> None:
    hidden, plain, exact, base = (
        browser(n) for n in ("hidden-ratings", "no-listing-images", "no-spelling-fix", "base")
    )
    for view in (hidden, plain, base):
        search(view)
    assert "stars" in base.html and "stars" not in hidden.html
    click(hidden, "product_1_title")
    assert "stars" not in hidden.html and hidden.has("see_reviews")
    click(hidden, "see_reviews")
    assert "stars" not in hidden.html.split("<ul>")[0] and "/5" in hidden.html
    assert not any(n.endswith("_image") for n in element_names(plain.html))
    assert any(n.endswith("_image") for n in element_names(base.html))
    assert not click(plain, "product_1_image").applied and click(plain, "product_1_title").applied
    typo = "dsek lamp"
    search(base, typo)
    search(exact, typo)
    assert base.has("did_you_mean") and not exact.has("did_you_mean")


def test_a_slow_search_shows_its_time_and_takes_it() -> None:
    slow = browser("slow-search")
    outcome = search(slow)
    assert outcome.wait == 3.0 and "(3.0 seconds)" in slow.html
    assert search(browser()).wait == 0.0
    slow.open_category("desk_lamps")
    assert "seconds" not in slow.html, "a category page is no search"
    index = next(
        i
        for i in range(50)
        if Visit(i, store=StoreConfig(), shopper=SHOPPER).truth().action.type == "type_and_submit"
    )
    gaps = []
    for store in (StoreConfig(), store_variant("slow-search")):
        visit = Visit(index, store=store, shopper=SHOPPER)
        for _ in range(2):
            choice = visit.truth()
            visit.act(choice.action, choice.rationale)
        gaps.append(visit.steps[1].timestamp - visit.steps[0].timestamp)
    assert gaps[1] - gaps[0] == pytest.approx(3.0, abs=0.02)


def checkout_of(name: str) -> Browser:
    view = browser(name)
    search(view)
    click(view, "product_1_title")
    for option in [n for n in element_names(view.html) if n.startswith("option_")]:
        click(view, option)
    assert click(view, "buy_now").applied and view.kind == "checkout"
    return view


def test_checkout_charges_tax_and_shipping_as_the_store_says() -> None:
    base, taxed, dearer, free = (
        checkout_of(n) for n in ("base", "tax-at-checkout", "dearer-shipping", "free-shipping")
    )
    subtotal, shipping, tax = base.charges
    assert tax == 0.0 and unexpected_charges(subtotal, shipping, tax) == 0.0
    assert "Sales tax" not in base.html and "Sales tax" in taxed.html
    t_sub, t_ship, t_tax = taxed.charges
    assert t_sub == subtotal and t_tax == pytest.approx(0.08 * subtotal, abs=0.006)
    assert taxed.order_total == f"${t_sub + t_ship + t_tax:.2f}"
    assert unexpected_charges(*taxed.charges) == pytest.approx(t_tax)
    assert dearer.charges[1] in (0.0, 9.99) and (subtotal >= 100) == (dearer.charges[1] == 0.0)
    assert free.charges[1] == 0.0 and unexpected_charges(*free.charges) <= 0.0
    inclusive = browser("tax-in-price")
    search(inclusive)
    search(base)
    assert "incl. tax" in inclusive.html and "incl. tax" not in base.html
    shown = [float(x) for x in PRICE.findall(inclusive.html)]
    plain = [float(x) for x in PRICE.findall(base.html)]
    assert shown == pytest.approx([x * 1.08 for x in plain], abs=0.006)
    placed = click(checkout_of("tax-in-price"), "place_order")
    assert placed.order_total is not None and "Sales tax" not in inclusive.html


def test_the_shopper_skips_what_it_cannot_buy_and_rejects_it_if_sent_there() -> None:
    store = store_variant("out-of-stock")
    for index in range(40):
        visit = Visit(index, store=store, shopper=SHOPPER)
        play(visit)
        opened = [o.product for o in visit.outcomes if o.product is not None]
        assert all(visit.browser.in_stock(visit.browser.catalogue.products[p]) for p in opened)
    view = browser("out-of-stock")
    intent = visit_intent(store, SHOPPER, 3)
    gone = next(p for p in view.catalogue.by_category[intent.category] if not view.in_stock(p))
    view.open_query(intent.category.replace("_", " "))
    view.open_product(gone)
    shopper = Shopper(random.Random(0), intent, SHOPPER)
    decision = shopper.decide(view, 2)
    assert (
        decision.action == ShopAction("click", "back_to_results")
        or decision.action.type == "terminate"
    )
    assert gone.pid in shopper.rejected and "out of stock" in decision.rationale


def visits(name: str, n: int = 240) -> list[Visit]:
    out = []
    for index in range(1_000_000, 1_000_000 + n):
        visit = Visit(index, store=store_variant(name), shopper=SHOPPER)
        play(visit)
        out.append(visit)
    return out


def bought(runs: list[Visit]) -> list[bool]:
    return [any(o.order_total is not None for o in v.outcomes) for v in runs]


def test_truth_effects_exist_where_the_shopper_reacts_and_not_where_it_does_not() -> None:
    base = visits("base")
    images = visits("no-listing-images")
    assert bought(images) == bought(base), "a shopper who would click an image clicks the title"
    assert [len(v.steps) for v in images] == [len(v.steps) for v in base]
    dearer = visits("dearer-shipping")
    assert sum(bought(dearer)) < sum(bought(base))
    slow = visits("slow-search")
    assert sum(len(v.steps) for v in slow) < sum(len(v.steps) for v in base)
    hidden = visits("hidden-ratings")
    reviews = lambda runs: sum(s.action.name == "see_reviews" for v in runs for s in v.steps)  # noqa: E731
    assert reviews(hidden) > reviews(base)


def test_store_config_rejects_bad_new_values() -> None:
    for kwargs, field in (
        ({"tax_rate": -0.1}, "tax_rate"),
        ({"sale_share": 1.5}, "sale_share"),
        ({"out_of_stock_share": float("nan")}, "out_of_stock_share"),
        ({"search_delay": -1.0}, "search_delay"),
        ({"search_delay": float("inf")}, "search_delay"),
    ):
        with pytest.raises(ValueError, match=field):
            StoreConfig(**kwargs)
