"""Constrained decoding's cost per generated token against free decoding, and llguidance against xgrammar.

Reads top to bottom: build the shop model of the quick preset (untrained, on a small synthetic
corpus; or load ``--model``), take the prompts of ``--steps`` test steps, and in one run:

1. generate them freely and constrained to each page's actions (``SamplingConfig.decoding``),
   greedy, with the same batches; report CPU seconds per generated token of each, their ratio,
   the share of outputs that parse, and the seconds spent computing masks;
2. mask cost alone, per token and per grammar: walk every step's logged completion (tokenized
   canonically) through llguidance's matcher and, when installed, xgrammar's (its grammar
   compiled per page first, as it must be), timing grammar set-up and per-token mask fills.

A batch step (one forward pass, one token for every open row) is the unit compared: an
untrained model's free outputs run to the token budget while constrained ones end at the JSON's
close, and a batch keeps stepping until its longest row ends, so per generated token a batch of
early-ending rows looks dearer than it is. CPU per generated token is printed too.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import tyro

from rewardgym.agents.llm.config import SamplingConfig
from rewardgym.bounds import AT_LEAST_1, check_fields
from rewardgym.envs.shopping.page_actions import PageActions


@dataclass(frozen=True)
class Config:
    """What to measure."""

    model: str = ""
    """A model folder; empty builds an untrained model of ``--size`` on a small synthetic corpus."""
    size: Literal["quick", "tiny"] = "quick"
    """Shop preset whose prompt, sampling and model settings are used."""
    steps: Annotated[int, AT_LEAST_1] = 96
    """Test steps whose prompts are generated."""
    max_new_tokens: Annotated[int, AT_LEAST_1] = 72
    """Token budget of a completion (the quick preset's)."""
    threads: Annotated[int, AT_LEAST_1] = 1
    """Torch threads."""
    xgrammar: bool = True
    """Also time xgrammar's masks (skipped with a note when it is not installed)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def _cpu() -> float:
    return time.process_time()


def _steps(cfg: Config, root: Path) -> tuple[str, list[Any]]:
    """A model folder and ``cfg.steps`` test rows (prompt, completion, page actions)."""
    from rewardgym.agents.llm.dataset import step_rows
    from rewardgym.agents.llm.model import create_default_model, load_tokenizer
    from rewardgym.agents.llm.prompt import PromptBuilder
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.envs.shopping.session_sources import build_synthetic_log, resolve_sessions
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    shop = preset(cfg.size)
    log_dir = build_synthetic_log(
        root / "sessions", config=SyntheticShopperConfig(sessions=120, seed=5)
    ).path
    if cfg.model:
        model = cfg.model
    else:
        log, train = resolve_sessions(log_dir, "train")
        model = str(create_default_model(root / "model", log, train, shop.default_model))
    builder = PromptBuilder(load_tokenizer(model), shop.prompt)
    kwargs = {**builder.env_kwargs(), "element_ids": shop.prompt.element_ids}
    rows = step_rows(builder, data=log_dir, split="test", env_kwargs=kwargs, progress=False)
    return model, rows[: cfg.steps]


def generation(cfg: Config, model: str, rows: list[Any]) -> dict[str, dict[str, float]]:
    """CPU seconds per generated token, parse rate and mask seconds, free vs constrained."""
    from rewardgym.agents.llm.constrained import GrammarMask
    from rewardgym.agents.llm.dataset import row_actions
    from rewardgym.agents.llm.policy import LLMPolicy
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.envs.shopping.parsing import parse_output

    shop = preset(cfg.size)
    sampling = SamplingConfig(temperature=0.0, max_new_tokens=cfg.max_new_tokens, batch_size=32)
    masked = {"seconds": 0.0}
    original = GrammarMask.__call__

    def timed(self: GrammarMask, input_ids: Any, scores: Any) -> Any:
        start = _cpu()
        try:
            return original(self, input_ids, scores)
        finally:
            masked["seconds"] += _cpu() - start

    def count_pass(*_: Any) -> None:
        masked["passes"] += 1

    GrammarMask.__call__ = timed  # type: ignore[method-assign]
    out: dict[str, dict[str, float]] = {}
    for decoding in ("free", "constrained"):
        policy = LLMPolicy.from_path(model, shop.prompt, replace(sampling, decoding=decoding))
        warm = row_actions(rows[:1]) if decoding == "constrained" else None
        policy.complete([rows[0].prompt], warm)  # the grammar's tokenizer wrap, torch's first calls
        masked["seconds"] = 0.0
        masked["passes"] = 0
        hook = policy.model.register_forward_hook(count_pass)
        start = _cpu()
        actions = row_actions(rows) if decoding == "constrained" else None
        ids, texts, _ = policy._sample([r.prompt for r in rows], None, actions)
        seconds = _cpu() - start
        hook.remove()
        steps = masked["passes"]
        tokens = sum(len(i) for i in ids)
        out[decoding] = {
            "tokens": float(tokens),
            "steps": steps,
            "cpu_s": seconds,
            "ms_per_token": 1000 * seconds / max(tokens, 1),
            "ms_per_step": 1000 * seconds / max(steps, 1),
            "parsed": float(np.mean([parse_output(t).has_valid_format for t in texts])),
            "mask_ms_per_token": 1000 * masked["seconds"] / max(tokens, 1),
        }
    GrammarMask.__call__ = original  # type: ignore[method-assign]
    return out


def _xgrammar_ebnf(actions: PageActions, rationale_chars: int, text_chars: int) -> str:
    """The same grammar in xgrammar's EBNF, free text bounded by characters (it has no token bound)."""
    free = '[^"\\\\\\x00-\\x1f]'

    def lit(text: str) -> str:
        return json.dumps(text, ensure_ascii=True)

    choices = ['"{\\"type\\": \\"terminate\\"}"']
    choices += [lit('{"type": "click", "name": ' + json.dumps(n) + "}") for n in actions.clickable]
    choices += [
        lit('{"type": "type_and_submit", "name": ' + json.dumps(n) + ', "text": "')
        + f" {free}{{0,{text_chars}}} "
        + lit('"}')
        for n in actions.inputs
    ]
    return (
        f'root ::= "{{\\"rationale\\": \\"" {free}{{0,{rationale_chars}}} '
        f'"\\", \\"action\\": " action "}}"\naction ::= ' + " | ".join(choices) + "\n"
    )


def masks_alone(cfg: Config, model: str, rows: list[Any]) -> dict[str, dict[str, float]]:
    """Grammar set-up and per-token mask CPU time of llguidance and xgrammar on gold completions."""
    import llguidance
    from llguidance.numpy import allocate_token_bitmask, fill_next_token_bitmask

    from rewardgym.agents.llm.constrained import ActionGrammar, action_grammar
    from rewardgym.agents.llm.model import load_tokenizer

    tokenizer = load_tokenizer(model)
    grammar = ActionGrammar(tokenizer, [tokenizer.eos_token_id])
    gold = [tokenizer(r.completion, add_special_tokens=False)["input_ids"] for r in rows]
    out: dict[str, dict[str, float]] = {}
    setup = fills = 0.0
    tokens = 0
    mask = allocate_token_bitmask(1, grammar.vocab)
    for row, ids in zip(rows, gold, strict=True):
        start = _cpu()
        lark = action_grammar(row.actions, 10_000, 10_000)
        matcher = llguidance.LLMatcher(grammar._ll, llguidance.LLMatcher.grammar_from_lark(lark))
        setup += _cpu() - start
        for token in ids:
            start = _cpu()
            fill_next_token_bitmask(matcher, mask)
            fills += _cpu() - start
            matcher.consume_token(token)
            tokens += 1
    out["llguidance"] = {
        "setup_ms_per_grammar": 1000 * setup / len(rows),
        "mask_ms_per_token": 1000 * fills / tokens,
    }
    if not cfg.xgrammar:
        return out
    try:
        import torch
        import xgrammar as xgr
    except ImportError:
        print("xgrammar is not installed (pip install xgrammar): its row is skipped")
        return out
    info = xgr.TokenizerInfo.from_huggingface(tokenizer, stop_token_ids=[tokenizer.eos_token_id])
    compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)
    bitmask = xgr.allocate_token_bitmask(1, info.vocab_size)
    setup = fills = 0.0
    for row, ids in zip(rows, gold, strict=True):
        start = _cpu()
        compiled = compiler.compile_grammar(_xgrammar_ebnf(row.actions, 400, 100))
        walker = xgr.GrammarMatcher(compiled)
        setup += _cpu() - start
        for token in ids:
            start = _cpu()
            walker.fill_next_token_bitmask(bitmask)
            fills += _cpu() - start
            walker.accept_token(token)
    del torch
    out["xgrammar"] = {
        "setup_ms_per_grammar": 1000 * setup / len(rows),
        "mask_ms_per_token": 1000 * fills / tokens,
    }
    return out


def main(cfg: Config) -> dict[str, Any]:
    """Run both measurements in one process and print their tables."""
    import torch

    torch.set_num_threads(cfg.threads)
    with tempfile.TemporaryDirectory() as tmp:
        model, rows = _steps(cfg, Path(tmp))
        gen = generation(cfg, model, rows)
        masks = masks_alone(cfg, model, rows)
    free, constrained = gen["free"], gen["constrained"]
    print(f"{len(rows)} test steps, greedy, max_new_tokens {cfg.max_new_tokens}, {cfg.size} model")
    print(
        "| decoding | tokens | batch steps | CPU ms / batch step | CPU ms / token "
        "| mask ms / token | parsed |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, row in gen.items():
        print(
            f"| {name} | {row['tokens']:.0f} | {row['steps']:.0f} | {row['ms_per_step']:.2f} | "
            f"{row['ms_per_token']:.2f} | {row['mask_ms_per_token']:.3f} | {row['parsed']:.3f} |"
        )
    ratio = constrained["ms_per_step"] / free["ms_per_step"]
    print(
        f"constrained / free CPU per token: {ratio:.2f}x (per batch step: one token per open row)"
    )
    print("| mask library | set-up ms / grammar | mask ms / token |")
    print("|---|---|---|")
    for name, row in masks.items():
        print(f"| {name} | {row['setup_ms_per_grammar']:.2f} | {row['mask_ms_per_token']:.3f} |")
    return {"generation": gen, "masks": masks, "ratio": ratio}


if __name__ == "__main__":
    main(tyro.cli(Config))
