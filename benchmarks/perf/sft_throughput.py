"""SFT examples per second on the quick preset's default model: the old trainer settings vs the new.

One run trains the same model (the quick preset's ``default_model``, tokenizer trained on the
suite's training sessions as ``bench shop`` does) on the same examples (the suite's own SFT rows,
read through :class:`~rewardgym.benchmarks.shop.data.SuiteData` and sampled with
:func:`~rewardgym.agents.llm.dataset.sample_rows`) through :func:`~rewardgym.agents.llm.sft.train_sft`
once per arm and round, alternating the arms (A/B/A/B) so that a busy machine slows each alike:

* ``old``: the settings before issue 21 (TRL's gradient checkpointing on, bf16 autocast, TRL's
  LM head scoring every position on a CPU);
* ``old-no-ckpt``: ``old`` without gradient checkpointing;
* ``new``: :class:`~rewardgym.agents.llm.config.SFTRunConfig`'s defaults for the default model
  (no gradient checkpointing, the LM head on the completion's positions only, bf16 as chosen
  by this measurement);
* ``fp32``, ``bf16``, ``bucketed``: the new settings in fp32, in bf16, and with length-grouped
  batches (transformers' ``group_by_length`` sampler), to decide those defaults.

Every arm keeps the quick preset's learning settings (batch, rate, schedule). Prints each arm's
examples per second (summed over its rounds: examples / seconds of ``trainer.train()``) and the
ratio new / old. Run it on one thread (``OMP_NUM_THREADS=1``), as the suite trains:
``OMP_NUM_THREADS=1 python -m rewardgym.benchmarks.perf.sft_throughput --examples 160 --rounds 2``
(the measurement in ``docs/llm_agents.md``); the defaults are a seconds-long smoke run.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Annotated, Literal

import tyro

from rewardgym.agents.llm.config import SFTRunConfig
from rewardgym.benchmarks.shop.config import preset
from rewardgym.bounds import AT_LEAST_1, check_fields

Arm = Literal["old", "old-no-ckpt", "new", "fp32", "bf16", "bucketed"]


def arm_config(arm: Arm, base: SFTRunConfig) -> SFTRunConfig:
    """The SFT config of ``arm`` (module docstring) on top of the preset's ``base``."""
    changes: dict[str, dict[str, object]] = {
        "old": {
            "gradient_checkpointing": True,
            "bf16": True,
            "label_positions_only": False,
            "group_by_length": False,
        },
        "old-no-ckpt": {
            "gradient_checkpointing": False,
            "bf16": True,
            "label_positions_only": False,
            "group_by_length": False,
        },
        "new": {},
        "fp32": {"bf16": False},
        "bf16": {"bf16": True},
        "bucketed": {"group_by_length": True},
    }
    return dataclasses.replace(base, **changes[arm])  # type: ignore[arg-type]


def run(
    arms: tuple[Arm, ...], examples: int, rounds: int, sessions: int
) -> dict[Arm, dict[str, float]]:
    """Train every arm ``rounds`` times on the same ``examples`` rows; return seconds and rates."""
    from rewardgym.agents.llm.dataset import sample_rows, to_dataset
    from rewardgym.agents.llm.model import create_default_model, load_tokenizer
    from rewardgym.agents.llm.sft import train_sft
    from rewardgym.benchmarks.shop.data import SuiteData
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    cfg = preset("quick")
    data = SuiteData(
        None,
        validation_fraction=cfg.validation_fraction,
        train_sessions=cfg.train_sessions,
        progress=False,
    )
    totals = {arm: {"seconds": 0.0, "examples": 0.0} for arm in arms}
    with TemporaryDirectory() as tmp:
        log, train = resolve_sessions(None, "train")
        held = set(data.positions("validation"))
        model = create_default_model(
            Path(tmp) / "base",
            log,
            [s for k, s in enumerate(train) if k not in held],
            cfg.default_model,
        )
        rows = data.rows(model, load_tokenizer(model), cfg.prompt, "train", sessions)
        dataset = to_dataset(sample_rows(rows, examples, 0))
        max_length = cfg.prompt.max_prompt_tokens + cfg.sampling.max_new_tokens
        for r in range(rounds):
            # Rotating the order spreads any drift in the machine's load over every arm.
            for arm in arms[r % len(arms) :] + arms[: r % len(arms)]:
                config = dataclasses.replace(arm_config(arm, cfg.sft), max_examples=None)
                result = train_sft(
                    model,
                    dataset,
                    Path(tmp) / f"{arm}-{r}",
                    config,
                    max_length=max_length,
                    progress=False,
                    run=f"perf arm {arm!r}",
                )
                done = len(dataset) * config.epochs
                totals[arm]["seconds"] += result.seconds
                totals[arm]["examples"] += done
                print(f"round {r + 1}/{rounds} {arm}: {done / result.seconds:.2f} examples/s")
    return {
        arm: {**t, "examples_per_s": t["examples"] / t["seconds"] if t["seconds"] else 0.0}
        for arm, t in totals.items()
    }


@dataclass(frozen=True)
class Config:
    """Which arms to alternate, on how many examples, for how many rounds."""

    arms: tuple[Arm, ...] = ("old", "new")
    """Arms to train (module docstring); the ratio needs old and new."""
    examples: Annotated[int, AT_LEAST_1] = 16
    """SFT examples each arm trains on per round (the real measurement: 160)."""
    rounds: Annotated[int, AT_LEAST_1] = 1
    """Alternating rounds (each arm trains once per round; the real measurement: 2)."""
    sessions: Annotated[int, AT_LEAST_1] = 40
    """Training sessions read into rows before the examples are sampled from them."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def main() -> None:
    """Parse arguments, train the arms and print examples per second and the ratio."""
    args = tyro.cli(Config, description=__doc__)
    start = time.perf_counter()
    report = run(args.arms, args.examples, args.rounds, args.sessions)
    print(
        f"\nSFT throughput, quick default model, {args.examples} examples x {args.rounds} "
        f"rounds ({time.perf_counter() - start:.0f} s in all):"
    )
    for arm, r in report.items():
        print(f"  {arm:11s} {r['examples_per_s']:.2f} examples/s ({r['seconds']:.1f} s)")
    if "old" in report and "new" in report and report["old"]["examples_per_s"]:
        ratio = report["new"]["examples_per_s"] / report["old"]["examples_per_s"]
        print(f"  ratio new/old {ratio:.2f}x")


if __name__ == "__main__":
    main()


__all__ = ["Arm", "Config", "arm_config", "main", "run"]
