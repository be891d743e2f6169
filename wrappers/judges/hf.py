"""A local Hugging Face causal LM as a judge: ratings from the log-likelihood of each option.

The rubric rating is the option among ``-2 .. 2`` whose tokens the model finds most likely
after the prompt (no free generation, so every answer parses). Yes/no questions and free
questions with options are answered the same way; questions without options (the
structural question) are answered by short greedy generation.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rewardgym.wrappers.judges.base import Judge, JudgeRequest
from rewardgym.wrappers.judges.prompts import RUBRIC

RATING_OPTIONS: tuple[str, ...] = tuple(str(score) for score in sorted(RUBRIC))
YES_NO: tuple[str, ...] = ("yes", "no")


class HFJudge(Judge):
    """Scores answer options with a local causal LM loaded from ``path`` (never downloaded)."""

    def __init__(
        self,
        path: str | Path,
        device: str = "cpu",
        batch_size: int = 8,
        max_new_tokens: int = 24,
        max_prompt_tokens: int = 1024,
    ) -> None:
        """Load the tokenizer and model from the local directory ``path``."""
        super().__init__()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        folder = Path(path)
        if not folder.is_dir():
            raise FileNotFoundError(
                f"hf judge: {folder} is not a directory; pass a local model folder (hf:PATH) "
                "holding config.json, the weights and a tokenizer"
            )
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        loader: Any = AutoModelForCausalLM
        self.model: Any = loader.from_pretrained(str(folder), local_files_only=True)
        self.model.to(device)
        self.model.eval()
        self.device = device
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.max_prompt_tokens = max_prompt_tokens
        self.identity = f"hf:{folder.resolve()}"

    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        answers: list[str | None] = []
        for request in requests:
            if request.kind == "rate":
                options: tuple[str, ...] = RATING_OPTIONS
            elif request.kind == "temporal":
                options = YES_NO
            else:
                options = request.options
            prompt = self._ids(request.text())[-self.max_prompt_tokens :]
            if options:
                scores = self.option_logprobs(prompt, options)
                answers.append(options[max(range(len(options)), key=scores.__getitem__)])
            else:
                answers.append(self._generate(prompt))
        return answers

    def option_logprobs(self, prompt: list[int], options: Sequence[str]) -> list[float]:
        """The summed log-probability of each option's tokens after the prompt tokens."""
        torch = self._torch
        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else int(pad)
        sequences = [(prompt, self._ids(" " + option) or self._ids(option)) for option in options]
        scores: list[float] = []
        for start in range(0, len(sequences), self.batch_size):
            chunk = sequences[start : start + self.batch_size]
            width = max(len(p) + len(o) for p, o in chunk)
            ids = torch.full((len(chunk), width), pad, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, (p, o) in enumerate(chunk):
                seq = p + o
                ids[row, : len(seq)] = torch.tensor(seq)
                mask[row, : len(seq)] = 1
            with torch.no_grad():
                logits = self.model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device)
                ).logits
            logp = torch.log_softmax(logits.float(), dim=-1).cpu()
            for row, (p, o) in enumerate(chunk):
                positions = torch.arange(len(p) - 1, len(p) + len(o) - 1)
                scores.append(float(logp[row, positions, torch.tensor(o)].sum()))
        return scores

    def _generate(self, prompt: list[int]) -> str:
        torch = self._torch
        ids = torch.tensor([prompt], device=self.device)
        with torch.no_grad():
            out: Any = self.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id or 0,
            )
        return str(self.tokenizer.decode(out[0, len(prompt) :], skip_special_tokens=True)).strip()


__all__ = ["RATING_OPTIONS", "YES_NO", "HFJudge"]
