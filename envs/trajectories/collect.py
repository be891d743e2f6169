"""COREN-style offline data: expert rollouts with random actions injected, success flag only."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Any

import gymnasium as gym
import numpy as np

from rewardgym.envs.registration import make_registered
from rewardgym.envs.trajectories.config import CollectConfig
from rewardgym.envs.trajectories.dataset import TrajectoryDataset, schema_from_space
from rewardgym.envs.trajectories.episode import Episode
from rewardgym.errors import UserError


def episode_seeds(seed: int, episodes: int) -> list[int]:
    """Independent per-episode seeds derived from one ``seed``."""
    state = np.random.SeedSequence(seed).generate_state(episodes, dtype=np.uint32)
    return [int(s) for s in state]


class _Script:
    """The expert's fixed script, followed blindly: one action after another, never replanned."""

    def __init__(self, actions: list[int]) -> None:
        self.actions = actions
        self.position = 0

    def __call__(self) -> int | None:
        if self.position >= len(self.actions):
            return None
        self.position += 1
        return self.actions[self.position - 1]


def _expert_of(env: gym.Env[Any, Any], config: CollectConfig, sibling: bool) -> Any:
    """The callable that gives the expert's next action (``None``: nothing left to do)."""
    base: Any = env.unwrapped
    if config.collector().expert == "replan":
        expert = getattr(base, "expert_action", None)
        if expert is None:
            raise TypeError(
                f"{type(base).__name__} has no expert_action() method, so it cannot be "
                "collected; use rewardgym/Household-v1 or a rewardgym/BabyAI-*-Text-v0 id"
            )
        return expert
    if not hasattr(base, "expert_script"):
        raise TypeError(
            f"{type(base).__name__} has no expert_script(), so expert='script' cannot follow "
            "one; collect it with CollectConfig(expert='replan', sibling_fraction=0)"
        )
    if sibling:
        return _Script(base.script_for(base.task.sibling))
    return _Script(base.expert_script())


def _replanned(env: gym.Env[Any, Any], sibling: bool) -> _Script | None:
    """The searcher's script from the current state (``None``: the goal is lost, keep the old)."""
    from rewardgym.envs.household.v1.task_progress import searcher_plan, sibling_task

    base: Any = env.unwrapped
    actions = searcher_plan(base, sibling_task(base) if sibling else None)
    return _Script(actions) if actions else None


def _give_up_point(
    env: gym.Env[Any, Any], config: CollectConfig, rng: np.random.Generator, sibling: bool
) -> float:
    """After how many expert steps the demonstrator gives up (``inf``: never; no draw at 0)."""
    give_up = config.collector().give_up
    if not give_up or rng.random() >= give_up:
        return float("inf")
    base: Any = env.unwrapped
    script = base.script_for(base.task.sibling) if sibling else base.expert_script()
    return float(rng.integers(1, max(len(script), 2)))


def collect_episode(
    env: gym.Env[Any, Any],
    *,
    episode_id: int,
    seed: int,
    config: CollectConfig,
    options: dict[str, Any] | None = None,
) -> Episode:
    """Roll out the expert once from ``reset(seed=seed)``, perturbed as ``config`` says.

    With the ``"script"`` expert the episode ends when the script is spent (or the env ends
    it); a sibling episode follows the sibling task's script under this task's instruction,
    and ``extras`` records which task was demonstrated. The ``"replan"`` expert is asked at
    every step, and its action is replaced by a random one with probability ``noise`` (or
    when it has none): the first collector's loop, kept step for step so that Household-v0's
    data reproduce.
    """
    base = env.unwrapped
    settings = config.collector()
    scripted = settings.expert == "script"
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed, options=options)
    sibling = scripted and rng.random() < settings.sibling_fraction
    expert = _expert_of(env, config, sibling)
    observations: list[dict[str, Any]] = [obs]
    actions: list[int] = []
    executable: list[bool] = []
    from_expert: list[bool] = []
    terminated = truncated = False
    step_info: dict[str, Any] = info
    pending: int | None = None
    # Giving up: after ``quit_after`` expert steps, ``wander`` random actions, then the end.
    quit_after = _give_up_point(env, config, rng, sibling)
    gave_up, wandered, expert_steps = False, 0, 0
    while not (terminated or truncated):
        if scripted:
            gave_up = gave_up or expert_steps >= quit_after
            if gave_up and wandered >= config.wander:
                break
            wandered += gave_up
            perturb = gave_up or (len(actions) > 0 and rng.random() < settings.noise)
            if not perturb:
                pending = expert()
                if pending is None and actions:
                    break  # the script is spent: the demonstrator stops here
        else:
            pending = expert()
            perturb = pending is None or (len(actions) > 0 and rng.random() < settings.noise)
        if perturb or pending is None:
            action = _random_action(env, rng, settings.random_actions)
        else:
            action = int(pending)
        obs, _, terminated, truncated, step_info = env.step(action)
        if perturb and not gave_up and config.recover and rng.random() < config.recover:
            expert = _replanned(env, sibling) or expert
        observations.append(obs)
        actions.append(int(action))
        executable.append(bool(step_info.get("executable", True)))
        from_expert.append(not perturb and pending is not None)
        expert_steps += from_expert[-1]
    success = bool(step_info.get("success", False))
    n = len(actions)
    rewards = np.zeros(n, dtype=np.float32)
    rewards[-1] = 1.0 if success else 0.0  # only the success flag is recorded
    extras: dict[str, Any] = {"perturbations": int(n - sum(from_expert))}
    if settings.give_up:
        extras["gave_up"] = bool(gave_up)
    task = getattr(base, "task", None)
    if scripted and task is not None:
        extras["demonstrated_task"] = int(task.sibling if sibling else task.id)
        extras["sibling"] = bool(sibling)
    replay = getattr(base, "replay_options", None)
    if replay is not None:
        extras["reset_options"] = replay()
    return Episode(
        episode_id=episode_id,
        seed=seed,
        instruction=str(info.get("instruction", getattr(base, "mission", ""))),
        observations=_stack(observations),
        actions=np.asarray(actions, dtype=np.int64),
        rewards=rewards,
        terminations=np.asarray([False] * (n - 1) + [bool(terminated)]),
        truncations=np.asarray([False] * (n - 1) + [not terminated]),
        executable=np.asarray(executable, dtype=bool),
        expert=np.asarray(from_expert, dtype=bool),
        success=success,
        task_id=int(info.get("task_id", -1)),
        task_name=str(info.get("task_name", "")),
        instruction_kind=str(info.get("instruction_kind", "train")),
        layout=str(getattr(base, "layout", "")),
        final_cgc=float(step_info.get("cgc", float(success))),
        extras=extras,
    )


def _random_action(env: gym.Env[Any, Any], rng: np.random.Generator, mode: str) -> int:
    """A random action: uniform over the action space, or over those the env would execute now.

    An env that can draw an executable action itself (VirtualHome-v0's
    ``random_executable_action``, without listing all of them) is asked; else one that lists
    them (``executable_actions``); else the draw is uniform.
    """
    base = env.unwrapped
    if mode == "mixed":
        mode = "executable" if rng.random() < 0.5 else "uniform"
    if mode == "executable":
        sampler = getattr(base, "random_executable_action", None)
        if sampler is not None:
            drawn = sampler(rng)
            if drawn is not None:
                return int(drawn)
        lister = getattr(base, "executable_actions", None)
        choices = lister() if sampler is None and lister is not None else []
        if choices:
            return int(choices[rng.integers(len(choices))])
    return int(rng.integers(env.action_space.n))  # type: ignore[attr-defined]


FAILURE_CAUSES: tuple[str, ...] = ("gave up", "executed a wrong action", "other")


def failure_causes(episodes: Iterable[Episode]) -> dict[str, int]:
    """The failed episodes counted by cause (:data:`FAILURE_CAUSES`).

    "gave up": the demonstrator gave up part way; "executed a wrong action": it did not, and
    at least one random action it was given executed; "other": neither (every random action was
    refused, so the script itself fell short, or the env's step limit ended it).

    Example:
        >>> from rewardgym.envs.trajectories.episode import Episode
        >>> def ep(success, executed, gave_up=False):
        ...     return Episode(0, 0, "", {}, np.zeros(1, np.int64), np.zeros(1, np.float32),
        ...                    np.ones(1, bool), np.zeros(1, bool), np.array([executed]),
        ...                    np.zeros(1, bool), success, extras={"gave_up": gave_up})
        >>> failure_causes([ep(False, True), ep(False, False), ep(False, True, True), ep(True, True)])
        {'gave up': 1, 'executed a wrong action': 1, 'other': 1}
    """
    counts = dict.fromkeys(FAILURE_CAUSES, 0)
    for episode in episodes:
        if episode.success:
            continue
        if episode.extras.get("gave_up", False):
            counts["gave up"] += 1
        elif bool(np.any(episode.executable & ~episode.expert)):
            counts["executed a wrong action"] += 1
        else:
            counts["other"] += 1
    return counts


def _stack(observations: list[dict[str, Any]]) -> dict[str, Any]:
    columns: dict[str, Any] = {}
    for key, first in observations[0].items():
        values = [obs[key] for obs in observations]
        columns[key] = (
            values if isinstance(first, str) else np.stack([np.asarray(v) for v in values])
        )
    return columns


def _env_keywords(env_id: str) -> list[str]:
    """The keyword arguments that ``gym.make(env_id, ...)`` passes on to the env's constructor."""
    from gymnasium.envs.registration import load_env_creator, registry

    creator = load_env_creator(str(registry[env_id].entry_point))  # rewardgym ids: a string
    return [name for name in inspect.signature(creator).parameters if name != "self"]


def collect_dataset(
    config: CollectConfig | None = None,
    progress: Callable[[int], None] | None = None,
) -> TrajectoryDataset:
    """Collect ``config.episodes`` perturbed-expert trajectories into a ``TrajectoryDataset``.

    Programs (when the env has ``programs``, as VirtualHome-v0 does) or else tasks (when it has
    ``task_ids``) are dealt round-robin, so that each gets the same share; ``progress`` is called with the number of episodes finished so far.
    """
    config = config or CollectConfig()
    kwargs: dict[str, Any] = dict(config.env_kwargs)
    try:
        env = make_registered(config.env, source="CollectConfig.env", **kwargs)
    except TypeError as err:  # a keyword the env does not take: the user's --env-kwargs
        if "unexpected keyword argument" not in str(err):
            raise
        raise UserError(
            f"CollectConfig.env_kwargs={kwargs}: {config.env} takes only the keywords "
            f"{', '.join(_env_keywords(config.env))}"
        ) from err
    except ValueError as err:  # the env refused a value of the user's --env-kwargs
        raise UserError(f"CollectConfig.env_kwargs={kwargs}: {err}") from err
    base = env.unwrapped
    task_ids: tuple[int, ...] = tuple(getattr(base, "task_ids", ()))
    programs: tuple[str, ...] = tuple(getattr(base, "programs", ()))
    start = time.perf_counter()
    episodes = []
    for i, seed in enumerate(episode_seeds(config.seed, config.episodes)):
        options: dict[str, Any] | None = None
        if programs:
            options = {"program": programs[i % len(programs)]}
        elif task_ids:
            options = {"task": task_ids[i % len(task_ids)]}
        episodes.append(
            collect_episode(env, episode_id=i, seed=seed, config=config, options=options)
        )
        if progress is not None:
            progress(i + 1)
    elapsed = time.perf_counter() - start
    action_names = getattr(base, "action_names", None) or tuple(
        str(a)
        for a in range(env.action_space.n)  # type: ignore[attr-defined]
    )
    info = {
        "collect_config": asdict(config),
        "collector": asdict(config.collector()),
        "collect_seconds": round(elapsed, 3),
        "failure_causes": failure_causes(episodes),
        "reward_source": "success flag",
    }
    env.close()
    return TrajectoryDataset(
        episodes,
        config.env,
        config.env_kwargs,
        action_names,
        schema_from_space(env.observation_space),
        info,
    )


__all__ = [
    "FAILURE_CAUSES",
    "collect_dataset",
    "collect_episode",
    "episode_seeds",
    "failure_causes",
]
