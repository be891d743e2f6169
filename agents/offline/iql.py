"""Discrete Implicit Q-Learning as a d3rlpy algorithm (config, algorithm, registration).

d3rlpy 2.8 ships IQL for continuous actions only; this is its discrete counterpart, built the
way d3rlpy builds its own algorithms so that ``fit``, ``save``, ``d3rlpy.load_learnable`` and
the rest of its tooling work unchanged. The tensor code lives in ``iql_impl.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

from d3rlpy.algos.qlearning.base import QLearningAlgoBase
from d3rlpy.base import DeviceArg, LearnableConfig, register_learnable
from d3rlpy.constants import ActionSpace
from d3rlpy.models.builders import (
    create_categorical_policy,
    create_discrete_q_function,
    create_value_function,
)
from d3rlpy.models.encoders import EncoderFactory, make_encoder_field
from d3rlpy.models.q_functions import MeanQFunctionFactory
from d3rlpy.optimizers.optimizers import OptimizerFactory
from d3rlpy.types import Shape

from rewardgym.agents.offline.iql_impl import DiscreteIQLImpl, DiscreteIQLModules
from rewardgym.agents.offline.iql_settings import IQLSettings
from rewardgym.agents.offline.optimizers import fused_adam_field, register_once
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, POSITIVE, Range, check_fields


@dataclasses.dataclass()
class DiscreteIQLConfig(LearnableConfig):
    r"""Config of Implicit Q-Learning over a discrete action set.

    IQL (Kostrikov, Nair and Levine, *Offline Reinforcement Learning with Implicit
    Q-Learning*, ICLR 2022, arXiv 2110.06169) never evaluates actions outside the data set.
    A state value is fitted by expectile regression on the target critics' value of the
    logged action,

    .. math::

        L_V(\psi) = \mathbb{E}_{(s, a) \sim D}
            [L_2^\tau (\min_k Q_{\bar\theta_k}(s, a) - V_\psi(s))],
        \qquad L_2^\tau(u) = |\tau - \mathbb{1}(u < 0)|\,u^2,

    each critic regresses on a one-step target that bootstraps from that value,

    .. math::

        L_Q(\theta) = \sum_k \mathbb{E}_{(s, a, r, s') \sim D}
            [(r + \gamma (1 - d) V_\psi(s') - Q_{\theta_k}(s, a))^2],

    and the policy, a softmax over the discrete actions, is extracted by advantage-weighted
    regression (the discrete form of the paper's Eq. 7):

    .. math::

        L_\pi(\phi) = -\mathbb{E}_{(s, a) \sim D}
            [\min(e^{\beta (\min_k Q_{\bar\theta_k}(s, a) - V_\psi(s))}, w_{max})
             \log \pi_\phi(a \mid s)].

    The target critics follow the online ones by Polyak averaging with rate ``tau``. The
    three losses are minimised together, one backward pass per step. Defaults are the paper's
    (lr 3e-4; IQL's own, from ``IQLSettings``: ``expectile`` 0.7, ``weight_temp`` 3.0, two
    critics, ``max_weight`` 100); the optimizers default to
    Adam with PyTorch's fused kernel (``FusedAdamFactory``). ``predict`` returns the policy's
    most likely action.

    Args:
        actor_learning_rate: Learning rate of the policy.
        critic_learning_rate: Learning rate of the critics and the value function.
        actor_optim_factory: Optimizer factory of the policy (fused Adam by default).
        critic_optim_factory: Optimizer factory of the critics and the value function.
        actor_encoder_factory: Encoder factory of the policy.
        critic_encoder_factory: Encoder factory of the critics.
        value_encoder_factory: Encoder factory of the value function.
        batch_size: Mini-batch size.
        gamma: Discount factor.
        tau: Polyak rate of the target critics.
        n_critics: Number of critics in the ensemble (their minimum is used).
        expectile: Expectile :math:`\tau` of the value regression, in (0, 1).
        weight_temp: Inverse temperature :math:`\beta` of the advantage weights.
        max_weight: Clip :math:`w_{max}` of the advantage weights.
    """

    # The field helpers return ``dataclasses.field(...)`` with d3rlpy's serialisation metadata,
    # as in d3rlpy's own configs, so RUF009 (a call as a default) does not apply.
    actor_learning_rate: Annotated[float, POSITIVE] = 3e-4
    critic_learning_rate: Annotated[float, POSITIVE] = 3e-4
    actor_optim_factory: OptimizerFactory = fused_adam_field()  # noqa: RUF009
    critic_optim_factory: OptimizerFactory = fused_adam_field()  # noqa: RUF009
    actor_encoder_factory: EncoderFactory = make_encoder_field()  # noqa: RUF009
    critic_encoder_factory: EncoderFactory = make_encoder_field()  # noqa: RUF009
    value_encoder_factory: EncoderFactory = make_encoder_field()  # noqa: RUF009
    batch_size: Annotated[int, AT_LEAST_1] = 256
    gamma: Annotated[float, Range(gt=0, le=1)] = 0.99
    # IQL's own defaults are IQLSettings' (the library's settings), and so are its ranges
    # (tests/agents/offline/test_offline_algorithms.py checks that they agree).
    tau: Annotated[float, Range(gt=0, le=1)] = IQLSettings.tau
    n_critics: Annotated[int, AT_LEAST_1] = IQLSettings.n_critics
    expectile: Annotated[float, Range(gt=0, lt=1)] = IQLSettings.expectile
    weight_temp: Annotated[float, NON_NEGATIVE] = IQLSettings.weight_temp
    max_weight: Annotated[float, POSITIVE] = IQLSettings.max_weight

    def __post_init__(self) -> None:
        """Reject values outside their meaningful range, naming the field."""
        check_fields(self)
        if self.compile_graph:
            raise ValueError(
                "DiscreteIQLConfig.compile_graph=True is not supported: DiscreteIQL runs eagerly"
            )

    def create(self, device: DeviceArg = False, enable_ddp: bool = False) -> DiscreteIQL:
        """The algorithm this config describes."""
        return DiscreteIQL(self, device, enable_ddp)

    @staticmethod
    def get_type() -> str:
        """The name under which d3rlpy serialises this config."""
        return "discrete_iql"


class DiscreteIQL(QLearningAlgoBase[DiscreteIQLImpl, DiscreteIQLConfig]):
    """Discrete Implicit Q-Learning; see ``DiscreteIQLConfig`` for the maths.

    Example:
        >>> import contextlib, io, numpy as np, d3rlpy
        >>> from rewardgym.agents.offline import DiscreteIQLConfig
        >>> with contextlib.redirect_stdout(io.StringIO()):  # d3rlpy logs to stdout
        ...     data = d3rlpy.dataset.MDPDataset(
        ...         np.random.rand(20, 4).astype("float32"), np.random.randint(3, size=(20, 1)),
        ...         np.random.rand(20, 1).astype("float32"), np.eye(1, 20, 19).ravel(),
        ...         action_space=d3rlpy.ActionSpace.DISCRETE, action_size=3)
        ...     algo = DiscreteIQLConfig(batch_size=8).create()
        ...     _ = algo.fit(data, n_steps=2, n_steps_per_epoch=2, show_progress=False,
        ...                  logger_adapter=d3rlpy.logging.NoopAdapterFactory())
        >>> algo.predict(np.zeros((2, 4), dtype="float32")).shape
        (2,)
    """

    def inner_create_impl(self, observation_shape: Shape, action_size: int) -> None:
        """Build the critics, their targets, the value function, the policy and the optimizers."""
        config = self._config
        policy = create_categorical_policy(
            observation_shape,
            action_size,
            config.actor_encoder_factory,
            device=self._device,
            enable_ddp=self._enable_ddp,
        )
        # The online critics and their targets: two ensembles of the same shape.
        (q_funcs, q_forwarder), (targ_q_funcs, targ_q_forwarder) = (
            create_discrete_q_function(
                observation_shape,
                action_size,
                config.critic_encoder_factory,
                MeanQFunctionFactory(),
                n_ensembles=config.n_critics,
                device=self._device,
                enable_ddp=self._enable_ddp,
            )
            for _ in range(2)
        )
        value_func = create_value_function(
            observation_shape,
            config.value_encoder_factory,
            device=self._device,
            enable_ddp=self._enable_ddp,
        )
        actor_optim = config.actor_optim_factory.create(
            policy.named_modules(), lr=config.actor_learning_rate, compiled=False
        )
        critic_optim = config.critic_optim_factory.create(
            list(q_funcs.named_modules()) + list(value_func.named_modules()),
            lr=config.critic_learning_rate,
            compiled=False,
        )
        modules = DiscreteIQLModules(
            policy=policy,
            q_funcs=q_funcs,
            targ_q_funcs=targ_q_funcs,
            value_func=value_func,
            actor_optim=actor_optim,
            critic_optim=critic_optim,
        )
        self._impl = DiscreteIQLImpl(
            observation_shape=observation_shape,
            action_size=action_size,
            modules=modules,
            q_func_forwarder=q_forwarder,
            targ_q_func_forwarder=targ_q_forwarder,
            gamma=config.gamma,
            tau=config.tau,
            expectile=config.expectile,
            weight_temp=config.weight_temp,
            max_weight=config.max_weight,
            device=self._device,
        )

    def get_action_type(self) -> ActionSpace:
        """IQL here acts over a discrete action set."""
        return ActionSpace.DISCRETE


register_once(register_learnable, LearnableConfig, DiscreteIQLConfig)

__all__ = ["DiscreteIQL", "DiscreteIQLConfig"]
