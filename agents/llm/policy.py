"""``LLMPolicy``: a causal LM that answers ``ShopSession-v0`` observations in batches.

It turns each observation into a prompt (:class:`~rewardgym.agents.llm.prompt.PromptBuilder`),
samples at the configured temperature (0.6 by default, Shop-R1's), and returns the raw texts
the env expects, or :class:`~rewardgym.wrappers.PolicyOutput` objects that also carry the
rationale tokens' self-certainty for ``ShopR1Reward``. Seeded: the same seed and inputs give the
same outputs. :meth:`LLMPolicy.complete` answers ready-made prompts (a suite that builds each
split's prompts once); prompts are generated in batches of similar length (less padding), in
bfloat16 autocast where the hardware has it.

Example:
    >>> from rewardgym.agents.llm import LLMPolicy  # doctest: +SKIP
    >>> policy = LLMPolicy.from_path("runs/shop/sft")  # doctest: +SKIP
    >>> texts = policy(observations)  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
from rewardgym.agents.llm.constrained import ActionGrammar
from rewardgym.agents.llm.generation import generate, policy_output
from rewardgym.agents.llm.model import bf16_available, load_model
from rewardgym.agents.llm.prompt import Lookup, PromptBuilder
from rewardgym.envs.shopping.page_actions import PageActions
from rewardgym.wrappers.policy_output import PolicyOutput
from rewardgym.wrappers.self_certainty import CertaintyKind

if TYPE_CHECKING:
    from transformers import (
        GenerationConfig,
        LogitsProcessorList,
        PreTrainedModel,
        PreTrainedTokenizerBase,
    )

KVCache = Literal["dynamic", "static"]
"""How a generation keeps its keys and values: grown per token (``dynamic``) or allocated once (``static``)."""


def generation_config(
    tokenizer: PreTrainedTokenizerBase,
    temperature: float,
    top_p: float,
    max_new_tokens: int,
    *,
    cache: KVCache = "dynamic",
) -> GenerationConfig:
    """Sampling settings (greedy when ``temperature`` is 0) that stop at the tokenizer's EOS.

    ``cache="static"`` allocates each generation's key/value cache once at its full length
    instead of growing it token by token (measured: about 10% more completions per CPU second
    for the quick shop model, whose decoding spends a quarter of its time concatenating).
    """
    from transformers import GenerationConfig

    sample = temperature > 0
    return GenerationConfig(
        cache_implementation="static" if cache == "static" else None,
        max_new_tokens=max_new_tokens,
        do_sample=sample,
        temperature=temperature if sample else None,
        top_p=top_p if sample else None,
        top_k=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )


class LLMPolicy:
    """Batch policy over a Hugging Face causal LM: observations in, raw JSON-ish texts out."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        prompt: PromptConfig | None = None,
        sampling: SamplingConfig | None = None,
        *,
        seed: int = 0,
        cache: KVCache = "dynamic",
        lookup: Lookup | None = None,
    ) -> None:
        """``lookup`` gives each prompt's lookup line when the prompt asks for it
        (``PromptConfig.lookup_hint``; see :class:`PromptBuilder`)."""
        self.model = model
        self.tokenizer = tokenizer
        self.prompt_config = prompt or PromptConfig()
        self.sampling = sampling or SamplingConfig()
        self.prompts = PromptBuilder(tokenizer, self.prompt_config, lookup)
        self.seed = seed
        self._calls = 0
        self._config = generation_config(
            tokenizer,
            self.sampling.temperature,
            self.sampling.top_p,
            self.sampling.max_new_tokens,
            cache=cache,
        )
        self._grammar: ActionGrammar | None = None
        if self.sampling.decoding == "constrained":
            # The mask runs before temperature and nucleus (ActionGrammar.processors), so the
            # config's own warpers stay neutral.
            neutral = 1.0 if self.sampling.temperature > 0 else 0.0
            self._config = generation_config(
                tokenizer, neutral, 1.0, self.sampling.max_new_tokens, cache=cache
            )

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        prompt: PromptConfig | None = None,
        sampling: SamplingConfig | None = None,
        *,
        seed: int = 0,
        cache: KVCache = "dynamic",
        lookup: Lookup | None = None,
    ) -> LLMPolicy:
        """Load a local model directory (the default model, a checkpoint, any HF causal LM)."""
        model, tokenizer = load_model(path)
        return cls(model, tokenizer, prompt, sampling, seed=seed, cache=cache, lookup=lookup)

    def env_kwargs(self) -> dict[str, Any]:
        """``gym.make`` keyword arguments whose contexts fit this policy's prompt budget."""
        return self.prompts.env_kwargs()

    def page_actions(self, observations: Sequence[Mapping[str, Any]]) -> list[PageActions]:
        """What each observation's page allows, named as this policy's prompts name elements."""
        ids = self.prompt_config.element_ids
        return [PageActions.of_page(str(o["page"]), ids=ids) for o in observations]

    def _allowed(self, observations: Sequence[Mapping[str, Any]]) -> list[PageActions] | None:
        """The pages' actions when decoding is constrained (free decoding reads no page)."""
        if self.sampling.decoding == "free":
            return None
        return self.page_actions(observations)

    def grammar(self) -> ActionGrammar:
        """The constrained decoder of this policy's tokenizer (built on first use)."""
        if self._grammar is None:
            eos = self._config.eos_token_id
            eos_ids = [eos] if isinstance(eos, int) else list(eos or [])
            self._grammar = ActionGrammar(
                self.tokenizer,
                eos_ids,
                vocab_size=int(self.model.config.vocab_size),
                action_first=self.prompt_config.action_first,
            )
        return self._grammar

    def _batch_config(
        self, actions: Sequence[PageActions] | None
    ) -> tuple[GenerationConfig, LogitsProcessorList | None]:
        if self.sampling.decoding == "free":
            return self._config, None
        if actions is None:
            raise ValueError(
                "SamplingConfig.decoding='constrained' needs the actions each prompt's page "
                "allows: call the policy on observations, or pass actions= to complete()"
            )
        sampling = self.sampling
        chain, budget = self.grammar().processors(
            actions, sampling.max_new_tokens, sampling.temperature, sampling.top_p
        )
        config = copy.deepcopy(self._config)
        config.max_new_tokens = budget
        return config, chain

    def _sample(
        self,
        prompts: Sequence[str],
        certainty: CertaintyKind | None,
        actions: Sequence[PageActions] | None = None,
    ) -> tuple[list[list[int]], list[str], list[Any] | None]:
        import torch

        if actions is not None and len(actions) != len(prompts):
            raise ValueError(f"{len(prompts)} prompts but {len(actions)} page actions")

        self.model.eval()
        n = len(prompts)
        ids: list[list[int]] = [[] for _ in range(n)]
        texts = [""] * n
        values: list[Any] = [None] * n
        size = self.sampling.batch_size
        encoded = self.tokenizer(list(prompts), add_special_tokens=False)["input_ids"]
        order = sorted(range(n), key=lambda i: len(encoded[i]))
        device = next(self.model.parameters()).device.type
        fast = self.sampling.bf16 and bf16_available()
        for start in range(0, n, size):
            # One seed per batch keeps results independent of how many batches ran before.
            torch.manual_seed(self.seed * 1_000_003 + self._calls)
            self._calls += 1
            chunk = order[start : start + size]
            config, chain = self._batch_config(
                None if actions is None else [actions[i] for i in chunk]
            )
            with torch.autocast(device, dtype=torch.bfloat16, enabled=fast):
                result = generate(
                    self.model,
                    self.tokenizer,
                    [encoded[i] for i in chunk],
                    config,
                    certainty=certainty,
                    logits_processor=chain,
                )
            decoded = self.tokenizer.batch_decode(result.completion_ids, skip_special_tokens=True)
            for k, i in enumerate(chunk):
                ids[i] = result.completion_ids[k]
                texts[i] = decoded[k]
                if result.certainty is not None:
                    values[i] = result.certainty[k]
        return ids, texts, values if certainty is not None else None

    def complete(
        self, prompts: Sequence[str], actions: Sequence[PageActions] | None = None
    ) -> list[str]:
        """Raw completions of ready-made prompts (as :class:`PromptBuilder` makes them).

        Constrained decoding needs ``actions``, what each prompt's page allows
        (:meth:`page_actions`); free decoding ignores them.
        """
        return self._sample(prompts, None, actions)[1]

    def reset_seed(self, seed: int | None = None) -> None:
        """Restart the sampling stream (optionally under a new seed)."""
        if seed is not None:
            self.seed = seed
        self._calls = 0

    def __call__(self, observations: Sequence[Mapping[str, Any]]) -> list[str]:
        """Raw completions for a batch of observations, as ``env.step`` takes them."""
        prompts = [self.prompts(o) for o in observations]
        return self._sample(prompts, None, self._allowed(observations))[1]

    def act_with_certainty(
        self, observations: Sequence[Mapping[str, Any]], kind: CertaintyKind = "paper"
    ) -> list[PolicyOutput]:
        """Completions with their rationale tokens' self-certainty, for ``ShopR1Reward.step``."""
        prompts = [self.prompts(o) for o in observations]
        ids, texts, values = self._sample(prompts, kind, self._allowed(observations))
        assert values is not None
        return [
            policy_output(self.tokenizer, i, t, v)
            for i, t, v in zip(ids, texts, values, strict=True)
        ]


__all__ = ["KVCache", "LLMPolicy", "generation_config"]
