"""The COREN configuration: paper defaults for the reward ensemble, its ablations and labelling."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Literal

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, POSITIVE, SEED, Range, between, check_fields

N_PROMPTS = 5
"""COREN's ensemble: 1 naive, 3 in-context and 1 chain-of-thought prompt (arXiv 2411.17135, N = 5).

The one default of every ``n_prompts`` in rewardgym (configs, judges, benchmarks)."""

# The three consistency terms, in the order the orchestrator's weights use.
TERMS: tuple[str, ...] = ("C", "S", "T")

# Ablations: a subset of terms weighted by the orchestrator, or a fixed combination rule.
ABLATIONS: tuple[str, ...] = (
    "C",
    "S",
    "T",
    "CS",
    "ST",
    "CT",
    "CST",
    "average",
    "majority",
    "single",
)


@dataclass(frozen=True)
class CorenConfig:
    """How COREN turns judge votes into a dense reward (defaults from arXiv 2411.17135).

    The paper uses N = 5 prompts (1 naive, 3 in-context, 1 chain-of-thought), gates a prompt's
    structural vote at embedding similarity 0.5 to the retrieved reference answer, and trains
    the orchestrator Psi so that the discounted return with gamma = 0.99, normalised by the
    horizon H times the rubric maximum K = 2, matches the success flag.
    """

    n_prompts: Annotated[int, AT_LEAST_1] = N_PROMPTS
    """How many prompt templates to use (1 or more), taken in order from the prompt directory (paper: 5)."""
    similarity_threshold: Annotated[float, between(-1, 1)] = 0.5
    """Structural gate: least cosine similarity (-1 to 1) of a prompt's answer to the reference (paper: 0.5)."""
    gamma: Annotated[float, Range(gt=0, le=1)] = 0.99
    """Discount per step of the orchestrator's normalised return, above 0 and at most 1 (paper: 0.99)."""
    ablation: str = "CST"
    """Which terms make the reward: C, S, T, CS, ST, CT, CST, average, majority or single."""
    single_prompt_index: Annotated[int, NON_NEGATIVE] = 0
    """The prompt (0 to n-prompts - 1; 0 = naive) whose vote alone is the reward of the single ablation."""
    hidden_size: Annotated[int, AT_LEAST_1] = 64
    """Width of the orchestrator's hidden layer, in units (1 or more)."""
    epochs: Annotated[int, AT_LEAST_1] = 200
    """Full-batch Adam epochs of orchestrator training (1 or more)."""
    learning_rate: Annotated[float, POSITIVE] = 1e-2
    """Adam learning rate of orchestrator training (a finite number above 0)."""
    holdout_fraction: Annotated[float, Range(ge=0, lt=1)] = 0.2
    """Share of trajectories (0 to below 1) kept out of orchestrator training to measure the correlation."""
    seed: Annotated[int, SEED] = 0
    """Seed of the train/held-out split and of the orchestrator's initialisation."""
    batch_size: Annotated[int, AT_LEAST_1] = 256
    """Judge requests sent per batch (1 or more; each batch is committed to the cache together)."""
    candidates: Literal["grounded", "all"] = "grounded"
    """Actions each prompt rates at every observation to find its plan H_n: grounded (no object, or an object in view, held, or a room) or all."""
    temporal_scope: Literal["episode", "prefix"] = "episode"
    """What the backward question of a step asks about: the whole trajectory's plan (paper) or the plan up to that step (what an online wrapper can know)."""
    qa_pairs: Annotated[int, AT_LEAST_1] = 139
    """Question-answer pairs in the structural QA bank drawn from the simulator (1 or more; paper: 139)."""
    qa_seed: Annotated[int, SEED] = 7919
    """Seed of the episodes the QA bank is drawn from (their seeds never equal a labelled episode's)."""
    probe_states: Annotated[int, NON_NEGATIVE] = 200
    """Held-out states at which every action is rated for the judge-quality report (0: no report)."""

    def __post_init__(self) -> None:
        """Reject values outside their meaningful range, naming the field."""
        check_fields(self)
        if self.ablation not in ABLATIONS:
            raise ValueError(f"CorenConfig.ablation={self.ablation!r}: use one of {ABLATIONS}")
        if self.n_prompts < 1:
            raise ValueError(f"CorenConfig.n_prompts={self.n_prompts}: use at least 1 prompt")
        if not 0 <= self.single_prompt_index < self.n_prompts:
            raise ValueError(
                f"CorenConfig.single_prompt_index={self.single_prompt_index} is not a prompt "
                f"index: use 0..{self.n_prompts - 1}"
            )
        if not -1.0 <= self.similarity_threshold <= 1.0:
            raise ValueError(
                f"CorenConfig.similarity_threshold={self.similarity_threshold}: a cosine "
                "similarity lies in [-1, 1]"
            )
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"CorenConfig.gamma={self.gamma}: use a discount in (0, 1]")
        if not 0.0 <= self.holdout_fraction < 1.0:
            raise ValueError(
                f"CorenConfig.holdout_fraction={self.holdout_fraction}: use a share in [0, 1)"
            )
        if self.batch_size < 1:
            raise ValueError(f"CorenConfig.batch_size={self.batch_size}: use at least 1")
        if self.epochs < 1 or self.hidden_size < 1:
            raise ValueError(
                f"CorenConfig.epochs={self.epochs}, hidden_size={self.hidden_size}: the "
                "orchestrator needs at least 1 epoch and 1 hidden unit"
            )
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise ValueError(
                f"CorenConfig.learning_rate={self.learning_rate}: use a finite rate above 0 "
                "(default 1e-2)"
            )
        if self.probe_states < 0:
            raise ValueError(f"CorenConfig.probe_states={self.probe_states}: use 0 or more")
        if self.qa_pairs < 1:
            raise ValueError(f"CorenConfig.qa_pairs={self.qa_pairs}: use at least 1")
        if self.candidates not in ("grounded", "all"):
            raise ValueError(f"CorenConfig.candidates={self.candidates!r}: use grounded or all")
        if self.temporal_scope not in ("episode", "prefix"):
            raise ValueError(
                f"CorenConfig.temporal_scope={self.temporal_scope!r}: use episode or prefix"
            )

    @property
    def terms(self) -> tuple[str, ...]:
        """The consistency terms the orchestrator weighs for this ablation (all three otherwise)."""
        if self.ablation in ("average", "majority", "single"):
            return TERMS
        return tuple(t for t in TERMS if t in self.ablation)

    @property
    def uses_orchestrator(self) -> bool:
        """Whether this ablation learns weights (two or more terms) rather than a fixed rule."""
        return self.ablation not in ("average", "majority", "single") and len(self.terms) > 1


__all__ = ["ABLATIONS", "N_PROMPTS", "TERMS", "CorenConfig"]
