"""Shopper simulators that visit ``ShopStore-v0``: the ground-truth shopper, the baselines, and LLM policies.

A :class:`SimPolicy` answers a batch of observations with raw texts, as the env's ``step``
takes them. :meth:`SimPolicy.start` tells it that a new visit began in a slot, which the
ground-truth shopper needs (it reads the store directly and follows its own intent).

Example:
    >>> from rewardgym.agents.simulation.policies import resolve_policy
    >>> resolve_policy("shopper:2").name, resolve_policy("always-terminate").name
    ('shopper/seed2', 'baseline/always-terminate')
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rewardgym.agents.baselines.shop import (
    FirstElementAgent,
    FrequencyAgent,
    RandomShopAgent,
    ShopPolicy,
    TerminateAgent,
)
from rewardgym.agents.simulation.config import ContextOptions
from rewardgym.envs.shopping.context import approx_token_count
from rewardgym.envs.shopping.live.env import ShopStoreEnv
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.synthetic.shopper import Shopper
from rewardgym.envs.shopping.synthetic.visit import Visit

if TYPE_CHECKING:
    from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
    from rewardgym.agents.llm.policy import LLMPolicy
    from rewardgym.agents.llm.served import ServedConfig, ServedPolicy

BASELINE_NAMES: tuple[str, ...] = ("random", "always-terminate", "first-element", "frequency")
_GREEDY_CACHE = 1 << 14
"""Completions a greedy LLM simulator keeps for prompts it may see again."""


class SimPolicy(Protocol):
    """A shopper simulator for ``ShopStore-v0`` visits run side by side in numbered slots."""

    name: str
    context: ContextOptions

    def start(self, slot: int, env: ShopStoreEnv) -> None:
        """A new visit began in ``slot`` of ``env`` (already reset)."""
        ...

    def act(self, slots: Sequence[int], observations: Sequence[dict[str, Any]]) -> list[str]:
        """Raw outputs for the current observation of each of ``slots``."""
        ...


@dataclass
class _Twin:
    shopper: Shopper
    visit: Visit
    seen: int = 0


class ShopperPolicy:
    """The ground-truth synthetic shopper as a policy: same intent, its own random stream ``seed``.

    ``seed=0`` is the env's own shopper (its choices are ``info["truth"]``, exact match 1.0 on
    every step); any other seed is a second shopper with the same intent and habits whose
    noise (decisiveness, review reading, phrasing...) is drawn afresh: the noise floor of
    every fidelity and A/B figure.
    """

    def __init__(self, seed: int = 1) -> None:
        if seed < 0:
            raise ValueError(f"ShopperPolicy seed must be >= 0 (got {seed})")
        self.seed = seed
        self.name = f"shopper/seed{seed}"
        self.context = ContextOptions()
        self._twins: dict[int, _Twin] = {}
        self._envs: dict[int, ShopStoreEnv] = {}

    def start(self, slot: int, env: ShopStoreEnv) -> None:
        """Meet the shopper of the visit that began in ``slot``."""
        store = env.unwrapped
        assert isinstance(store, ShopStoreEnv) and store.visit is not None
        self._envs[slot] = store
        if self.seed:
            visit = store.visit
            rng = random.Random(
                f"rewardgym-shopper-twin:{self.seed}:{visit.store.catalogue_seed}:{visit.index}"
            )
            self._twins[slot] = _Twin(Shopper(rng, visit.intent, store.shopper), visit)

    def act(self, slots: Sequence[int], observations: Sequence[dict[str, Any]]) -> list[str]:
        """The shopper's choice in each slot's current state."""
        outputs = []
        for slot in slots:
            if not self.seed:
                outputs.append(self._envs[slot].truth_output())
                continue
            twin = self._twins[slot]
            visit = twin.visit
            for step, outcome in zip(
                visit.steps[twin.seen :], visit.outcomes[twin.seen :], strict=True
            ):
                twin.shopper.observe(step.action, outcome)
            twin.seen = len(visit.steps)
            choice = twin.shopper.decide(visit.browser, len(visit.steps))
            outputs.append(format_output(choice.rationale, choice.action))
        return outputs


class BaselinePolicy:
    """A ``ShopSession-v0`` baseline (random, always-terminate, first-element, frequency) on the live store."""

    def __init__(self, policy: ShopPolicy) -> None:
        self.policy = policy
        self.name = f"baseline/{policy.name}"
        self.context = ContextOptions()

    def start(self, slot: int, env: ShopStoreEnv) -> None:
        """Baselines keep no per-visit state."""

    def act(self, slots: Sequence[int], observations: Sequence[dict[str, Any]]) -> list[str]:
        """The baseline's output for each observation."""
        return [self.policy.act(o) for o in observations]


class LLMSimPolicy:
    """An :class:`~rewardgym.agents.llm.policy.LLMPolicy` (a model folder) or a
    :class:`~rewardgym.agents.llm.served.ServedPolicy` (a served model) as a shopper simulator.

    Its model must not change while it visits: a greedy policy reuses its completions.
    """

    def __init__(self, policy: LLMPolicy | ServedPolicy, name: str) -> None:
        self.policy = policy
        self.name = name
        self._answers: dict[str, str] = {}
        kwargs = policy.env_kwargs()
        self.context = ContextOptions(
            kwargs["context"],
            kwargs.get("max_context_chars"),
            kwargs.get("max_context_tokens"),
            kwargs.get("count_tokens", approx_token_count),
            bool(kwargs.get("persona", False)),
        )

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        *,
        prompt: PromptConfig | None = None,
        sampling: SamplingConfig | None = None,
        seed: int = 0,
        name: str | None = None,
    ) -> LLMSimPolicy:
        """Load the model folder ``path`` (a shop-suite checkpoint or any HF causal LM), generating with a static KV cache.

        Without ``sampling`` it decodes constrained to each page's actions (every output parses,
        so every visit runs until the simulator ends it or the store's step limit does).
        """
        from rewardgym.agents.llm.config import SamplingConfig
        from rewardgym.agents.llm.policy import LLMPolicy

        sampling = sampling or SamplingConfig(decoding="constrained")
        policy = LLMPolicy.from_path(path, prompt, sampling, seed=seed, cache="static")
        return cls(policy, name or f"llm/{Path(path).name}")

    def start(self, slot: int, env: ShopStoreEnv) -> None:
        """The model keeps no per-visit state: everything is in the prompt."""

    def served_requests(self) -> tuple[int, int] | None:
        """A served model's requests so far and how many got no answer (None: a local model)."""
        from rewardgym.agents.llm.served import ServedPolicy

        if not isinstance(self.policy, ServedPolicy):
            return None
        return self.policy.requests, self.policy.failures

    def act(self, slots: Sequence[int], observations: Sequence[dict[str, Any]]) -> list[str]:
        """One batched generation over the observations' prompts.

        A greedy policy (temperature 0) answers each distinct prompt once: a prompt seen
        before (a visit whose last action changed nothing, or two visits in the same state)
        gets its earlier completion, which greedy decoding would repeat anyway.
        """
        from rewardgym.agents.llm.policy import LLMPolicy

        policy = self.policy
        prompts = [policy.prompts(o) for o in observations]
        allowed = {}
        if isinstance(policy, LLMPolicy) and policy.sampling.decoding == "constrained":
            allowed = dict(zip(prompts, policy.page_actions(observations), strict=True))

        def complete(todo: list[str]) -> list[str]:
            if not allowed:
                return policy.complete(todo)
            assert isinstance(policy, LLMPolicy)
            return policy.complete(todo, [allowed[p] for p in todo])

        if self.policy.sampling.temperature > 0:
            return complete(prompts)
        answers = {p: self._answers[p] for p in prompts if p in self._answers}
        todo = list(dict.fromkeys(p for p in prompts if p not in answers))
        if todo:
            answers.update(zip(todo, complete(todo), strict=True))
        if len(self._answers) + len(todo) > _GREEDY_CACHE:
            self._answers.clear()
        self._answers.update((p, answers[p]) for p in todo)
        return [answers[p] for p in prompts]


def _frequency() -> ShopPolicy:
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    log, train = resolve_sessions(None, "train")
    return FrequencyAgent().fit(log.session(i) for i in train)


_BASELINES: dict[str, Callable[[], ShopPolicy]] = {
    "random": RandomShopAgent,
    "always-terminate": TerminateAgent,
    "first-element": FirstElementAgent,
    "frequency": _frequency,
}


def resolve_policy(
    spec: str, *, seed: int = 0, served: ServedConfig | None = None, progress: bool = True
) -> SimPolicy:
    """The policy ``spec`` names: ``shopper`` / ``shopper:K`` (seed K, default 1), a baseline name, a model folder, or ``openai:URL[#model]``.

    The frequency baseline is fitted on the train split of the embedded replay corpus. A served
    model (settings ``served``) is asked one short completion first, so a dead server stops
    the run within seconds.
    """
    from rewardgym.agents.llm.served import ServedPolicy, is_served, parse_served

    if is_served(spec):
        policy = ServedPolicy.from_spec(spec, config=served, seed=seed, progress=progress)
        policy.preflight()
        return LLMSimPolicy(policy, f"served/{parse_served(spec)[1]}")
    if spec == "shopper" or spec.startswith("shopper:"):
        _, _, value = spec.partition(":")
        if value and not value.isdigit():
            raise ValueError(
                f"policy {spec!r}: the shopper's seed must be a number, e.g. shopper:2"
            )
        return ShopperPolicy(int(value) if value else 1)
    if spec in _BASELINES:
        return BaselinePolicy(_BASELINES[spec]())
    if Path(spec).is_dir():
        return LLMSimPolicy.from_path(spec, seed=seed)
    raise ValueError(
        f"unknown policy {spec!r}: use shopper, shopper:K, one of {BASELINE_NAMES}, "
        "the folder of a model (e.g. a shop-suite checkpoint) or openai:URL[#model]"
    )


__all__ = [
    "BASELINE_NAMES",
    "BaselinePolicy",
    "LLMSimPolicy",
    "ShopperPolicy",
    "SimPolicy",
    "resolve_policy",
]
