"""``rewardgym-household``: ``rewardgym/Household-v1`` as a multi-turn verifiers (``verifiers.v1``) taskset.

Each task is one seeded episode. The model reads the observation's text and answers with one
action, by name (``grab apple``) or index, one per turn; the env steps host-side and its next
observation is the next user turn, as verifiers' own TextArena taskset plays a game engine. A
reply that names no action is an inexecutable step (it counts against the turn budget and
changes nothing; the model is told what was wrong), never a crash. The trace records
``success`` (the env's sparse reward, weight 1) and the metrics ``cgc`` (share of goal
predicates met), ``steps`` and ``inexecutable`` (turns whose reply named no action or broke a
rule).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from verifiers.v1.runtimes import SubprocessConfig

from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.errors import BadAction
from rewardgym.integrations.text_env import action_names, make_text_env, text_action
from rewardgym.integrations.verifiers import ChatHarness


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


class HouseholdConfig(vf.TasksetConfig):
    """Which episodes become tasks, and how many turns each may take."""

    episodes: int = 10
    """Episodes (tasks), seeded 0, 1, ...: each draws its task, instruction and placements."""
    instructions: str = "train"
    """The instruction split: train, fine or abstract."""
    max_turns: int = 30
    """Model turns per episode at most (the env's own step limit also ends it)."""


class HouseholdData(vf.TaskData):
    """One seeded episode."""

    info: dict[str, Any]
    """``seed``, ``instructions`` and ``max_turns``: what the env replays the episode from."""


class HouseholdTask(vf.Task[HouseholdData, vf.State, vf.TaskConfig]):
    """A task of ``rewardgym-household``: one seeded episode."""


class HouseholdTaskset(vf.Taskset[HouseholdTask, HouseholdConfig]):
    """Seeded ``Household-v1`` episodes; the prompt is the first observation."""

    def load(self) -> Iterator[HouseholdTask]:
        """One task per seed, its prompt the episode's first observation text."""
        env = make_text_env(HOUSEHOLD_ID, instructions=self.config.instructions)
        rules = system_prompt(action_names(env))
        for seed in range(self.config.episodes):
            obs, info = env.reset(seed=seed)
            yield HouseholdTask(
                HouseholdData(
                    name=f"household#{seed}",
                    prompt=str(obs["text"]),
                    system_prompt=rules,
                    info={
                        "seed": seed,
                        "instructions": self.config.instructions,
                        "max_turns": self.config.max_turns,
                        "instruction": str(info["instruction"]),
                    },
                ),
                self.config.task,
            )
        env.close()


class HouseholdEnvConfig(vf.EnvConfig):
    """The one agent, ``player``: the model under evaluation (chat in this process)."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=SubprocessConfig())


class HouseholdEnv(vf.Env[HouseholdEnvConfig]):
    """The episode stepped host-side: each reply one action, each observation the next user turn."""

    async def run(self, task: HouseholdTask, agents: Any) -> None:
        """Play until success, failure, the env's step limit or ``max_turns`` model turns."""
        info = task.data.info
        env = make_text_env(HOUSEHOLD_ID, instructions=info["instructions"])
        env.reset(seed=info["seed"])
        outcome = {"success": 0.0, "cgc": 0.0, "steps": 0.0, "inexecutable": 0.0}
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                outcome["steps"] += 1
                action = parse_reply(env, segment.last_reply)
                ended = False
                if action is None:
                    outcome["inexecutable"] += 1
                    feedback = "That is not an action. Reply with one action name from the list."
                else:
                    obs, reward, terminated, truncated, step_info = env.step(action)
                    outcome["success"] = float(reward)
                    outcome["cgc"] = float(step_info["cgc"])
                    outcome["inexecutable"] += 0.0 if step_info["executable"] else 1.0
                    ended = bool(terminated or truncated)
                    feedback = str(obs["text"])
                if ended or outcome["steps"] >= int(info["max_turns"]):
                    break
                segment = await interaction.turn(feedback)
        env.close()
        trace = interaction.trace
        trace.record_reward("success", outcome.pop("success"), 1.0)
        for name, value in outcome.items():
            trace.record_metric(name, value)


__all__ = [
    "ChatHarness",
    "HouseholdConfig",
    "HouseholdData",
    "HouseholdEnv",
    "HouseholdEnvConfig",
    "HouseholdTask",
    "HouseholdTaskset",
    "parse_reply",
    "system_prompt",
]
