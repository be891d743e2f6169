"""The behaviour model: one simulated shopper with a hidden intent browsing the synthetic store.

The shopper is a small state machine over page kinds (home, results, product, reviews, cart,
checkout, confirmation). On every page it takes one action, writes a first-person rationale,
and the :class:`~rewardgym.envs.shopping.synthetic.browser.Browser` renders the next page.
Choices follow the intent (best-fitting listing, filters it would use, reasons to reject a
product) with noise drawn from the shopper's decisiveness, patience and habits, so the next
action is predictable from the context only up to the hidden intent.
"""

from __future__ import annotations

import random

from rewardgym.envs.shopping.schema import ShopAction, ShopStep
from rewardgym.envs.shopping.synthetic import pages, rationales
from rewardgym.envs.shopping.synthetic.browser import Browser, ResultList, price_caps
from rewardgym.envs.shopping.synthetic.catalogue import Catalogue, Product
from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.intents import Intent, perceived_utility, rejection_reason
from rewardgym.envs.shopping.synthetic.queries import make_query

# Mean seconds a shopper spends on each page kind before acting (log-normal around these).
_DWELL: dict[str, float] = {
    "home": 5.0, "search_results": 9.0, "product": 16.0, "reviews": 25.0,
    "cart": 7.0, "checkout": 14.0, "confirmation": 6.0,
}  # fmt: skip
# Listings whose perceived fit is below this are not worth a click.
_MIN_APPEAL = 0.5
_MAX_SEARCHES = 4


class Shopper:
    """Simulates one session of one shopper with ``intent`` and returns its logged steps."""

    def __init__(
        self,
        rng: random.Random,
        intent: Intent,
        catalogue: Catalogue,
        config: SyntheticShopperConfig,
        start_time: float,
    ) -> None:
        self.rng = rng
        self.intent = intent
        self.config = config
        self.view = Browser(catalogue, config.results_per_page)
        self.clock = start_time
        self.steps: list[ShopStep] = []
        self.patience = intent.patience
        self.searches = 0
        self.viewed: set[int] = set()
        self.rejected: set[int] = set()
        self.reviews_read: set[int] = set()
        self.best_seen: Product | None = None
        self.decided = False
        self.saved_only = False
        self.promo_applied = False
        self.fresh_visit = False
        self.want_reviews = False
        self.want_compare = False

    def _act(self, action: ShopAction, rationale: str) -> None:
        dwell = _DWELL[self.view.kind] * self.rng.lognormvariate(-0.1, 0.45)
        if action.type == "type_and_submit":
            dwell += 0.3 * len(action.text)
        self.clock += dwell
        step = ShopStep(self.view.html, action, rationale, round(self.clock, 2), self.view.meta)
        self.steps.append(step)
        self.clock += self.rng.uniform(0.3, 1.5)

    def _click(self, name: str, rationale: str) -> None:
        self._act(ShopAction("click", name), rationale)

    def _terminate(self, rationale: str) -> bool:
        self._act(ShopAction("terminate"), rationale)
        return True

    def _fed_up(self) -> bool:
        if self.intent.goal == "browse" and self.viewed:
            return self._terminate(rationales.enough_browsing(self.rng))
        return self._terminate(rationales.give_up(self.rng, self.intent))

    def _search(self, rationale: str) -> bool:
        query, _ = make_query(self.rng, self.intent, self.config, self.searches)
        self.searches += 1
        self._act(ShopAction("type_and_submit", pages.SEARCH_INPUT, query), rationale)
        self.view.open_query(query)
        return False

    def _on_home(self) -> bool:
        if self.rng.random() < self.config.category_browse_rate:
            key = self.intent.category
            self._click(pages.category_name(key), rationales.intro_category(self.rng, self.intent))
            self.view.open_category(key)
            return False
        return self._search(rationales.intro_search(self.rng, self.intent))

    def _filter(self, res: ResultList) -> bool:
        intent, rng = self.intent, self.rng
        options: list[tuple[str, str, float]] = []
        if intent.brand and self.view.has(pages.brand_filter_name(intent.brand)):
            options.append(("brand", intent.brand, 3.0))
        if res.category == intent.category:
            options.append(("feature", intent.must[0], 2.0))
            caps = [c for c in price_caps(res.category) if c <= intent.budget * 1.1]
            if caps:
                options.append(("price", f"{max(caps):g}", 2.0))
        options += [("sort", "price", 1.0), ("sort", "rating", 1.0)]
        kind, value, _ = rng.choices(options, weights=[w for *_, w in options])[0]
        res.filter_tried, res.page = True, 1
        if kind == "brand":
            name, label, res.brand = pages.brand_filter_name(value), value, value
        elif kind == "feature":
            name, label, res.feature = pages.feature_filter_name(value), value, value
        elif kind == "price":
            res.max_price = float(value)
            name, label = pages.price_filter_name(res.max_price), f"under ${value}"
        else:
            name, label, res.sort = f"sort_{value}", value, value
        self._click(name, rationales.use_filter(rng, kind, label))
        self.view.show_results()
        return False

    def _follow_suggestion(self, suggestion: str) -> bool:
        self._click("did_you_mean", rationales.follow_suggestion(self.rng, suggestion))
        self.view.open_query(suggestion)
        return False

    def _on_empty_results(self, res: ResultList) -> bool:
        self.patience -= 1
        if res.active():
            res.clear()
            self._click("clear_filters", rationales.clear_filters(self.rng))
            self.view.show_results()
            return False
        if res.suggestion and self.rng.random() < 0.7:
            return self._follow_suggestion(res.suggestion)
        if self.searches < _MAX_SEARCHES and self.patience >= 0:
            reason = "typo" if res.suggestion else "empty"
            return self._search(rationales.retry_search(self.rng, self.intent, reason))
        return self._fed_up()

    def _on_results(self) -> bool:
        res, rng, intent = self.view.results, self.rng, self.intent
        assert res is not None
        visible, has_next = self.view.visible()
        if not visible:
            return self._on_empty_results(res)
        if res.suggestion and not res.suggestion_handled:
            res.suggestion_handled = True
            draw = rng.random()
            if draw < 0.35:
                return self._follow_suggestion(res.suggestion)
            if draw < 0.5 and self.searches < _MAX_SEARCHES:
                return self._search(rationales.retry_search(rng, intent, "typo"))
        if intent.goal == "browse" and len(self.viewed) >= intent.browse_views:
            return self._terminate(rationales.enough_browsing(rng))
        positions = {p.pid: i for i, p in enumerate(visible, start=1)}
        candidates = [p for p in visible if p.pid not in self.viewed and p.pid not in self.rejected]
        scores = {p.pid: perceived_utility(p, intent) for p in candidates}
        best = max(candidates, key=lambda p: (scores[p.pid], -p.pid), default=None)
        appealing = best is not None and scores[best.pid] >= _MIN_APPEAL
        seen = self.best_seen
        if seen is not None and seen.pid in positions and (not appealing or len(self.viewed) >= 3):
            self.decided = True
            self._click(
                pages.product_name(positions[seen.pid], "title"), rationales.revisit(rng, seen)
            )
            return self._visit(seen)
        if not res.filter_tried and rng.random() < intent.filter_rate:
            return self._filter(res)
        if best is not None and appealing:
            chosen, is_best = best, True
            if rng.random() > intent.decisiveness:
                floor = scores[best.pid] - 4
                others = [p for p in candidates if p is not best and scores[p.pid] > floor]
                if others:
                    chosen, is_best = rng.choice(others), False
            part = "image" if rng.random() < self.config.image_click_rate else "title"
            self._click(
                pages.product_name(positions[chosen.pid], part),
                rationales.open_listing(rng, intent, chosen, is_best),
            )
            self.viewed.add(chosen.pid)
            return self._visit(chosen)
        self.patience -= 1
        if self.patience < 0:
            return self._fed_up()
        if has_next and rng.random() < 0.55:
            res.page += 1
            self._click("next_page", rationales.next_page(rng))
            self.view.show_results()
            return False
        if self.searches < _MAX_SEARCHES:
            return self._search(rationales.retry_search(rng, intent, "mismatch"))
        return self._fed_up()

    def _visit(self, product: Product) -> bool:
        self.fresh_visit = True
        self.view.open_product(product)
        return False

    def _back_to_results(self, rationale: str) -> bool:
        self._click("back_to_results", rationale)
        self.view.show_results()
        return False

    def _reject(self, product: Product) -> None:
        self.rejected.add(product.pid)
        self.patience -= 1
        if self.best_seen is product:
            self.best_seen = None

    def _choose_option(self, kind: str, offered: tuple[str, ...], wanted: str | None) -> str:
        value = wanted if wanted is not None and wanted in offered else self.rng.choice(offered)
        name = pages.option_name("color" if kind == "colour" else "size", value)
        self._click(name, rationales.choose_option(self.rng, kind, value, wanted))
        return value

    def _on_product(self) -> bool:
        product, rng, intent, view = self.view.product, self.rng, self.intent, self.view
        assert product is not None
        reason = rejection_reason(product, intent)
        if reason is not None:
            self._reject(product)
            if self.patience < 0:
                return self._fed_up()
            if reason == "feature" and rng.random() < 0.12 and self.searches < _MAX_SEARCHES:
                return self._search(rationales.retry_search(rng, intent, "mismatch"))
            return self._back_to_results(rationales.reject(rng, intent, product, reason))
        browsing = intent.goal == "browse"
        if self.fresh_visit:
            # Decide once per visit, not again after every option click on the same page.
            self.fresh_visit = False
            self.want_reviews = (
                product.pid not in self.reviews_read and rng.random() < intent.review_rate
            )
            hesitant = rng.random() < (1 - intent.decisiveness) * 0.8
            self.want_compare = browsing or (
                not self.decided and self.best_seen is None and hesitant
            )
        if self.want_reviews:
            self.want_reviews = False
            self.reviews_read.add(product.pid)
            self._click("see_reviews", rationales.open_reviews(rng, product))
            view.show_reviews()
            return False
        if browsing and not view.cart and rng.random() < 0.15:
            self.saved_only = True
            return self._add_to_cart(rationales.save_for_later(rng, product))
        if self.want_compare:
            self.best_seen = None if browsing else product
            return self._back_to_results(rationales.compare_more(rng, product))
        if len(product.colours) > 1 and view.colour is None:
            view.colour = self._choose_option("colour", product.colours, intent.colour)
            view.show_product()
            return False
        if product.sizes and view.size is None:
            view.size = self._choose_option("size", product.sizes, intent.size)
            view.show_product()
            return False
        if rng.random() < 0.12:
            view.add_open_product()
            self._click("buy_now", rationales.add_to_cart(rng, product, buy_now=True))
            view.show_checkout(None)
            return False
        return self._add_to_cart(rationales.add_to_cart(rng, product, buy_now=False))

    def _add_to_cart(self, rationale: str) -> bool:
        self.view.add_open_product()
        self._click("add_to_cart", rationale)
        self.view.show_cart()
        return False

    def _on_reviews(self) -> bool:
        product = self.view.product
        assert product is not None
        stars = [r.stars for r in product.reviews]
        if sum(stars) / len(stars) >= 3.2:
            self._click("back_to_product", rationales.reviews_verdict(self.rng, True))
            self.view.show_product()
            return False
        self._reject(product)
        return self._back_to_results(rationales.reviews_verdict(self.rng, False))

    def _on_cart(self) -> bool:
        if self.saved_only or self.rng.random() < self.config.abandon_rate:
            return self._terminate(rationales.leave_cart(self.rng))
        self._click("checkout", rationales.checkout(self.rng))
        self.view.show_checkout(None)
        return False

    def _on_checkout(self) -> bool:
        code = self.intent.promo_code
        if code is not None and not self.promo_applied:
            self.promo_applied = True
            action = ShopAction("type_and_submit", "promo_code_input", code)
            self._act(action, rationales.enter_promo(self.rng, code))
            self.view.show_checkout(code)
            return False
        if self.rng.random() < self.config.abandon_rate:
            return self._terminate(rationales.abandon(self.rng))
        self._click("place_order", rationales.place_order(self.rng, self.view.order_total))
        self.view.show_confirmation(f"SS-{self.rng.randrange(10**6):06d}")
        return False

    def run(self) -> tuple[ShopStep, ...]:
        """Play the session from the home page to its single final ``terminate``."""
        self.view.show_home()
        handlers = {
            "home": self._on_home,
            "search_results": self._on_results,
            "product": self._on_product,
            "reviews": self._on_reviews,
            "cart": self._on_cart,
            "checkout": self._on_checkout,
            "confirmation": lambda: self._terminate(rationales.order_done(self.rng)),
        }
        done = False
        while not done:
            if len(self.steps) >= self.config.max_steps - 1:
                done = self._fed_up()
            else:
                done = handlers[self.view.kind]()
        return tuple(self.steps)


__all__ = ["Shopper"]
