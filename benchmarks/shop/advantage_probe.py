"""What GRPO's advantages reward under each Shop-R1 reward variant, on real samples, per action type.

What it measures. GRPO (TRL's default ``scale_rewards="group"``) trains on the advantages
``(r - mean_group) / std_group`` of ``G`` completions sampled for one prompt. This probe samples
``G`` completions per training prompt from a model (typically the SFT cold start), recording
each rationale's self-certainty from the sampling forward passes, scores them with the pure
Shop-R1 reward under several configs, and reports per config and per action type of the human's
step (click, type_and_submit):

* ``groups_with_signal``: share of groups whose rewards differ at all (no spread, no gradient);
* ``best_is_exact``: how often the highest-advantage completion is an exact match;
* ``corr_with_binary``: mean Pearson correlation, within groups, of the variant's advantages
  with the binary exact-match reward's. Correlation is invariant to any affine map of one
  group, so group normalisation neither causes nor hides it: a value near 1 says the variant
  orders a group's completions as exact match does, i.e. it teaches what binary RL teaches;
* ``term_share``: the share of the group's reward variance carried by each term (format,
  rationale, type, attribute, value), averaged over groups with signal. It shows whether the
  DARS-scaled ROUGE terms leave any room for the type and format terms.

Why the correlation is near 1 on clicks of the synthetic corpus: click names have 1-3 ROUGE
tokens in almost every click step, so a thresholded ROUGE-L >= 0.75 holds exactly when the name
matches, and ``v(a) = 1000 x exact + O(1)``; typed queries and long names do get partial credit,
so type_and_submit groups correlate less.

Run: ``python -m rewardgym.benchmarks.shop.advantage_probe MODEL_PATH [--prompts 40]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import numpy as np
import tyro

from rewardgym.bounds import AT_LEAST_1, Range, check_fields
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers.self_certainty import CertaintyKind
from rewardgym.wrappers.shop_r1 import RewardTerms, ShopR1Config, reward_config, shop_r1_reward

VARIANTS = {
    "full (DARS 1000)": reward_config("full"),
    "full, Kang certainty": reward_config("kang"),
    "DARS 10": ShopR1Config(dars=10.0),
    "no-dars": reward_config("no-dars"),
    "binary-action": reward_config("binary-action"),
    "binary baseline": reward_config("binary"),
}
PROBE_TERMS = RewardTerms.SUMMED
PROBE_TYPES = ("click", "type_and_submit")


def group_advantages(rewards: np.ndarray) -> tuple[np.ndarray, bool]:
    """GRPO's group-scaled advantages of one group (TRL's ``+1e-4``), and whether it has spread."""
    spread = float(rewards.std())
    return (rewards - rewards.mean()) / (spread + 1e-4), spread > 1e-9


def _summary(
    groups: Sequence[dict[str, np.ndarray]], exact: Sequence[np.ndarray]
) -> dict[str, float]:
    advantages = [group_advantages(g["total"]) for g in groups]
    live = [i for i, (_, spread) in enumerate(advantages) if spread]
    both = [i for i in live if group_advantages(exact[i])[1]]
    nan = float("nan")
    row = {
        "groups": float(len(groups)),
        "mean_reward": float(np.mean([g["total"].mean() for g in groups])) if groups else nan,
        "groups_with_signal": 100.0 * len(live) / len(groups) if groups else nan,
        "best_is_exact": 100.0
        * float(np.mean([exact[i][np.argmax(advantages[i][0])] for i in live]))
        if live
        else nan,
        "corr_with_binary": float(
            np.mean(
                [np.corrcoef(advantages[i][0], group_advantages(exact[i])[0])[0, 1] for i in both]
            )
        )
        if both
        else nan,
    }
    for term in PROBE_TERMS:
        shares = [
            float(groups[i][term].var() / groups[i]["total"].var())
            for i in live
            if groups[i]["total"].var() > 0
        ]
        row[f"term_share_{term}"] = float(np.mean(shares)) if shares else nan
    return row


def score_groups(
    texts: Sequence[Sequence[str]],
    truths: Sequence[ShopAction],
    certainty: Sequence[Sequence[np.ndarray | None]] | None = None,
    variants: Mapping[str, ShopR1Config] = VARIANTS,
) -> dict[str, dict[str, dict[str, float]]]:
    """``report[variant][type]`` for groups of completions ``texts[k]`` of the steps ``truths[k]``.

    ``certainty[k][j]`` holds the per-token self-certainty of completion ``j``'s rationale, of the
    kind the ``variants`` pay (score Eq. 3 and Kang variants in separate calls); None leaves the
    rationale term at 0.
    """
    report: dict[str, dict[str, dict[str, float]]] = {}
    binary = reward_config("binary")
    for name, config in variants.items():
        by_type: dict[str, list[dict[str, np.ndarray]]] = {t: [] for t in PROBE_TYPES}
        exact: dict[str, list[np.ndarray]] = {t: [] for t in PROBE_TYPES}
        for k, (group, truth) in enumerate(zip(texts, truths, strict=True)):
            if truth.type not in by_type:
                continue
            values = certainty[k] if certainty is not None else [None] * len(group)
            terms = [
                shop_r1_reward(t, truth, None, config, rationale_token_certainty=v).to_info()
                for t, v in zip(group, values, strict=True)
            ]
            by_type[truth.type].append(
                {key: np.array([t[key] for t in terms]) for key in (*PROBE_TERMS, "total")}
            )
            exact[truth.type].append(
                np.array([shop_r1_reward(t, truth, None, binary).total for t in group])
            )
        report[name] = {t: _summary(by_type[t], exact[t]) for t in PROBE_TYPES}
    return report


def probe(
    model: Path, prompts: int, group: int, seed: int = 0
) -> dict[str, dict[str, dict[str, float]]]:
    """Sample ``group`` completions (with self-certainty) for ``prompts`` training steps; score them."""
    import torch

    from rewardgym.agents.llm.dataset import sample_rows, step_rows
    from rewardgym.agents.llm.generation import generate, rationale_positions
    from rewardgym.agents.llm.model import load_model
    from rewardgym.agents.llm.policy import generation_config
    from rewardgym.agents.llm.prompt import PromptBuilder
    from rewardgym.benchmarks.shop.config import preset

    cfg = preset("quick")
    policy, tokenizer = load_model(model)
    builder = PromptBuilder(tokenizer, cfg.prompt)
    rows = step_rows(builder, env_kwargs=builder.env_kwargs(), max_sessions=200, progress=False)
    config = generation_config(tokenizer, cfg.grpo.temperature, 1.0, cfg.grpo.max_completion_tokens)
    torch.manual_seed(seed)
    chosen = [r for r in sample_rows(rows, prompts, seed) if r.truth is not None]
    texts: list[list[str]] = []
    truths: list[ShopAction] = []
    certainty: dict[str, list[list[np.ndarray | None]]] = {"paper": [], "kang": []}
    for row in chosen:
        ids = tokenizer([row.prompt] * group, add_special_tokens=False)["input_ids"]
        per_kind = {}
        kinds: tuple[CertaintyKind, ...] = ("paper", "kang")
        for kind in kinds:
            torch.manual_seed(seed + len(texts))  # the same samples for both kinds
            per_kind[kind] = generate(policy, tokenizer, ids, config, certainty=kind)
        result = per_kind["paper"]
        decoded = tokenizer.batch_decode(result.completion_ids, skip_special_tokens=True)
        texts.append(decoded)
        assert row.truth is not None
        truths.append(row.truth)
        for kind, generated in per_kind.items():
            assert generated.certainty is not None
            values = []
            for c, text, v in zip(
                generated.completion_ids, decoded, generated.certainty, strict=True
            ):
                positions = rationale_positions(tokenizer, c, text)
                values.append(v[positions[positions < len(v)]])
            certainty[kind].append(values)
    paper = {k: v for k, v in VARIANTS.items() if v.self_certainty_kind == "paper"}
    kang = {k: v for k, v in VARIANTS.items() if v.self_certainty_kind == "kang"}
    report = score_groups(texts, truths, certainty["paper"], paper)
    report.update(score_groups(texts, truths, certainty["kang"], kang))
    return report


@dataclass(frozen=True)
class Config:
    """The model probed and how many groups of samples it draws."""

    model: tyro.conf.Positional[Path]
    """Local causal-LM folder (an SFT model of the shop suite, say)."""
    prompts: Annotated[int, AT_LEAST_1] = 40
    """Training prompts, one group of samples each."""
    group: Annotated[int, Range(ge=2)] = 8
    """Samples per prompt (GRPO's group size)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def main() -> None:
    """Parse arguments, run the probe and print one line per reward variant and action type."""
    args = tyro.cli(Config, description=__doc__)
    report = probe(args.model, args.prompts, args.group)
    print(f"{args.prompts} training prompts x {args.group} samples from {args.model}")
    for name, by_type in report.items():
        for kind, r in by_type.items():
            shares = " ".join(f"{t[:4]} {r[f'term_share_{t}']:.2f}" for t in PROBE_TERMS)
            print(
                f"  {name:22s} {kind:15s} groups {int(r['groups']):3d}  signal "
                f"{r['groups_with_signal']:5.1f}%  best exact {r['best_is_exact']:5.1f}%  "
                f"corr(binary) {r['corr_with_binary']:.2f}  variance share: {shares}"
            )


if __name__ == "__main__":
    main()


__all__ = [
    "PROBE_TERMS",
    "PROBE_TYPES",
    "VARIANTS",
    "group_advantages",
    "main",
    "probe",
    "score_groups",
]
