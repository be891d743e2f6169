"""Does the shop model read the state the lookup keys on? P(add_to_cart) after an option click.

Reads top to bottom: load a model folder (a ``bench shop`` or sweep SFT checkpoint), build the
validation steps of its preset (the sweep's split rule, never test), keep the product-page
steps, and score every action each such page allows given the prompt (and, in Shop-R1's
rationale-first order, the gold rationale): the model's probability of each action's JSON,
normalised over the page's actions (the choice constrained decoding samples from at
temperature 1). Grouped by the previous action's kind, it prints the mean probability of
``add_to_cart`` and of the other common branches next to how often the shopper took each.

The lookup baseline wins on product pages by taking the common branch (after an option, add
to cart); a model that ignores the previous action gives the same distribution after any
action, its training shares. The gate the shop-policy issue sets before a full run: the mean
P(add_to_cart) after an option click must rise above 0.5.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import tyro

from rewardgym.agents.llm.continuations import continuation_probabilities
from rewardgym.agents.llm.dataset import StepRow
from rewardgym.benchmarks.shop.config import PresetName, preset
from rewardgym.bounds import AT_LEAST_1, check_fields
from rewardgym.envs.shopping.element_ids import resolve_name
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic.pages import action_kind

BRANCHES = ("add_to_cart", "back_to_results", "option", "see_reviews")
"""The product page's common branches, by action kind or name."""
GATE = 0.5
"""The mean P(add_to_cart) after an option click a recipe must pass before a full run."""


@dataclass(frozen=True)
class Config:
    """Which model, which validation steps."""

    model: Path
    """A model folder (e.g. a sweep candidate's sft/model)."""
    preset: PresetName = "quick"
    """Preset whose prompt and validation split are used."""
    validation_sessions: Annotated[int, AT_LEAST_1] = 100
    """Validation sessions read (the sweep's default)."""
    out: Path | None = None
    """Write the figures as JSON here too (a new file)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def branch(action: ShopAction) -> str:
    """The branch a product-page action takes: add_to_cart, back_to_results, option, see_reviews or other."""
    if action.type == "click" and action.name in ("add_to_cart", "back_to_results", "see_reviews"):
        return action.name
    return "option" if action_kind(action) == "option" else "other"


def named(action: ShopAction, row: StepRow) -> ShopAction:
    """``action`` with an element id (the ``element_ids`` prompt) replaced by the element's name."""
    if row.elements is None or action.type == "terminate":
        return action
    name, _ = resolve_name(action.name, row.elements)
    return ShopAction(action.type, name=name or action.name, text=action.text)


def action_probabilities(
    model: Any, tokenizer: Any, row: StepRow, *, action_first: bool = False
) -> dict[ShopAction, float]:
    """The model's probability of each action ``row``'s page allows, normalised over them.

    Each action is scored as the JSON object the completion writes after ``"action":`` (and the
    character after it), given the prompt and, in Shop-R1's rationale-first order, the gold
    rationale (``action_first``: the model's completions open with the action, so nothing of
    the rationale is given).
    """
    assert row.actions is not None
    rationale = json.loads(row.completion)["rationale"]
    candidates = [ShopAction("terminate")]
    candidates += [ShopAction("click", name=n) for n in row.actions.clickable]
    written = format_output(rationale, ShopAction("terminate"), action_first=action_first)
    head = row.prompt + written.split('"action": ', 1)[0] + '"action":'
    # Each tail ends with the character that follows the action in the model's own completions
    # (the rationale's comma, or the object's closing brace), so its last token is split as in
    # training ('"},' or '"}}'), the same for every candidate.
    after = "," if action_first else "}"
    tails = [" " + json.dumps(a.to_dict(), ensure_ascii=False) + after for a in candidates]
    probs = continuation_probabilities(model, tokenizer, head, tails)
    return dict(zip(candidates, probs, strict=True))


def validation_rows(
    model_dir: Path, preset_name: PresetName, sessions: int
) -> tuple[Any, Any, Any, list[StepRow]]:
    """A model folder loaded, and its preset's validation steps as rows prompted for it: the
    model, its tokenizer, the preset's :class:`~rewardgym.benchmarks.shop.data.SuiteData` and
    the rows of its first ``sessions`` validation sessions (never test)."""
    from rewardgym.agents.llm.model import load_model
    from rewardgym.benchmarks.shop.data import SuiteData
    from rewardgym.benchmarks.shop.sweep import model_prompt

    config = preset(preset_name)
    _, prompt = model_prompt(config)
    model, tokenizer = load_model(model_dir)
    data = SuiteData(
        None, validation_fraction=config.validation_fraction, train_sessions=None, progress=False
    )
    return model, tokenizer, data, data.rows(model_dir, tokenizer, prompt, "validation", sessions)


def main(cfg: Config) -> dict[str, Any]:
    """Score the product-page validation steps and print the table by previous action."""
    model, tokenizer, _, rows = validation_rows(cfg.model, cfg.preset, cfg.validation_sessions)
    action_first = preset(cfg.preset).prompt.action_first
    product = [r for r in rows if r.actions is not None and "add_to_cart" in r.actions.clickable]
    by_previous: dict[str, list[dict[str, float]]] = defaultdict(list)
    taken: dict[str, list[str]] = defaultdict(list)
    for row in product:
        previous = "none" if row.previous is None else branch(row.previous)
        probs = action_probabilities(model, tokenizer, row, action_first=action_first)
        mass = dict.fromkeys([*BRANCHES, "other", "terminate"], 0.0)
        for action, p in probs.items():
            mass["terminate" if action.type == "terminate" else branch(named(action, row))] += p
        by_previous[previous].append(mass)
        assert row.truth is not None
        taken[previous].append("terminate" if row.truth.type == "terminate" else branch(row.truth))
    figures: dict[str, Any] = {"model": str(cfg.model), "steps": len(product), "by_previous": {}}
    print(f"{len(product)} validation product-page steps of {cfg.validation_sessions} sessions")
    print("| previous action | steps | " + " | ".join(f"P({b}) / taken" for b in BRANCHES) + " |")
    print("|---|---|" + "---|" * len(BRANCHES))
    for previous, masses in sorted(by_previous.items()):
        mean = {b: float(np.mean([m[b] for m in masses])) for b in BRANCHES}
        share = {b: taken[previous].count(b) / len(taken[previous]) for b in BRANCHES}
        figures["by_previous"][previous] = {"steps": len(masses), "p": mean, "taken": share}
        cells = " | ".join(f"{mean[b]:.2f} / {share[b]:.2f}" for b in BRANCHES)
        print(f"| {previous} | {len(masses)} | {cells} |")
    after_option = figures["by_previous"].get("option", {}).get("p", {}).get("add_to_cart")
    figures["gate"] = {"p_add_to_cart_after_option": after_option, "threshold": GATE}
    verdict = "passes" if after_option is not None and after_option > GATE else "fails"
    print(f"P(add_to_cart | option before) = {after_option}: {verdict} the {GATE} gate")
    if cfg.out is not None:
        from rewardgym.atomic import write_json_atomic

        write_json_atomic(cfg.out, figures)
    return figures


if __name__ == "__main__":
    main(tyro.cli(Config))
