"""Evaluate an embodied policy in the household simulators: SR, CGC, Plan and per-action latency.

``evaluate_household`` plays every requested split: held-out ``fine`` and ``abstract``
instructions in the default layout, the same in the ``shifted`` layout, and ``validation``
(training instructions on episodes, that is placements and start rooms, drawn from seeds no
data set uses), all episodes of a split in lock-step so that the policy sees one batch per
step. On ``rewardgym/VirtualHome-v0`` the splits are its held-out test programs under the
human's description (``fine``) or the task title (``abstract``), and ``validation`` its
validation programs under their descriptions (:data:`VIRTUALHOME_SPLITS`). Each episode is scored with the pure metrics of ``rewardgym.envs.household.engine.metrics``
against the expert's reference plan from the episode's first state; per-episode scores are
kept so that a benchmark can put intervals over seeds and episodes. ``measure_latency`` times
single decisions, the setting of an agent that acts live.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol

import gymnasium as gym
import numpy as np

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, between, check_fields
from rewardgym.envs import HOUSEHOLD_ID, HOUSEHOLD_V0_ID, VIRTUALHOME_ID
from rewardgym.envs.household.engine.metrics import EpisodeScore, score_episode, summarize
from rewardgym.errors import UserError

SPLITS: dict[str, tuple[str, str]] = {
    "validation": ("train", "default"),
    "fine": ("fine", "default"),
    "abstract": ("abstract", "default"),
    "shifted-fine": ("fine", "shifted"),
    "shifted-abstract": ("abstract", "shifted"),
}
"""Evaluation split -> (instruction split, layout)."""
TEST_SPLITS: tuple[str, ...] = ("fine", "abstract", "shifted-fine", "shifted-abstract")
"""The held-out splits, read only for the final tables."""
VIRTUALHOME_SPLITS: dict[str, tuple[str, str]] = {
    "validation": ("validation", "fine"),
    "fine": ("test", "fine"),
    "abstract": ("test", "abstract"),
}
"""VirtualHome-v0's evaluation split -> (program split, instruction)."""
VIRTUALHOME_TEST_SPLITS: tuple[str, ...] = ("fine", "abstract")
"""VirtualHome-v0's held-out splits (one scene: no shifted layout)."""
ENV_IDS: tuple[str, ...] = (HOUSEHOLD_ID, HOUSEHOLD_V0_ID, VIRTUALHOME_ID)
"""The envs ``evaluate_household`` plays."""
_V0_KINDS = {"fine": "fine-grained", "abstract": "abstract", "train": "train"}
MAX_EPISODES_PER_INSTRUCTION = 100
"""Most episodes per instruction: a split's episodes are all played at once, in lock-step."""


class BatchPolicy(Protocol):
    """Anything that picks one action per observation, given each episode's instruction."""

    def act_batch(
        self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]
    ) -> np.ndarray:
        """One action id per observation."""
        ...


@dataclass(frozen=True)
class EvalConfig:
    """Which episodes to play (COREN: 25 tasks x 5 held-out instructions per kind)."""

    env_id: str = HOUSEHOLD_ID
    """The env: rewardgym/Household-v1 (or -v0), or rewardgym/VirtualHome-v0."""
    splits: tuple[str, ...] = TEST_SPLITS
    """Splits to play: "validation", "fine", "abstract", "shifted-fine", "shifted-abstract"
    (VirtualHome-v0: "validation", "fine", "abstract")."""
    instructions_per_task: Annotated[int, between(1, 5)] = 5
    """Instructions per task and split (1..5; COREN uses all 5; VirtualHome-v0: programs per
    task category, each with its own instruction and initial graph)."""
    episodes_per_instruction: Annotated[int, between(1, MAX_EPISODES_PER_INSTRUCTION)] = 1
    """Episodes (placements and start rooms) per instruction (1..100; VirtualHome-v0: 1, its
    program fixes the first state)."""
    tasks: tuple[Annotated[int, NON_NEGATIVE], ...] | None = None
    """Task ids to play (all 25 when None; each one of the env's, e.g. 0..24)."""
    max_steps: Annotated[int, AT_LEAST_1] | None = None
    """Step limit of an episode (None: the env's own)."""
    seed: Annotated[int, SEED] = 0
    """Seed of the episodes' placements and start rooms."""

    def __post_init__(self) -> None:
        """Reject envs, splits and counts the simulator does not have."""
        check_fields(self)
        if self.env_id not in ENV_IDS:
            raise ValueError(
                f"EvalConfig.env_id={self.env_id!r}: use one of {ENV_IDS} (an id from a command "
                "line is never imported as code)"
            )
        table = env_splits(self.env_id)
        if not self.splits:
            raise ValueError(f"EvalConfig.splits is empty: name at least one of {tuple(table)}")
        for split in self.splits:
            if split not in table:
                raise ValueError(
                    f"EvalConfig.splits has {split!r}: {self.env_id} has {tuple(table)}"
                )
        if self.env_id == VIRTUALHOME_ID and self.episodes_per_instruction != 1:
            raise ValueError(
                f"EvalConfig.episodes_per_instruction={self.episodes_per_instruction}: a "
                f"{VIRTUALHOME_ID} episode is its program (the same first state at every seed), "
                "so repeats would count one episode several times; use 1 (more programs: "
                "--instructions-per-task)"
            )
        if self.tasks is not None and not self.tasks:
            raise ValueError("EvalConfig.tasks is empty: name task ids, or leave it unset for all")


def env_splits(env_id: str) -> dict[str, tuple[str, str]]:
    """The evaluation splits of ``env_id``: :data:`VIRTUALHOME_SPLITS` or :data:`SPLITS`."""
    return VIRTUALHOME_SPLITS if env_id == VIRTUALHOME_ID else SPLITS


def held_out_splits(env_id: str) -> tuple[str, ...]:
    """The held-out splits of ``env_id``, read only for the final tables."""
    return VIRTUALHOME_TEST_SPLITS if env_id == VIRTUALHOME_ID else TEST_SPLITS


@dataclass
class SplitResult:
    """The per-episode scores of one split."""

    split: str
    scores: list[EpisodeScore] = field(default_factory=list)
    actions: list[list[int]] = field(default_factory=list)
    tasks: list[int] = field(default_factory=list)
    identities: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def percent(self) -> dict[str, float]:
        """Mean SR, CGC and Plan in percent, the episode count ``n`` and two behaviour traces.

        ``steps`` is the mean episode length and ``repeats`` the percentage of actions equal to
        the action just before them (a policy stuck on one action shows up here).
        """
        summary = summarize(self.scores)
        pairs = sum(max(len(a) - 1, 0) for a in self.actions)
        repeats = sum(sum(x == y for x, y in itertools.pairwise(a)) for a in self.actions)
        return {
            "sr": 100.0 * summary["sr"],
            "cgc": 100.0 * summary["cgc"],
            "plan": 100.0 * summary["plan"],
            "n": summary["n"],
            "steps": float(np.mean([len(a) for a in self.actions])) if self.actions else 0.0,
            "repeats": 100.0 * repeats / pairs if pairs else 0.0,
        }

    def episodes(self) -> dict[str, list[Any]]:
        """Per-episode success (0/1), CGC and Plan as fractions, the task ids and identities."""
        return {
            "success": [float(s.success) for s in self.scores],
            "cgc": [s.cgc for s in self.scores],
            "plan": [s.plan for s in self.scores],
            "task": [float(t) for t in self.tasks],
            "episode": list(self.identities),
        }


def episode_identity(env: Any, seed: int, options: dict[str, Any], instruction: str) -> str:
    """What makes an episode this episode: layout, task, instruction, env seed, first state.

    ``layout/task/instruction index/seed/digest``, the digest (12 hex digits) covering the
    instruction's text and the options that rebuild the first state (start room, placements),
    so that two policies whose identities match were tested on the very same episode.
    """
    rebuild = env.replay_options() if hasattr(env, "replay_options") else {}
    text = json.dumps([instruction, rebuild], sort_keys=True, default=str)
    digest = hashlib.sha1(text.encode()).hexdigest()[:12]
    layout = getattr(env, "layout", "?")
    if "program" in options:
        return f"{layout}/program {options['program']}/{env.instruction_kind}/seed {seed}/{digest}"
    return (
        f"{layout}/task {options['task']}/instruction {options['instruction']}/seed {seed}/{digest}"
    )


def _make(config: EvalConfig, split: str) -> gym.Env[Any, Any]:
    if config.env_id == VIRTUALHOME_ID:
        programs, instruction = VIRTUALHOME_SPLITS[split]
        options: dict[str, Any] = {"split": programs, "instruction": instruction}
        if config.max_steps is not None:
            options["max_steps"] = config.max_steps
        return gym.make(VIRTUALHOME_ID, **options).unwrapped
    kind, layout = SPLITS[split]
    if config.env_id.endswith("-v0"):
        kind = _V0_KINDS[kind]
    kwargs: dict[str, Any] = {"layout": layout, "instructions": kind}
    if config.max_steps is not None:
        kwargs["max_steps"] = config.max_steps
    return gym.make(config.env_id, **kwargs).unwrapped


def checked_tasks(config: EvalConfig, split: str | None = None) -> tuple[int, ...]:
    """The task ids ``config`` plays (all of the env's when unset); ``UserError`` for one it lacks."""
    if config.env_id == VIRTUALHOME_ID:
        from rewardgym.envs.virtualhome.programs import task_names

        n_tasks = len(task_names())  # task categories: ids 0..25
    else:
        env = _make(config, split or config.splits[0])
        n_tasks = len(getattr(env, "task_ids", ()))
        env.close()
    if config.tasks is None:
        return tuple(range(n_tasks))
    unknown = [task for task in config.tasks if task >= n_tasks]
    if unknown:
        raise UserError(
            f"EvalConfig.tasks has {unknown[0]}: {config.env_id} has task ids 0..{n_tasks - 1}"
        )
    return config.tasks


def episode_starts(config: EvalConfig, split: str) -> list[tuple[int, dict[str, Any]]]:
    """The (seed, reset options) of every episode of one split: task, instruction, repeat.

    On VirtualHome-v0 an instruction is a program of the split (its options name it): the
    first ``instructions_per_task`` of each task category, in the split's order.
    """
    if config.env_id == VIRTUALHOME_ID:
        env = _make(config, split)
        try:
            return _program_starts(config, split, env)
        finally:
            env.close()
    tasks = checked_tasks(config, split)
    root = np.random.SeedSequence([config.seed, list(SPLITS).index(split), 7919])
    starts = []
    for task in tasks:
        for index in range(config.instructions_per_task):
            for repeat in range(config.episodes_per_instruction):
                seq = np.random.SeedSequence(root.entropy, spawn_key=(task, index, repeat))
                seed = int(seq.generate_state(1)[0])
                starts.append((seed, {"task": task, "instruction": index}))
    return starts


def _program_starts(config: EvalConfig, split: str, env: Any) -> list[tuple[int, dict[str, Any]]]:
    """VirtualHome-v0's episodes: up to ``instructions_per_task`` programs per task category."""
    from rewardgym.envs.virtualhome.programs import all_programs

    every = all_programs()
    by_task: dict[int, list[str]] = {}
    for program in env.programs:
        by_task.setdefault(every[program].task.id, []).append(program)
    tasks = sorted(by_task) if config.tasks is None else config.tasks
    root = np.random.SeedSequence([config.seed, list(VIRTUALHOME_SPLITS).index(split), 7919])
    starts = []
    for task in tasks:
        for index, program in enumerate(by_task.get(task, [])[: config.instructions_per_task]):
            for repeat in range(config.episodes_per_instruction):
                seq = np.random.SeedSequence(root.entropy, spawn_key=(task, index, repeat))
                starts.append((int(seq.generate_state(1)[0]), {"program": program}))
    return starts


def run_split(policy: BatchPolicy, config: EvalConfig, split: str) -> SplitResult:
    """Play every episode of one split in lock-step and score it."""
    start = time.perf_counter()
    starts = episode_starts(config, split)
    envs = [_make(config, split) for _ in starts]
    observations: list[dict[str, Any]] = []
    instructions: list[str] = []
    identities: list[str] = []
    for env, (seed, options) in zip(envs, starts, strict=True):
        obs, info = env.reset(seed=seed, options=options)
        observations.append(obs)
        instructions.append(str(info["instruction"]))
        identities.append(episode_identity(env, seed, options, instructions[-1]))
    actions: list[list[int]] = [[] for _ in envs]
    active = list(range(len(envs)))
    while active:
        chosen = policy.act_batch(
            [observations[i] for i in active], [instructions[i] for i in active]
        )
        still = []
        for i, action in zip(active, np.asarray(chosen).tolist(), strict=True):
            obs, _, terminated, truncated, _ = envs[i].step(int(action))
            observations[i] = obs
            actions[i].append(int(action))
            if not (terminated or truncated):
                still.append(i)
        active = still
    result = SplitResult(split, actions=actions, identities=identities)
    for env, taken, (_, options) in zip(envs, actions, starts, strict=True):
        base: Any = env
        result.scores.append(score_episode(base.goal_flags(), taken, base.reference_plan))
        result.tasks.append(int(options["task"]) if "task" in options else int(base.task.id))
    result.seconds = time.perf_counter() - start
    return result


def evaluate_household(
    policy: BatchPolicy, config: EvalConfig | None = None
) -> dict[str, SplitResult]:
    """The per-episode results of ``policy`` on every split of ``config``."""
    config = config or EvalConfig()
    return {split: run_split(policy, config, split) for split in config.splits}


def measure_latency(
    policy: BatchPolicy,
    *,
    env_id: str = HOUSEHOLD_ID,
    steps: int = 100,
    seed: int = 0,
    warmup: int = 3,
) -> dict[str, float]:
    """Per-action wall time of ``policy`` deciding one observation at a time, in milliseconds.

    Walks held-out episodes with the policy's own actions and times each decision alone
    (batch of one), after ``warmup`` untimed decisions. Returns the median, the 90th
    percentile, the mean and the number of timed decisions.
    """
    env = _make(EvalConfig(env_id=env_id, splits=("fine",)), "fine")
    rng = np.random.default_rng(seed)
    times: list[float] = []
    obs, info = env.reset(seed=seed)
    done = False
    while len(times) < steps:
        if done:
            obs, info = env.reset(seed=int(rng.integers(2**31)))
        tic = time.perf_counter()
        action = int(policy.act_batch([obs], [str(info["instruction"])])[0])
        elapsed = time.perf_counter() - tic
        if warmup > 0:
            warmup -= 1
        else:
            times.append(elapsed * 1000.0)
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    values = np.asarray(times)
    return {
        "median_ms": float(np.median(values)),
        "p90_ms": float(np.percentile(values, 90)),
        "mean_ms": float(values.mean()),
        "n": float(len(values)),
    }


class RandomPolicy:
    """Uniformly random actions: the floor every learned agent must clear."""

    def __init__(self, n_actions: int, seed: int = 0) -> None:
        """Draw from ``n_actions`` actions with a seeded generator."""
        self.n_actions = n_actions
        self.rng = np.random.default_rng(seed)

    def act_batch(
        self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]
    ) -> np.ndarray:
        """One random action per observation."""
        return self.rng.integers(self.n_actions, size=len(observations))


def random_executable_success(
    config: EvalConfig, *, split: str = "validation", seed: int = 0
) -> float:
    """The share of ``split``'s episodes a random executable policy finishes successfully."""
    rng = np.random.default_rng(seed)
    wins = 0
    starts = episode_starts(config, split)
    for episode_seed, options in starts:
        env: Any = _make(config, split)
        env.reset(seed=episode_seed, options=options)
        done = False
        info: dict[str, Any] = {}
        while not done:
            choices = env.executable_actions()
            _, _, terminated, truncated, info = env.step(int(choices[rng.integers(len(choices))]))
            done = terminated or truncated
        wins += bool(info.get("success", False))
    return wins / len(starts)


__all__ = [
    "ENV_IDS",
    "MAX_EPISODES_PER_INSTRUCTION",
    "SPLITS",
    "TEST_SPLITS",
    "VIRTUALHOME_SPLITS",
    "VIRTUALHOME_TEST_SPLITS",
    "BatchPolicy",
    "EvalConfig",
    "RandomPolicy",
    "SplitResult",
    "env_splits",
    "episode_identity",
    "episode_starts",
    "evaluate_household",
    "held_out_splits",
    "measure_latency",
    "random_executable_success",
    "run_split",
]
