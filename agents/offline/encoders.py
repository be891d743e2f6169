"""Observation encodings for the offline agents, and a small token transformer for d3rlpy.

Three ways to turn a text-world observation into the vector a d3rlpy network reads:

- ``"structured"`` (default): issue 5's encoding, the multi-hot and one-hot fields plus the
  cached MiniLM embedding of the instruction (``ObservationEncoder(kind="structured")``);
  networks are MLPs (``VectorEncoderFactory``).
- ``"text"``: the cached MiniLM embedding of the full text observation (384 floats); MLPs.
- ``"tokens"``: the text observation as word-hash token ids (``TokenObservationEncoder``),
  read by ``TokenTransformerEncoderFactory``, a small causal transformer in the spirit of the
  GPT-2-style Q-network of COREN. It is registered with d3rlpy, so ``save`` and
  ``d3rlpy.load_learnable`` rebuild it from the saved config.
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from d3rlpy.models.encoders import (
    EncoderFactory,
    VectorEncoderFactory,
    register_encoder_factory,
)
from d3rlpy.models.torch.encoders import Encoder
from torch import nn

from rewardgym.agents.offline.config import ENCODINGS
from rewardgym.agents.offline.optimizers import register_once
from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.trajectories.encoding import ObservationEncoder

_WORD = re.compile(r"[a-z0-9']+|[^\sa-z0-9']")


def hash_tokens(text: str, length: int, vocab_size: int) -> np.ndarray:
    """Word-level token ids of ``text``: crc32 of each lower-cased word into ``1..vocab_size-1``.

    Id 0 pads to ``length``; longer texts keep their first ``length`` tokens. Hashing needs no
    stored vocabulary, so the same text gives the same ids in every process.
    """
    words = _WORD.findall(text.lower())[:length]
    ids = np.zeros(length, dtype=np.float32)
    ids[: len(words)] = [1 + zlib.crc32(w.encode()) % (vocab_size - 1) for w in words]
    return ids


class TokenObservationEncoder(ObservationEncoder):
    """Encodes the ``text`` field of an observation as ``length`` hashed token ids (float32)."""

    def __init__(self, length: int = 160, vocab_size: int = 4096) -> None:
        """Emit ``length`` ids per observation from a hashed vocabulary of ``vocab_size``."""
        if length < 1 or vocab_size < 2:
            raise ValueError(
                f"TokenObservationEncoder needs length >= 1 and vocab_size >= 2, got "
                f"length={length}, vocab_size={vocab_size}"
            )
        self.kind = "tokens"
        self.length = length
        self.vocab_size = vocab_size
        self.embedder = CachedEmbedder(persist=False)  # unused; kept for the base interface

    @property
    def layout(self) -> list[tuple[str, slice]]:
        """One block of token ids."""
        return [("token_ids", slice(0, self.length))]

    @property
    def size(self) -> int:
        """The number of token ids per observation."""
        return self.length

    def encode_batch(self, observations: dict[str, Any], instructions: Sequence[str]) -> np.ndarray:
        """Token ids of every text observation in the ``text`` column."""
        if "text" not in observations:
            raise ValueError("the 'tokens' encoding needs a 'text' field in the observation")
        texts = list(observations["text"])
        return np.stack([hash_tokens(t, self.length, self.vocab_size) for t in texts])


def make_observation_encoder(
    kind: str,
    observation_space: gym.spaces.Dict,
    embedder: CachedEmbedder | None = None,
    cache_dir: str | Path | None = None,
    token_length: int = 160,
    vocab_size: int = 4096,
) -> ObservationEncoder:
    """The observation encoder of ``kind`` (one of ``ENCODINGS``) for ``observation_space``."""
    if kind not in ENCODINGS:
        raise ValueError(f"unknown observation encoding {kind!r}: use one of {ENCODINGS}")
    if kind == "tokens":
        return TokenObservationEncoder(token_length, vocab_size)
    return ObservationEncoder(
        observation_space, kind, embedder or CachedEmbedder(cache_dir=cache_dir)
    )


class TokenTransformerEncoder(Encoder):
    """Token ids -> embeddings + positions -> causal pre-norm transformer -> mean pool -> features."""

    def __init__(
        self,
        length: int,
        vocab_size: int,
        d_model: int,
        n_heads: int,
        n_layers: int,
        feature_size: int,
        dropout: float,
    ) -> None:
        """Build the layers; see ``TokenTransformerEncoderFactory`` for the arguments."""
        super().__init__()
        self.vocab_size = vocab_size
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.position = nn.Parameter(torch.zeros(1, length, d_model))
        nn.init.normal_(self.position, std=0.02)
        layer = nn.TransformerEncoderLayer(
            d_model,
            n_heads,
            dim_feedforward=4 * d_model,
            dropout=dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.blocks = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, feature_size)
        mask = torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=1)
        self.register_buffer("causal_mask", mask, persistent=False)

    def forward(self, x: Any) -> torch.Tensor:
        """Features of a ``(batch, length)`` float tensor of token ids."""
        ids = x.long().clamp(0, self.vocab_size - 1)
        pad = ids == 0
        pad[:, 0] = False  # an empty text still attends to its first position
        h = self.embed(ids) + self.position[:, : ids.shape[1]]
        mask = self.causal_mask[: ids.shape[1], : ids.shape[1]]
        h = self.norm(self.blocks(h, mask=mask, src_key_padding_mask=pad, is_causal=True))
        keep = (~pad).unsqueeze(-1).float()
        pooled = (h * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1.0)
        return torch.relu(self.head(pooled))


@dataclasses.dataclass()
class TokenTransformerEncoderFactory(EncoderFactory):
    """A d3rlpy encoder factory for token-id observations: a small causal transformer.

    COREN's agent reads text with a small GPT-2-style Q-network; this is a CPU-sized stand-in
    (2 layers, width 64 by default). Observations are ``TokenObservationEncoder`` ids.

    Args:
        vocab_size: Size of the hashed vocabulary (must match the observation encoder).
        d_model: Width of the token embeddings and the transformer.
        n_heads: Attention heads per layer.
        n_layers: Transformer blocks.
        feature_size: Size of the feature vector handed to d3rlpy's heads.
        dropout: Dropout inside the blocks.
    """

    vocab_size: int = 4096
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    feature_size: int = 128
    dropout: float = 0.0

    def create(self, observation_shape: Sequence[int]) -> TokenTransformerEncoder:
        """An encoder for observations of shape ``(length,)``."""
        if len(observation_shape) != 1:
            raise ValueError(
                f"TokenTransformerEncoderFactory reads (length,) token ids, got shape "
                f"{tuple(observation_shape)}"
            )
        return TokenTransformerEncoder(
            int(observation_shape[0]),
            self.vocab_size,
            self.d_model,
            self.n_heads,
            self.n_layers,
            self.feature_size,
            self.dropout,
        )

    def create_with_action(
        self, observation_shape: Sequence[int], action_size: int, discrete_action: bool = False
    ) -> Any:
        """Refused: the agents here are discrete and need only state encoders."""
        raise TypeError(
            "TokenTransformerEncoderFactory has no state-action encoder; use it with "
            "DiscreteCQL, DiscreteIQL or DiscreteBC"
        )

    @staticmethod
    def get_type() -> str:
        """The name under which d3rlpy serialises this factory."""
        return "token_transformer"


register_once(register_encoder_factory, EncoderFactory, TokenTransformerEncoderFactory)


def encoder_factory_for(
    kind: str, hidden_units: Sequence[int] = (256, 256), vocab_size: int = 4096
) -> EncoderFactory:
    """The d3rlpy encoder factory that reads observations of encoding ``kind``."""
    if kind == "tokens":
        return TokenTransformerEncoderFactory(vocab_size=vocab_size)
    if kind in ENCODINGS:
        return VectorEncoderFactory(hidden_units=list(hidden_units))
    raise ValueError(f"unknown observation encoding {kind!r}: use one of {ENCODINGS}")


__all__ = [
    "ENCODINGS",
    "TokenObservationEncoder",
    "TokenTransformerEncoder",
    "TokenTransformerEncoderFactory",
    "encoder_factory_for",
    "hash_tokens",
    "make_observation_encoder",
]
