"""The tensor code of discrete Implicit Q-Learning: losses, one fused update, action selection.

Kept apart from the public config the way d3rlpy keeps ``algos/qlearning/torch/iql_impl.py``
apart from ``iql.py``. The three losses of IQL touch disjoint parameters (each uses the others'
outputs only as detached targets or weights), so their sum is back-propagated once and both
optimizers step: the same gradients as three separate updates, at the cost of one backward.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch
from d3rlpy.algos.qlearning.base import QLearningAlgoImplBase
from d3rlpy.algos.qlearning.torch.utility import DiscreteQFunctionMixin
from d3rlpy.dataclass_utils import asdict_as_float
from d3rlpy.models.torch import (
    CategoricalPolicy,
    DiscreteEnsembleQFunctionForwarder,
    ValueFunction,
)
from d3rlpy.optimizers.optimizers import OptimizerWrapper
from d3rlpy.torch_utility import Modules, TorchMiniBatch, hard_sync
from torch import nn


@dataclasses.dataclass(frozen=True)
class DiscreteIQLModules(Modules):
    """The networks and optimizers of discrete IQL (checkpointed together by d3rlpy)."""

    policy: CategoricalPolicy
    q_funcs: nn.ModuleList
    targ_q_funcs: nn.ModuleList
    value_func: ValueFunction
    actor_optim: OptimizerWrapper
    critic_optim: OptimizerWrapper


@dataclasses.dataclass(frozen=True)
class DiscreteIQLLoss:
    """The losses of one update, reported by ``fit`` as metrics."""

    loss: torch.Tensor
    q_loss: torch.Tensor
    v_loss: torch.Tensor
    actor_loss: torch.Tensor
    advantage: torch.Tensor


def expectile_loss(diff: torch.Tensor, expectile: float) -> torch.Tensor:
    """The asymmetric squared loss ``|tau - 1(u < 0)| u^2`` averaged over the batch."""
    weight = torch.where(diff < 0.0, 1.0 - expectile, expectile)
    return (weight * diff.square()).mean()


def advantage_weights(
    advantage: torch.Tensor, temperature: float, max_weight: float
) -> torch.Tensor:
    """AWR weights ``min(exp(beta * A), max_weight)`` of the policy loss."""
    return (temperature * advantage).exp().clamp(max=max_weight)


def _stacked_q(forwarder: DiscreteEnsembleQFunctionForwarder, x: torch.Tensor) -> torch.Tensor:
    """Every critic's Q values, shape ``(n_critics, batch, actions)``."""
    return torch.stack([f.compute_expected_q(x) for f in forwarder.forwarders])


class DiscreteIQLImpl(DiscreteQFunctionMixin, QLearningAlgoImplBase):
    """IQL over a discrete action set: expectile V, TD Q from V, advantage-weighted softmax policy."""

    _modules: DiscreteIQLModules

    def __init__(
        self,
        observation_shape: Any,
        action_size: int,
        modules: DiscreteIQLModules,
        q_func_forwarder: DiscreteEnsembleQFunctionForwarder,
        targ_q_func_forwarder: DiscreteEnsembleQFunctionForwarder,
        gamma: float,
        tau: float,
        expectile: float,
        weight_temp: float,
        max_weight: float,
        device: str,
    ) -> None:
        """Hold the modules and the hyper-parameters of ``DiscreteIQLConfig``."""
        super().__init__(
            observation_shape=observation_shape,
            action_size=action_size,
            modules=modules,
            device=device,
        )
        self._q_func_forwarder = q_func_forwarder
        self._targ_q_func_forwarder = targ_q_func_forwarder
        self._gamma = gamma
        self._tau = tau
        self._expectile = expectile
        self._weight_temp = weight_temp
        self._max_weight = max_weight
        hard_sync(modules.targ_q_funcs, modules.q_funcs)
        self._online_params: list[torch.Tensor] = list(modules.q_funcs.parameters())
        self._target_params: list[torch.Tensor] = list(modules.targ_q_funcs.parameters())

    def compute_loss(self, batch: TorchMiniBatch) -> DiscreteIQLLoss:
        """The three IQL losses of one mini-batch and their sum."""
        obs, next_obs = batch.observations, batch.next_observations
        if not isinstance(obs, torch.Tensor) or not isinstance(next_obs, torch.Tensor):
            raise TypeError("DiscreteIQL supports single-tensor observations only")
        actions = batch.actions.long().view(-1, 1)
        with torch.no_grad():
            v_next = self._modules.value_func(next_obs)
            y = batch.rewards + (self._gamma**batch.intervals) * (1.0 - batch.terminals) * v_next
            q_target = _stacked_q(self._targ_q_func_forwarder, obs).min(dim=0).values
            q_target = q_target.gather(1, actions)
        q_all = _stacked_q(self._q_func_forwarder, obs)
        q_taken = q_all.gather(2, actions.unsqueeze(0).expand(q_all.shape[0], -1, -1))
        q_loss = (q_taken - y.unsqueeze(0)).square().mean(dim=(1, 2)).sum()
        v = self._modules.value_func(obs)
        v_loss = expectile_loss(q_target - v, self._expectile)
        advantage = q_target - v.detach()
        weights = advantage_weights(advantage, self._weight_temp, self._max_weight)
        # Categorical(logits=...) stores normalised log-probabilities in ``.logits``.
        log_prob = self._modules.policy(obs).logits.gather(1, actions)
        actor_loss = -(weights * log_prob).mean()
        return DiscreteIQLLoss(
            loss=q_loss + v_loss + actor_loss,
            q_loss=q_loss,
            v_loss=v_loss,
            actor_loss=actor_loss,
            advantage=advantage.mean(),
        )

    def inner_update(self, batch: TorchMiniBatch, grad_step: int) -> dict[str, float]:
        """One gradient step on all three losses, then Polyak-average the target critics."""
        self._modules.critic_optim.zero_grad()
        self._modules.actor_optim.zero_grad()
        loss = self.compute_loss(batch)
        loss.loss.backward()
        self._modules.critic_optim.step()
        self._modules.actor_optim.step()
        self.update_target()
        return dict(asdict_as_float(loss))

    def update_target(self) -> None:
        """``theta_targ <- (1 - tau) theta_targ + tau theta`` in one fused call."""
        with torch.no_grad():
            torch._foreach_lerp_(self._target_params, self._online_params, self._tau)

    def inner_predict_best_action(self, x: Any) -> torch.Tensor:
        """The policy's most likely action."""
        return self._modules.policy(x).logits.argmax(dim=1)

    def inner_sample_action(self, x: Any) -> torch.Tensor:
        """An action sampled from the policy's softmax."""
        return self._modules.policy(x).sample()

    @property
    def policy(self) -> CategoricalPolicy:
        """The advantage-weighted softmax policy."""
        return self._modules.policy

    @property
    def policy_optim(self) -> torch.optim.Optimizer:
        """The policy's optimizer."""
        return self._modules.actor_optim.optim

    @property
    def q_function(self) -> nn.ModuleList:
        """The ensemble of critics."""
        return self._modules.q_funcs

    @property
    def q_function_optim(self) -> torch.optim.Optimizer:
        """The optimizer of the critics and the value function."""
        return self._modules.critic_optim.optim


__all__ = [
    "DiscreteIQLImpl",
    "DiscreteIQLLoss",
    "DiscreteIQLModules",
    "advantage_weights",
    "expectile_loss",
]
