"""Read many token sequences that share prefixes in one forward pass: a token trie under tree attention.

A judge asks a causal LM about many prompts that differ only near their end (five prompts
share their rubric and demonstrations; one observation's prompts share everything but the
action; the rubric options share everything but the option). Here every distinct prompt
prefix is computed once:

- ``Head``: the key/value cache of a token prefix that every prompt of a group starts with
  (computed once, reused by every batch that starts with it).
- ``TokenTrie``: the rest of the batch's prompts (and the answer options) as a prefix tree.
  The trie's nodes are fed as ONE sequence after the head; node ``i`` attends to the head
  and to its own ancestors only (a 4D mask), at position ``len(head) + depth(i)``. So each
  node's hidden state is exactly what a plain forward pass over its own prompt would give,
  and a shared prefix is computed once.
- ``tree_logprobs``: the log-probabilities of the next token at chosen nodes (the logits of
  the other nodes are never projected onto the vocabulary).
- ``tree_greedy``: greedy continuations of several nodes at once, each attending only to
  its own prompt and its own generated tokens.

Only standard transformers arguments are used (``cache=DynamicCache``, a 4D float
``attention_mask``, ``position_ids``, ``logits_to_keep``), so any decoder with rotary or
learned positions that accepts a custom 4D mask works (Llama, SmolLM2, Qwen2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch


class TokenTrie:
    """A prefix tree of token sequences whose nodes keep insertion order (parents first)."""

    def __init__(self) -> None:
        """Start empty."""
        self.tokens: list[int] = []
        self.parents: list[int] = []
        self.depths: list[int] = []
        self._children: list[dict[int, int]] = []
        self._roots: dict[int, int] = {}

    def __len__(self) -> int:
        """The number of nodes (tokens fed to the model)."""
        return len(self.tokens)

    def insert(self, sequence: Sequence[int], under: int = -1) -> int:
        """Add ``sequence`` below node ``under`` (-1: the root); return its last node (or ``under``)."""
        node = under
        for token in sequence:
            children = self._roots if node < 0 else self._children[node]
            found = children.get(int(token))
            if found is None:
                found = len(self.tokens)
                children[int(token)] = found
                self.tokens.append(int(token))
                self.parents.append(node)
                self.depths.append(0 if node < 0 else self.depths[node] + 1)
                self._children.append({})
            node = found
        return node

    def cost(self, sequence: Sequence[int]) -> int:
        """How many new nodes inserting ``sequence`` at the root would add."""
        children = self._roots
        for i, token in enumerate(sequence):
            found = children.get(int(token))
            if found is None:
                return len(sequence) - i
            children = self._children[found]
        return 0

    def ancestors(self) -> np.ndarray:
        """``A[i, j]``: node ``j`` is node ``i`` or one of its ancestors, shape ``(Q, Q)``."""
        n = len(self.tokens)
        table = np.zeros((n, n), dtype=bool)
        for i, parent in enumerate(self.parents):
            if parent >= 0:
                table[i, : parent + 1] = table[parent, : parent + 1]
            table[i, i] = True
        return table


@dataclass
class Head:
    """The key/value cache of a token prefix (one ``(keys, values)`` pair per layer)."""

    tokens: tuple[int, ...]
    layers: list[tuple[torch.Tensor, torch.Tensor]]

    def __len__(self) -> int:
        """The number of cached tokens."""
        return len(self.tokens)


def _new_cache(head: Head | None) -> Any:
    from transformers import DynamicCache

    if head is None or not head.tokens:
        return DynamicCache()
    # The cache concatenates onto copies, so the head's own tensors are never modified.
    return DynamicCache(ddp_cache_data=head.layers)


def encode_head(model: Any, tokens: Sequence[int], base: Head | None = None) -> Head:
    """The key/value cache of ``tokens``, computed after ``base`` (a cached prefix of them) if given."""
    known = base.tokens if base is not None else ()
    if tuple(tokens[: len(known)]) != known:
        raise ValueError("encode_head: base is not a prefix of tokens")
    new = [int(t) for t in tokens[len(known) :]]
    if not new:
        return base if base is not None else Head((), [])
    device = next(model.parameters()).device
    cache = _new_cache(base)
    ids = torch.tensor([new], dtype=torch.long, device=device)
    positions = torch.arange(len(known), len(tokens), device=device)[None]
    with torch.no_grad():
        model(input_ids=ids, position_ids=positions, cache=cache, use_cache=True, logits_to_keep=1)
    layers = [(layer.keys, layer.values) for layer in cache.layers]
    return Head(tuple(int(t) for t in tokens), layers)


def _mask(allowed: np.ndarray, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """An additive ``(1, 1, Q, K)`` mask: 0 where ``allowed``, the dtype's minimum elsewhere."""
    mask = torch.zeros(allowed.shape, dtype=dtype)
    mask[torch.from_numpy(~allowed)] = torch.finfo(dtype).min
    return mask[None, None].to(device)


def _forward(
    model: Any,
    tokens: Sequence[int],
    positions: Sequence[int],
    allowed: np.ndarray,
    cache: Any,
    keep: Sequence[int],
) -> torch.Tensor:
    """Feed ``tokens`` after ``cache`` under ``allowed`` and return the log-softmax at ``keep``."""
    device = next(model.parameters()).device
    dtype = next(model.parameters()).dtype
    with torch.no_grad():
        out = model(
            input_ids=torch.tensor([list(tokens)], dtype=torch.long, device=device),
            position_ids=torch.tensor([list(positions)], dtype=torch.long, device=device),
            attention_mask=_mask(allowed, dtype, device),
            cache=cache,
            use_cache=True,
            logits_to_keep=torch.tensor(list(keep), dtype=torch.long, device=device),
        )
    return torch.log_softmax(out.logits[0].float(), dim=-1).cpu()


def tree_logprobs(
    model: Any, trie: TokenTrie, keep: Sequence[int], head: Head | None = None
) -> tuple[torch.Tensor, Any]:
    """Next-token log-probabilities ``(len(keep), V)`` at trie nodes ``keep``, and the cache.

    One forward pass over every node of ``trie`` after ``head``; the returned cache holds the
    head and the trie (what ``tree_greedy`` continues from).
    """
    offset = len(head) if head is not None else 0
    allowed = np.ones((len(trie), offset + len(trie)), dtype=bool)
    allowed[:, offset:] = trie.ancestors()
    cache = _new_cache(head)
    positions = [offset + d for d in trie.depths]
    logprobs = _forward(model, trie.tokens, positions, allowed, cache, keep)
    return logprobs, cache


def tree_greedy(
    model: Any,
    trie: TokenTrie,
    ends: Sequence[int],
    head: Head | None = None,
    max_new_tokens: int = 24,
    stop: frozenset[int] = frozenset(),
) -> list[list[int]]:
    """Greedy continuations of the prompts that end at trie nodes ``ends`` (stop tokens dropped).

    All continuations advance together, one token each per forward pass; each new token
    attends to the head, its prompt's nodes and its own earlier tokens.
    """
    offset = len(head) if head is not None else 0
    distinct = list(dict.fromkeys(ends))
    logprobs, cache = tree_logprobs(model, trie, distinct, head)
    table = trie.ancestors()
    # Key rows of each continuation: the head, the ancestors of its end node, then its tokens.
    base = [np.concatenate([np.ones(offset, dtype=bool), table[e]]) for e in distinct]
    own: list[list[int]] = [[] for _ in distinct]
    out: list[list[int]] = [[] for _ in distinct]
    nxt = logprobs.argmax(dim=-1).tolist()
    active = list(range(len(distinct)))
    width = offset + len(trie)
    for _ in range(max_new_tokens):
        still = []
        for r in active:
            if nxt[r] in stop:
                continue
            out[r].append(nxt[r])
            still.append(r)
        active = [r for r in still if len(out[r]) < max_new_tokens]
        if not active:
            break
        allowed = np.zeros((len(active), width + len(active)), dtype=bool)
        for row, r in enumerate(active):
            allowed[row, : len(base[r])] = base[r]
            allowed[row, own[r]] = True
            allowed[row, width + row] = True
        positions = [offset + trie.depths[distinct[r]] + len(out[r]) for r in active]
        feed = [out[r][-1] for r in active]
        step = _forward(model, feed, positions, allowed, cache, range(len(active)))
        for row, r in enumerate(active):
            own[r].append(width + row)
            nxt[r] = int(step[row].argmax())
        width += len(active)
    by_end = dict(zip(distinct, out, strict=True))
    return [by_end[e] for e in ends]


__all__ = ["Head", "TokenTrie", "encode_head", "tree_greedy", "tree_logprobs"]
