"""The observation encodings: token hashing, the token transformer and the encoder factory."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.agents.offline import (
    TokenObservationEncoder,
    TokenTransformerEncoderFactory,
    encoder_factory_for,
    hash_tokens,
    make_observation_encoder,
)
from rewardgym.agents.offline.iql_impl import advantage_weights, expectile_loss
from rewardgym.embeddings import hashing_embedder


def test_hash_tokens_is_stable_padded_and_truncated() -> None:
    """Equal words get equal ids in 1..V-1; 0 pads; long texts keep their first tokens."""
    ids = hash_tokens("Find the apple. find THE apple", 10, 100)
    assert ids.shape == (10,)
    assert ids[0] == ids[4] and ids[1] == ids[5]
    assert (ids[:7] >= 1).all() and (ids[:7] < 100).all() and (ids[7:] == 0).all()
    assert (hash_tokens("a b c d", 2, 100) == hash_tokens("a b", 2, 100)).all()


def test_token_encoder_on_household_observations() -> None:
    """The token encoder reads the text field of live observations."""
    env = gym.make("rewardgym/Household-v0")
    obs, info = env.reset(seed=0)
    encoder = make_observation_encoder("tokens", env.observation_space, token_length=32)
    assert isinstance(encoder, TokenObservationEncoder)
    x = encoder.encode(obs, info["instruction"])
    assert x.shape == (32,) and encoder.size == 32
    structured = make_observation_encoder("structured", env.observation_space, hashing_embedder())
    assert structured.encode(obs, info["instruction"]).shape == (structured.size,)


def test_transformer_encoder_shapes_and_causality() -> None:
    """Features have the factory's size, and padding after the text does not change them."""
    encoder = TokenTransformerEncoderFactory(
        vocab_size=50, d_model=16, n_heads=2, feature_size=8
    ).create((6,))
    x = torch.tensor([[3.0, 4.0, 5.0, 0.0, 0.0, 0.0], [3.0, 4.0, 5.0, 7.0, 0.0, 0.0]])
    features = encoder(x)
    assert features.shape == (2, 8)
    assert not torch.allclose(features[0], features[1])
    with pytest.raises(ValueError, match="token ids"):
        TokenTransformerEncoderFactory().create((2, 3))
    assert type(encoder_factory_for("tokens")) is TokenTransformerEncoderFactory


def test_expectile_loss_and_advantage_weights_by_hand() -> None:
    """Expectile weights tau on positive and 1 - tau on negative errors; weights clip at the max."""
    diff = torch.tensor([[2.0], [-2.0]])
    assert expectile_loss(diff, 0.7).item() == pytest.approx((0.7 * 4 + 0.3 * 4) / 2)
    assert expectile_loss(torch.tensor([[1.0]]), 0.9).item() == pytest.approx(0.9)
    weights = advantage_weights(torch.tensor([0.0, 1.0, 10.0]), 3.0, 100.0)
    np.testing.assert_allclose(weights.numpy(), [1.0, np.exp(3.0), 100.0], rtol=1e-6)
