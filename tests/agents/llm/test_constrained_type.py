"""Constrained decoding leaves the action type to the model on every page kind.

A scripted logits processor, run before the grammar's mask, makes the tiny model prefer one
completion (one action type) token by token; through ``generate`` and
:meth:`ActionGrammar.processors`, the constrained output's type is the preferred one whenever
the page allows it, whichever page kind (clickables only, inputs only, both, neither) and
output order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.agents.llm.constrained import ActionGrammar
from rewardgym.agents.llm.generation import generate
from rewardgym.agents.llm.policy import generation_config
from rewardgym.envs.shopping.page_actions import PageActions
from rewardgym.envs.shopping.parsing import format_output, parse_output
from rewardgym.envs.shopping.schema import ShopAction

PAGES = {
    "clickables only": PageActions(("product_1_title", "add_to_cart"), ()),
    "inputs only": PageActions((), ("search_input",)),
    "both": PageActions(("nav_home", "product_1_title", "add_to_cart"), ("search_input",)),
    "neither": PageActions((), ()),
}
WANTED = {
    "click": ShopAction("click", name="add_to_cart"),
    "type_and_submit": ShopAction("type_and_submit", name="search_input", text="red lamp"),
    "terminate": ShopAction("terminate"),
}


class Prefers:
    """A logits processor that adds a large bonus to the tokens continuing one target text per
    row (the longest such token most), and to EOS once the target is written."""

    def __init__(self, tokenizer, targets: list[str], width: int, eos: int) -> None:
        self.tokenizer, self.targets, self.width, self.eos = tokenizer, targets, width, eos
        self.pieces = [tokenizer.decode([t]) for t in range(len(tokenizer))]

    def __call__(self, input_ids, scores):
        for row, target in enumerate(self.targets):
            written = self.tokenizer.decode(input_ids[row, self.width :], skip_special_tokens=True)
            if written == target:
                scores[row, self.eos] += 1000.0
                continue
            if not target.startswith(written):
                continue  # the grammar took the row elsewhere: leave the model's own scores
            rest = target[len(written) :]
            for token, piece in enumerate(self.pieces[: scores.shape[1]]):
                if piece and rest.startswith(piece):
                    scores[row, token] += 1000.0 + len(piece)
        return scores


@pytest.fixture(scope="module")
def loaded(tiny_model: Path):
    from rewardgym.agents.llm.model import load_model

    return load_model(tiny_model)


@pytest.mark.parametrize("action_first", [False, True])
def test_the_constrained_type_follows_the_models_preference_on_every_page_kind(
    loaded, action_first: bool
) -> None:
    from transformers import LogitsProcessorList

    model, tokenizer = loaded
    eos = int(tokenizer.eos_token_id)
    grammar = ActionGrammar(tokenizer, [eos], action_first=action_first)
    cases = [(page, kind) for page in PAGES for kind in WANTED]
    targets = [format_output("Ok.", WANTED[kind], action_first=action_first) for _, kind in cases]
    prompt = tokenizer("# Session so far\nStep 1 (current) page:\n", add_special_tokens=False)
    prompts = [prompt["input_ids"]] * len(cases)
    chain, budget = grammar.processors([PAGES[p] for p, _ in cases], 64, 0.0, 1.0)
    scripted = Prefers(tokenizer, targets, len(prompts[0]), eos)
    config = generation_config(tokenizer, 0.0, 1.0, budget)
    out = generate(
        model, tokenizer, prompts, config, logits_processor=LogitsProcessorList([scripted, *chain])
    )
    texts = tokenizer.batch_decode(out.completion_ids, skip_special_tokens=True)
    for (page, kind), target, text in zip(cases, targets, texts, strict=True):
        action = parse_output(text).action
        assert action is not None, (page, kind, text)
        allowed = PAGES[page]
        possible = {
            "click": bool(allowed.clickable),
            "type_and_submit": bool(allowed.inputs),
            "terminate": True,
        }
        if possible[kind]:
            assert action.type == kind, f"{page}: the model preferred {kind}, got {text!r}"
            assert text == target, (page, kind, text)
        else:
            assert action.type != kind and possible[action.type], (page, kind, text)
