"""The synthetic shopper's persona: its standing habits and tastes, rendered as first-person text.

A persona says who the shopper is, not what this visit is for: whether it came to buy or to
look around, how decisive and patient it is, how often it reads reviews and uses filters, the
lowest rating it accepts, and the colour, size and brand it prefers. The visit's own goal
(category, wanted features, budget, occasion, promo code) stays hidden, as in OPeRA, whose
user table describes the people and not their sessions. The text is derived from the intent
alone and draws no random numbers, so the sessions a config generates do not change.
"""

from __future__ import annotations

from rewardgym.envs.shopping.synthetic.intents import Intent


def _level(value: float, low: float, high: float, words: tuple[str, str, str]) -> str:
    """``words[0]`` below ``low``, ``words[2]`` at or above ``high``, else ``words[1]``."""
    return words[0] if value < low else words[2] if value >= high else words[1]


def persona_text(intent: Intent) -> str:
    """The persona of the shopper behind ``intent``, as a few first-person sentences.

    Example:
        >>> from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig, intent_for_session
        >>> persona_text(intent_for_session(SyntheticShopperConfig(), 0)).split(".")[0]
        'I shop to buy'
    """
    goal = "I shop to buy" if intent.goal == "buy" else "I like to browse and compare"
    decide = _level(
        intent.decisiveness,
        0.65,
        0.8,
        (
            "I often hesitate between listings",
            "I usually pick what fits best",
            "I pick the best fit at once",
        ),
    )
    patience = _level(
        intent.patience,
        3,
        5,
        ("I give up quickly", "I have some patience", "I am patient with poor results"),
    )
    reviews = _level(
        intent.review_rate,
        0.25,
        0.5,
        ("I rarely read reviews", "I sometimes read reviews", "I often read reviews"),
    )
    filters = _level(
        intent.filter_rate,
        0.2,
        0.4,
        ("I rarely use filters", "I sometimes use filters", "I often use filters"),
    )
    sentences = [
        goal,
        decide,
        patience,
        reviews,
        filters,
        f"I avoid products rated below {intent.min_rating:g} stars",
    ]
    if intent.colour is not None:
        sentences.append(f"I prefer {intent.colour}")
    if intent.size is not None:
        sentences.append(f"I choose size {intent.size}")
    if intent.brand is not None:
        sentences.append(f"I am loyal to {intent.brand}")
    return ". ".join(sentences) + "."


__all__ = ["persona_text"]
