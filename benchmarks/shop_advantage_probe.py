"""What GRPO actually sees of each Shop-R1 reward variant: group-normalised advantages on real samples.

GRPO (TRL's default ``scale_rewards="group"``) trains on ``(r - mean_group) / std_group``, so
a reward's scale is divided away within each group of completions. This probe samples ``G``
completions per training prompt from a model (typically the SFT cold start), scores them with
the pure Shop-R1 reward under several configs (full, no-DARS, binary action, a small DARS, the
binary baseline), and prints per config: the mean raw reward, the share of groups with any
reward spread (no spread = no gradient), how often the highest-advantage completion is an exact
match, and the mean correlation of its advantages with the binary baseline's. A correlation
near 1 means the variant teaches the same thing as binary exact-match RL.

Run: ``python -m rewardgym.benchmarks.shop_advantage_probe MODEL_PATH [--prompts 40]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from rewardgym.agents.llm.dataset import sample_rows, step_rows
from rewardgym.agents.llm.prompt import PromptBuilder, env_kwargs
from rewardgym.benchmarks.shop_config import preset
from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.wrappers import ShopR1Config
from rewardgym.wrappers.shop_r1 import shop_r1_reward

VARIANTS = {
    "full (DARS 1000)": ShopR1Config(),
    "DARS 10": ShopR1Config(dars=10.0),
    "no-dars": ShopR1Config.ablation("no-dars"),
    "binary-action": ShopR1Config.ablation("binary-action"),
    "binary baseline": ShopR1Config.binary_baseline(),
}


def group_advantages(rewards: np.ndarray) -> tuple[np.ndarray, bool]:
    """GRPO's group-scaled advantages of one group, and whether the group has any spread."""
    spread = float(rewards.std())
    return (rewards - rewards.mean()) / (spread + 1e-4), spread > 1e-9


def probe(model: Path, prompts: int, group: int, seed: int = 0) -> dict[str, dict[str, float]]:
    """Sample ``group`` completions for ``prompts`` training steps and summarise each variant."""
    import torch

    from rewardgym.agents.llm.generation import generate
    from rewardgym.agents.llm.model import load_model
    from rewardgym.agents.llm.policy import generation_config

    cfg = preset("quick")
    policy, tokenizer = load_model(model)
    builder = PromptBuilder(tokenizer, cfg.prompt)
    rows = step_rows(builder, env_kwargs=env_kwargs(cfg.prompt), max_sessions=200, progress=False)
    config = generation_config(tokenizer, cfg.grpo.temperature, 1.0, cfg.grpo.max_completion_tokens)
    torch.manual_seed(seed)
    scores: dict[str, list[np.ndarray]] = {name: [] for name in VARIANTS}
    for row in sample_rows(rows, prompts, seed):
        ids = tokenizer([row.prompt] * group, add_special_tokens=False)["input_ids"]
        result = generate(policy, tokenizer, ids, config)
        texts = tokenizer.batch_decode(result.completion_ids, skip_special_tokens=True)
        truth = parse_output(row.completion).action
        assert truth is not None
        for name, variant in VARIANTS.items():
            scores[name].append(
                np.array([shop_r1_reward(t, truth, None, variant).total for t in texts])
            )
    exact = scores["binary baseline"]
    report = {}
    for name, groups in scores.items():
        advantages = [group_advantages(g) for g in groups]
        live = [i for i, (_, spread) in enumerate(advantages) if spread]
        both = [i for i in live if group_advantages(exact[i])[1]]
        report[name] = {
            "mean_reward": float(np.mean([g.mean() for g in groups])),
            "groups_with_signal": 100.0 * len(live) / len(groups),
            "best_is_exact": 100.0
            * float(np.mean([exact[i][np.argmax(advantages[i][0])] for i in live]))
            if live
            else float("nan"),
            "corr_with_binary": float(
                np.mean(
                    [
                        np.corrcoef(advantages[i][0], group_advantages(exact[i])[0])[0, 1]
                        for i in both
                    ]
                )
            )
            if both
            else float("nan"),
        }
    report["samples"] = {"exact_match": 100.0 * float(np.mean(np.concatenate(exact)))}
    return report


def main() -> None:
    """Parse arguments, run the probe and print one line per reward variant."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--prompts", type=int, default=40)
    parser.add_argument("--group", type=int, default=8)
    args = parser.parse_args()
    report = probe(args.model, args.prompts, args.group)
    samples = report.pop("samples")
    print(f"{args.prompts} training prompts x {args.group} samples from {args.model}")
    print(f"exact match of the samples: {samples['exact_match']:.1f}%")
    for name, r in report.items():
        print(
            f"  {name:18s} mean reward {r['mean_reward']:9.3f}  groups with signal "
            f"{r['groups_with_signal']:5.1f}%  best-advantage sample exact {r['best_is_exact']:5.1f}%"
            f"  corr(advantages, binary's) {r['corr_with_binary']:.2f}"
        )


if __name__ == "__main__":
    main()


__all__ = ["VARIANTS", "group_advantages", "main", "probe"]
