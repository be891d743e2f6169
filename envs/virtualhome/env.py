"""``rewardgym/VirtualHome-v0``: COREN's kind of environment on VirtualHome's own evolving-graph simulator."""

from __future__ import annotations

import functools
import numbers
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rewardgym.bounds import AT_LEAST_1, SEED, check_number
from rewardgym.envs.conventions import EpisodeGate, brief, check_options
from rewardgym.envs.spaces import discrete_index
from rewardgym.envs.virtualhome.actions import (
    ACTION_SETS,
    action_table,
    script_actions,
    usable_programs,
)
from rewardgym.envs.virtualhome.goals import Edge, NodeState, condition_flags, describe
from rewardgym.envs.virtualhome.observation import (
    OBSERVATIONS,
    ROOMS,
    array_fields,
    object_classes,
    observation_space,
    perceive,
    render_text,
    room_members,
)
from rewardgym.envs.virtualhome.programs import (
    GRAPH_CACHE,
    SPLITS,
    Program,
    Task,
    all_programs,
    initial_graph,
    split_programs,
    task_names,
)
from rewardgym.envs.virtualhome.resolver import SceneIndex, resolve_and_execute
from rewardgym.envs.virtualhome.simulator import initial_state

INSTRUCTIONS: tuple[str, ...] = ("fine", "abstract")
MIN_STEPS = 30
"""The fewest steps an episode allows when ``max_steps`` is ``None``."""


@functools.lru_cache(maxsize=GRAPH_CACHE)
def _scene(program: str) -> tuple[SceneIndex, dict[int, tuple[int, ...]]]:
    """The scene index and the rooms' objects of ``program``'s initial graph (cached with it)."""
    graph = initial_graph(program)
    scene = SceneIndex.of(graph)
    return scene, room_members(graph, scene)


class VirtualHomeEnv(gym.Env[dict[str, Any], int]):
    """Follow a human's instruction in VirtualHome's four-room house, judged by the program's goal.

    ## Description
    COREN (arXiv 2411.17135) trains its agents in VirtualHome. This env runs VirtualHome's
    own pure-Python evolving-graph simulator and its human-written programs, from the
    ``virtualhome_eval`` package (the Embodied Agent Interface benchmark): one scene
    (TrimmedTestScene1: bathroom, bedroom, dining room, home office), 337 programs in 26 task
    categories, each with a human description, an initial scene graph and a symbolic goal
    (node states, edges, and ordered action goals). An episode replays one program's initial
    graph under its instruction; its goal is met when every condition holds
    (:mod:`rewardgym.envs.virtualhome.goals`). ``split`` picks the programs: within each task
    category a seeded, stable 60 / 20 / 20 share goes to train / validation / test, so a
    held-out program's instruction and initial graph are never trained on. COREN's own task
    list (salmon, cereal, ...) uses objects this scene lacks; the 26 categories here are the
    analogue.

    ## Observation
    A ``Dict`` (``rewardgym.envs.virtualhome.observation.FIELDS``): ``text`` (compact by
    default: the instruction, room, objects close by, held objects, last action and the
    latest completed actions; ``observation="full"`` adds every object in the room) and
    the same facts as arrays: multi-hot ``visible``, ``close``, ``held``, ``open``,
    ``switched_on`` over the action set's classes, multi-hot ``completed`` over the actions,
    ``room``, ``last_action`` (id + 1), ``last_result`` (1: not executed), ``task`` and
    ``instruction`` (the program's index).

    ## Action
    ``Discrete(n)`` over (verb, classes) pairs (``action_names``): ``action_set="full"``
    has every pair the programs use (453), ``"coren"`` COREN's 8 behaviours and STANDUP
    (185 actions, 189 programs; WALK and RUN read as FIND). The agent names classes; the first instances
    the simulator accepts are acted on, those in the agent's room first. An action the
    simulator refuses changes nothing and sets ``info["executable"] = False`` and
    ``info["reason"]`` (the simulator's words, e.g. "<mug> (1000) is not close to agent").

    ## Reward
    Sparse: 1.0 on the step the goal is met, otherwise 0.0. ``info`` carries ``success``,
    ``cgc`` (share of goal conditions holding), ``cgc_open`` (the same over the conditions
    that did not hold at reset; 1.0 when there were none) and ``goal_flags`` at every step,
    and the conditions as text (``goal``) at reset.

    ## Termination
    Terminates when every goal condition holds; truncates after ``max_steps`` steps
    (``None``: twice the program's expert script, at least 30).

    ## Registered ids
    ``rewardgym/VirtualHome-v0``, with keyword arguments ``split`` ("train" | "validation" |
    "test" | "all"), ``instruction`` ("fine": the human's description | "abstract": the task
    title), ``action_set`` ("full" | "coren"), ``observation`` ("compact" | "full"),
    ``max_steps`` and ``split_seed``. ``reset(options={"program": ID})`` replays program ID
    (e.g. ``"27_2"``, one of ``env.unwrapped.programs``); ``expert_script()`` gives its
    steps as action ids.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (Gymnasium's convention)
    option_keys = ("program",)

    def __init__(
        self,
        split: str = "train",
        instruction: str = "fine",
        action_set: str = "full",
        observation: str = "compact",
        max_steps: int | None = None,
        split_seed: int = 0,
        render_mode: str | None = None,
    ) -> None:
        """Build the env; see the class docstring for what each argument selects."""
        for name, value, allowed in (
            ("split", split, SPLITS),
            ("instruction", instruction, INSTRUCTIONS),
            ("action_set", action_set, ACTION_SETS),
            ("observation", observation, OBSERVATIONS),
        ):
            if value not in allowed:
                raise ValueError(f"VirtualHomeEnv.{name}={brief(value)}: use one of {allowed}")
        for name, number, bound in (
            ("max_steps", max_steps, AT_LEAST_1),
            ("split_seed", split_seed, SEED),
        ):
            if number is None:
                continue
            check_number(number, f"VirtualHomeEnv.{name}", bound)
            if not isinstance(number, numbers.Integral):
                raise ValueError(f"VirtualHomeEnv.{name}={number!r}: must be a whole number")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported: use 'ansi' or None")
        self.render_mode = render_mode
        self.split = split
        self.instruction_kind = instruction
        self.action_set = action_set
        self.observation_kind = observation
        self.max_steps_option = max_steps
        self.layout = "TrimmedTestScene1"
        self.programs: tuple[str, ...] = usable_programs(
            split_programs(split, split_seed), action_set
        )
        self._program_index = {p: i for i, p in enumerate(all_programs())}
        self.actions = action_table(action_set)
        self.action_names: tuple[str, ...] = tuple(a.name for a in self.actions)
        """The name of every action, indexed by action id."""
        # The names behind the array fields, read by judges (rewardgym.wrappers.coren.grounding).
        self.object_names: tuple[str, ...] = object_classes(action_set)
        self.room_names: tuple[str, ...] = ROOMS
        self.openable_objects: tuple[str, ...] = tuple(
            sorted({a.classes[0] for a in self.actions if a.verb == "OPEN"})
        )
        self.action_space = spaces.Discrete(len(self.actions))  # type: ignore[assignment]
        self.observation_space = observation_space(
            action_set, len(task_names()), len(self._program_index)
        )
        self._gate = EpisodeGate(type(self).__name__)
        self._obs: dict[str, Any] = {}
        self._load(self.programs[0])

    @property
    def task(self) -> Task:
        """The current program's task category."""
        return self.program.task

    @property
    def instruction(self) -> str:
        """The current episode's instruction."""
        program = self.program
        return program.description if self.instruction_kind == "fine" else program.task.name

    def _load(self, program_id: str) -> None:
        """Start program ``program_id`` afresh (a new state on its cached initial graph)."""
        self.program: Program = all_programs()[program_id]
        graph = initial_graph(program_id)
        self.scene, self._members = _scene(program_id)
        self.state = initial_state(graph)
        self.steps = 0
        self._verbs: list[str] = []
        self._done: list[str] = []
        self._completed = np.zeros(len(self.actions), dtype=np.int8)
        self._moved: set[int] = set()
        self._used: dict[str, set[int]] = {}
        self._last = (-1, "")
        script = len(script_actions(self.program, self.action_set))
        self.max_steps = self.max_steps_option or max(MIN_STEPS, 2 * script)
        self._initial_flags = condition_flags(self.state, self.program.goal, [])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode on a drawn program, or the one ``options["program"]`` names."""
        options = check_options(options, self.option_keys, env=type(self).__name__)
        super().reset(seed=seed)
        drawn = self.programs[int(self.np_random.integers(len(self.programs)))]
        chosen = options.get("program", drawn)
        if chosen not in self.programs:
            raise ValueError(
                f"VirtualHomeEnv.reset: options['program']={brief(chosen)} is not a program of "
                f"this env (split {self.split!r}, action_set {self.action_set!r}, "
                f"{len(self.programs)} programs: see env.unwrapped.programs)"
            )
        self._load(str(chosen))
        names = self.scene.names
        info = {
            "action_names": self.action_names,
            "program": self.program.id,
            "task_id": self.task.id,
            "task_name": self.task.name,
            "goal": tuple(describe(c, names) for c in self.program.goal),
            "instruction": self.instruction,
            "instruction_kind": self.instruction_kind,
            "max_steps": self.max_steps,
            **self._goal_info(),
        }
        self._gate.open()
        return self._observe(), info

    def _goal_info(self) -> dict[str, Any]:
        flags = condition_flags(self.state, self.program.goal, self._verbs)
        open_ = [f for f, was in zip(flags, self._initial_flags, strict=True) if not was]
        return {
            "success": all(flags),
            "cgc": sum(flags) / len(flags),
            "cgc_open": sum(open_) / len(open_) if open_ else 1.0,
            "goal_flags": tuple(flags),
        }

    def step(self, action: int) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Run one action; one the simulator refuses changes nothing and says why in ``info``."""
        self._gate.check()
        act = discrete_index(action, len(self.actions))
        chosen = self.actions[act]
        used = frozenset(self._used.get(chosen.verb, ()))
        following, reason, ids = resolve_and_execute(
            self.state, self.scene, chosen.verb, chosen.classes, used
        )
        if following is not None:
            self.state = following
            self._verbs.append(chosen.verb)
            self._done.append(chosen.name)
            self._completed[act] = 1
            self._moved.update(ids)
            self._used.setdefault(chosen.verb, set()).update(ids)
        self._last = (act, reason)
        self.steps += 1
        goal = self._goal_info()
        info = {
            "executable": following is not None,
            "reason": reason,
            "action_name": chosen.name,
            "instances": ids,
            **goal,
        }
        terminated = bool(goal["success"])
        truncated = not terminated and self.steps >= self.max_steps
        self._gate.close_if(terminated=terminated, truncated=truncated)
        return self._observe(), 1.0 if terminated else 0.0, terminated, truncated, info

    def _accepts(self, act: int) -> bool:
        """Whether the simulator would execute action ``act`` now (the state is left as is)."""
        chosen = self.actions[act]
        used = frozenset(self._used.get(chosen.verb, ()))
        following, _, _ = resolve_and_execute(
            self.state, self.scene, chosen.verb, chosen.classes, used
        )
        return following is not None

    def executable_actions(self) -> list[int]:
        """Every action the simulator would execute now (about 0.2 s: each one is tried)."""
        return [act for act in range(len(self.actions)) if self._accepts(act)]

    def random_executable_action(self, rng: np.random.Generator) -> int | None:
        """One action drawn uniformly from :meth:`executable_actions`, trying them in random order.

        The first accepted action of a random permutation is uniform over the accepted ones,
        and it is found after a few tries (about 1 in 5 actions is executable), not all 453.
        ``None``: the simulator accepts none.
        """
        return next((int(a) for a in rng.permutation(len(self.actions)) if self._accepts(a)), None)

    def _observe(self) -> dict[str, Any]:
        view = perceive(self.state, self.scene, self._members, self._moved)
        act, reason = self._last
        last = ""
        if act >= 0:
            name = self.actions[act].name
            last = f"{name} (done)" if not reason else f"{name} (not done: {reason})"
        obs = array_fields(self.state, self.scene, view, self.action_set)
        obs["text"] = render_text(
            self.state, self.scene, view, self.instruction, last, self._done, self.observation_kind
        )
        obs["completed"] = self._completed.copy()
        obs["last_action"] = act + 1
        obs["last_result"] = int(bool(reason))
        obs["task"] = self.task.id
        obs["instruction"] = self._program_index[self.program.id]
        self._obs = obs
        return obs

    def goal_flags(self) -> list[bool]:
        """Whether each goal condition holds now (the Household envs' method, read by evaluation)."""
        return list(condition_flags(self.state, self.program.goal, self._verbs))

    def goal_objects(self) -> tuple[str, ...]:
        """The classes of the objects the goal conditions name, the agent itself left out."""
        nodes: list[int] = []
        for condition in self.program.goal:
            if isinstance(condition, NodeState):
                nodes.append(condition.node)
            elif isinstance(condition, Edge):
                nodes += [condition.source, condition.target]
        names = [self.scene.names.get(n, "") for n in nodes if n != self.scene.character]
        return tuple(dict.fromkeys(n for n in names if n))

    def expert_script(self) -> list[int]:
        """The program's own steps as action ids (the data's expert; instances resolved per step)."""
        return script_actions(self.program, self.action_set)

    @property
    def reference_plan(self) -> list[int]:
        """The expert script: the reference of the Plan metric."""
        return self.expert_script()

    def replay_options(self) -> dict[str, Any]:
        """Reset options that rebuild this episode's first state exactly."""
        return {"program": self.program.id}

    def render(self) -> str | None:  # type: ignore[override]
        """The current text observation when ``render_mode="ansi"``, else nothing."""
        if self.render_mode == "ansi":
            return str(self._obs.get("text", ""))
        return None


__all__ = ["INSTRUCTIONS", "VirtualHomeEnv"]
