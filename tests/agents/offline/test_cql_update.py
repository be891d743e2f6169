"""The one-forward DiscreteCQL gradient trains bit for bit as d3rlpy's own."""

from __future__ import annotations

import d3rlpy
import numpy as np
import pytest
import torch
from d3rlpy.logging import NoopAdapterFactory
from d3rlpy.models.encoders import VectorEncoderFactory

from rewardgym.agents.offline.cql_update import share_observation_forward
from rewardgym.agents.offline.optimizers import FusedAdamFactory


def synthetic_mdp(n: int, obs_dim: int, actions: int) -> d3rlpy.dataset.MDPDataset:
    """Random observations, actions and rewards in 15-step episodes."""
    rng = np.random.default_rng(0)
    return d3rlpy.dataset.MDPDataset(
        observations=rng.random((n, obs_dim), dtype=np.float32),
        actions=rng.integers(actions, size=(n, 1)),
        rewards=rng.random((n, 1), dtype=np.float32),
        terminals=(np.arange(n) % 15 == 14).astype(np.float32),
        action_space=d3rlpy.ActionSpace.DISCRETE,
        action_size=actions,
    )


def _weights(shared: bool, n_critics: int, steps: int = 12) -> dict[str, torch.Tensor]:
    mdp = synthetic_mdp(n=300, obs_dim=40, actions=7)
    d3rlpy.seed(3)
    algo = d3rlpy.algos.DiscreteCQLConfig(
        batch_size=32,
        learning_rate=1e-3,
        alpha=3.0,
        n_critics=n_critics,
        target_update_interval=5,
        encoder_factory=VectorEncoderFactory(hidden_units=[32, 32]),
        optim_factory=FusedAdamFactory(),
    ).create(device=False)
    algo.build_with_dataset(mdp)
    if shared:
        assert share_observation_forward(algo.impl)
    algo.fit(
        mdp,
        n_steps=steps,
        n_steps_per_epoch=steps,
        show_progress=False,
        save_interval=steps + 1,
        logger_adapter=NoopAdapterFactory(),
    )
    return {
        f"{name}.{key}": value.clone()
        for name, module in algo.impl.modules.get_torch_modules().items()
        for key, value in module.state_dict().items()
    }


@pytest.mark.parametrize("n_critics", [1, 2])
def test_one_forward_gradient_is_bit_for_bit_d3rlpys(n_critics: int) -> None:
    before = _weights(shared=False, n_critics=n_critics)
    after = _weights(shared=True, n_critics=n_critics)
    start = _weights(shared=False, n_critics=n_critics, steps=1)
    assert before.keys() == after.keys()
    assert any(not torch.equal(before[k], start[k]) for k in before)  # training moved them
    for key in before:
        assert torch.equal(before[key], after[key]), key


def test_only_discrete_cql_takes_the_one_forward_gradient() -> None:
    algo = d3rlpy.algos.DiscreteBCConfig(batch_size=8).create(device=False)
    algo.build_with_dataset(synthetic_mdp(n=60, obs_dim=6, actions=3))
    assert share_observation_forward(algo.impl) is False
    assert np.isfinite(algo.predict(np.zeros((1, 6), dtype=np.float32))).all()
