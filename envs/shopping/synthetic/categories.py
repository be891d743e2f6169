"""The fixed vocabulary of the synthetic store: categories, their nouns, features, brands and options."""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CategorySpec:
    """One product category: how shoppers name it, what features and options its products have."""

    key: str
    noun: str
    synonyms: tuple[str, ...]
    features: tuple[str, ...]
    brands: tuple[str, ...]
    models: tuple[str, ...]
    price_range: tuple[float, float]
    colours: tuple[str, ...]
    sizes: tuple[str, ...]
    occasions: tuple[str, ...]


CATEGORIES: tuple[CategorySpec, ...] = (
    CategorySpec(
        key="jackets",
        noun="jacket",
        synonyms=("coat", "shell", "rain jacket"),
        features=("waterproof", "insulated", "packable", "windproof", "hooded", "lightweight"),
        brands=("NorthPeak", "Alpina", "TrailForm", "Cumulus", "Ridgeway"),
        models=("Storm", "Summit", "Drift", "Glacier", "Ember", "Voyager"),
        price_range=(45.0, 260.0),
        colours=("black", "navy", "olive", "red"),
        sizes=("s", "m", "l", "xl"),
        occasions=("a hiking trip", "my daily commute", "a ski weekend", "rainy autumn walks"),
    ),
    CategorySpec(
        key="running_shoes",
        noun="running shoes",
        synonyms=("sneakers", "trainers", "runners"),
        features=("cushioned", "lightweight", "trail", "wide fit", "breathable", "stability"),
        brands=("Stride", "Velox", "Kinetic", "Asphalt", "Fleetfoot"),
        models=("Glide", "Pulse", "Tempo", "Rush", "Zephyr", "Orbit"),
        price_range=(40.0, 190.0),
        colours=("white", "black", "grey", "blue"),
        sizes=("8", "9", "10", "11"),
        occasions=("my first half marathon", "daily jogs", "trail races", "gym sessions"),
    ),
    CategorySpec(
        key="backpacks",
        noun="backpack",
        synonyms=("daypack", "rucksack", "bag"),
        features=("waterproof", "laptop sleeve", "30l", "anti-theft", "lightweight", "padded"),
        brands=("Packwise", "TrailForm", "Urbanite", "Nomad Co", "Ridgeway"),
        models=("Transit", "Trek", "Metro", "Scout", "Atlas", "Rover"),
        price_range=(25.0, 160.0),
        colours=("black", "grey", "green", "tan"),
        sizes=(),
        occasions=("carrying my laptop to work", "a week of travel", "day hikes", "university"),
    ),
    CategorySpec(
        key="headphones",
        noun="headphones",
        synonyms=("earbuds", "headset", "earphones"),
        features=(
            "noise cancelling",
            "wireless",
            "over-ear",
            "waterproof",
            "long battery",
            "foldable",
        ),
        brands=("Sonix", "Auralis", "BassLab", "Quietone", "Echo Labs"),
        models=("Studio", "Air", "Pro", "Loop", "Pulse", "Wave"),
        price_range=(20.0, 350.0),
        colours=("black", "white", "silver", "blue"),
        sizes=(),
        occasions=("long flights", "working from home", "the gym", "my commute"),
    ),
    CategorySpec(
        key="coffee_makers",
        noun="coffee maker",
        synonyms=("coffee machine", "espresso machine", "brewer"),
        features=(
            "programmable",
            "grinder",
            "thermal carafe",
            "single serve",
            "milk frother",
            "compact",
        ),
        brands=("Brewster", "Caffio", "Morning Co", "Kettleby", "Ristretto"),
        models=("Classic", "Barista", "Aroma", "Duo", "Express", "Crema"),
        price_range=(30.0, 420.0),
        colours=("black", "silver", "red"),
        sizes=(),
        occasions=("my new kitchen", "the office", "a gift for my parents", "weekend brunches"),
    ),
    CategorySpec(
        key="desk_lamps",
        noun="desk lamp",
        synonyms=("table lamp", "reading lamp", "led lamp"),
        features=(
            "dimmable",
            "usb charging",
            "adjustable arm",
            "warm light",
            "clamp",
            "touch control",
        ),
        brands=("Lumio", "Brightwell", "Nordlys", "Halo Home", "Urbanite"),
        models=("Arc", "Beam", "Flex", "Glow", "Nova", "Slim"),
        price_range=(15.0, 120.0),
        colours=("black", "white", "brass"),
        sizes=(),
        occasions=("late-night studying", "my home office", "reading in bed", "my kid's desk"),
    ),
    CategorySpec(
        key="water_bottles",
        noun="water bottle",
        synonyms=("bottle", "flask", "tumbler"),
        features=("insulated", "leakproof", "bpa-free", "1l", "straw lid", "dishwasher safe"),
        brands=("Hydra", "Camelo", "Polar Co", "TrailForm", "Sipwell"),
        models=("Sport", "Peak", "Daily", "Chill", "Trek", "Mini"),
        price_range=(8.0, 55.0),
        colours=("black", "teal", "pink", "white"),
        sizes=("500ml", "750ml", "1l"),
        occasions=("the gym", "school", "long hikes", "the office"),
    ),
    CategorySpec(
        key="yoga_mats",
        noun="yoga mat",
        synonyms=("exercise mat", "fitness mat", "pilates mat"),
        features=(
            "non-slip",
            "extra thick",
            "eco-friendly",
            "foldable",
            "carry strap",
            "lightweight",
        ),
        brands=("Zenflow", "Asana", "Kinetic", "Lotus Lab", "Groundwork"),
        models=("Balance", "Calm", "Core", "Flow", "Align", "Studio"),
        price_range=(15.0, 130.0),
        colours=("purple", "black", "teal", "grey"),
        sizes=("4mm", "6mm"),
        occasions=("home workouts", "hot yoga classes", "travel", "pilates"),
    ),
)

CATEGORY_BY_KEY: dict[str, CategorySpec] = {spec.key: spec for spec in CATEGORIES}

PROMO_CODES: tuple[str, ...] = ("SAVE10", "WELCOME15", "SPRING20", "FREESHIP")
"""The promo codes some shoppers hold and the store accepts by default."""

REVIEW_PRAISE: tuple[str, ...] = (
    "Does exactly what I wanted.",
    "Great value for the price.",
    "Really well made, feels like it will last.",
    "Arrived quickly and looks even better in person.",
    "I use it every day and love it.",
    "Better than the pricier one I had before.",
)

REVIEW_COMPLAINT: tuple[str, ...] = (
    "Broke after a month.",
    "Not as described, a bit disappointing.",
    "Runs small and the quality is so-so.",
    "Cheap materials, I returned it.",
    "Fine at first but it did not hold up.",
    "Customer service was unhelpful.",
)

REVIEW_MIXED: tuple[str, ...] = (
    "Decent, though the {feature} part could be better.",
    "Good overall, a little overpriced.",
    "Works fine, nothing special.",
    "Okay for the money; the {feature} claim is about right.",
)

REVIEWER_NAMES: tuple[str, ...] = (
    "Sam",
    "Priya",
    "Jordan",
    "Mei",
    "Lucas",
    "Aisha",
    "Tom",
    "Elena",
    "Kwame",
    "Noor",
)


@functools.lru_cache(maxsize=4096)
def slug(text: str) -> str:
    """Lower-case ``text`` and keep only ``[a-z0-9]`` runs joined by underscores, for element names."""
    out: list[str] = []
    word = []
    for ch in text.lower():
        if ch.isascii() and ch.isalnum():
            word.append(ch)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return "_".join(out)


__all__ = [
    "CATEGORIES",
    "CATEGORY_BY_KEY",
    "PROMO_CODES",
    "REVIEWER_NAMES",
    "REVIEW_COMPLAINT",
    "REVIEW_MIXED",
    "REVIEW_PRAISE",
    "CategorySpec",
    "slug",
]
