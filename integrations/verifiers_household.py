"""``rewardgym-household`` and ``rewardgym-virtualhome``: embodied episodes as multi-turn verifiers (``verifiers.v1``) tasksets.

``rewardgym-household`` plays ``rewardgym/Household-v1``, ``rewardgym-virtualhome``
``rewardgym/VirtualHome-v0`` (VirtualHome's own simulator and programs, from the
``virtualhome_eval`` package); one module, one env and one loop serve both, each task carrying
the id and keyword arguments its episode is made from. Each task is one seeded episode. The
model reads the observation's text and answers with one action, by name (``grab apple``,
``[SWITCHON] <computer>``) or index, one per turn; the env steps host-side and its next
observation is the next user turn (:mod:`rewardgym.integrations.verifiers_turns`). A reply
that names no action is an inexecutable step (it counts against the turn budget and changes
nothing; the model is told what was wrong), never a crash. The task's one reward function is
``success`` (the env's sparse reward, weight 1; ``--env.taskset.task.rewards`` reweights it),
and the trace records the metrics ``cgc`` (share of goal conditions met), ``steps`` and
``inexecutable`` (turns whose reply named no action or one the env refused).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar

import gymnasium as gym
import verifiers.v1 as vf

from rewardgym.envs import HOUSEHOLD_ID, VIRTUALHOME_ID
from rewardgym.errors import BadAction
from rewardgym.integrations.text_env import action_names, make_text_env, text_action
from rewardgym.integrations.verifiers import ChatHarness, PlayerEnvConfig
from rewardgym.integrations.verifiers_turns import TextEpisode, TurnsConfig, episode_score, play

NOT_AN_ACTION = "That is not an action. Reply with one action name from the list."
"""The user turn after a reply that names no action."""


def system_prompt(names: list[str]) -> str:
    """The rules the model plays by, with every action's name."""
    return (
        "You act in a house to carry out an instruction. Each turn you see what you observe; "
        "reply with exactly one action, written as one of these names (or its number), and "
        "nothing else:\n" + "\n".join(f"{i}: {name}" for i, name in enumerate(names))
    )


def parse_reply(env: Any, reply: str) -> int | None:
    """The action a reply names: the whole reply, else its first line that is an action; None if none."""
    for candidate in (reply, *reply.splitlines()):
        try:
            return int(text_action(env, candidate.strip().strip(".`'\"")))
        except BadAction:
            continue
    return None


class ActionEpisode(TextEpisode):
    """An episode of a ``Discrete`` text env with a goal check: each reply names one action."""

    def __init__(self, env: gym.Env[Any, Any], max_turns: int) -> None:
        super().__init__(env, max_turns)
        self.success = 0.0
        """The env's last reward: 1.0 once the goal is met."""
        self.cgc = 0.0
        """The share of goal conditions met after the last executed step."""

    def act(self, reply: str) -> tuple[str, bool]:
        """Step the action the reply names; a reply that names none changes nothing."""
        action = parse_reply(self.env, reply)
        if action is None:
            self.inexecutable += 1
            return NOT_AN_ACTION, False
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.success = float(reward)
        self.cgc = float(info["cgc"])
        self.inexecutable += 0 if info["executable"] else 1
        return str(obs["text"]), bool(terminated or truncated)

    def rewards(self) -> dict[str, float]:
        """``success``."""
        return {"success": self.success}

    def metrics(self) -> dict[str, float]:
        """``cgc``, ``steps`` and ``inexecutable``."""
        return {"cgc": self.cgc, **super().metrics()}


class EpisodesConfig(TurnsConfig):
    """Which seeded episodes become tasks; a subclass names the env and its keyword arguments."""

    ENV_ID: ClassVar[str]
    episodes: int = 10
    """Episodes (tasks), seeded 0, 1, ...: each draws its task, instruction and start."""

    @abstractmethod
    def env_kwargs(self) -> dict[str, Any]:
        """The keyword arguments ``gym.make(ENV_ID, ...)`` gets (plain JSON: they travel in each task)."""


class HouseholdConfig(EpisodesConfig):
    """``rewardgym/Household-v1`` episodes."""

    ENV_ID: ClassVar[str] = HOUSEHOLD_ID
    instructions: str = "train"
    """The instruction split: train, fine or abstract."""

    def env_kwargs(self) -> dict[str, Any]:
        """``instructions``."""
        return {"instructions": self.instructions}


class VirtualHomeConfig(EpisodesConfig):
    """``rewardgym/VirtualHome-v0`` episodes: each seed draws one of the split's programs."""

    ENV_ID: ClassVar[str] = VIRTUALHOME_ID
    split: str = "train"
    """The programs: train, validation, test (a stable 60/20/20 share of each task) or all."""
    instruction: str = "fine"
    """fine (the human's description) or abstract (the task's title)."""
    action_set: str = "full"
    """full (every verb and class pair the programs use, 453) or coren (COREN's 8 behaviours and STANDUP, 185)."""

    def env_kwargs(self) -> dict[str, Any]:
        """``split``, ``instruction`` and ``action_set``."""
        return {"split": self.split, "instruction": self.instruction, "action_set": self.action_set}


class HouseholdData(vf.TaskData):
    """One seeded episode."""

    info: dict[str, Any]
    """``env_id``, ``env_kwargs``, ``seed`` and ``max_turns`` (what the env replays the episode
    from) and the episode's ``instruction``."""


class HouseholdTask(vf.Task[HouseholdData, vf.State, vf.TaskConfig]):
    """A task of ``rewardgym-household`` or ``rewardgym-virtualhome``: one seeded episode."""

    @vf.reward
    async def success(self, trace: vf.Trace) -> float:
        """1.0 when the episode met its goal (the env's sparse reward at its last step)."""
        return episode_score(trace, "success")


def episode_tasks(config: EpisodesConfig) -> Iterator[HouseholdTask]:
    """One task per seed of ``config``, its prompt the episode's first observation text."""
    kwargs = config.env_kwargs()
    env = make_text_env(config.ENV_ID, **kwargs)
    try:
        rules = system_prompt(action_names(env))
        for seed in range(config.episodes):
            obs, info = env.reset(seed=seed)
            yield HouseholdTask(
                HouseholdData(
                    name=f"{config.ENV_ID.partition('/')[2]}#{seed}",
                    prompt=str(obs["text"]),
                    system_prompt=rules,
                    info={
                        "env_id": config.ENV_ID,
                        "env_kwargs": kwargs,
                        "seed": seed,
                        "max_turns": config.max_turns,
                        "instruction": str(info["instruction"]),
                    },
                ),
                config.task,
            )
    finally:
        env.close()


# verifiers reads a taskset's config class from its own `vf.Taskset[Task, Config]` base, so
# each id spells its base out; the tasks come from `episode_tasks` for both.
class HouseholdTaskset(vf.Taskset[HouseholdTask, HouseholdConfig]):
    """``rewardgym-household``: seeded ``Household-v1`` episodes."""

    def load(self) -> Iterator[HouseholdTask]:
        """One task per seed (:func:`episode_tasks`)."""
        return episode_tasks(self.config)


class VirtualHomeTaskset(vf.Taskset[HouseholdTask, VirtualHomeConfig]):
    """``rewardgym-virtualhome``: seeded ``VirtualHome-v0`` episodes, each seed one program of the split."""

    def load(self) -> Iterator[HouseholdTask]:
        """One task per seed (:func:`episode_tasks`)."""
        return episode_tasks(self.config)


def start_episode(info: dict[str, Any]) -> ActionEpisode:
    """The episode a task's ``info`` names, reset and ready for the first reply."""
    env = make_text_env(info["env_id"], **info["env_kwargs"])
    env.reset(seed=info["seed"])
    return ActionEpisode(env, int(info["max_turns"]))


class HouseholdEnv(vf.Env[PlayerEnvConfig]):
    """The episode stepped host-side: each reply one action, each observation the next user turn."""

    async def run(self, task: HouseholdTask, agents: Any) -> None:
        """Play until success, failure, the env's step limit or ``max_turns`` model turns."""
        await play(task, agents, start_episode(task.data.info))


__all__ = [
    "ActionEpisode",
    "ChatHarness",
    "EpisodesConfig",
    "HouseholdConfig",
    "HouseholdData",
    "HouseholdEnv",
    "HouseholdTask",
    "HouseholdTaskset",
    "VirtualHomeConfig",
    "VirtualHomeTaskset",
    "episode_tasks",
    "parse_reply",
    "start_episode",
    "system_prompt",
]
