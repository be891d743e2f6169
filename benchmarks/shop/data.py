"""The shop suite's data: train / validation / test rows per tokenizer and context, and prompt coverage.

Rows are read once per (tokenizer, context mode, split) by stepping ``ShopSession-v0`` with the
prompt builder's budget (:meth:`~rewardgym.agents.llm.prompt.PromptBuilder.env_kwargs`), and
shared by every row of the suite that uses the same tokenizer: the default model's tokenizer is
trained deterministically, so every training seed reads the same prompts. A prompt with
``lookup_hint`` gets the lookup's line from :meth:`SuiteData.lookup`, the ``baseline/frequency``
model fitted on the training sessions only (never validation or test), for every split.

Prompt coverage, over the test prompts (each figure a fraction of the prompts it applies to):
``target_in_prompt`` (click and type_and_submit steps whose target element's name appears in
the prompt), ``previous_action_in_prompt`` (steps after the first whose previous action, as
the JSON the policy emits, appears), ``first_rationale_in_prompt`` (steps after the first whose
session's first rationale, the shopper's stated intent, appears) and ``completion_fits``
(steps whose gold completion plus the end token fits the completion budget).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rewardgym.agents.baselines.shop import FrequencyAgent
from rewardgym.agents.llm.dataset import DataArg, StepRow, SuiteSplit, split_sessions, step_rows
from rewardgym.agents.llm.prompt import PromptBuilder
from rewardgym.envs.shopping.context import ContextMode

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from rewardgym.agents.evaluation.shopping import ShopEvaluation
    from rewardgym.agents.llm.config import PromptConfig
    from rewardgym.envs.shopping.schema import ShopSession


def tokenizer_key(path: Path) -> str:
    """A key that is equal for two model folders exactly when their tokenizers are."""
    digest = hashlib.blake2b(digest_size=12)
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
        file = path / name
        if file.is_file():
            digest.update(name.encode() + file.read_bytes())
    return digest.hexdigest()


class SuiteData:
    """Session positions of the suite's three splits, and their rows, built once each."""

    def __init__(
        self,
        data: DataArg,
        *,
        validation_fraction: float,
        train_sessions: int | None,
        progress: bool,
    ) -> None:
        self.data = data
        self.progress = progress
        self.splits: dict[str, tuple[str, list[int]]] = {}
        for split in ("train", "validation", "test"):
            env_split, positions = split_sessions(
                data, split, validation_fraction=validation_fraction
            )
            if split == "train" and train_sessions is not None:
                positions = positions[:train_sessions]
            self.splits[split] = (env_split, positions)
        self._rows: dict[tuple[str, str, str, int | None], list[StepRow]] = {}
        self._lookup: FrequencyAgent | None = None

    def positions(self, split: SuiteSplit, limit: int | None = None) -> list[int]:
        """Positions (in the env's split) of the first ``limit`` sessions of ``split``."""
        chosen = self.splits[split][1]
        return chosen if limit is None else chosen[:limit]

    def env_split(self, split: SuiteSplit) -> str:
        """The env split (``train`` or ``test``) that ``split``'s positions index."""
        return self.splits[split][0]

    def training_sessions(self) -> list[ShopSession]:
        """The sessions of the ``train`` split (validation held out), as the baselines fit on."""
        from rewardgym.envs.shopping.session_sources import resolve_sessions

        log, train = resolve_sessions(self.data, "train")  # validation is part of it too
        return [log.session(train[k]) for k in self.positions("train")]

    def lookup(self) -> FrequencyAgent:
        """``baseline/frequency`` fitted on :meth:`training_sessions` (once)."""
        if self._lookup is None:
            self._lookup = FrequencyAgent().fit(self.training_sessions())
        return self._lookup

    def lookup_evaluation(self, split: SuiteSplit, limit: int | None = None) -> ShopEvaluation:
        """:meth:`lookup` scored on the first ``limit`` sessions of ``split``, every step's record."""
        from rewardgym.agents.evaluation.shopping import evaluate_policy
        from rewardgym.agents.llm.dataset import make_env

        agent = self.lookup()
        env = make_env(self.data, self.env_split(split), {"context": "latest"})
        result = evaluate_policy(
            lambda batch: [agent.act(obs) for obs in batch],
            env=env,
            sessions=self.positions(split, limit),
            progress=False,
        )
        env.close()
        return result

    def rows(
        self,
        tokenizer_path: Path,
        tokenizer: PreTrainedTokenizerBase,
        prompt: PromptConfig,
        split: SuiteSplit,
        limit: int | None = None,
    ) -> list[StepRow]:
        """Every step of the first ``limit`` sessions of ``split`` as rows, prompted for ``tokenizer``."""
        key = (tokenizer_key(tokenizer_path), repr(prompt), split, limit)
        if key not in self._rows:
            lookup = self.lookup().predict if prompt.lookup_hint else None
            builder = PromptBuilder(tokenizer, prompt, lookup)
            self._rows[key] = step_rows(
                builder,
                data=self.data,
                split=self.env_split(split),
                env_kwargs=builder.env_kwargs(),
                sessions=self.positions(split, limit),
                progress=self.progress,
                action_first=prompt.action_first,
            )
        return self._rows[key]


def prompt_coverage(
    rows: Sequence[StepRow], tokenizer: PreTrainedTokenizerBase, max_new_tokens: int
) -> dict[str, float]:
    """The coverage fractions of the module docstring over ``rows``."""
    target = [r for r in rows if r.truth is not None and r.truth.type != "terminate"]
    later = [r for r in rows if r.step > 0]
    first = [r for r in later if r.first_rationale]
    lengths = (
        [
            len(ids) + 1
            for ids in tokenizer([r.completion for r in rows], add_special_tokens=False)[
                "input_ids"
            ]
        ]
        if rows
        else []
    )

    def share(hits: int, total: int) -> float:
        return hits / total if total else 1.0

    previous_hits = sum(
        1
        for r in later
        if r.previous is not None
        and json.dumps(r.previous.to_dict(), ensure_ascii=False) in r.prompt
    )
    return {
        "target_in_prompt": share(
            sum(1 for r in target if r.truth is not None and r.truth.name in r.prompt), len(target)
        ),
        "previous_action_in_prompt": share(previous_hits, len(later)),
        "first_rationale_in_prompt": share(
            sum(1 for r in first if str(r.first_rationale) in r.prompt), len(first)
        ),
        "completion_fits": share(sum(1 for n in lengths if n <= max_new_tokens), len(rows)),
        "prompts": float(len(rows)),
    }


__all__ = ["ContextMode", "SuiteData", "prompt_coverage", "tokenizer_key"]
