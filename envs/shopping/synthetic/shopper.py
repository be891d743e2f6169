"""The behaviour model: one simulated shopper with a hidden intent deciding what to do on each page.

The shopper is a small state machine over page kinds (home, results, product, reviews, cart,
checkout, confirmation). :meth:`Shopper.decide` reads the store's current page
(:class:`~rewardgym.envs.shopping.synthetic.browser.Browser`) and returns one action with a
first-person rationale; it never changes the store. Whoever acts (the shopper itself, or
another policy in ``rewardgym/ShopStore-v0``), the store applies the action and the shopper
:meth:`~Shopper.observe` s its outcome. Choices follow the intent (best-fitting listing, filters
it would use, reasons to reject a product) with noise drawn from the shopper's decisiveness,
patience and habits, so the next action is predictable from the context only up to the intent.

The shopper reacts to what a changed store shows (see
:mod:`~rewardgym.envs.shopping.synthetic.variants`): sale badges raise a listing's appeal and
stretch the budget, out-of-stock items are skipped, hidden ratings leave a listing's rating
unknown until the reviews are read (and send more shoppers to them), a slow search costs
patience, and checkout charges above the usual terms (the replay store's shipping, no tax)
make abandoning more likely. Each reaction leaves the replay store's sessions as they were:
it changes a threshold, never the number of random draws, and is exactly neutral there.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic import pages, rationales
from rewardgym.envs.shopping.synthetic.browser import Browser, Outcome, ResultList
from rewardgym.envs.shopping.synthetic.catalogue import Product
from rewardgym.envs.shopping.synthetic.config import StoreConfig, SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.intents import Intent, perceived_utility, rejection_reason
from rewardgym.envs.shopping.synthetic.queries import make_query

# Listings whose perceived fit is below this are not worth a click.
_MIN_APPEAL = 0.5
_MAX_SEARCHES = 4
SALE_APPEAL = 0.8
"""What a sale badge adds to a listing's perceived fit (about one nice-to-have feature)."""
WAIT_PER_PATIENCE = 3.0
"""Seconds of waiting for a search that cost the shopper one disappointment's worth of patience."""
HIDDEN_RATING_REVIEWS = 2.0
"""How much more often a shopper opens the reviews of a product whose rating the store hides."""
CHARGE_SURPRISE = 6.0
"""Checkout abandonment is multiplied by exp(CHARGE_SURPRISE x unexpected charges / items subtotal):
extra costs are the most cited reason to abandon a checkout (Baymard Institute's surveys)."""
_USUAL = StoreConfig()
"""The terms the shopper expects at checkout: the replay store's shipping, and no tax."""


def unexpected_charges(subtotal: float, shipping: float, tax: float) -> float:
    """Shipping and tax beyond what the usual terms charge on ``subtotal`` (negative when less)."""
    usual = 0.0 if subtotal >= _USUAL.free_shipping_over else _USUAL.shipping_fee
    return shipping + tax - usual


@dataclass(frozen=True, slots=True)
class Decision:
    """What the shopper chooses to do on a page, and the first-person reason it gives."""

    action: ShopAction
    rationale: str


def _click(name: str, rationale: str) -> Decision:
    return Decision(ShopAction("click", name), rationale)


def _terminate(rationale: str) -> Decision:
    return Decision(ShopAction("terminate"), rationale)


class Shopper:
    """The decisions of one shopper with ``intent``, from its private random stream ``rng``."""

    def __init__(self, rng: random.Random, intent: Intent, config: SyntheticShopperConfig) -> None:
        self.rng = rng
        self.intent = intent
        self.config = config
        self.patience: float = intent.patience
        self.searches = 0
        self.viewed: set[int] = set()
        self.rejected: set[int] = set()
        self.reviews_read: set[int] = set()
        # Result lists (by the store's serial number) already filtered or spell-checked.
        self.filter_tried: set[int] = set()
        self.suggestion_handled: set[int] = set()
        self.best_seen: Product | None = None
        self.decided = False
        self.saved_only = False
        self.promo_applied = False
        self.fresh_visit = False
        self.want_reviews = False
        self.want_compare = False

    def decide(self, view: Browser, steps_taken: int) -> Decision:
        """The shopper's next action on ``view``'s page after ``steps_taken`` steps (a terminate at the cap)."""
        if steps_taken >= self.config.max_steps - 1:
            return self._fed_up()
        kind = view.kind
        if kind == "home":
            return self._on_home()
        if kind == "search_results":
            return self._on_results(view)
        if kind == "product":
            return self._on_product(view)
        if kind == "reviews":
            return self._on_reviews(view)
        if kind == "cart":
            return self._on_cart(view)
        if kind == "checkout":
            return self._on_checkout(view)
        return _terminate(rationales.order_done(self.rng))

    def observe(self, action: ShopAction, outcome: Outcome) -> None:
        """Take in what an action (its own or another's) did: a product opened, a search made."""
        if not outcome.applied:
            return
        if outcome.product is not None:
            self.viewed.add(outcome.product)
            self.fresh_visit = True
        if action.type == "type_and_submit" and action.name == pages.SEARCH_INPUT:
            self.searches += 1
        if outcome.wait:
            self.patience -= outcome.wait / WAIT_PER_PATIENCE

    def _fed_up(self) -> Decision:
        if self.intent.goal == "browse" and self.viewed:
            return _terminate(rationales.enough_browsing(self.rng))
        return _terminate(rationales.give_up(self.rng, self.intent))

    def _search(self, rationale: str) -> Decision:
        query, _ = make_query(self.rng, self.intent, self.config, self.searches)
        return Decision(ShopAction("type_and_submit", pages.SEARCH_INPUT, query), rationale)

    def _on_home(self) -> Decision:
        if self.rng.random() < self.config.category_browse_rate:
            name = pages.category_name(self.intent.category)
            return _click(name, rationales.intro_category(self.rng, self.intent))
        return self._search(rationales.intro_search(self.rng, self.intent))

    def _filter(self, view: Browser, res: ResultList) -> Decision | None:
        intent, rng = self.intent, self.rng
        options: list[tuple[str, str, float]] = []
        if intent.brand and view.has(pages.brand_filter_name(intent.brand)):
            options.append(("brand", intent.brand, 3.0))
        if res.category == intent.category:
            if view.has(pages.feature_filter_name(intent.must[0])):
                options.append(("feature", intent.must[0], 2.0))
            caps = [c for c in view.price_caps() if c <= intent.budget * 1.1]
            if caps:
                options.append(("price", f"{max(caps):g}", 2.0))
        options += [("sort", s, 1.0) for s in ("price", "rating") if view.has(f"sort_{s}")]
        self.filter_tried.add(view.results_serial)
        if not options:
            return None
        kind, value, _ = rng.choices(options, weights=[w for *_, w in options])[0]
        if kind == "brand":
            name, label = pages.brand_filter_name(value), value
        elif kind == "feature":
            name, label = pages.feature_filter_name(value), value
        elif kind == "price":
            name, label = pages.price_filter_name(float(value)), f"under ${value}"
        else:
            name, label = f"sort_{value}", value
        return _click(name, rationales.use_filter(rng, kind, label))

    def _follow_suggestion(self, suggestion: str) -> Decision:
        return _click("did_you_mean", rationales.follow_suggestion(self.rng, suggestion))

    def _on_empty_results(self, res: ResultList) -> Decision:
        self.patience -= 1
        if res.active():
            return _click("clear_filters", rationales.clear_filters(self.rng))
        if res.suggestion and self.rng.random() < 0.7:
            return self._follow_suggestion(res.suggestion)
        if self.searches < _MAX_SEARCHES and self.patience >= 0:
            reason = "typo" if res.suggestion else "empty"
            return self._search(rationales.retry_search(self.rng, self.intent, reason))
        return self._fed_up()

    def _on_results(self, view: Browser) -> Decision:
        res, rng, intent = view.results, self.rng, self.intent
        assert res is not None
        visible, has_next = view.visible()
        if not visible:
            return self._on_empty_results(res)
        serial = view.results_serial
        if res.suggestion and serial not in self.suggestion_handled:
            self.suggestion_handled.add(serial)
            draw = rng.random()
            if draw < 0.35:
                return self._follow_suggestion(res.suggestion)
            if draw < 0.5 and self.searches < _MAX_SEARCHES:
                return self._search(rationales.retry_search(rng, intent, "typo"))
        if intent.goal == "browse" and len(self.viewed) >= intent.browse_views:
            return _terminate(rationales.enough_browsing(rng))
        positions = {p.pid: i for i, p in enumerate(visible, start=1)}
        candidates = [
            p
            for p in visible
            if p.pid not in self.viewed and p.pid not in self.rejected and view.in_stock(p)
        ]
        scores = {p.pid: self._appeal(view, p) for p in candidates}
        best = max(candidates, key=lambda p: (scores[p.pid], -p.pid), default=None)
        appealing = best is not None and scores[best.pid] >= _MIN_APPEAL
        seen = self.best_seen
        if seen is not None and seen.pid in positions and (not appealing or len(self.viewed) >= 3):
            self.decided = True
            name = pages.product_name(positions[seen.pid], "title")
            return _click(name, rationales.revisit(rng, seen))
        if serial not in self.filter_tried and rng.random() < intent.filter_rate:
            chosen_filter = self._filter(view, res)
            if chosen_filter is not None:
                return chosen_filter
        if best is not None and appealing:
            chosen, is_best = best, True
            if rng.random() > intent.decisiveness:
                floor = scores[best.pid] - 4
                others = [p for p in candidates if p is not best and scores[p.pid] > floor]
                if others:
                    chosen, is_best = rng.choice(others), False
            part = "image" if rng.random() < self.config.image_click_rate else "title"
            if not view.has(pages.product_name(positions[chosen.pid], part)):
                part = "title"  # a listing without an image
            return _click(
                pages.product_name(positions[chosen.pid], part),
                rationales.open_listing(
                    rng, intent, chosen, is_best, rating_shown=view.config.show_ratings
                ),
            )
        self.patience -= 1
        if self.patience < 0:
            return self._fed_up()
        if has_next and rng.random() < 0.55:
            return _click("next_page", rationales.next_page(rng))
        if self.searches < _MAX_SEARCHES:
            return self._search(rationales.retry_search(rng, intent, "mismatch"))
        return self._fed_up()

    def _appeal(self, view: Browser, product: Product) -> float:
        """A listing's perceived fit as the page shows it: its rating only when shown, a sale badge's pull."""
        known = view.config.show_ratings
        score = perceived_utility(product, self.intent, rating_known=known)
        return score + SALE_APPEAL if view.on_sale(product) else score

    def _reject(self, product: Product) -> None:
        self.rejected.add(product.pid)
        self.patience -= 1
        if self.best_seen is not None and self.best_seen.pid == product.pid:
            self.best_seen = None

    def _choose_option(self, kind: str, offered: tuple[str, ...], wanted: str | None) -> Decision:
        value = wanted if wanted is not None and wanted in offered else self.rng.choice(offered)
        name = pages.option_name("color" if kind == "colour" else "size", value)
        return _click(name, rationales.choose_option(self.rng, kind, value, wanted))

    def _on_product(self, view: Browser) -> Decision:
        product, rng, intent = view.product, self.rng, self.intent
        assert product is not None
        shows_rating = view.config.show_ratings
        if view.in_stock(product):
            known = shows_rating or product.pid in self.reviews_read
            sale = view.on_sale(product)
            reason = rejection_reason(product, intent, on_sale=sale, rating_known=known)
        else:
            reason = "stock"
        if reason is not None:
            self._reject(product)
            if self.patience < 0:
                return self._fed_up()
            if reason == "feature" and rng.random() < 0.12 and self.searches < _MAX_SEARCHES:
                return self._search(rationales.retry_search(rng, intent, "mismatch"))
            return _click("back_to_results", rationales.reject(rng, intent, product, reason))
        browsing = intent.goal == "browse"
        if self.fresh_visit:
            # Decide once per visit, not again after every option click on the same page.
            self.fresh_visit = False
            rate = intent.review_rate
            if not shows_rating:
                rate = min(1.0, rate * HIDDEN_RATING_REVIEWS)
            self.want_reviews = product.pid not in self.reviews_read and rng.random() < rate
            hesitant = rng.random() < (1 - intent.decisiveness) * 0.8
            self.want_compare = browsing or (
                not self.decided and self.best_seen is None and hesitant
            )
        if self.want_reviews:
            self.want_reviews = False
            self.reviews_read.add(product.pid)
            reason = rationales.open_reviews(rng, product, rating_shown=shows_rating)
            return _click("see_reviews", reason)
        if browsing and not view.cart and rng.random() < 0.15:
            self.saved_only = True
            return _click("add_to_cart", rationales.save_for_later(rng, product))
        if self.want_compare:
            self.best_seen = None if browsing else product
            return _click("back_to_results", rationales.compare_more(rng, product))
        if len(product.colours) > 1 and view.colour is None:
            return self._choose_option("colour", product.colours, intent.colour)
        if product.sizes and view.size is None:
            return self._choose_option("size", product.sizes, intent.size)
        if rng.random() < 0.12:
            return _click("buy_now", rationales.add_to_cart(rng, product, buy_now=True))
        return _click("add_to_cart", rationales.add_to_cart(rng, product, buy_now=False))

    def _on_reviews(self, view: Browser) -> Decision:
        product = view.product
        assert product is not None
        stars = [r.stars for r in product.reviews]
        if sum(stars) / len(stars) >= 3.2:
            return _click("back_to_product", rationales.reviews_verdict(self.rng, True))
        self._reject(product)
        return _click("back_to_results", rationales.reviews_verdict(self.rng, False))

    def _on_cart(self, view: Browser) -> Decision:
        if not view.cart:
            return _click("continue_shopping", rationales.empty_cart(self.rng))
        if self.saved_only or self.rng.random() < self.config.abandon_rate:
            return _terminate(rationales.leave_cart(self.rng))
        return _click("checkout", rationales.checkout(self.rng))

    def _on_checkout(self, view: Browser) -> Decision:
        code = self.intent.promo_code
        if code is not None and not self.promo_applied:
            self.promo_applied = True
            action = ShopAction("type_and_submit", pages.PROMO_INPUT, code)
            return Decision(action, rationales.enter_promo(self.rng, code))
        subtotal, shipping, tax = view.charges
        extra = unexpected_charges(subtotal, shipping, tax) if subtotal > 0 else 0.0
        rate = self.config.abandon_rate
        if extra:
            rate = min(1.0, rate * math.exp(CHARGE_SURPRISE * extra / subtotal))
        if self.rng.random() < rate:
            if extra > 0:
                return _terminate(rationales.abandon_charges(self.rng, shipping, tax))
            return _terminate(rationales.abandon(self.rng))
        return _click("place_order", rationales.place_order(self.rng, view.order_total))


__all__ = [
    "CHARGE_SURPRISE",
    "HIDDEN_RATING_REVIEWS",
    "SALE_APPEAL",
    "WAIT_PER_PATIENCE",
    "Decision",
    "Shopper",
    "unexpected_charges",
]
