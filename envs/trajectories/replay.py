"""``rewardgym/TrajectoryReplay-v0``: step through a logged data set as if it were an env."""

from __future__ import annotations

from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym

from rewardgym.atomic import atomic_path
from rewardgym.envs.conventions import EpisodeGate, check_options
from rewardgym.envs.spaces import discrete_index
from rewardgym.envs.trajectories.collect import CollectConfig, collect_dataset
from rewardgym.envs.trajectories.dataset import TrajectoryDataset
from rewardgym.envs.trajectories.episode import Episode
from rewardgym.envs.trajectories.layout import DATASET_KIND, METADATA_FILE
from rewardgym.home import rewardgym_home
from rewardgym.outputs import mark_output

DEFAULT_REPLAY_EPISODES = 100
DEFAULT_REPLAY_NAME = "household-v1-replay"


def default_replay_dir() -> Path:
    """Where the default Household replay data set is cached (built on first use)."""
    return rewardgym_home() / "datasets" / DEFAULT_REPLAY_NAME


def default_replay_dataset() -> TrajectoryDataset:
    """The small default Household data set: 100 perturbed-expert episodes, seed 0, cached."""
    target = default_replay_dir()
    if (target / METADATA_FILE).exists():
        try:
            return TrajectoryDataset.from_dir(target)
        except (OSError, ValueError):
            pass  # a damaged cache entry: collected again below
    data = collect_dataset(CollectConfig(episodes=DEFAULT_REPLAY_EPISODES, seed=0))
    # An atomic write: a concurrent first use never sees half a set, a kill leaves none.
    with atomic_path(target) as tmp:
        tmp.mkdir(parents=True)
        data.write_into(tmp, minari=False)
        mark_output(tmp, DATASET_KIND, cache=True)
    return TrajectoryDataset.from_dir(target)


class TrajectoryReplayEnv(gym.Env[dict[str, Any], int]):
    """Replays the episodes of a trajectory data set step by step, whatever the agent does.

    ## Description
    Each ``reset`` picks an episode (``options={"episode": i}``, else one at random from the
    seeded generator) and returns its first logged observation; each ``step`` returns the
    next logged observation, the logged (or relabelled) reward and the logged termination
    flags. The action passed in is ignored for the dynamics and compared with the logged one
    (``info["action_matches"]``). Use it to inspect a data set, or to run a reward labeller
    over it as if it were online.

    ## Observation
    The data set's env observation space (for Household: the ``Dict`` of text and fields).

    ## Action
    The data set's env action space; ``info["logged_action"]`` and
    ``info["logged_action_name"]`` give what was actually done.

    ## Reward
    The logged per-step reward of the data set (the success flag, or dense relabelled ones).

    ## Termination
    As logged: terminates or truncates on the episode's last transition.

    ## Registered ids
    ``rewardgym/TrajectoryReplay-v0`` with ``dataset`` (a directory or a
    ``TrajectoryDataset``). Without it, a small default Household data set is collected
    once and cached under ``$REWARDGYM_HOME/datasets`` (default ``~/.cache/rewardgym``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (Gymnasium's convention)

    def __init__(
        self, dataset: str | Path | TrajectoryDataset | None = None, render_mode: str | None = None
    ) -> None:
        """Replay ``dataset`` (a directory written by ``collect``, or a loaded data set)."""
        if dataset is None:
            data = default_replay_dataset()
        elif isinstance(dataset, TrajectoryDataset):
            data = dataset
        else:
            data = TrajectoryDataset.from_dir(dataset)
        if not len(data):
            raise ValueError("the data set to replay has no episodes")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported: use 'ansi' or None")
        self.dataset = data
        self.render_mode = render_mode
        source = data.make_env()
        self.observation_space = source.observation_space
        self.action_space = source.action_space
        self._n_actions = int(getattr(source.action_space, "n", len(data.action_names)))
        source.close()
        self.episode_index = 0
        self.t = 0
        self._gate = EpisodeGate(type(self).__name__)

    @property
    def episode(self) -> Episode:
        """The episode being replayed."""
        return self.dataset[self.episode_index]

    @property
    def action_names(self) -> tuple[str, ...]:
        """The data set's action names, indexed by action id."""
        return self.dataset.action_names

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start replaying episode ``options["episode"]`` or a random one."""
        options = check_options(options, ("episode",), env=type(self).__name__)
        super().reset(seed=seed)
        if "episode" in options:
            index = discrete_index(
                options["episode"],
                len(self.dataset),
                what=f"options['episode'] (the data set has {len(self.dataset)} episodes)",
                unit="episode index",
            )
        else:
            index = int(self.np_random.integers(len(self.dataset)))
        self.episode_index, self.t = index, 0
        self._gate.open()
        ep = self.episode
        info = {
            "episode": index,
            "episode_id": ep.episode_id,
            "instruction": ep.instruction,
            "task_id": ep.task_id,
            "success": ep.success,
            "action_names": self.dataset.action_names,
        }
        return ep.observation(0), info

    def step(self, action: int) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Advance one logged transition; the given ``action`` is only compared with the log."""
        self._gate.check()
        act = discrete_index(action, self._n_actions)
        ep = self.episode
        t = self.t
        logged = int(ep.actions[t])
        self.t += 1
        info = {
            "t": t,
            "logged_action": logged,
            "logged_action_name": self.dataset.action_names[logged],
            "action_matches": act == logged,
            "executable": bool(ep.executable[t]),
            "expert": bool(ep.expert[t]),
            "success": ep.success and self.t == len(ep),
        }
        terminated = bool(ep.terminations[t])
        truncated = bool(ep.truncations[t]) or (self.t == len(ep) and not terminated)
        self._gate.close_if(terminated=terminated, truncated=truncated)
        return ep.observation(self.t), float(ep.rewards[t]), terminated, truncated, info

    def render(self) -> str | None:  # type: ignore[override]
        """The current logged text observation when ``render_mode="ansi"``."""
        if self.render_mode == "ansi":
            texts = self.episode.observations.get("text")
            return str(texts[self.t]) if texts is not None else None
        return None


__all__ = [
    "DEFAULT_REPLAY_EPISODES",
    "TrajectoryReplayEnv",
    "default_replay_dataset",
    "default_replay_dir",
]
