"""Search queries derived from an intent: templates, paraphrases by synonym, and keyboard typos."""

from __future__ import annotations

import random

from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.intents import Intent

# Neighbouring keys on a QWERTY keyboard, for substitution typos.
_NEIGHBOURS: dict[str, str] = {
    "a": "sqz", "b": "vn", "c": "xv", "d": "sf", "e": "wr", "f": "dg", "g": "fh", "h": "gj",
    "i": "uo", "j": "hk", "k": "jl", "l": "k", "m": "n", "n": "bm", "o": "ip", "p": "o",
    "q": "w", "r": "et", "s": "ad", "t": "ry", "u": "yi", "v": "cb", "w": "qe", "x": "zc",
    "y": "tu", "z": "x",
}  # fmt: skip

_FIRST_TEMPLATES: tuple[str, ...] = (
    "{f} {noun}",
    "{f} {noun}",
    "{noun} {f}",
    "{f} {noun} under {budget}",
    "{f} {noun} for {use}",
    "best {f} {noun}",
    "{noun}",
)
_BRAND_TEMPLATES: tuple[str, ...] = ("{brand} {noun}", "{brand} {f} {noun}")
_REFINE_TEMPLATES: tuple[str, ...] = (
    "{f} {noun}",
    "{f} {noun} under {budget}",
    "cheap {f} {noun}",
    "{noun} {f} {extra}",
    "{extra} {f} {noun}",
)


def add_typo(rng: random.Random, text: str) -> str:
    """Corrupt one word of five or more letters by a swap, drop, double or neighbouring-key slip."""
    words = text.split(" ")
    spots = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if not spots:
        return text
    i = rng.choice(spots)
    word = words[i]
    j = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0 and word[j] != word[j + 1]:
        word = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
    elif kind == 1:
        word = word[:j] + word[j + 1 :]
    elif kind == 2:
        word = word[:j] + word[j] + word[j:]
    else:
        word = word[:j] + rng.choice(_NEIGHBOURS.get(word[j], "e")) + word[j + 1 :]
    words[i] = word
    return " ".join(words)


def make_query(
    rng: random.Random, intent: Intent, config: SyntheticShopperConfig, attempt: int
) -> tuple[str, bool]:
    """A query for ``intent`` on its ``attempt``-th search, and whether a typo slipped in."""
    spec = intent.spec
    noun = spec.noun
    if rng.random() < config.synonym_rate:
        noun = rng.choice(spec.synonyms)
    use = intent.occasion.removeprefix("my ").removeprefix("a ").removeprefix("the ")
    fields = {
        "f": " ".join(intent.must if attempt or rng.random() < 0.5 else intent.must[:1]),
        "noun": noun,
        "budget": f"${intent.budget:g}",
        "use": use,
        "brand": (intent.brand or "").lower(),
        "extra": intent.nice[0] if intent.nice else rng.choice(spec.features),
    }
    if attempt == 0:
        templates = _FIRST_TEMPLATES
        if intent.brand is not None and rng.random() < 0.6:
            templates = _BRAND_TEMPLATES
    else:
        templates = _REFINE_TEMPLATES
    query = rng.choice(templates).format(**fields)
    typo = False
    if rng.random() < config.typo_rate / (1 + attempt):
        typoed = add_typo(rng, query)
        typo = typoed != query
        query = typoed
    return query, typo


__all__ = ["add_typo", "make_query"]
