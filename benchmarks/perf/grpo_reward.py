"""GRPO step time with our reward path (env + wrapper stepping, self-certainty) vs a trivial reward.

One run, three arms on the same model, data and TRL settings, alternated in rounds so that a
busy machine slows each arm alike:

* ``trivial``: TRL's own generation and a reward function returning 0.0 (the floor);
* ``env+shop-r1``: our path: a ``rollout_func`` that records the policy's self-certainty while
  sampling, and :class:`~rewardgym.agents.llm.rewards.EnvReward` stepping ``ShopSession-v0``
  wrapped in ``ShopR1Reward`` for every completion;
* ``env+shop-r1 (forward)``: the same reward, with self-certainty from one extra no-grad
  forward pass (the vLLM fallback) instead of the rollout's logits.

The learning rate is 0, so every arm samples from the same policy and the comparison measures
overhead only. Prints steps/s, the share of each step spent in env stepping and reward scoring,
and each arm's overhead over ``trivial`` (target: at most 10%).

Run: ``python -m rewardgym.benchmarks.perf.grpo_reward [--model PATH] [--rounds 3 --steps 6]``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Annotated, Any, Literal

import numpy as np
import tyro

from rewardgym.agents.llm.dataset import sample_rows, step_rows, to_dataset
from rewardgym.agents.llm.prompt import PromptBuilder, env_kwargs
from rewardgym.benchmarks.shop.config import PresetName, preset
from rewardgym.bounds import AT_LEAST_1, Range, check_fields


def trivial_reward(completions: list[Any], **kwargs: Any) -> list[float]:
    """The cheapest possible reward function: 0.0 for every completion."""
    return [0.0] * len(completions)


def _trainer(
    model: Path, dataset: Any, out: Path, arm: str, steps: int, seed: int, cfg: Any
) -> Any:
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from rewardgym.agents.llm.callbacks import CompactProgress, quiet
    from rewardgym.agents.llm.dataset import make_env
    from rewardgym.agents.llm.grpo import make_rollout
    from rewardgym.agents.llm.model import load_tokenizer
    from rewardgym.agents.llm.rewards import EnvReward
    from rewardgym.wrappers import ShopR1Reward

    tokenizer = load_tokenizer(model)
    args = GRPOConfig(
        output_dir=str(out),
        max_steps=steps,
        learning_rate=0.0,
        beta=cfg.grpo.beta,
        num_generations=cfg.grpo.num_generations,
        per_device_train_batch_size=cfg.grpo.prompts_per_step * cfg.grpo.num_generations,
        max_completion_length=cfg.grpo.max_completion_tokens,
        temperature=cfg.grpo.temperature,
        loss_type="grpo",
        save_strategy="no",
        logging_steps=1,
        report_to="none",
        seed=seed,
        use_cpu=not torch.cuda.is_available(),
        disable_tqdm=True,
    )
    reward: Any = trivial_reward
    rollout = None
    if arm != "trivial":
        env = ShopR1Reward(make_env(None, "train", env_kwargs(cfg.prompt)))
        reward = EnvReward(env)
        rollout = make_rollout("paper") if arm == "env+shop-r1" else None
    trainer = GRPOTrainer(
        model=str(model),
        reward_funcs=[reward],  # the trivial function or an EnvReward
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        rollout_func=rollout,
    )
    quiet(trainer, CompactProgress(arm, enabled=False))
    if isinstance(reward, EnvReward):
        policy: Any = trainer.model
        reward.bind_model(policy, tokenizer)
    return trainer, reward


def run(
    model: Path | None, rounds: int, steps: int, size: PresetName = "quick"
) -> dict[str, dict[str, float]]:
    """Alternate the three arms for ``rounds`` rounds of ``steps`` steps; return their figures."""
    import os

    from rewardgym.agents.llm.model import create_default_model, load_tokenizer, offline
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    offline()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    cfg = preset(size)
    arms = ("trivial", "env+shop-r1", "env+shop-r1 (forward)")
    totals = {arm: {"seconds": 0.0, "steps": 0.0, "reward_seconds": 0.0} for arm in arms}
    with TemporaryDirectory() as tmp:
        if model is None:
            log, train = resolve_sessions(None, "train")
            model = create_default_model(Path(tmp) / "base", log, train, cfg.default_model)
        tokenizer = load_tokenizer(model)
        rows = step_rows(
            PromptBuilder(tokenizer, cfg.prompt),
            split="train",
            env_kwargs=env_kwargs(cfg.prompt),
            max_sessions=200,
            progress=False,
        )
        dataset = to_dataset(sample_rows(rows, 256, 0)).remove_columns(["completion"])
        for r in range(rounds):
            # Rotating the order spreads any drift in the machine's load over every arm.
            for arm in arms[r % 3 :] + arms[: r % 3]:
                trainer, reward = _trainer(
                    model, dataset, Path(tmp) / arm, arm, steps, seed=r, cfg=cfg
                )
                trainer.train()
                times = [
                    float(h["step_time"]) for h in trainer.state.log_history if "step_time" in h
                ]
                kept = times[1:] if len(times) > 1 else times  # the first step warms caches up
                totals[arm]["seconds"] += float(np.sum(kept))
                totals[arm]["steps"] += len(kept)
                if arm != "trivial":
                    totals[arm]["reward_seconds"] += float(np.sum(reward.durations[-len(kept) :]))
                print(f"round {r + 1}/{rounds} {arm}: {np.mean(kept):.3f} s/step")
    base = totals["trivial"]["seconds"] / max(totals["trivial"]["steps"], 1)
    report = {}
    for arm, t in totals.items():
        per_step = t["seconds"] / max(t["steps"], 1)
        report[arm] = {
            "s_per_step": per_step,
            "steps_per_s": 1.0 / per_step if per_step else float("nan"),
            "reward_share": t["reward_seconds"] / t["seconds"] if t["seconds"] else 0.0,
            "overhead": per_step / base - 1.0,
        }
    return report


@dataclass(frozen=True)
class Config:
    """The model and how many alternating rounds of GRPO steps each arm runs."""

    model: Path | None = None
    """Local causal-LM folder (default: a fresh small model)."""
    rounds: Annotated[int, AT_LEAST_1] = 3
    """Alternating rounds (each arm runs once per round, so all see the same load)."""
    steps: Annotated[int, Range(ge=2)] = 6
    """GRPO steps per arm and round (the first is a warm-up and not timed)."""
    size: Literal["quick", "tiny"] = "quick"
    """Shop preset whose shapes (model, prompt, GRPO batch) are timed: quick is the figure to
    read; tiny is the smoke test's (the quick model's GRPO step takes tens of CPU seconds)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def main() -> None:
    """Parse arguments, run the arms and print one line per arm."""
    args = tyro.cli(Config, description=__doc__)
    start = time.perf_counter()
    report = run(args.model, args.rounds, args.steps, args.size)
    print(
        f"\nGRPO step time, {args.size}-preset shapes ({time.perf_counter() - start:.0f} s in all):"
    )
    for arm, r in report.items():
        print(
            f"  {arm:24s} {r['s_per_step']:.3f} s/step  {r['steps_per_s']:.2f} steps/s  "
            f"env+reward {100 * r['reward_share']:.1f}% of the step  "
            f"overhead vs trivial {100 * r['overhead']:+.1f}%"
        )


if __name__ == "__main__":
    main()


__all__ = ["Config", "main", "run", "trivial_reward"]
