"""Self-certainty of a generated span from the policy's per-token distributions over the vocabulary.

Two definitions, both averaged over the span's ``N`` tokens, for a ``[N, V]`` array of
log-probabilities (or logits: every row is re-normalised with a log-softmax first):

* ``"paper"`` (Shop-R1, arXiv 2507.17842, Eq. 3), the default:
  ``s = 1/(N|V|) sum_j sum_i p_ij log(p_ij |V|)``, that is the mean of ``KL(p_j || U) / |V|``
  ``= (log|V| - H(p_j)) / |V|``. A uniform row gives 0, a one-hot row gives ``log|V| / |V|``,
  so ``0 <= s <= log|V|/|V| <= 1/e`` for every vocabulary size.
* ``"kang"`` (Kang et al., arXiv 2502.18581): the mean of ``KL(U || p_j)``
  ``= -log|V| - (1/|V|) sum_i log p_ij``. A uniform row gives 0; it is infinite as soon as one
  token has probability 0, so log-probabilities are clamped at :data:`LOGPROB_FLOOR` first,
  which bounds it by ``-LOGPROB_FLOOR``.

``p log p`` is taken as 0 where ``p = 0`` (masked tokens give ``-inf`` log-probabilities), values
are clamped at 0 against rounding, and torch tensors are reduced on their own device in float64
(only the ``N`` per-token values leave it), so a ``[N, 150k]`` GPU tensor never crosses to the
host.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeGuard, get_args

import numpy as np

if TYPE_CHECKING:
    import torch

CertaintyKind = Literal["paper", "kang"]
CERTAINTY_KINDS: tuple[str, ...] = get_args(CertaintyKind)

LOGPROB_FLOOR = -100.0
"""Kang's log-probabilities are clamped here; ``e**-100`` ~ 4e-44 is about float32's smallest."""

LogProbs: TypeAlias = "np.ndarray | torch.Tensor"
"""Per-token log-probabilities (or logits) over the vocabulary, shape ``[N, V]``."""


_NON_FINITE = (
    "log-probabilities contain NaN or +inf; pass log-probabilities or logits (-inf for p=0)"
)
_EMPTY_ROW = "a row of log-probabilities is all -inf: every token has probability 0"


def max_self_certainty(kind: CertaintyKind) -> float:
    """An upper bound of :func:`self_certainty` of kind ``kind`` over every vocabulary size."""
    _check_kind(kind)
    return 1.0 / math.e if kind == "paper" else -LOGPROB_FLOOR


def _check_kind(kind: str) -> None:
    if kind not in CERTAINTY_KINDS:
        raise ValueError(f"self-certainty kind must be one of {CERTAINTY_KINDS}, got {kind!r}")


def _is_torch(x: object) -> TypeGuard[torch.Tensor]:
    # Checking the module avoids importing torch (seconds) for callers that pass numpy.
    return type(x).__module__.startswith("torch")


def _check_shape(shape: tuple[int, ...]) -> None:
    if len(shape) != 2 or shape[-1] < 1:
        raise ValueError(f"log-probabilities must have shape [N, V] with V >= 1, got {shape}")


def _token_values_torch(logprobs: torch.Tensor, kind: str) -> np.ndarray:
    import torch

    x = logprobs.detach().to(torch.float64)
    if bool(torch.isnan(x).any() | torch.isposinf(x).any()):
        raise ValueError(_NON_FINITE)
    if not bool(torch.isfinite(x).any(dim=-1).all()):
        raise ValueError(_EMPTY_ROW)
    lp = torch.log_softmax(x, dim=-1)
    vocab = lp.shape[-1]
    if kind == "paper":
        p = lp.exp()
        plogp = torch.where(p > 0, p * lp, torch.zeros_like(lp)).sum(dim=-1)
        values = (plogp + math.log(vocab)) / vocab
    else:
        values = -lp.clamp(min=LOGPROB_FLOOR).mean(dim=-1) - math.log(vocab)
    return values.clamp(min=0.0).cpu().numpy()


def _token_values_numpy(x: np.ndarray, kind: str) -> np.ndarray:
    if np.isnan(x).any() or np.isposinf(x).any():
        raise ValueError(_NON_FINITE)
    if not np.isfinite(x).any(axis=-1).all():
        raise ValueError(_EMPTY_ROW)
    top = np.max(x, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lp = x - (top + np.log(np.sum(np.exp(x - top), axis=-1, keepdims=True)))
        vocab = lp.shape[-1]
        if kind == "paper":
            p = np.exp(lp)
            plogp = np.where(p > 0, p * lp, 0.0).sum(axis=-1)
            values = (plogp + math.log(vocab)) / vocab
        else:
            values = -np.maximum(lp, LOGPROB_FLOOR).mean(axis=-1) - math.log(vocab)
    return np.maximum(values, 0.0)


def token_self_certainty(logprobs: LogProbs, kind: CertaintyKind = "paper") -> np.ndarray:
    """Per-token self-certainty ``[N]`` (float64) of a ``[N, V]`` array or tensor of log-probabilities."""
    _check_kind(kind)
    if _is_torch(logprobs):
        _check_shape(tuple(logprobs.shape))
        if logprobs.shape[0] == 0:
            return np.zeros(0)
        return _token_values_torch(logprobs, kind)
    array = np.asarray(logprobs, dtype=np.float64)
    _check_shape(array.shape)
    if array.shape[0] == 0:
        return np.zeros(0)
    return _token_values_numpy(array, kind)


def self_certainty(logprobs: LogProbs, kind: CertaintyKind = "paper") -> float:
    """Mean self-certainty over the span's tokens (see the module docstring); 0.0 for no token."""
    values = token_self_certainty(logprobs, kind)
    return float(values.mean()) if values.size else 0.0


def mean_token_certainty(
    values: Sequence[float] | np.ndarray, kind: CertaintyKind | None = None
) -> float:
    """Average precomputed per-token self-certainty values, refusing any outside their bounds.

    Every value must be finite and ``>= 0``, and with ``kind`` at most
    :func:`max_self_certainty` of that kind (``1/e`` for ``paper``, ``-LOGPROB_FLOOR`` for
    ``kang``), which no output of :func:`token_self_certainty` exceeds; so the mean, and the
    reward built on it, stays within its documented bounds.
    """
    try:
        array = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"per-token self-certainty values must be numbers, got {values!r}"
        ) from error
    if array.size == 0:
        return 0.0
    upper = math.inf if kind is None else max_self_certainty(kind)
    bad = ~np.isfinite(array) | (array < 0) | (array > upper)
    if bad.any():
        limit = f"<= {upper:.6g} (the largest {kind!r} value)" if kind is not None else "finite"
        raise ValueError(
            f"per-token self-certainty values must be >= 0 and {limit}; compute them with "
            f"token_self_certainty(logprobs, {kind!r}); got {array[bad][0]!r} at position "
            f"{int(np.flatnonzero(bad)[0])}"
        )
    return float(array.mean())


__all__ = [
    "CERTAINTY_KINDS",
    "LOGPROB_FLOOR",
    "CertaintyKind",
    "LogProbs",
    "max_self_certainty",
    "mean_token_certainty",
    "self_certainty",
    "token_self_certainty",
]
