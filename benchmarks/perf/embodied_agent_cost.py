"""Worker-seconds of one embodied agent, the old way, the new way and the bare arithmetic floor.

One run trains and evaluates the ``bench embodied`` quick preset's agent (cql/sparse with its
tuned values, on the quick preset's Household-v1 data, then every held-out split) the old way
(d3rlpy's own DiscreteCQL gradient: two forward passes of the batch's observations) and the new
way (``rewardgym.agents.offline.cql_update``: one, bit for bit the same weights), then times
the floor: a plain torch loop of the same network, batch and number of updates (Double DQN
target, Huber TD error and CQL's term from one forward pass, one backward pass, fused Adam) and
one batched forward per evaluation step of the new way's episodes. Worker-seconds are the
process's CPU time (``time.process_time``), so other jobs on the cores slow the wall clock but
not the figures much. A warm-up agent goes first, so imports and the first-call caches of a
worker process count once, apart (``bench embodied`` reuses its workers across agents).

Run: ``python -m rewardgym.benchmarks.perf.embodied_agent_cost [--steps 3000] [--agents 1]``.
It ends with ``per agent: old A s, new B s, floor F s; new/floor R``.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import tyro

from rewardgym.agents.evaluation.household import TEST_SPLITS, EvalConfig
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, between, check_fields

ROW = "cql/sparse"
"""The agent timed: the quick preset's sparse-reward CQL row, with its tuned values."""


@dataclass(frozen=True)
class Config:
    """The size of the run; every field is a command-line option of the same name."""

    steps: Annotated[int, AT_LEAST_1] = 3000
    """Training steps of each agent (the quick preset's 3,000)."""
    agents: Annotated[int, AT_LEAST_1] = 1
    """Agents (training seeds 0, 1, ...) timed each way."""
    episodes: Annotated[int, AT_LEAST_1] = 2000
    """Training trajectories collected (the quick preset's 2,000)."""
    splits: tuple[str, ...] = TEST_SPLITS
    """Evaluation splits (the quick preset's four held-out ones)."""
    instructions_per_task: Annotated[int, between(1, 5)] = 5
    """Instructions per task and split (the quick preset's 5)."""
    tasks: tuple[Annotated[int, NON_NEGATIVE], ...] | None = None
    """Task ids evaluated (all 25 when None)."""
    warmup_steps: Annotated[int, AT_LEAST_1] = 20
    """Training steps of the untimed warm-up agent."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


class _CountingPolicy:
    """Passes decisions to ``policy`` and records each evaluation step's batch size."""

    def __init__(self, policy: Any) -> None:
        """Wrap ``policy``."""
        self.policy = policy
        self.batches: list[int] = []

    def act_batch(self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]) -> Any:
        """The wrapped policy's actions, after noting the batch size."""
        self.batches.append(len(observations))
        return self.policy.act_batch(observations, instructions)


@contextlib.contextmanager
def d3rlpy_gradient() -> Iterator[None]:
    """Train with d3rlpy's own DiscreteCQL gradient (the old way) inside the block."""
    from rewardgym.agents.offline import cql_update

    install = cql_update.share_observation_forward
    cql_update.share_observation_forward = lambda impl: False
    try:
        yield
    finally:
        cql_update.share_observation_forward = install


def _agent(
    data: Any, offline: Any, evaluation: EvalConfig
) -> tuple[float, float, Any, dict[str, float], list[int]]:
    """Train and evaluate one agent: CPU seconds of each, the agent, its SR per split and
    the batch size of every evaluation step."""
    from rewardgym.agents.evaluation.household import evaluate_household
    from rewardgym.agents.offline import train_offline

    tic = time.process_time()
    agent = train_offline(data, offline, progress=False)
    trained = time.process_time()
    policy = _CountingPolicy(agent)
    results = evaluate_household(policy, evaluation)
    evaluated = time.process_time()
    sr = {name: r.percent()["sr"] for name, r in results.items()}
    return trained - tic, evaluated - trained, agent, sr, policy.batches


def floor_seconds(
    flat: Any, offline: Any, action_size: int, batches: Sequence[int], seed: int
) -> float:
    """CPU seconds of a plain torch loop doing the agent's arithmetic and nothing else.

    ``flat`` holds the training transitions (``FlatTransitions``); the loop trains the same
    MLP Q-network with ``offline``'s batch, learning rate, gamma, CQL alpha and target
    interval for ``offline.n_steps`` updates, then runs one forward pass per size in
    ``batches`` (the evaluation steps).
    """
    import torch
    from torch import nn
    from torch.nn import functional as F

    torch.manual_seed(seed)
    sizes = [flat.observations.shape[1], *offline.hidden_units]
    layers: list[nn.Module] = []
    for n_in, n_out in itertools.pairwise(sizes):
        layers += [nn.Linear(n_in, n_out), nn.ReLU()]
    q = nn.Sequential(*layers, nn.Linear(sizes[-1], action_size))
    target = copy.deepcopy(q)
    optim = torch.optim.Adam(q.parameters(), lr=offline.learning_rate, fused=True)
    obs = torch.from_numpy(flat.observations)
    nxt = torch.from_numpy(flat.next_observations)
    act = torch.from_numpy(flat.actions).long()
    rew = torch.from_numpy(flat.rewards)
    done = torch.from_numpy(flat.terminals)
    alpha = offline.algorithm.alpha
    interval = offline.algorithm.target_update_interval
    tic = time.process_time()
    for step in range(1, offline.n_steps + 1):
        index = torch.randint(len(obs), (offline.batch_size,))
        o, a, no = obs[index], act[index], nxt[index]
        with torch.no_grad():
            best = q(no).argmax(dim=1, keepdim=True)
            y = rew[index] + offline.gamma * target(no).gather(1, best) * (1 - done[index])
        values = q(o)
        chosen = values.gather(1, a)
        conservative = (torch.logsumexp(values, dim=1, keepdim=True) - chosen).mean()
        loss = F.huber_loss(chosen, y) + alpha * conservative
        optim.zero_grad(set_to_none=True)
        loss.backward()
        optim.step()
        if step % interval == 0:
            target.load_state_dict(q.state_dict())
    with torch.no_grad():
        for size in batches:
            q(obs[:size]).argmax(dim=1)
    return time.process_time() - tic


def run(args: Config) -> dict[str, float]:
    """Time every way, print the table and the closing line; return the per-agent figures."""
    import torch

    from rewardgym.agents.offline.mdp import to_mdp_dataset
    from rewardgym.agents.offline.sampling import FlatTransitions
    from rewardgym.agents.offline.training_reward import composed_rewards, training_config
    from rewardgym.benchmarks.embodied.config import PRESETS, Row
    from rewardgym.benchmarks.embodied.suite import offline_config
    from rewardgym.embeddings import CachedEmbedder
    from rewardgym.envs.household.v1 import INSTRUCTIONS
    from rewardgym.envs.trajectories import TrajectoryDataset, collect_dataset

    start_cpu, start_wall = time.process_time(), time.perf_counter()
    quick = PRESETS["quick"]
    row = Row.parse(ROW)
    evaluation = replace(
        quick.evaluation,
        splits=args.splits,
        instructions_per_task=args.instructions_per_task,
        tasks=args.tasks,
    )
    with tempfile.TemporaryDirectory() as tmp:  # the saved and reloaded data, as a worker reads it
        collect_dataset(replace(quick.collect, episodes=args.episodes)).save(
            Path(tmp), minari=False, overwrite=True
        )
        data = TrajectoryDataset.from_dir(tmp)
    CachedEmbedder().embed([i.text for i in INSTRUCTIONS])  # the suite's warm cache
    configs = [
        replace(offline_config(quick, row, quick.tuned_for(row), seed), n_steps=args.steps)
        for seed in range(args.agents)
    ]
    torch.set_num_threads(configs[0].threads)  # as run_task: one thread a worker
    warm = replace(configs[0], n_steps=args.warmup_steps)
    warm_eval = replace(evaluation, instructions_per_task=1)  # every task and layout once
    warm_cpu = time.process_time()
    _agent(data, warm, warm_eval)
    with d3rlpy_gradient():
        _agent(data, warm, warm_eval)
    warm_cpu = time.process_time() - warm_cpu

    old = {"train": 0.0, "evaluate": 0.0}
    new = {"train": 0.0, "evaluate": 0.0}
    floor = 0.0
    same = True
    for index, offline in enumerate(configs):
        if index % 2:  # alternate which way goes first, so neither always meets a fresh cache
            new_train, new_eval, new_agent, new_sr, batches = _agent(data, offline, evaluation)
        with d3rlpy_gradient():
            old_train, old_eval, old_agent, old_sr, _ = _agent(data, offline, evaluation)
        if not index % 2:
            new_train, new_eval, new_agent, new_sr, batches = _agent(data, offline, evaluation)
        old["train"] += old_train
        old["evaluate"] += old_eval
        new["train"] += new_train
        new["evaluate"] += new_eval
        same &= old_sr == new_sr and _same_weights(old_agent, new_agent)
        decided = training_config(data, offline)
        mdp = to_mdp_dataset(data.with_rewards(composed_rewards(data, decided)), new_agent.encoder)
        floor += floor_seconds(
            FlatTransitions.from_mdp(mdp), decided, len(data.action_names), batches, offline.seed
        )
    n = args.agents
    per = {
        "old": sum(old.values()) / n,
        "new": sum(new.values()) / n,
        "floor": floor / n,
    }
    per["new_over_floor"] = per["new"] / per["floor"]
    cores = torch.get_num_threads()
    print(
        f"{n} agent(s) of {ROW}: {args.steps} steps, batch {configs[0].batch_size}, MLP "
        f"{configs[0].hidden_units}, {len(evaluation.splits)} splits; torch threads {cores}"
    )
    print(f"{'way':8s} {'train s':>9s} {'evaluate s':>11s} {'total s':>9s}  (CPU s per agent)")
    for name, parts in (("old", old), ("new", new)):
        print(
            f"{name:8s} {parts['train'] / n:9.2f} {parts['evaluate'] / n:11.2f} "
            f"{sum(parts.values()) / n:9.2f}"
        )
    print(f"{'floor':8s} {'':9s} {'':11s} {per['floor']:9.2f}")
    print(f"warm-up (imports, first-call caches, both ways): {warm_cpu:.2f} s")
    print(f"old and new agents identical (weights and SR): {same}")
    print(
        f"whole run: {time.process_time() - start_cpu:.1f} CPU s, "
        f"{time.perf_counter() - start_wall:.1f} wall s"
    )
    print(
        f"per agent: old {per['old']:.2f} s, new {per['new']:.2f} s, floor {per['floor']:.2f} s; "
        f"new/floor {per['new_over_floor']:.2f}"
    )
    per["identical"] = float(same)
    return per


def _same_weights(a: Any, b: Any) -> bool:
    """Whether two trained agents' networks hold exactly the same tensors."""
    import torch

    left = a.algo.impl.modules.get_torch_modules()
    right = b.algo.impl.modules.get_torch_modules()
    return left.keys() == right.keys() and all(
        torch.equal(x, y)
        for name in left
        for x, y in zip(
            left[name].state_dict().values(), right[name].state_dict().values(), strict=True
        )
    )


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
