"""First-person rationale templates, standing in for the LLM-written rationales of the Shop-R1 data.

Each function picks one of a few phrasings for one kind of decision, so rationales vary in
wording but always say what the shopper is doing and, where it matters, why.
"""

from __future__ import annotations

import random

from rewardgym.envs.shopping.synthetic.catalogue import Product
from rewardgym.envs.shopping.synthetic.intents import Intent, describe_need


def _short(product: Product) -> str:
    return f"{product.brand} {product.model}"


def intro_search(rng: random.Random, intent: Intent) -> str:
    """The first rationale of a search-led session; it reveals part of the hidden intent."""
    need = describe_need(intent)
    budget = f"${intent.budget:g}"
    options: tuple[str, ...]
    if intent.goal == "browse":
        options = (
            f"I'm curious what {need} would cost me, so I'll search and compare a few.",
            f"Just browsing for {need} for {intent.occasion}; no rush to buy.",
            f"I want to see which options there are for {need} before I decide anything.",
        )
    elif intent.brand is not None:
        options = (
            f"I'd like {need} from {intent.brand}, ideally under {budget}.",
            f"I trust {intent.brand}, so I'm looking for their {intent.spec.noun} for {intent.occasion}.",
        )
    else:
        options = (
            f"I need {need} under {budget} for {intent.occasion}.",
            f"Looking for {need} for {intent.occasion}; I want to stay below {budget}.",
            f"My old {intent.spec.noun} gave out, so I'm searching for {need}.",
        )
    return rng.choice(options)


def intro_category(rng: random.Random, intent: Intent) -> str:
    """The first rationale of a session that starts from a category link."""
    section = intent.category.replace("_", " ")
    return rng.choice(
        (
            f"I'll browse the {section} section; I want {describe_need(intent)}.",
            f"Rather than searching, I'll open {section} and look for something {intent.must[0]}.",
            f"I need something for {intent.occasion}, so I'm starting with {section}.",
        )
    )


def retry_search(rng: random.Random, intent: Intent, reason: str) -> str:
    """Why the shopper types a new query: a typo, empty results, or listings that do not fit."""
    if reason == "typo":
        return rng.choice(
            (
                "Nothing useful came up; I think I misspelled that, let me retype it.",
                "Oops, typo in my search. Trying again.",
            )
        )
    if reason == "empty":
        return "No results at all, so I'll rephrase my search."
    return rng.choice(
        (
            f"None of these look {intent.must[0]} enough; I'll refine my search.",
            f"These results don't match what I need, let me search more specifically for {describe_need(intent)}.",
            "Not seeing anything good here. I'll try different search words.",
        )
    )


def follow_suggestion(rng: random.Random, suggestion: str) -> str:
    """Why the shopper accepts the store's spelling suggestion."""
    return rng.choice(
        (
            f'Ah, I meant "{suggestion}". I\'ll click the suggestion.',
            "I must have mistyped; the suggested spelling should give better results.",
        )
    )


def use_filter(rng: random.Random, kind: str, label: str) -> str:
    """Why the shopper narrows or sorts the results (``brand``, ``feature``, ``price`` or ``sort``)."""
    if kind == "brand":
        return f"I'll filter to {label} since that's the brand I prefer."
    if kind == "feature":
        return rng.choice(
            (
                f"It has to be {label}, so I'll filter for that.",
                f"Let me narrow this down to {label} ones only.",
            )
        )
    if kind == "price":
        return f"I'll filter to {label} to stay within my budget."
    return rng.choice(
        (
            f"Too many options; sorting by {label} should help.",
            f"Let me sort these by {label} first.",
        )
    )


def open_listing(
    rng: random.Random, intent: Intent, product: Product, best: bool, *, rating_shown: bool = True
) -> str:
    """Why the shopper opens a listing: it looks like the best fit, or it merely caught the eye (its rating quoted only when shown)."""
    price = f"${product.price:.2f}"
    if best:
        shown = [f for f in intent.must if f in product.title_features]
        options = [f"The {_short(product)} looks like what I want at {price}; let me check it out."]
        if product.price <= intent.budget:
            options.append(
                f"The {_short(product)} is within my ${intent.budget:g} budget, I'll open it."
            )
        else:
            options.append(
                f"The {_short(product)} is a bit over budget but looks right; worth a look."
            )
        if shown:
            rating = f" with a {product.rating:.1f} rating" if rating_shown else ""
            options.append(f"The {_short(product)} says {shown[0]}{rating}. Taking a closer look.")
        return rng.choice(options)
    return rng.choice(
        (
            f"The {_short(product)} caught my eye, I'll see what it offers.",
            f"Maybe the {_short(product)} at {price} is worth a look too.",
        )
    )


def clear_filters(rng: random.Random) -> str:
    """Why the shopper clears filters that left no results."""
    return rng.choice(
        (
            "No results with these filters; I'll clear them.",
            "Filtered too much, let me reset the filters.",
        )
    )


def next_page(rng: random.Random) -> str:
    """Why the shopper moves to the next results page."""
    return rng.choice(
        (
            "Nothing on this page fits, let me see the next page.",
            "I'll check the next page for better options.",
        )
    )


def give_up(rng: random.Random, intent: Intent) -> str:
    """Why an impatient shopper ends the session without what it wanted."""
    return rng.choice(
        (
            f"I can't find {describe_need(intent)} I like; I'll give up for now.",
            "This is taking too long and nothing fits. I'm done.",
            f"Nothing within ${intent.budget:g} that I like, I'll look elsewhere.",
        )
    )


def enough_browsing(rng: random.Random) -> str:
    """Why a browsing shopper stops after a few products."""
    return rng.choice(
        (
            "I've seen enough to get a sense of prices. I'll stop here.",
            "That's a good overview; I'll think about it and come back later.",
        )
    )


def open_reviews(rng: random.Random, product: Product, *, rating_shown: bool = True) -> str:
    """Why the shopper reads a product's reviews before deciding (the number of ratings quoted only when shown)."""
    count = f"{product.n_reviews} ratings" if rating_shown else "No rating shown"
    return rng.choice(
        (
            f"Before buying I want to read what others say about the {_short(product)}.",
            f"{count}; let me check the reviews for any problems.",
        )
    )


def reviews_verdict(rng: random.Random, good: bool) -> str:
    """What the shopper concludes from the reviews it just read."""
    if good:
        return rng.choice(
            (
                "Reviews are mostly positive, so I'll go back to the product.",
                "People seem happy with it. Back to the product page.",
            )
        )
    return rng.choice(
        (
            "Too many complaints in these reviews; I'll look at other options.",
            "The reviews put me off. Back to the results.",
        )
    )


def choose_option(rng: random.Random, kind: str, value: str, wanted: str | None) -> str:
    """Why the shopper picks a colour or size: it is the one wanted, a stand-in, or any will do."""
    shown = value.upper() if kind == "size" and value.isalpha() else value
    if value == wanted:
        if kind == "size":
            return f"I need size {shown}, so I'll select it."
        return f"I like {value}, let me select that colour."
    if wanted is not None:
        return f"No {wanted} for this one, {shown} will do."
    return rng.choice((f"I'll go with {shown}.", f"Selecting {shown}, that's fine for me."))


def reject(rng: random.Random, intent: Intent, product: Product, reason: str) -> str:
    """Why the shopper turns a product down and goes back."""
    if reason == "feature":
        missing = next(f for f in intent.must if f not in product.features)
        return rng.choice(
            (
                f"The features don't include {missing}, which I need. Going back.",
                f"No mention of {missing} on this one; back to the list.",
            )
        )
    if reason == "price":
        return (
            f"At ${product.price:.2f} it's over my budget of ${intent.budget:g}. Back to results."
        )
    if reason == "rating":
        return f"Only {product.rating:.1f} stars, that's too low for me. Let me go back."
    if reason == "brand":
        return f"I'd rather get a {intent.brand}, let me look again."
    if reason == "stock":
        return f"The {_short(product)} is out of stock, so I'll look at something else."
    return "This isn't what I'm looking for. Back to the results."


def compare_more(rng: random.Random, product: Product) -> str:
    """Why the shopper leaves a suitable product to compare with others first."""
    return rng.choice(
        (
            f"The {_short(product)} is a candidate, but I want to compare a couple more first.",
            "Looks fine, though I'd like to see other options before deciding.",
        )
    )


def revisit(rng: random.Random, product: Product) -> str:
    """Why the shopper returns to a product it liked earlier."""
    return f"Nothing beats the {_short(product)} I saw earlier; going back to it."


def add_to_cart(rng: random.Random, product: Product, buy_now: bool) -> str:
    """Why the shopper adds the product to the cart or buys it straight away."""
    if buy_now:
        return f"This is the one; I'll buy the {_short(product)} right away."
    return rng.choice(
        (
            f"The {_short(product)} ticks every box. Adding it to my cart.",
            f"Good price at ${product.price:.2f} and the right features, into the cart it goes.",
        )
    )


def save_for_later(rng: random.Random, product: Product) -> str:
    """Why a browsing shopper puts an item in the cart without buying."""
    return f"I'm not buying today, but I'll keep the {_short(product)} in my cart for later."


def leave_cart(rng: random.Random) -> str:
    """Why the shopper ends the session with items left in the cart."""
    return rng.choice(
        (
            "It's saved in my cart; I'll decide later.",
            "I'll sleep on it and come back to my cart another day.",
        )
    )


def empty_cart(rng: random.Random) -> str:
    """Why the shopper leaves a cart that holds nothing."""
    return rng.choice(
        ("My cart is empty, back to shopping.", "Nothing in here yet; let me keep looking.")
    )


def checkout(rng: random.Random) -> str:
    """Why the shopper proceeds to checkout."""
    return rng.choice(("Everything's in the cart, time to check out.", "Proceeding to checkout."))


def enter_promo(rng: random.Random, code: str) -> str:
    """Why the shopper types a promo code."""
    return f"I have the promo code {code}, let me apply it before paying."


def place_order(rng: random.Random, total: str) -> str:
    """Why the shopper places the order."""
    return rng.choice(
        (f"The total of {total} looks right. Placing the order.", "All good, I'll place my order.")
    )


def abandon(rng: random.Random) -> str:
    """Why the shopper quits at the cart or checkout."""
    return rng.choice(
        (
            "The shipping cost makes it too expensive; I'll stop here.",
            "On second thought, I don't need this right now.",
        )
    )


def abandon_charges(rng: random.Random, shipping: float, tax: float) -> str:
    """Why the shopper quits at checkout when the extra charges are more than it expected."""
    extras = " and ".join(
        label for label, amount in (("shipping", shipping), ("tax", tax)) if amount > 0
    )
    return rng.choice(
        (
            f"With {extras or 'the extra charges'} added it costs more than I expected; I'll stop here.",
            "The total at checkout is higher than the prices I saw, so I'm not ordering.",
        )
    )


def order_done(rng: random.Random) -> str:
    """Why the shopper ends the session after ordering."""
    return rng.choice(
        ("Order placed, I'm done shopping.", "Got what I needed, that's it for today.")
    )


__all__ = [
    "abandon",
    "abandon_charges",
    "add_to_cart",
    "checkout",
    "choose_option",
    "clear_filters",
    "compare_more",
    "empty_cart",
    "enough_browsing",
    "enter_promo",
    "follow_suggestion",
    "give_up",
    "intro_category",
    "intro_search",
    "leave_cart",
    "next_page",
    "open_listing",
    "open_reviews",
    "order_done",
    "place_order",
    "reject",
    "retry_search",
    "reviews_verdict",
    "revisit",
    "save_for_later",
    "use_filter",
]
