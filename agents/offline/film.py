"""An instruction-conditioned MLP for d3rlpy: the instruction modulates the state features (FiLM).

The "structured" observation is the state's fields followed by the instruction's embedding.
A plain MLP must learn every (instruction, state) conjunction from sums of the two; feature-
wise linear modulation (Perez et al., AAAI 2018) makes it a product instead: the embedding,
projected to ``projection`` dims, gives a scale and a shift for every hidden unit of the first
layer over the state,

    h_1 = relu((1 + gamma(e)) * (W_1 s) + beta(e)),   h_k = relu(W_k h_{k-1}),

so one state can mean different things under different instructions, which is what telling a
task from its sibling needs. It is registered with d3rlpy, so saved models load back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import torch
from d3rlpy.models.encoders import EncoderFactory, register_encoder_factory
from d3rlpy.models.torch.encoders import Encoder
from torch import nn

from rewardgym.agents.offline.optimizers import register_once


class InstructionFiLMEncoder(Encoder):
    """State MLP whose first layer is scaled and shifted by the instruction embedding."""

    def __init__(
        self, state_dim: int, instruction_dim: int, hidden_units: Sequence[int], projection: int
    ) -> None:
        """Build the layers; see ``InstructionFiLMEncoderFactory`` for the arguments."""
        super().__init__()
        self.state_dim = state_dim
        first, *rest = hidden_units
        self.state = nn.Linear(state_dim, first)
        self.project = nn.Sequential(nn.Linear(instruction_dim, projection), nn.ReLU())
        self.film = nn.Linear(projection, 2 * first)
        nn.init.zeros_(self.film.weight)
        nn.init.zeros_(self.film.bias)
        layers: list[nn.Module] = []
        width = first
        for units in rest:
            layers += [nn.Linear(width, units), nn.ReLU()]
            width = units
        self.tail = nn.Sequential(*layers)

    def forward(self, x: Any) -> torch.Tensor:
        """Features of a ``(batch, state_dim + instruction_dim)`` float tensor."""
        state, instruction = x[:, : self.state_dim], x[:, self.state_dim :]
        scale, shift = self.film(self.project(instruction)).chunk(2, dim=1)
        return self.tail(torch.relu((1.0 + scale) * self.state(state) + shift))


@dataclasses.dataclass()
class InstructionFiLMEncoderFactory(EncoderFactory):
    """A d3rlpy encoder factory for "structured" observations: FiLM by the instruction.

    Args:
        instruction_dim: Width of the instruction embedding at the end of the observation.
        hidden_units: Hidden layers over the state (the first is modulated).
        projection: Width the instruction embedding is projected to before the modulation.
    """

    instruction_dim: int = 384
    hidden_units: Sequence[int] = (256, 256)
    projection: int = 64

    def create(self, observation_shape: Sequence[int]) -> InstructionFiLMEncoder:
        """An encoder for observations of shape ``(state_dim + instruction_dim,)``."""
        if len(observation_shape) != 1 or observation_shape[0] <= self.instruction_dim:
            raise ValueError(
                f"InstructionFiLMEncoderFactory reads (state + {self.instruction_dim},) "
                f"vectors, got shape {tuple(observation_shape)}"
            )
        state_dim = int(observation_shape[0]) - self.instruction_dim
        return InstructionFiLMEncoder(
            state_dim, self.instruction_dim, list(self.hidden_units), self.projection
        )

    @staticmethod
    def get_type() -> str:
        """The name under which d3rlpy serialises this factory."""
        return "instruction_film"


register_once(register_encoder_factory, EncoderFactory, InstructionFiLMEncoderFactory)

__all__ = ["InstructionFiLMEncoder", "InstructionFiLMEncoderFactory"]
