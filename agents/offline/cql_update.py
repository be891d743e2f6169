"""DiscreteCQL's gradient with one forward pass of the batch's observations instead of two.

d3rlpy's ``DiscreteCQLImpl`` runs the Q-network over the batch's observations twice per
step, once for the TD error and once for the conservative term, and back-propagates through
both graphs: one of a step's four forward passes, about 15% of its floating-point operations
on the quick preset's network (``docs/results/embodied-agent-profile.md``).
``share_observation_forward`` installs a gradient that computes that forward once and
back-propagates the two terms one after the other through it. Each parameter's gradient is then the same sum of the same two per-term gradients that
d3rlpy's single backward pass accumulates, so training is bit for bit d3rlpy's
(``tests/agents/offline/test_cql_update.py`` compares the weights exactly).
"""

from __future__ import annotations

from typing import Any


class _OneForward:
    """A Q-function that computes its output on ``observations`` once and then reuses it."""

    def __init__(self, q_func: Any, observations: Any) -> None:
        """Wrap ``q_func`` for the one batch whose observations are ``observations``."""
        self.q_func = q_func
        self.observations = observations
        self.output: Any = None

    def __call__(self, x: Any) -> Any:
        """The Q-function's output on ``x``, computed once for the batch's observations."""
        if x is not self.observations:
            return self.q_func(x)
        if self.output is None:
            self.output = self.q_func(x)
        return self.output


def share_observation_forward(impl: Any) -> bool:
    """Give a built ``DiscreteCQLImpl`` the one-forward gradient; False for any other impl.

    The gradient is the impl's own (same target, same loss terms, same optimizer) except that
    the observations' forward pass is shared and ``td_loss`` and ``alpha * conservative_loss``
    are back-propagated separately, so every parameter receives the two gradients d3rlpy
    computes, added together. A compiled impl (CUDA graphs) is left as it is.
    """
    from d3rlpy.algos.qlearning.torch.cql_impl import DiscreteCQLImpl

    if not isinstance(impl, DiscreteCQLImpl) or impl._compute_grad != impl.compute_grad:
        return False
    forwarders = impl._q_func_forwarder._forwarders

    def compute_grad(batch: Any) -> Any:
        impl._modules.optim.zero_grad()
        target = impl.compute_target(batch)
        originals = [forwarder._q_func for forwarder in forwarders]
        for forwarder, q_func in zip(forwarders, originals, strict=True):
            forwarder.set_q_func(_OneForward(q_func, batch.observations))
        try:
            loss = impl.compute_loss(batch, target)
        finally:
            for forwarder, q_func in zip(forwarders, originals, strict=True):
                forwarder.set_q_func(q_func)
        loss.td_loss.backward(retain_graph=True)
        (impl._alpha * loss.conservative_loss).backward()
        return loss

    impl._compute_grad = compute_grad
    return True


__all__ = ["share_observation_forward"]
