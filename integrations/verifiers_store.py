"""``rewardgym-store``: whole visits of ``rewardgym/ShopStore-v0`` as a multi-turn verifiers (``verifiers.v1``) taskset.

The model is the shopper. Each task is one visit, intent ``i`` of the store's catalogue: its
prompt is Shop-R1's (the instructions as the system message; the visit so far, compact, as the
user message), and by default the ground-truth shopper has taken the first step, so its
rationale states what the visit is for (Shop-R1's protocol: the first step is given). Each turn
the model answers with one JSON output, the store carries it out host-side
(:mod:`rewardgym.integrations.verifiers_turns`) and the page it leads to is the next user turn.
A reply the store cannot carry out (no JSON action in it, an element not on the page) is an
inexecutable step: the page stays, the turn counts, and the store's own note tells the model
what was wrong. The visit ends at the model's ``terminate``, the env's step limit or
``max_turns``.

The task has two reward functions, each weight 1 (``--env.taskset.task.rewards`` reweights
them), from the env's own signals: ``match``, the share of the visit's steps whose action is
the ground-truth shopper's choice in the state reached (the env's reward, averaged over the
steps), and ``purchase``, 1 when the visit ended (not cut off by ``max_turns``) where the
ground-truth shopper's own visit with the same intent ends (:func:`visit_ending`): an order of
the same total, or no order, leaving from the same product last opened with the same cart. A
visit the model ends at once matches only a shopper who also opened nothing. Metrics:
``steps``, ``inexecutable``, ``ordered``, ``order_total`` and ``ended``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import verifiers.v1 as vf

from rewardgym.agents.llm.prompt import CONTEXT_HEADER, FOOTER, INSTRUCTIONS
from rewardgym.envs import SHOP_STORE_ID
from rewardgym.envs.shopping.compact import compact_page
from rewardgym.integrations.text_env import make_text_env
from rewardgym.integrations.verifiers import ChatHarness, PlayerEnvConfig
from rewardgym.integrations.verifiers_turns import TextEpisode, TurnsConfig, episode_score, play


class VisitConfig(TurnsConfig):
    """Which visits become tasks, in which store."""

    visits: int = 10
    """Visits (tasks): intents 0, 1, ... of the store's catalogue seed."""
    store: str = "base"
    """The store: base, or a variant of rewardgym.envs.shopping.synthetic.variants (price-up-20, ...)."""
    opening: str = "first_step"
    """first_step (the ground-truth shopper's first step is given) or home (the model starts on the home page)."""
    max_context_chars: int | None = None
    """Cut the first prompt's context to this many characters (the env's rule); None keeps it whole."""

    def env_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``gym.make("rewardgym/ShopStore-v0", ...)`` (plain JSON)."""
        return {
            "store": self.store,
            "opening": self.opening,
            "context": "compact",
            "max_context_chars": self.max_context_chars,
        }


def make_store(kwargs: dict[str, Any]) -> gym.Env[Any, Any]:
    """``rewardgym/ShopStore-v0`` with ``kwargs`` (:meth:`VisitConfig.env_kwargs`)."""
    return make_text_env(SHOP_STORE_ID, **kwargs)


def visit_ending(env: gym.Env[Any, Any], order_total: float) -> dict[str, Any]:
    """Where ``env``'s visit ends, as ``purchase`` compares it (plain JSON).

    ``{"order_total": ...}`` (to the cent) when the visit placed an order, else
    ``{"last_product": pid or None, "cart": [pid, ...]}``: the product it opened last and what it
    left in the cart.
    """
    if order_total > 0:
        return {"order_total": round(order_total, 2)}
    browser = env.get_wrapper_attr("visit").browser
    last = browser.product
    return {
        "last_product": None if last is None else int(last.pid),
        "cart": sorted(int(product.pid) for product, _ in browser.cart),
    }


def shopper_outcome(env: gym.Env[Any, Any]) -> dict[str, Any]:
    """How the ground-truth shopper's visit ends from ``env``'s current state: ``ordered``, ``order_total``, ``steps``, ``ending``."""
    total, steps, done = 0.0, 0, False
    while not done:
        *_, terminated, truncated, info = env.step(env.get_wrapper_attr("truth_output")())
        total += float(info["order_total"])
        steps += 1
        done = bool(terminated or truncated)
    return {
        "ordered": total > 0,
        "order_total": round(total, 2),
        "steps": steps,
        "ending": visit_ending(env, total),
    }


class VisitData(vf.TaskData):
    """One visit."""

    info: dict[str, Any]
    """``intent``, ``env_kwargs`` and ``max_turns`` (what the env replays the visit from) and
    ``shopper``: how the ground-truth shopper's own visit ends (:func:`shopper_outcome`)."""


class VisitTask(vf.Task[VisitData, vf.State, vf.TaskConfig]):
    """A task of ``rewardgym-store``: one visit to the store, scored by ``match`` and ``purchase``."""

    @vf.reward
    async def match(self, trace: vf.Trace) -> float:
        """The share of the visit's steps that were the shopper's choice in the state reached."""
        return episode_score(trace, "match")

    @vf.reward
    async def purchase(self, trace: vf.Trace) -> float:
        """1.0 when the visit ended where the shopper's own visit ends (:func:`visit_ending`)."""
        return episode_score(trace, "purchase")


class StoreTaskset(vf.Taskset[VisitTask, VisitConfig]):
    """Visits of intents ``0 .. visits - 1`` to the config's store; each prompt is the visit's first context."""

    def load(self) -> Iterator[VisitTask]:
        """One task per intent; the ground-truth shopper plays each visit once to see how it ends."""
        config = self.config
        kwargs = config.env_kwargs()
        env = make_store(kwargs)
        try:
            for intent in range(config.visits):
                obs, _ = env.reset(options={"intent": intent})
                prompt = CONTEXT_HEADER + str(obs["context"]) + FOOTER
                yield VisitTask(
                    VisitData(
                        name=f"{config.store}#{intent}",
                        prompt=prompt,
                        system_prompt=INSTRUCTIONS.strip(),
                        info={
                            "intent": intent,
                            "env_kwargs": kwargs,
                            "max_turns": config.max_turns,
                            "shopper": shopper_outcome(env),
                        },
                    ),
                    config.task,
                )
        finally:
            env.close()


class VisitEpisode(TextEpisode):
    """A visit driven by the model's JSON outputs, scored against the ground-truth shopper."""

    def __init__(
        self, env: gym.Env[Any, Any], max_turns: int, shopper_ending: dict[str, Any]
    ) -> None:
        super().__init__(env, max_turns)
        self.shopper_ending = shopper_ending
        """Where the shopper's own visit ends (:func:`visit_ending`)."""
        self.ending: dict[str, Any] | None = None
        """Where this visit ended, once it has (None while it goes on or when cut off)."""
        self.matches = 0.0
        """The env's rewards summed: steps whose action was the shopper's choice."""
        self.order_total = 0.0
        self.ended = False
        """Whether the visit itself ended (``terminate`` or the env's step limit)."""

    def act(self, reply: str) -> tuple[str, bool]:
        """Carry the reply out in the store; the page it leads to, after the store's note when nothing happened."""
        obs, reward, terminated, truncated, info = self.env.step(reply)
        self.matches += float(reward)
        self.order_total += float(info["order_total"])
        self.ended = bool(terminated or truncated)
        note = ""
        if not info["applied"]:
            self.inexecutable += 1
            note = f"Nothing happened: {info['note']}\n"
        if self.ended:
            self.ending = visit_ending(self.env, self.order_total)
            return note + "The visit is over.", True
        page = compact_page(str(obs["page"]))
        return f"{note}Step {int(info['step']) + 1} (current) page:\n{page}\n{FOOTER}", False

    def rewards(self) -> dict[str, float]:
        """``match`` and ``purchase`` (module docstring)."""
        match = self.matches / self.turns if self.turns else 0.0
        return {"match": match, "purchase": float(self.ending == self.shopper_ending)}

    def metrics(self) -> dict[str, float]:
        """``steps``, ``inexecutable``, ``ordered``, ``order_total`` and ``ended``."""
        return {
            **super().metrics(),
            "ordered": float(self.order_total > 0),
            "order_total": round(self.order_total, 2),
            "ended": float(self.ended),
        }


def start_visit(info: dict[str, Any]) -> VisitEpisode:
    """The visit a task's ``info`` names, reset and ready for the model's first reply."""
    env = make_store(info["env_kwargs"])
    env.reset(options={"intent": info["intent"]})
    return VisitEpisode(env, int(info["max_turns"]), dict(info["shopper"]["ending"]))


class StoreEnv(vf.Env[PlayerEnvConfig]):
    """The visit stepped host-side: each reply one action, each page the next user turn."""

    async def run(self, task: VisitTask, agents: Any) -> None:
        """Play until the model terminates, the env's step limit or ``max_turns`` model turns."""
        await play(task, agents, start_visit(task.data.info))


__all__ = [
    "ChatHarness",
    "StoreEnv",
    "StoreTaskset",
    "VisitConfig",
    "VisitData",
    "VisitEpisode",
    "VisitTask",
    "shopper_outcome",
    "start_visit",
    "visit_ending",
]
