"""Multi-turn GRPO on the live store: the policy acts over several turns in ``ShopStore-v0``, each step earns Shop-R1's reward.

:class:`LiveEnv` is the live store as a :class:`~rewardgym.agents.llm.grpo.GRPOEnv`, trained
through the one entry point, ``train_grpo(model, LiveEnv(prompt), out, wrapper, config)``.
TRL's ``GRPOTrainer`` takes custom rollouts through its ``rollout_func``; this module supplies
one (:class:`LiveRollout`) and the matching reward function (:class:`LiveStoreReward`). A
training row names a held-out-from-evaluation intent (``session``) and a turn (``step``).
For each row the rollout opens that visit (the ground-truth shopper's first step given, as
in every simulator evaluation), lets the current policy itself act for ``step - 1`` turns
(sampled, on policy: the states the policy reaches, not the logged ones that teacher forcing
shows), and at the state it reached samples the group of completions that GRPO compares.
The reward steps a copy of that state through the wrapper stack (``ShopR1Reward`` by
default) for each completion, so each step is scored against the ground-truth shopper's
choice in that very state. A visit that ends before the wanted turn is sampled at its last
open state. TRL's ``environment_factory`` is the other multi-turn mechanism, but it exposes
environments as tools through a chat template's tool calls; these policies answer in
Shop-R1's JSON action format instead.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from rewardgym.agents.llm.config import GRPORunConfig, PromptConfig
from rewardgym.agents.llm.generation import generate
from rewardgym.agents.llm.grpo import ORDER_LOG, GRPOOptions, GRPOSetup, trl_rollout
from rewardgym.agents.llm.prompt import PromptBuilder
from rewardgym.agents.llm.rewards import EnvReward, WrapperFactory
from rewardgym.envs.shopping.live.env import ShopStoreEnv
from rewardgym.envs.shopping.synthetic.config import StoreConfig
from rewardgym.wrappers.policy_output import PolicyOutput

if TYPE_CHECKING:
    from datasets import Dataset


@dataclass(frozen=True)
class LiveEnv:
    """Multi-turn GRPO on ``ShopStore-v0``: which visits, how deep, and how prompts are built."""

    prompt: PromptConfig = field(default_factory=PromptConfig)
    """How each reached state becomes a prompt (the policy's own prompt settings)."""
    max_turns: int = 4
    """Deepest turn a group is sampled at; turn ``t`` follows ``t - 1`` of the policy's own actions."""
    intents: int = 2000
    """Training intents ``0 .. intents - 1`` (the replay corpus's sessions; evaluation uses held-out ones)."""
    store: StoreConfig = field(default_factory=StoreConfig)
    """The store trained in (the base store: the A/B variants stay unseen)."""

    def __post_init__(self) -> None:
        if self.max_turns < 1 or self.intents < 1:
            raise ValueError(
                f"LiveEnv needs max_turns >= 1 and intents >= 1 (got {self.max_turns}, "
                f"{self.intents})"
            )

    def setup(
        self, wrapper: WrapperFactory | None, config: GRPORunConfig, out: Path, options: GRPOOptions
    ) -> GRPOSetup:
        """``config.steps x prompts_per_step`` rows, the live rollout and its reward (``wrapper``
        around the reached state; None: ``ShopR1Reward``)."""
        from rewardgym.wrappers import ShopR1Reward

        rollout = LiveRollout(self.store, self.prompt)
        reward = LiveStoreReward(rollout, wrapper or ShopR1Reward, order_log=out / ORDER_LOG)
        rollout.certainty = reward.kind
        rows = live_rows(self, config.steps * config.prompts_per_step, seed=config.seed)
        return GRPOSetup(rows, reward, rollout, reward.env.close)


def live_rows(env: LiveEnv, count: int, seed: int = 0) -> Dataset:
    """``count`` training rows (``prompt`` placeholder, ``session`` = intent, ``step`` = turn), drawn with ``seed``."""
    from datasets import Dataset

    rng = random.Random(f"rewardgym-live-grpo:{seed}")
    rows = []
    for _ in range(count):
        intent, turn = rng.randrange(env.intents), rng.randint(1, env.max_turns)
        rows.append({"prompt": f"visit {intent}, turn {turn}", "session": intent, "step": turn})
    return Dataset.from_list(rows)


class LiveRollout:
    """TRL ``rollout_func``: play each row's visit with the trainer's model, then sample its group."""

    def __init__(
        self,
        store: StoreConfig,
        prompt: PromptConfig,
        *,
        certainty: Any = None,
        env_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.prompt = prompt
        self.certainty = certainty
        self.env_kwargs = dict(env_kwargs or {})
        self.states: dict[tuple[int, int], bytes] = {}
        self.turns_reached: list[int] = []

    def _env(self) -> ShopStoreEnv:
        kwargs = {
            "context": self.prompt.context,
            "max_context_chars": self.prompt.max_context_chars,
        }
        return ShopStoreEnv(store=self.store, opening="first_step", **{**kwargs, **self.env_kwargs})

    def bind(self, builder: PromptBuilder) -> None:
        """Build contexts to ``builder``'s token budget, counted with its tokenizer."""
        self.env_kwargs = builder.env_kwargs()

    def play(
        self, keys: Sequence[tuple[int, int]], act: Callable[[list[dict[str, Any]]], list[str]]
    ) -> dict[tuple[int, int], dict[str, Any]]:
        """Advance each (intent, turn) visit by ``turn - 1`` of ``act``'s outputs; keep each reached state."""
        envs, observations = {}, {}
        for key in keys:
            env = self._env()
            observations[key], _ = env.reset(options={"intent": int(key[0])})
            envs[key] = env
        for depth in range(1, max((t for _, t in keys), default=1)):
            moving = [k for k in keys if k[1] > depth and k in envs]
            if not moving:
                break
            outputs = act([observations[k] for k in moving])
            for key, output in zip(moving, outputs, strict=True):
                before = pickle.dumps(envs[key])
                obs, _, terminated, truncated, _ = envs[key].step(output)
                if terminated or truncated:
                    # The visit ended before the wanted turn: sample at its last open state.
                    self.states[key] = before
                    self.turns_reached.append(depth)
                    del envs[key]
                else:
                    observations[key] = obs
        for key, env in envs.items():
            self.states[key] = pickle.dumps(env)
            self.turns_reached.append(key[1])
        return {key: observations[key] for key in keys}

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        """TRL's rollout contract: ``prompt_ids``, ``completion_ids``, ``logprobs`` (+ rationale certainty)."""
        from trl.models import unwrap_model_for_generation

        tokenizer = trainer.processing_class
        builder = PromptBuilder(tokenizer, self.prompt)
        self.bind(builder)
        keys = [_key(p) for p in prompts]
        distinct = list(dict.fromkeys(keys))
        self.states = {}
        with unwrap_model_for_generation(
            trainer.model_wrapped,
            trainer.accelerator,
            gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
        ) as model:

            def act(observations: list[dict[str, Any]]) -> list[str]:
                ids = tokenizer([builder(o) for o in observations], add_special_tokens=False)[
                    "input_ids"
                ]
                result = generate(model, tokenizer, ids, trainer.generation_config)
                return list(tokenizer.batch_decode(result.completion_ids, skip_special_tokens=True))

            reached = self.play(distinct, act)
            texts = [builder(reached[k]) for k in keys]
            prompt_ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
            result = generate(
                model, tokenizer, prompt_ids, trainer.generation_config, certainty=self.certainty
            )
        return trl_rollout(tokenizer, prompt_ids, result)


def _key(prompt: Any) -> tuple[int, int]:
    text = str(prompt)
    try:
        intent, turn = text.removeprefix("visit ").split(", turn ")
        return int(intent), int(turn)
    except ValueError as err:
        raise ValueError(
            f"a live GRPO row's prompt must read 'visit I, turn T' (got {text!r})"
        ) from err


class LiveStoreReward(EnvReward):
    """Shop-R1's reward (or any wrapper stack) for a completion in the live state its rollout reached."""

    def __init__(self, rollout: LiveRollout, wrapper: WrapperFactory, **kwargs: Any) -> None:
        super().__init__(wrapper(rollout._env()), **kwargs)
        self.rollout = rollout
        self.wrapper = wrapper

    def score(self, output: str | PolicyOutput, session: int, step: int) -> tuple[float, dict]:
        """Step a copy of the reached state of (intent ``session``, turn ``step``) with ``output``."""
        state = self.rollout.states.get((int(session), int(step)))
        if state is None:
            raise KeyError(f"no rollout state for intent {session}, turn {step}")
        env: gym.Env = self.wrapper(pickle.loads(state))
        _, reward, _, _, info = env.step(output)
        return float(reward), info


__all__ = [
    "LiveEnv",
    "LiveRollout",
    "LiveStoreReward",
    "live_rows",
]
