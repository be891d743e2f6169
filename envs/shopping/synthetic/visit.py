"""One shopper's visit to the synthetic store: the store, the ground-truth shopper, the clock and the logged steps.

A :class:`Visit` is the single loop both the replay generator and ``rewardgym/ShopStore-v0``
run. Each step, the ground-truth shopper first decides what it would do on the current page
(:meth:`Visit.truth`); then one action (that decision, or any other policy's) is logged with
its dwell time and carried out by the store (:meth:`Visit.act`). The shopper decides before
anyone acts, so its random stream, and therefore every later page, does not depend on whether
anybody looked at its choice.
"""

from __future__ import annotations

import random

from rewardgym.envs.shopping.schema import ShopAction, ShopSession, ShopStep
from rewardgym.envs.shopping.synthetic.browser import Browser, Outcome
from rewardgym.envs.shopping.synthetic.catalogue import build_catalogue, priced_catalogue
from rewardgym.envs.shopping.synthetic.config import StoreConfig, SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.intents import Intent, sample_intent
from rewardgym.envs.shopping.synthetic.persona import persona_text
from rewardgym.envs.shopping.synthetic.shopper import Decision, Shopper

SPREAD_SECONDS = 90 * 24 * 3600.0
"""Visits start at a uniform time over the 90 days after ``SyntheticShopperConfig.start_time``."""
# Mean seconds a shopper spends on each page kind before acting (log-normal around these).
_DWELL: dict[str, float] = {
    "home": 5.0, "search_results": 9.0, "product": 16.0, "reviews": 25.0,
    "cart": 7.0, "checkout": 14.0, "confirmation": 6.0,
}  # fmt: skip


def session_id(index: int) -> str:
    """The id of the ``index``-th (0-based) synthetic session: ``syn-000001`` for index 0."""
    return f"syn-{index + 1:06d}"


def session_rng(seed: int, index: int) -> random.Random:
    """The private random stream of session ``index``; string seeds hash with SHA-512, stable across runs."""
    return random.Random(f"rewardgym-synthetic-session:{seed}:{index}")


def listed_price_factor(store: StoreConfig) -> float:
    """What the store's listed prices are, as a multiple of the catalogue's: its price factor, times the tax when prices include it."""
    if store.tax_in_price and store.tax_rate > 0:
        return round(store.price_factor * (1 + store.tax_rate), 9)
    return store.price_factor


def visit_intent(store: StoreConfig, shopper: SyntheticShopperConfig, index: int) -> Intent:
    """The hidden intent of visit ``index``: drawn against the store's catalogue at its base prices."""
    catalogue = build_catalogue(store.catalogue_seed, store.products_per_category)
    return sample_intent(session_rng(store.catalogue_seed, index), catalogue, shopper)


class Visit:
    """Visit ``index`` of a shopper (behaviour ``shopper``) to the store ``store``, from its home page.

    The intent and the shopper's random stream depend only on ``store.catalogue_seed``,
    ``index`` and the behaviour knobs of ``shopper``; the intent is drawn against the
    catalogue at its base prices, so the same intent visits every variant of a store.

    Example:
        >>> from rewardgym.envs.shopping.synthetic.config import StoreConfig, SyntheticShopperConfig
        >>> visit = Visit(3, store=StoreConfig(), shopper=SyntheticShopperConfig())
        >>> choice = visit.truth()
        >>> visit.act(choice.action, choice.rationale).applied, visit.browser.kind
        (True, 'search_results')
    """

    def __init__(self, index: int, *, store: StoreConfig, shopper: SyntheticShopperConfig) -> None:
        self.index = index
        self.store = store
        self.rng = session_rng(store.catalogue_seed, index)
        base = build_catalogue(store.catalogue_seed, store.products_per_category)
        self.intent = sample_intent(self.rng, base, shopper)
        self.clock = shopper.start_time + self.rng.uniform(0.0, SPREAD_SECONDS)
        catalogue = priced_catalogue(
            store.catalogue_seed, store.products_per_category, listed_price_factor(store)
        )
        self.browser = Browser(catalogue, store)
        self.shopper = Shopper(self.rng, self.intent, shopper)
        self.steps: list[ShopStep] = []
        self.outcomes: list[Outcome] = []
        self.ended = False
        self._truth: Decision | None = None
        self.browser.show_home()

    def truth(self) -> Decision:
        """What the ground-truth shopper does on the current page (decided once per page state)."""
        if self._truth is None:
            self._truth = self.shopper.decide(self.browser, len(self.steps))
        return self._truth

    def act(self, action: ShopAction, rationale: str | None) -> Outcome:
        """Log ``action`` (with ``rationale``) on the current page, let the store carry it out, and return what it did."""
        if self.ended:
            raise RuntimeError(f"visit {self.index} has ended; start a new one")
        self.truth()
        view = self.browser
        dwell = _DWELL[view.kind] * self.rng.lognormvariate(-0.1, 0.45)
        if action.type == "type_and_submit":
            dwell += 0.3 * len(action.text)
        self.clock += dwell
        self.steps.append(ShopStep(view.html, action, rationale, round(self.clock, 2), view.meta))
        self.clock += self.rng.uniform(0.3, 1.5)
        outcome = view.apply(action, self.rng)
        if outcome.wait:
            self.clock += outcome.wait
        self.outcomes.append(outcome)
        self.shopper.observe(action, outcome)
        if outcome.applied:
            self._truth = None
        self.ended = action.type == "terminate"
        return outcome

    def session(self) -> ShopSession:
        """The steps logged so far, as a session named like the replay corpus's session ``index``, with the shopper's persona."""
        return ShopSession(session_id(self.index), tuple(self.steps), persona_text(self.intent))


def play(visit: Visit) -> ShopSession:
    """Let the ground-truth shopper play ``visit`` to its terminate; return the logged session."""
    while not visit.ended:
        choice = visit.truth()
        visit.act(choice.action, choice.rationale)
    return visit.session()


__all__ = [
    "SPREAD_SECONDS",
    "Visit",
    "listed_price_factor",
    "play",
    "session_id",
    "session_rng",
    "visit_intent",
]
