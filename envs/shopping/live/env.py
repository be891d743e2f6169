"""``rewardgym/ShopStore-v0``: the synthetic store as a live site that a shopper simulator visits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
from gymnasium import spaces

from rewardgym.envs.conventions import EpisodeGate, check_options
from rewardgym.envs.shopping.compact import page_elements
from rewardgym.envs.shopping.context import (
    CONTEXT_MODES,
    ContextMode,
    approx_token_count,
    build_context,
    check_context_limits,
)
from rewardgym.envs.shopping.element_ids import resolve_ids
from rewardgym.envs.shopping.parsing import ParsedOutput, format_output, parse_output
from rewardgym.envs.shopping.schema import actions_match
from rewardgym.envs.shopping.spaces import (
    MAX_TEXT,
    action_space,
    session_observation,
    session_observation_fields,
    text_action,
)
from rewardgym.envs.shopping.synthetic.config import StoreConfig, SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.intents import Intent
from rewardgym.envs.shopping.synthetic.pages import action_kind
from rewardgym.envs.shopping.synthetic.persona import persona_text
from rewardgym.envs.shopping.synthetic.variants import VariantName, store_variant
from rewardgym.envs.shopping.synthetic.visit import Visit
from rewardgym.envs.spaces import UnicodeText, discrete_index

Opening = Literal["home", "first_step"]
INTENT_RANGE = 1 << 31
"""Intents a visit opens with: ``0 .. INTENT_RANGE - 1`` (``reset(options={"intent": i})``)."""


class ShopStoreEnv(gym.Env[dict[str, Any], str]):
    """A live synthetic store: the agent's actions change the pages, a latent-intent shopper is the reference.

    ## Description
    One episode is one visit by a shopper whose intent is hidden (category, features, budget,
    brand, patience, ...; see ``docs/synthetic_shopper.md``). Unlike ``ShopSession-v0``, which
    replays a logged session whatever the agent says, here the agent's actions drive the
    store: a search shows its results, a filter narrows them, a click opens a product, and so
    on. At every state the ground-truth synthetic shopper with the same intent also decides
    what it would do; that choice is ``info["truth"]`` (what Shop-R1's reward compares against)
    and :meth:`truth_output` lets the shopper drive the env itself. The store is set up by a
    frozen :class:`~rewardgym.envs.shopping.synthetic.config.StoreConfig` (ranking, prices,
    results per page, filters, catalogue seed); the replay corpus was generated in the default
    store, and with it the ground-truth shopper replays session ``i`` byte for byte at intent ``i``.

    ## Observation
    A ``Dict`` built as ``ShopSession-v0`` builds it, plus the intent: ``context`` (the prompt
    context of the visit so far: every earlier page, action and rationale, then the current
    page; ``context="latest"`` for the current page only, ``"compact"`` for the compact
    session; budgets and token counter as in ``ShopSession-v0``),
    ``page`` (the current simplified HTML), ``history`` (the earlier actions, each
    ``{"type": 0|1|2, "name", "text"}``) and ``intent``: the shopper's opening rationale, the
    sentence that starts its session in the replay corpus (e.g. *"I need a dimmable desk lamp
    under $40 for reading in bed."*). With ``opening="home"`` (default) the visit starts on
    the home page with no history, exactly what a replay prompt shows at its first step; with
    ``opening="first_step"`` the ground-truth shopper takes the first step (its rationale
    states the intent, its action is the first search or category click), so the agent's
    first prompt is a replay prompt's second one, Shop-R1's protocol where the first step is
    always given.

    ## Action
    The policy's raw text output, any string, read like ``ShopSession-v0``'s:
    ``{"rationale": ..., "action": {"type": "click"|"type_and_submit"|"terminate", ...}}``.
    The store understands search (``type_and_submit`` into ``search_input``, ``search_button``,
    ``did_you_mean``), clicks on listings, category links and cart items, filters and sorts
    (``filter_*``, ``sort_*``, ``clear_filters``), paging, options (``option_*``), reviews
    (``see_reviews``), back links, cart (``add_to_cart``, ``nav_cart``, ``remove_item_*``,
    ``checkout``), buy (``buy_now``, ``place_order``), promo codes and ``terminate``. An output
    that does not parse, an action that names nothing on the page (or does nothing there), or
    one whose rationale, name or text holds a lone surrogate (not text: no URL or session file
    can hold it) leaves the page as it is; ``info["applied"]`` is False and ``info["note"]``
    says why. Every output is scored all the same, as ``ShopSession-v0`` scores it. With
    ``element_ids=True`` the context lists the page's elements as ``[i] name`` and an action may
    name one by its id (``"name": "[3]"``), resolved to the element's name before the store
    acts on it and before it is scored; an id not on the page is an invalid action, as in
    ``ShopSession-v0`` (:mod:`rewardgym.envs.shopping.element_ids`). With ``persona=True`` the
    context opens with the visiting shopper's persona (its habits and tastes as text,
    :func:`~rewardgym.envs.shopping.synthetic.persona.persona_text`), as ``ShopSession-v0``'s
    ``persona=True`` shows the replay corpus's sessions.

    ## Reward
    1.0 when the parsed action exactly matches the ground-truth shopper's choice in that
    state (same type, and name and text equal after normalisation), else 0.0. Wrappers such as
    ``ShopR1Reward`` replace it; they read ``info["truth"]`` as they do on ``ShopSession-v0``.

    ## Termination
    Terminates when the agent's ``terminate`` is carried out; truncates after
    ``shopper.max_steps`` (40) steps, the opening step included.

    ## Info
    ``truth`` and ``truth_rationale`` (the shopper's choice where the action was taken; at
    reset, its choice on the first page), ``prediction``, ``parsed_output`` (the parsed
    output itself, so reward wrappers do not parse again), ``exact_match``, ``applied``,
    ``effect`` (one of ``ACTION_KINDS``, or ``unparsed``), ``note``, ``page_type`` (after the
    step), ``intent_index``, ``step`` (steps taken so far), ``order_total`` (the amount when
    the step placed an order, else 0.0) and ``cart_size``.

    ## Registered ids
    ``rewardgym/ShopStore-v0``: ``gym.make(id, store=StoreConfig(), intent_seed=None,
    shopper=None, opening="home", context="session", element_ids=False, persona=False)``. Intent ``i`` is visit ``i`` of the
    store's catalogue seed; ``store`` may name a variant of
    :mod:`~rewardgym.envs.shopping.synthetic.variants` (``store="rank-by-rating"``), changed
    from the default store. ``reset(options={"intent": i})`` picks intent ``i``; otherwise, with
    ``intent_seed`` set, the k-th reset (counting from 0 at construction, and again at every
    reset given a seed) takes ``intent_seed + k``; without it the index is drawn from the
    env's seeded random stream. ``shopper`` gives the behaviour
    knobs (its ``seed``, ``products_per_category`` and ``results_per_page`` are the store's
    business and are ignored here).
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012  (Gymnasium's convention)

    def __init__(
        self,
        store: StoreConfig | VariantName | None = None,
        intent_seed: int | None = None,
        shopper: SyntheticShopperConfig | None = None,
        opening: Opening = "home",
        context: ContextMode = "session",
        max_context_chars: int | None = None,
        max_context_tokens: int | None = None,
        count_tokens: Callable[[str], int] = approx_token_count,
        render_mode: str | None = None,
        element_ids: bool = False,
        persona: bool = False,
    ) -> None:
        if context not in CONTEXT_MODES:
            raise ValueError(f"context must be one of {CONTEXT_MODES}, got {context!r}")
        check_context_limits(max_context_chars, max_context_tokens)
        if opening not in ("home", "first_step"):
            raise ValueError(f"opening must be 'home' or 'first_step', got {opening!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if intent_seed is not None and not 0 <= intent_seed < INTENT_RANGE:
            raise ValueError(f"intent_seed must lie in [0, 2**31), got {intent_seed}")
        if isinstance(store, str):
            store = store_variant(store)
        elif store is not None and not isinstance(store, StoreConfig):
            raise ValueError(
                f"store must be a StoreConfig, a variant name or None, got {type(store).__name__}"
            )
        self.store = store if store is not None else StoreConfig()
        self.shopper = shopper if shopper is not None else SyntheticShopperConfig()
        self.intent_seed = intent_seed
        self.opening = opening
        self.context_mode = context
        self.max_context_chars = max_context_chars
        self.max_context_tokens = max_context_tokens
        self.count_tokens = count_tokens
        self.render_mode = render_mode
        self.element_ids = bool(element_ids)
        self.persona = bool(persona)
        self.observation_space = spaces.Dict(
            {**session_observation_fields(), "intent": UnicodeText(MAX_TEXT)}
        )
        self.action_space = action_space()
        self.visit: Visit | None = None
        self.intent_text = ""
        self._resets = 0
        self._steps = 0
        self._last_obs: dict[str, Any] | None = None
        self._gate = EpisodeGate(type(self).__name__)

    @property
    def intent(self) -> Intent:
        """The current visit's hidden intent (for analysis; the agent sees only ``obs["intent"]``)."""
        if self.visit is None:
            raise gym.error.ResetNeeded("call reset() before reading the intent")
        return self.visit.intent

    def truth_output(self) -> str:
        """The ground-truth shopper's choice in the current state, as the text ``step`` takes."""
        if self.visit is None:
            raise gym.error.ResetNeeded("call reset() before asking for the shopper's choice")
        choice = self.visit.truth()
        return format_output(choice.rationale, choice.action)

    def _observation(self) -> dict[str, Any]:
        assert self.visit is not None
        steps = self.visit.steps
        text = build_context(
            steps,
            self.visit.browser.html,
            mode=self.context_mode,
            max_chars=self.max_context_chars,
            max_tokens=self.max_context_tokens,
            count_tokens=self.count_tokens,
            element_ids=self.element_ids,
            persona=persona_text(self.visit.intent) if self.persona else None,
        )
        observation = session_observation(steps, self.visit.browser.html, text)
        return {**observation, "intent": self.intent_text[:MAX_TEXT]}

    def _state_info(self) -> dict[str, Any]:
        assert self.visit is not None
        return {
            "intent_index": self.visit.index,
            "step": self._steps,
            "page_type": self.visit.browser.kind,
            "cart_size": len(self.visit.browser.cart),
        }

    def _pick_intent(self, options: dict[str, Any]) -> int:
        choice = options.get("intent")
        if choice is not None:
            return discrete_index(choice, INTENT_RANGE, what="options['intent']", unit="intent")
        if self.intent_seed is not None:
            return (self.intent_seed + self._resets - 1) % INTENT_RANGE
        return int(self.np_random.integers(INTENT_RANGE))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a visit: ``options={"intent": i}`` picks intent ``i`` (see the class docstring)."""
        chosen = check_options(options, ("intent",), env=type(self).__name__)
        super().reset(seed=seed)
        self._resets = 1 if seed is not None else self._resets + 1
        self.visit = Visit(self._pick_intent(chosen), store=self.store, shopper=self.shopper)
        opening = self.visit.truth()
        self.intent_text = opening.rationale
        self._steps = 0
        if self.opening == "first_step":
            self.visit.act(opening.action, opening.rationale)
            self._steps = 1
        self._last_obs = self._observation()
        self._gate.open()
        first = self.visit.truth()
        info = self._state_info()
        info.update(truth=first.action.truth_dict(), truth_rationale=first.rationale)
        return self._last_obs, info

    def step(self, action: str) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Carry out the agent's action in the store and score it against the shopper's choice."""
        self._gate.check()
        visit = self.visit
        assert visit is not None and self._last_obs is not None  # the gate opens only in reset
        text = text_action(action, env=type(self).__name__)
        parsed = parse_output(text)
        if self.element_ids:
            parsed = resolve_ids(parsed, page_elements(visit.browser.html))
        truth = visit.truth()
        match = actions_match(parsed.action, truth.action)
        order_total = 0.0
        refusal = _not_text(parsed)
        if parsed.action is None:
            applied, effect = False, "unparsed"
            note = f"no action could be read ({parsed.error}); the page is unchanged"
        elif refusal is not None:
            applied, effect = False, action_kind(parsed.action)
            note = f"{refusal}; the store refused it and the page is unchanged"
        else:
            outcome = visit.act(parsed.action, parsed.rationale)
            applied, effect, note = outcome.applied, outcome.kind, outcome.note
            order_total = outcome.order_total or 0.0
            if not applied:
                note += "; the page is unchanged"
        self._steps += 1
        terminated = visit.ended
        truncated = not terminated and self._steps >= self.shopper.max_steps
        self._gate.close_if(terminated=terminated, truncated=truncated)
        if not terminated:
            self._last_obs = self._observation()
        info = self._state_info()
        info.update(
            truth=truth.action.truth_dict(),
            truth_rationale=truth.rationale,
            prediction=parsed.to_info(),
            parsed_output=parsed,
            exact_match=match,
            applied=applied,
            effect=effect,
            note=note,
            order_total=order_total,
        )
        return self._last_obs, float(match), terminated, truncated, info

    def render(self) -> str | None:  # type: ignore[override]
        """The current context text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self._last_obs is None:
            return None
        return str(self._last_obs["context"])


def _not_text(parsed: ParsedOutput) -> str | None:
    """Why the store cannot carry out ``parsed``'s action, when a field holds a lone surrogate.

    An unpaired ``\\ud800``-``\\udfff`` escape is not text: no URL, page or session file can hold
    it (the data loaders refuse it too). Such an output is still scored against the shopper's
    choice, as ``ShopSession-v0`` scores it; the store only declines to act on it.
    """
    action = parsed.action
    fields = {"rationale": parsed.rationale or ""}
    if action is not None:
        fields.update(name=action.name, text=action.text)
    for field_name, value in fields.items():
        if value.isascii():
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            return (
                f"the {field_name} holds the lone surrogate {value[err.start]!r} at character "
                f"{err.start}, which is not text"
            )
    return None


__all__ = ["INTENT_RANGE", "Opening", "ShopStoreEnv"]
