"""How likely a causal LM finds each of several continuations of one text, normalised over them.

The shop probes ask a model which action (or action type) it would write next: they score every
candidate tail after the same head in one padded forward pass and normalise over the
candidates, which is the choice sampling at temperature 1 makes among them.

Example:
    >>> continuation_probabilities(model, tokenizer, 'The answer is', [" yes", " no"])  # doctest: +SKIP
    [0.62, 0.38]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def continuation_probabilities(
    model: Any, tokenizer: Any, head: str, tails: Sequence[str]
) -> list[float]:
    """The model's probability of each of ``tails`` after ``head``, normalised over ``tails``.

    Each tail's log-probability is the sum over its own tokens, read from one right-padded batch
    (a causal model's scores of the real tokens do not see the padding after them). A tail whose
    tokens merge with the end of ``head`` would be scored on a different split of ``head`` than
    the others: it is refused with ``ValueError``, as are an empty head and no tails.
    """
    import torch

    prefix = tokenizer(head, add_special_tokens=False)["input_ids"]
    if not tails or not prefix:
        raise ValueError("continuation_probabilities needs a non-empty head and at least one tail")
    sequences = []
    for tail in tails:
        ids = tokenizer(head + tail, add_special_tokens=False)["input_ids"]
        if ids[: len(prefix)] != prefix or len(ids) == len(prefix):
            raise ValueError(f"the tokenizer merges the tail {tail!r} into the head's last token")
        sequences.append(ids)
    width = max(len(s) for s in sequences)
    pad = tokenizer.pad_token_id or 0
    batch = torch.tensor([s + [pad] * (width - len(s)) for s in sequences])
    with torch.no_grad():
        logp = torch.log_softmax(model(batch).logits.float(), dim=-1)
    scores = np.array(
        [
            float(sum(logp[i, p, ids[p + 1]] for p in range(len(prefix) - 1, len(ids) - 1)))
            for i, ids in enumerate(sequences)
        ]
    )
    weights = np.exp(scores - scores.max())
    return (weights / weights.sum()).tolist()


__all__ = ["continuation_probabilities"]
