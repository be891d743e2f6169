"""``rouge_l`` equals ``rouge-score``'s rougeL F-measure on ASCII text and keeps other scripts' letters."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from rewardgym.wrappers.rouge import clear_rouge_cache, rouge_l, rouge_tokenize
from rewardgym.wrappers.shop_r1 import rouge_l as public_rouge_l

SCORER = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)

# Pieces chosen so tokenisation matters: case, digits, punctuation glued to words, non-ASCII
# letters (dropped by rouge-score), characters whose lower() is ASCII (Kelvin sign, dotted I),
# and odd whitespace.
VOCAB = [
    "add",
    "Add",
    "ADD",
    "to",
    "cart",
    "cart.",
    "(cart)",
    "blue",
    "Blue-Shirt",
    "men's",
    "size",
    "10",
    "10.5",
    "x2",
    "2-pack",
    "café",
    "naïve",
    "über",
    "Straße",
    "İstanbul",
    "\u212a",
    "日本",
    "🙂",
    "--",
    "...",
    "&",
    "a_b",
    "e-mail",
    "",
    " ",
    "\t",
    "\u00a0",
    "\n",
]


def reference(prediction: str, target: str) -> float:
    """rouge-score's rougeL F-measure, with its (target, prediction) argument order."""
    return SCORER.score(target, prediction)["rougeL"].fmeasure


def random_text(rng: random.Random) -> str:
    words = [rng.choice(VOCAB) for _ in range(rng.randint(0, 12))]
    return rng.choice([" ", "", "  ", ","]).join(words)


def test_equals_rouge_score_on_thousands_of_random_ascii_token_sequences() -> None:
    rng = random.Random(20250717)
    ascii_vocab = [w for w in VOCAB if w.isascii()]
    for _ in range(5000):
        words = [[rng.choice(ascii_vocab) for _ in range(rng.randint(0, 12))] for _ in range(2)]
        prediction, target = (rng.choice([" ", "", "  ", ","]).join(w) for w in words)
        assert rouge_l(prediction, target) == reference(prediction, target), (prediction, target)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40), st.text(max_size=40))
def test_equals_rouge_score_on_arbitrary_ascii(prediction: str, target: str) -> None:
    target = target.encode("ascii", "replace").decode("ascii")
    assert abs(rouge_l(prediction, target) - reference(prediction, target)) <= 1e-9


def test_non_ascii_letters_are_tokens_where_rouge_score_drops_them() -> None:
    assert reference("日本", "中国") == 0.0 and rouge_l("日本", "中国") == 0.0
    assert reference("日本", "日本") == 0.0 and rouge_l("日本", "日本") == 1.0
    # An accent is part of its letter; ß case-folds to ss.
    assert rouge_l("Café Straße", "cafe strasse") == 0.5
    assert rouge_l("CAFÉ STRASSE", "café straße") == 1.0
    assert rouge_l("ｆｕｌｌ width", "full width") == 1.0  # NFKC
    rng = random.Random(7)
    for _ in range(2000):
        prediction, target = random_text(rng), random_text(rng)
        assert 0.0 <= rouge_l(prediction, target) <= 1.0
        assert rouge_l(target, target) == (1.0 if rouge_tokenize(target) else 0.0)


@pytest.mark.parametrize(
    ("prediction", "target", "expected"),
    [
        ("add to cart", "Add to Cart", 1.0),
        ("add to cart now", "add to cart", 2 * 0.75 * 1.0 / 1.75),
        ("buy red running shoes", "buy blue running shoes", 0.75),
        ("", "add to cart", 0.0),
        ("!!!", "!!!", 0.0),
        ("cart add", "add cart", 0.5),
    ],
)
def test_hand_computed_scores(prediction: str, target: str, expected: float) -> None:
    assert rouge_l(prediction, target) == pytest.approx(expected, abs=1e-12)
    assert reference(prediction, target) == pytest.approx(expected, abs=1e-12)


def test_tokeniser_matches_rouge_score_details() -> None:
    def words(text: str) -> list[str]:
        return list(rouge_tokenize(text))

    assert words("Men's BLUE-shirt, size 10.5!") == ["men", "s", "blue", "shirt", "size", "10", "5"]
    assert words("café \u212a İ\ud800x") == ["café", "k", "i", "x"]
    assert words("日本 🙂\t\n") == ["日本"]
    assert words("a_b e-mail") == ["a", "b", "e", "mail"]


def test_public_name_and_cache_clearing() -> None:
    assert public_rouge_l is rouge_l
    rouge_l("blue shirt", "blue shirts")
    clear_rouge_cache()
    assert rouge_tokenize.cache_info().currsize == 0
    assert rouge_l("blue shirt", "blue shirts") == 0.5
