"""COREN's orchestrator Psi_theta(o, l, i): softmax weights over the consistency terms.

A small torch model reads three text embeddings of a step (the instruction, the action name
and the observation, the latter as the mean embedding of its visible and held items) and
outputs softmax weights ``w`` over the chosen terms ``(r^C, r^S, r^T)``; the step's reward is
``r_hat = <r, w>``. Training (arXiv 2411.17135, Sec. 3.3) fits the normalised discounted
return ``G = sum_t gamma^t r_hat_t / (H * K)`` of each trajectory (``H`` its length, ``K = 2``
the rubric maximum) to the trajectory's success flag by mean squared error. Strings are
embedded once each; the per-step input is three indices into tables of unique vectors.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from rewardgym.atomic import absolute, atomic_path
from rewardgym.embeddings import CachedEmbedder
from rewardgym.threads import torch_threads
from rewardgym.wrappers.coren.grounding import observation_items
from rewardgym.wrappers.judges.prompts import RUBRIC_MAX


@dataclass(frozen=True)
class OrchestratorSpec:
    """What a saved orchestrator needs to be rebuilt: sizes, terms, discount and embedder."""

    dim: int
    hidden: int
    terms: tuple[str, ...]
    gamma: float
    embedder: str


@dataclass
class StepInputs:
    """Orchestrator inputs of many steps: unique string tables plus one index per step."""

    instructions: list[str]
    actions: list[str]
    observations: list[tuple[str, ...]]
    instruction_index: np.ndarray
    action_index: np.ndarray
    observation_index: np.ndarray

    def __len__(self) -> int:
        """The number of steps."""
        return len(self.instruction_index)


def step_inputs(transitions: Sequence[object]) -> StepInputs:
    """Index the instruction, action and observation items of every transition."""
    tables: tuple[dict[object, int], dict[object, int], dict[object, int]] = ({}, {}, {})
    rows: list[list[int]] = [[], [], []]
    for transition in transitions:
        values = (
            transition.instruction,  # type: ignore[attr-defined]
            transition.action,  # type: ignore[attr-defined]
            observation_items(transition),
        )
        for table, row, value in zip(tables, rows, values, strict=True):
            row.append(table.setdefault(value, len(table)))
    return StepInputs(
        instructions=list(tables[0]),  # type: ignore[arg-type]
        actions=list(tables[1]),  # type: ignore[arg-type]
        observations=list(tables[2]),  # type: ignore[arg-type]
        instruction_index=np.asarray(rows[0], dtype=np.int64),
        action_index=np.asarray(rows[1], dtype=np.int64),
        observation_index=np.asarray(rows[2], dtype=np.int64),
    )


class OrchestratorNet(nn.Module):
    """Psi_theta: three projected embeddings, a ReLU layer and a softmax over the terms."""

    def __init__(self, dim: int, hidden: int, n_terms: int) -> None:
        """Build the layers for ``dim``-sized embeddings and ``n_terms`` weights."""
        super().__init__()
        self.instruction = nn.Linear(dim, hidden)
        self.action = nn.Linear(dim, hidden, bias=False)
        self.observation = nn.Linear(dim, hidden, bias=False)
        self.out = nn.Linear(hidden, n_terms)

    def forward(
        self, instruction: torch.Tensor, action: torch.Tensor, observation: torch.Tensor
    ) -> torch.Tensor:
        """Softmax weights ``(B, n_terms)`` for a batch of ``(B, dim)`` embeddings."""
        hidden = torch.relu(
            self.instruction(instruction) + self.action(action) + self.observation(observation)
        )
        return torch.softmax(self.out(hidden), dim=-1)

    def forward_tables(
        self,
        tables: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
        index: tuple[torch.Tensor, ...],
    ) -> torch.Tensor:
        """``forward`` for steps given as indices into tables of unique embeddings.

        The linear layers run once per unique string instead of once per step, which is
        what makes training over 100,000 steps take seconds.
        """
        hidden = torch.relu(
            self.instruction(tables[0])[index[0]]
            + self.action(tables[1])[index[1]]
            + self.observation(tables[2])[index[2]]
        )
        return torch.softmax(self.out(hidden), dim=-1)


class Orchestrator:
    """A trained (or fresh) Psi_theta with its embedder: weights for steps, save and load."""

    def __init__(self, spec: OrchestratorSpec, embedder: CachedEmbedder, seed: int = 0) -> None:
        """A freshly initialised orchestrator for ``spec``."""
        if embedder.name != spec.embedder:
            raise ValueError(
                f"orchestrator was built for embedder {spec.embedder!r} but got "
                f"{embedder.name!r}; load it with the same embedder"
            )
        torch.manual_seed(seed)
        self.spec = spec
        self.embedder = embedder
        self.net = OrchestratorNet(spec.dim, spec.hidden, len(spec.terms))

    def _tables(self, inputs: StepInputs) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        instructions = torch.from_numpy(self.embedder.embed(inputs.instructions))
        actions = torch.from_numpy(self.embedder.embed(inputs.actions))
        items = sorted({item for obs in inputs.observations for item in obs})
        vectors = self.embedder.embed(items)
        where = {item: row for row, item in enumerate(items)}
        observations = np.stack(
            [vectors[[where[i] for i in obs]].mean(axis=0) for obs in inputs.observations]
        )
        return instructions, actions, torch.from_numpy(observations.astype(np.float32))

    def _forward(self, inputs: StepInputs, tables: tuple[torch.Tensor, ...]) -> torch.Tensor:
        index = (
            torch.from_numpy(inputs.instruction_index),
            torch.from_numpy(inputs.action_index),
            torch.from_numpy(inputs.observation_index),
        )
        return self.net.forward_tables(tables, index)  # type: ignore[arg-type]

    def weights(self, inputs: StepInputs) -> np.ndarray:
        """The softmax weights ``(S, K)`` of every step."""
        if len(inputs) == 0:
            return np.zeros((0, len(self.spec.terms)))
        with torch.no_grad(), torch_threads(1):
            weights = self._forward(inputs, self._tables(inputs)).numpy().astype(np.float64)
        # Renormalise in float64 so that <r, w> never leaves the rubric's range by rounding.
        return weights / weights.sum(axis=1, keepdims=True)

    def fit(
        self,
        inputs: StepInputs,
        terms: np.ndarray,
        episode_index: np.ndarray,
        step_index: np.ndarray,
        success: np.ndarray,
        epochs: int = 200,
        learning_rate: float = 1e-2,
    ) -> list[float]:
        """Train by full-batch Adam so that each trajectory's normalised return fits its flag.

        ``terms`` is ``(S, K)``; ``episode_index`` and ``step_index`` give each step's
        trajectory (``0..E-1``) and time ``t``; ``success`` is ``(E,)``. Returns the loss of
        every epoch.
        """
        if len(inputs) != len(terms):
            raise ValueError(f"fit: {len(inputs)} steps of inputs but {len(terms)} rows of terms")
        tables = self._tables(inputs)
        episodes = torch.from_numpy(np.asarray(episode_index, dtype=np.int64))
        lengths = torch.bincount(episodes, minlength=len(success)).clamp(min=1).double()
        t = torch.from_numpy(np.asarray(step_index, dtype=np.float64))
        coef = (self.spec.gamma**t) / (lengths[episodes] * RUBRIC_MAX)
        r = torch.from_numpy(np.asarray(terms, dtype=np.float64))
        target = torch.from_numpy(np.asarray(success, dtype=np.float64))
        optimiser = torch.optim.Adam(self.net.parameters(), lr=learning_rate)
        losses: list[float] = []
        with torch_threads(1):
            for _ in range(epochs):
                losses.append(self._step(inputs, tables, optimiser, episodes, coef, r, target))
        return losses

    def _step(
        self,
        inputs: StepInputs,
        tables: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
        optimiser: torch.optim.Optimizer,
        episodes: torch.Tensor,
        coef: torch.Tensor,
        r: torch.Tensor,
        target: torch.Tensor,
    ) -> float:
        """One full-batch Adam step on the squared gap between return and success flag."""
        optimiser.zero_grad()
        w = self._forward(inputs, tables).double()
        returns = torch.zeros(len(target), dtype=torch.float64)
        returns = returns.index_add(0, episodes, coef * (w * r).sum(dim=1))
        loss = ((returns - target) ** 2).mean()
        loss.backward()
        optimiser.step()
        return float(loss.detach())

    def save(self, path: str | Path) -> Path:
        """Write the spec and parameters to ``path`` (a torch file of tensors and plain data).

        Written to a temporary sibling and renamed, so a kill never leaves half a file; the
        contents are what ``torch.load(weights_only=True)`` reads, so loading runs no code.
        """
        with atomic_path(path) as tmp:
            torch.save({"spec": asdict(self.spec), "state_dict": self.net.state_dict()}, tmp)
        return absolute(path)

    @classmethod
    def load(cls, path: str | Path, embedder: CachedEmbedder) -> Orchestrator:
        """Read an orchestrator written by ``save`` (``weights_only=True``: no code runs)."""
        source = Path(path)
        if not source.exists():
            raise FileNotFoundError(f"orchestrator file {source} does not exist")
        try:
            blob = torch.load(source, map_location="cpu", weights_only=True)
            raw = dict(blob["spec"])
            raw["terms"] = tuple(raw["terms"])
            spec = OrchestratorSpec(**raw)
        except (pickle.UnpicklingError, RuntimeError, EOFError, KeyError, TypeError) as err:
            raise ValueError(
                f"orchestrator file {source}: not an orchestrator saved by rewardgym ({err})"
            ) from err
        model = cls(spec, embedder)
        model.net.load_state_dict(blob["state_dict"])
        return model


def normalised_returns(
    rewards: Sequence[np.ndarray], gamma: float = 0.99, scale: float = RUBRIC_MAX
) -> np.ndarray:
    """``sum_t gamma^t r_t / (H * scale)`` of each trajectory, the quantity Psi is trained on."""
    out = np.zeros(len(rewards))
    for i, r in enumerate(rewards):
        values = np.asarray(r, dtype=np.float64)
        if values.size:
            out[i] = float((gamma ** np.arange(values.size) * values).sum() / (values.size * scale))
    return out


__all__ = [
    "Orchestrator",
    "OrchestratorNet",
    "OrchestratorSpec",
    "StepInputs",
    "normalised_returns",
    "step_inputs",
]
