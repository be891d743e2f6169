"""Tree attention over a cached head gives the log-probabilities and greedy text of plain passes."""

from __future__ import annotations

import pytest
import torch

from rewardgym.wrappers.judges.tree_attention import (
    TokenTrie,
    encode_head,
    tree_greedy,
    tree_logprobs,
)


@pytest.fixture(scope="module")
def model() -> torch.nn.Module:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=61,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
    )
    return LlamaForCausalLM(config).eval()


def plain_logprobs(model: torch.nn.Module, tokens: list[int]) -> torch.Tensor:
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([tokens])).logits[0]
    return torch.log_softmax(logits.float(), dim=-1)


def test_trie_shares_prefixes_and_lists_ancestors() -> None:
    trie = TokenTrie()
    a = trie.insert([1, 2, 3])
    b = trie.insert([1, 2, 4])
    assert len(trie) == 4 and trie.insert([1, 2, 3]) == a
    assert trie.cost([1, 2, 5, 6]) == 2 and trie.cost([1, 2]) == 0
    c = trie.insert([7], under=b)
    assert trie.depths[c] == 3 and trie.parents[c] == b
    table = trie.ancestors()
    assert table[c].nonzero()[0].tolist() == [0, 1, b, c]
    assert not table[a, b] and not table[b, a]


def test_tree_logprobs_after_a_head_equal_plain_forward_passes(model: torch.nn.Module) -> None:
    head_tokens = [5, 9, 11, 3]
    prompts = [[12, 13, 14], [12, 13, 15, 16], [20]]
    options = [[30], [31, 32], [31, 33]]  # two options share their first token
    for head in (None, encode_head(model, head_tokens)):
        prefix = head_tokens if head is not None else []
        trie = TokenTrie()
        reads = []
        for prompt in prompts:
            end = trie.insert(prompt)
            for option in options:
                nodes = [end] + [
                    trie.insert(option[: j + 1], under=end) for j in range(len(option) - 1)
                ]
                reads.append((prompt, option, nodes))
        keep = sorted({n for _, _, nodes in reads for n in nodes})
        row = {n: i for i, n in enumerate(keep)}
        logprobs, _ = tree_logprobs(model, trie, keep, head)
        for prompt, option, nodes in reads:
            packed = sum(float(logprobs[row[n], t]) for n, t in zip(nodes, option, strict=True))
            full = plain_logprobs(model, prefix + prompt + option)
            start = len(prefix) + len(prompt) - 1
            plain = sum(float(full[start + j, t]) for j, t in enumerate(option))
            assert packed == pytest.approx(plain, abs=1e-4)


def test_encode_head_extends_a_cached_prefix_without_changing_it(model: torch.nn.Module) -> None:
    base = encode_head(model, [1, 2, 3])
    keys_before = base.layers[0][0].clone()
    longer = encode_head(model, [1, 2, 3, 4, 5], base)
    direct = encode_head(model, [1, 2, 3, 4, 5])
    assert torch.equal(base.layers[0][0], keys_before)
    for (k1, v1), (k2, v2) in zip(longer.layers, direct.layers, strict=True):
        assert torch.allclose(k1, k2, atol=1e-5) and torch.allclose(v1, v2, atol=1e-5)
    with pytest.raises(ValueError, match="prefix"):
        encode_head(model, [9, 9, 9, 9], base)


def test_tree_greedy_matches_generate_for_each_prompt(model: torch.nn.Module) -> None:
    head_tokens = [4, 8, 15]
    prompts = [[16, 23], [16, 42, 7], [1]]
    head = encode_head(model, head_tokens)
    trie = TokenTrie()
    ends = [trie.insert(p) for p in prompts]
    outputs = tree_greedy(model, trie, [*ends, ends[0]], head, max_new_tokens=6)
    assert outputs[3] == outputs[0]  # a repeated end is decoded once and answered twice
    for prompt, out in zip(prompts, outputs, strict=False):
        ids = torch.tensor([head_tokens + prompt])
        with torch.no_grad():
            ref = model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=6,
                do_sample=False,
                pad_token_id=0,
            )
        assert out == ref[0, ids.shape[1] :].tolist()
    stop = frozenset({outputs[0][2]})
    stopped = tree_greedy(model, trie, ends[:1], head, max_new_tokens=6, stop=stop)[0]
    assert stopped == outputs[0][: outputs[0].index(outputs[0][2])]
