"""Baseline shopper simulators: random, always-terminate, first element, and a frequency model."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import numpy as np

from rewardgym.envs.shopping.compact import page_names
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ACTION_TYPES, ActionType, ShopAction, ShopSession

_INPUT = re.compile(r'<(?:input|textarea)\b[^>]*\bname="([^"]*)"')


class ShopPolicy(Protocol):
    """Anything that maps a ``ShopSession-v0`` observation to a raw text output."""

    name: str

    def act(self, observation: dict[str, Any]) -> str:
        """The policy's raw output for one observation."""
        ...


class RandomShopAgent:
    """Picks an action type uniformly, then a random element of the page (and a fixed query)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any]) -> str:
        """A uniformly random action over the current page's elements."""
        names = page_names(observation["page"]) or [""]
        kinds: tuple[ActionType, ...] = ("click", "type_and_submit", "terminate")
        kind = kinds[int(self.rng.integers(len(kinds)))]
        name = names[int(self.rng.integers(len(names)))]
        action = ShopAction(kind, name, "shoes" if kind == "type_and_submit" else "")
        return format_output("I am browsing.", action)


class TerminateAgent:
    """Always ends the session: the degenerate policy that reward hacking converges to."""

    name = "always-terminate"

    def act(self, observation: dict[str, Any]) -> str:
        """Always the terminate action."""
        return format_output("I am done.", ShopAction("terminate"))


class FirstElementAgent:
    """Searches on the first page when it has an input box; otherwise clicks the page's first element."""

    name = "first-element"

    def act(self, observation: dict[str, Any]) -> str:
        """Click the first named element of the page, or search when the page is a search form."""
        page = observation["page"]
        inputs = _INPUT.findall(page)
        if inputs and not observation["history"]:
            return format_output(
                "I will search.", ShopAction("type_and_submit", inputs[0], "shoes")
            )
        names = page_names(page)
        if not names:
            return format_output("Nothing to do.", ShopAction("terminate"))
        return format_output("I will look at this.", ShopAction("click", names[0]))


class FrequencyAgent:
    """Counts, on training sessions, which action follows the previous action type and page type.

    A table-lookup model: the key is (previous action type and name, the first twelve sorted
    element names of the page), backing off to the previous action alone and then to the most
    common action; only actions whose element is on the current page are proposed. It is
    fitted on a train split and scored on a test split.
    """

    name = "frequency"

    def __init__(self) -> None:
        self._by_context: dict[tuple[str, str], Counter[ShopAction]] = defaultdict(Counter)
        self._by_previous: dict[str, Counter[ShopAction]] = defaultdict(Counter)
        self._overall: Counter[ShopAction] = Counter()

    @staticmethod
    def _previous(history: Iterable[Any]) -> str:
        items = list(history)
        if not items:
            return "<start>"
        last = items[-1]
        kind = last["type"] if isinstance(last, dict) else last.action.type
        name = last["name"] if isinstance(last, dict) else last.action.name
        return f"{kind}:{name}"

    @staticmethod
    def _page_key(page: str) -> str:
        return "|".join(sorted(set(page_names(page)))[:12])

    def fit(self, sessions: Iterable[ShopSession]) -> FrequencyAgent:
        """Count next actions over the steps of ``sessions``."""
        for session in sessions:
            history: list[Any] = []
            for step in session.steps:
                prev = self._previous(history)
                self._by_context[(prev, self._page_key(step.page))][step.action] += 1
                self._by_previous[prev][step.action] += 1
                self._overall[step.action] += 1
                history.append(step)
        return self

    def act(self, observation: dict[str, Any]) -> str:
        """The most frequent next action in the most specific context seen in training."""
        action = self.predict(observation)
        if action is None:
            return format_output("Nothing seen before.", ShopAction("terminate"))
        return format_output("As usual.", action)

    def predict(self, observation: Mapping[str, Any]) -> ShopAction | None:
        """The action :meth:`act` emits for ``observation``; None when training saw no action
        that fits the page (then :meth:`act` terminates)."""
        history = [
            {"type": ACTION_TYPES[h["type"]], "name": h["name"]} for h in observation["history"]
        ]
        prev = self._previous(history)
        names = set(page_names(observation["page"]))
        for table in (
            self._by_context.get((prev, self._page_key(observation["page"]))),
            self._by_previous.get(prev),
            self._overall,
        ):
            if table:
                for action, _ in table.most_common():
                    if action.type == "terminate" or action.name in names:
                        return action
        return None


def default_baselines(train_sessions: Iterable[ShopSession], seed: int = 0) -> list[ShopPolicy]:
    """The suite's baseline rows: frequency (fitted on ``train_sessions``), random,
    always-terminate and first-element."""
    return [
        FrequencyAgent().fit(train_sessions),
        RandomShopAgent(seed=seed),
        TerminateAgent(),
        FirstElementAgent(),
    ]


__all__ = [
    "FirstElementAgent",
    "FrequencyAgent",
    "RandomShopAgent",
    "ShopPolicy",
    "TerminateAgent",
    "default_baselines",
    "page_names",
]
