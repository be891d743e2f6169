"""A byte-level BPE tokenizer trained here on the session corpus, wrapped as a Hugging Face tokenizer.

Nothing is downloaded: the vocabulary is learned with the ``tokenizers`` library from the pages,
actions and rationales of training sessions (and the prompt's fixed text), and the result is a
``PreTrainedTokenizerFast`` that saves and loads with ``save_pretrained`` /
``from_pretrained``. The prompt format is plain text (no chat template); ``<|endoftext|>`` ends
every completion and doubles as the padding token. Byte-level BPE decodes any byte sequence, so
the policy can emit any string and decoding round-trips every token id.

The pre-tokenizer is GPT-2's, except that ``_`` counts as a letter: element names such as
``filter_feature_long_battery`` or ``product_3_title`` stay one word, which BPE learns as one or
a few tokens, the same in a page (``[product_3_title]``) and in a completion
(``"name": "product_3_title"``). On the synthetic corpus this takes compact contexts from a
median of about 740 tokens to about 450 at the same vocabulary size, and keeps copying a name
from the page a copy of the same token ids. ``split_names`` (``ModelConfig.split_names``) adds a
second split that cuts every word at its name parts (:data:`NAME_WORDS`: ``add_to_cart_button``
becomes ``add``, ``_to``, ``_cart``, ``_button``; ``addToCart`` ``add``, ``To``, ``Cart``; digits
apart from letters), so that a name seen rarely as a whole is read in pieces common names share.
Both splits keep every character, so decoding still returns the text exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from rewardgym.envs.shopping.context import build_context
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.session_log import SessionLog

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase, PreTrainedTokenizerFast

EOS_TOKEN = "<|endoftext|>"
WORDS = r" ?[\p{L}\p{N}_]+| ?[^\s\p{L}\p{N}_]+|\s+(?!\S)|\s+"
"""Pre-tokenizer words: GPT-2's pattern with ``_`` joined to letters and digits."""
NAME_WORDS = r" ?_*(?:\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lo}+|\p{N}+)"
"""The word parts of a name (``split_names``): an optional space and underscores, then an upper-case
run, a capitalised or lower-case word, a run of uncased letters or of digits; anything else stays
a piece of its own."""
SPECIAL_TOKENS = (EOS_TOKEN,)


def corpus_texts(
    store: SessionLog, sessions: Sequence[int], frame: Sequence[str] = ()
) -> Iterator[str]:
    """Texts the vocabulary is learned from: per step, the prompt frame, contexts, completion.

    ``frame`` is the fixed text every prompt carries (instructions, headers); it is repeated once
    per step, as often as the model will read it. Each step contributes its compact context (the
    default prompt), its raw page (the ``session`` and ``latest`` contexts) and its completion.
    """
    for index in sessions:
        session = store.session(index)
        for number, step in enumerate(session.steps):
            yield from frame
            yield build_context(session.steps[:number], step.page, mode="compact")
            yield step.page
            yield format_output(step.rationale or "", step.action)


def train_tokenizer(
    texts: Iterable[str], vocab_size: int = 1024, *, split_names: bool = False
) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE of ``vocab_size`` tokens on ``texts`` and wrap it for transformers.

    ``split_names`` pre-tokenizes element names into their words (module docstring).
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    if vocab_size < 256 + len(SPECIAL_TOKENS):
        raise ValueError(
            f"vocab_size must be at least {256 + len(SPECIAL_TOKENS)} (the 256 byte tokens "
            f"plus the special tokens), got {vocab_size}"
        )
    core = Tokenizer(models.BPE())
    splits = [pre_tokenizers.Split(Regex(WORDS), behavior="isolated")]
    if split_names:
        splits.append(pre_tokenizers.Split(Regex(NAME_WORDS), behavior="isolated"))
    core.pre_tokenizer = pre_tokenizers.Sequence(
        [*splits, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token=EOS_TOKEN,
        pad_token=EOS_TOKEN,
        model_max_length=1 << 20,
    )
    tokenizer.padding_side = "left"
    return tokenizer


def prepare_tokenizer(tokenizer: PreTrainedTokenizerBase) -> PreTrainedTokenizerBase:
    """Make any loaded tokenizer usable for batch generation: a pad token and left padding."""
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return tokenizer


__all__ = [
    "EOS_TOKEN",
    "NAME_WORDS",
    "SPECIAL_TOKENS",
    "WORDS",
    "corpus_texts",
    "prepare_tokenizer",
    "train_tokenizer",
]
