"""Settings of ``rewardgym bench embodied``: rows, reward schemes, tuned values and presets.

The rows are COREN's Tables 1, 3 and 5 (arXiv 2411.17135) plus the references a benchmark
needs to be able to fail: behaviour cloning, BC on successful trajectories only, offline RL on
the success flag alone ("sparse"), the same on an oracle dense reward (potential-based
shaping on the simulator's goal-predicate progress, ``rewardgym.envs.household.v1.oracle``),
then the COREN schemes, each a labelling of ``rewardgym.wrappers.coren``. Every dense scheme
is composed with the success flag as ``r_t = f_s * 1[t = T] + lambda * r_hat_t``
(``rewardgym.wrappers.composition``); lambda, the learning rate, ``cql_alpha`` and IQL's
temperature are chosen per (algorithm, reward) on the validation split by ``mode="tune"``,
and the preset records the values and the run they came from.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Literal

import tyro

from rewardgym.agents.evaluation.household import TEST_SPLITS, EvalConfig
from rewardgym.agents.offline.config import MAX_STEPS, OfflineConfig
from rewardgym.bounds import (
    AT_LEAST_1,
    NON_NEGATIVE,
    POSITIVE,
    SEED,
    Range,
    between,
    check_fields,
)
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.trajectories.config import CollectConfig
from rewardgym.envs.trajectories.variants import SUITE_VARIANT, variant_config
from rewardgym.wrappers.coren.config import N_PROMPTS
from rewardgym.wrappers.judges.factory import check_judge_spec

COREN_SCHEMES: dict[str, str] = {
    "coren": "CST",
    "single-prompt": "single",
    "self-consistency": "C",
    "average": "average",
    "majority": "majority",
    "C": "C",
    "S": "S",
    "T": "T",
    "CS": "CS",
    "ST": "ST",
    "CT": "CT",
}
"""COREN reward scheme -> the ablation of ``rewardgym.wrappers.coren`` that labels it.

"self-consistency" is the majority vote over the N prompts, which is also COREN's contextual
term, so it and "C" carry identical rewards; the suite trains them once."""

REWARDS: tuple[str, ...] = ("none", "sparse", "oracle", "perfect-judge", *COREN_SCHEMES)
"""Every value of a row's ``reward``: none (BC rows), sparse, oracle, perfect-judge (the
simulator rating every step on COREN's -2..+2 rubric, ``rewardgym.wrappers.perfect_judge``:
COREN's ceiling) and the COREN schemes."""

REWARD_HELP: dict[str, str] = {
    "none": "no reward (imitation)",
    "sparse": "success flag only (GCRL)",
    "oracle": "success flag + oracle shaping on goal-predicate progress",
    "perfect-judge": "success flag + the simulator as a perfect judge on COREN's -2..+2 rubric",
    "coren": "success flag + COREN: orchestrator over C, S, T",
    "single-prompt": "success flag + one prompt's judge vote",
    "self-consistency": "success flag + majority vote over the N prompts",
    "average": "success flag + mean of the C, S, T terms",
    "majority": "success flag + majority of the C, S, T terms",
    "C": "ablation: contextual only",
    "S": "ablation: structural only",
    "T": "ablation: temporal only",
    "CS": "ablation: orchestrator over C, S",
    "ST": "ablation: orchestrator over S, T",
    "CT": "ablation: orchestrator over C, T",
}

ALGORITHMS: tuple[str, ...] = ("cql", "iql", "bc", "filtered-bc")
"""Every value of a row's ``algorithm``."""


MODES: tuple[str, ...] = ("final", "tune", "tune-curves")
"""Every value of ``EmbodiedBenchConfig.mode``."""


@dataclass(frozen=True)
class Row:
    """One row of the tables: an algorithm trained on a reward."""

    algorithm: str
    """cql | iql | bc | filtered-bc."""
    reward: str
    """none (the BC rows) | sparse | oracle | a COREN scheme."""

    def __post_init__(self) -> None:
        """Reject unknown names and BC rows with a reward, naming the field."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"Row.algorithm={self.algorithm!r}: use one of {ALGORITHMS}")
        if self.reward not in REWARDS:
            raise ValueError(f"Row.reward={self.reward!r}: use one of {REWARDS}")
        if (self.algorithm in ("bc", "filtered-bc")) != (self.reward == "none"):
            raise ValueError(
                f"Row({self.algorithm!r}, {self.reward!r}): the BC rows and only they use "
                "reward 'none'"
            )

    @property
    def name(self) -> str:
        """``algorithm/reward``."""
        return f"{self.algorithm}/{self.reward}"

    @classmethod
    def parse(cls, name: str) -> Row:
        """The row called ``algorithm/reward``."""
        algorithm, slash, reward = name.partition("/")
        if not slash:
            raise ValueError(f"row {name!r}: write it as algorithm/reward, e.g. cql/oracle")
        return cls(algorithm, reward)


REFERENCE_ROWS: tuple[str, ...] = (
    "bc/none",
    "filtered-bc/none",
    "cql/sparse",
    "iql/sparse",
    "cql/oracle",
    "iql/oracle",
    "cql/perfect-judge",
)
"""The reference rows every run has."""
COREN_ROWS: tuple[str, ...] = tuple(f"cql/{scheme}" for scheme in COREN_SCHEMES)
"""COREN's agent (CQL) on every COREN scheme."""


@dataclass(frozen=True)
class Tuned:
    """The hyperparameters chosen on validation for one row; ``None``: the library's default.

    ``None`` reads the default from where the library declares it (``OfflineConfig`` for the
    learning rate, ``CQLSettings`` / ``IQLSettings`` for their own, and for lambda the
    composition the row's data set records, ``RewardComposition``'s unless its labeller chose
    another), so a preset states only what a tune run changed; a value set here overrides it
    explicitly, and each run records the value it used.
    """

    algorithm: str
    """The row's algorithm."""
    reward: str
    """The row's reward."""
    dense_weight: Annotated[float, NON_NEGATIVE] | None = None
    """lambda, the scale of the dense reward beside the success flag (None: the data set's)."""
    learning_rate: Annotated[float, POSITIVE] | None = None
    """Learning rate of every network."""
    cql_alpha: Annotated[float, NON_NEGATIVE] | None = None
    """DiscreteCQL's conservative weight."""
    iql_weight_temp: Annotated[float, NON_NEGATIVE] | None = None
    """DiscreteIQL's inverse temperature."""
    n_steps: Annotated[int, between(1, MAX_STEPS)] | None = None
    """The row's step budget, chosen on its validation curve (None: training.n_steps)."""
    target_update_interval: Annotated[int, AT_LEAST_1] | None = None
    """DiscreteCQL's steps between target-network updates (None: CQLSettings')."""
    iql_tau: Annotated[float, Range(gt=0, le=1)] | None = None
    """DiscreteIQL's Polyak rate of the target critics, its target speed (None: IQLSettings')."""
    validation_sr: Annotated[float, between(0, 100)] | None = None
    """The validation SR (percent) that chose these values, if a tune run did."""

    def __post_init__(self) -> None:
        """Refuse numbers that are not finite or not in their range, naming the field."""
        check_fields(self)


@dataclass(frozen=True)
class TuneGrid:
    """The sweep of ``mode="tune"``: every combination is trained and scored on validation."""

    dense_weights: tuple[Annotated[float, NON_NEGATIVE], ...] = (1.0, 5.0, 10.0)
    """lambda values (dense rows only)."""
    learning_rates: tuple[Annotated[float, POSITIVE], ...] = (3e-4, 1e-3)
    """Learning rates."""
    cql_alphas: tuple[Annotated[float, NON_NEGATIVE], ...] = (1.0, 3.0)
    """DiscreteCQL conservative weights (0.3 and below let unseen actions through: SR 17 and
    0.5 on validation, issue 22)."""
    iql_weight_temps: tuple[Annotated[float, NON_NEGATIVE], ...] = (3.0,)
    """DiscreteIQL inverse temperatures (IQL's paper value only by default)."""
    seeds: tuple[Annotated[int, SEED], ...] = (100,)
    """Training seeds of each combination (kept apart from the final seeds)."""
    around_tuned: bool = False
    """A second stage: each dense row keeps the lambda already tuned for it and sweeps only the
    learning rate and its algorithm's value, e.g. past the edge of the first stage's grid."""

    def __post_init__(self) -> None:
        """Refuse numbers that are not finite or not in their range, naming the field."""
        check_fields(self)


@dataclass(frozen=True)
class CurveGrid:
    """The sweep of ``mode="tune-curves"``: one long run a point, scored on validation every K steps.

    The step budget is read off each run's validation curve (``benchmarks.embodied.tune``), so
    a grid over budgets costs one run. Every row keeps its tuned lambda and its algorithm's own
    value (CQL's alpha, IQL's temperature) and crosses the learning rates with its target speed:
    the same grid for a row on the success flag as for one on a dense reward.
    """

    max_steps: Annotated[int, between(1, MAX_STEPS)] = 12_000
    """Steps of each run: the longest budget the tune can choose."""
    eval_every: Annotated[int, AT_LEAST_1] = 1_000
    """Steps between two validation scorings (a divisor of max_steps): the budgets on offer."""
    learning_rates: tuple[Annotated[float, POSITIVE], ...] = (1e-4, 3e-4, 1e-3)
    """Learning rates of every row."""
    target_update_intervals: tuple[Annotated[int, AT_LEAST_1], ...] = (250, 1000)
    """DiscreteCQL's target-update intervals (COREN: 250)."""
    iql_taus: tuple[Annotated[float, Range(gt=0, le=1)], ...] = (0.005, 0.001)
    """DiscreteIQL's target Polyak rates (Kostrikov et al.: 0.005, about CQL's 1/250; and 1/1000)."""
    seeds: tuple[Annotated[int, SEED], ...] = (100, 101)
    """Training seeds of each point, at least 2 (kept apart from the final seeds)."""

    def __post_init__(self) -> None:
        """Refuse an empty axis, one seed, and a scoring interval that leaves steps out."""
        check_fields(self)
        for name in ("learning_rates", "target_update_intervals", "iql_taus"):
            if not getattr(self, name):
                raise ValueError(f"CurveGrid.{name} is empty: give at least one value")
        if len(set(self.seeds)) < 2:
            raise ValueError(
                f"CurveGrid.seeds={self.seeds}: give at least 2 distinct seeds a point"
            )
        if self.max_steps % self.eval_every:
            raise ValueError(
                f"CurveGrid.eval_every={self.eval_every} does not divide max_steps="
                f"{self.max_steps}: use a divisor"
            )

    @property
    def size(self) -> int:
        """Grid points of a CQL or IQL row (a BC row has the learning rates alone)."""
        return len(self.learning_rates) * len(self.target_update_intervals)


@dataclass(frozen=True)
class EmbodiedBenchConfig:
    """One run of the embodied suite: data, labelling, rows, training, tuning and evaluation."""

    name: Annotated[str, tyro.conf.Suppress] = "quick"
    """The preset these settings came from (recorded in results.json)."""
    mode: str = "final"
    """"final": train every row with its tuned values and score the held-out splits;
    "tune": sweep tune_grid per row and score the validation split only; "tune-curves": sweep
    curve_grid per row, each point one long run scored on validation every K steps."""
    collect: CollectConfig = field(
        default_factory=lambda: variant_config(SUITE_VARIANT, episodes=2000)
    )
    """The training data (Household-v1): the stitch-siblings data-set variant
    (rewardgym.envs.trajectories.variants): few successes, the skill in the failures."""
    judge: str = "embedding"
    """Judge of the COREN labelling: embedding, embedding:hashing, hf:smollm2-135m, hf:PATH (a
    local model folder), openai:URL (an OpenAI-compatible server), or calibrated:ACC or
    calibrated:ACC:RHO (the env's goal check, right with probability ACC)."""
    n_prompts: Annotated[int, AT_LEAST_1] = N_PROMPTS
    """Prompts per judge question (COREN: 5)."""
    quality_judges: tuple[str, ...] = ("embedding", "hf:smollm2-135m")
    """Judges of the judges table, each probed on held-out abstract instructions (the
    labelling judge also gets its labelling cost and return-success correlation): any of
    embedding, embedding:hashing, hf:smollm2-135m, hf:PATH, openai:URL, calibrated:ACC,
    calibrated:ACC:RHO."""
    quality_states: Annotated[int, NON_NEGATIVE] = 200
    """Probe states per judge of the judges table (from quality_episodes episodes)."""
    quality_hf_states: Annotated[int, NON_NEGATIVE] = 24
    """Probe states of hf: judges (each state rates every action with every prompt)."""
    quality_episodes: Annotated[int, NON_NEGATIVE] = 40
    """Perturbed-expert episodes under held-out abstract instructions, probed for the table."""
    rows: tuple[str, ...] = REFERENCE_ROWS + COREN_ROWS
    """The rows of the tables, each algorithm/reward: algorithm cql | iql | bc | filtered-bc,
    reward none (the BC rows) | sparse | oracle | perfect-judge | a COREN scheme (coren,
    single-prompt, self-consistency, average, majority, C, S, T, CS, ST, CT)."""
    training: OfflineConfig = field(
        default_factory=lambda: OfflineConfig(n_steps=3000, batch_size=256)
    )
    """Shared training settings (steps, batch, encoding). Each row puts in its own algorithm and
    tuned values; training.algorithm is the base of the rows of that algorithm."""
    tuned: tuple[Tuned, ...] = ()
    """Hyperparameters chosen on validation, per row (rows not listed use Tuned's
    defaults, the library's)."""
    tuned_source: str = "library defaults (no tune run)"
    """Where tuned came from: the tune run's command and output."""
    tune_grid: TuneGrid = field(default_factory=TuneGrid)
    """The sweep of mode="tune"."""
    curve_grid: CurveGrid = field(default_factory=CurveGrid)
    """The sweep of mode="tune-curves": learning rates x target speeds, budgets off the curves."""
    seeds: tuple[Annotated[int, SEED], ...] = (0, 1, 2)
    """Training seeds per row (intervals are over seeds, tasks and episodes)."""
    evaluation: EvalConfig = field(default_factory=lambda: EvalConfig(splits=TEST_SPLITS))
    """The held-out splits of the final tables."""
    validation: EvalConfig = field(
        default_factory=lambda: EvalConfig(
            splits=("validation",), instructions_per_task=3, episodes_per_instruction=8
        )
    )
    """The validation split of mode="tune": training instructions on new episodes (25 tasks x 3
    instructions x 8 episodes: 600 episodes, about +/-2 SR points per agent)."""
    latency_steps: Annotated[int, AT_LEAST_1] = 50
    """Timed single decisions of an agent and of the judge-as-policy baseline."""
    judge_policy_instructions: Annotated[int, NON_NEGATIVE] = 0
    """Held-out instructions per task for the judge-as-policy SR (0: latency only)."""
    judge_policy_latency: bool = True
    """Time the judge picking every action (judge-as-policy). Off on VirtualHome-v0, where one
    decision rates 453 actions with every prompt (2,265 requests)."""
    bootstrap: Annotated[int, AT_LEAST_1] = 2000
    """Bootstrap resamples of the 95% intervals (seeds crossed with tasks, then episodes)."""
    workers: Annotated[int, AT_LEAST_1] = 2
    """Training processes in parallel (one torch thread each)."""
    indicative: bool = False
    """Whether this preset has too few seeds to settle its paired differences: its tables then
    say that they are indicative and that the full preset settles them."""

    def __post_init__(self) -> None:
        """Reject unknown modes, empty settings and test splits in validation, naming the field."""
        check_fields(self)
        if self.mode not in MODES:
            raise ValueError(f"EmbodiedBenchConfig.mode={self.mode!r}: use one of {MODES}")
        if not self.rows:
            raise ValueError("EmbodiedBenchConfig.rows is empty: give at least one row")
        for name in self.rows:
            try:
                Row.parse(name)
            except ValueError as err:
                raise ValueError(f"EmbodiedBenchConfig.rows (--rows) has {name!r}: {err}") from err
        check_judge_spec(self.judge, "EmbodiedBenchConfig.judge (--judge)")
        for spec in self.quality_judges:
            check_judge_spec(spec, "EmbodiedBenchConfig.quality_judges (--quality-judges)")
        if not self.seeds:
            raise ValueError("EmbodiedBenchConfig.seeds is empty: give at least one seed")
        envs = {self.collect.env, self.evaluation.env_id, self.validation.env_id}
        if len(envs) > 1:
            raise ValueError(
                f"EmbodiedBenchConfig: collect.env={self.collect.env!r}, evaluation.env_id="
                f"{self.evaluation.env_id!r} and validation.env_id={self.validation.env_id!r} "
                "must name one env (bench embodied --env picks it with its presets)"
            )
        if self.collect.env == VIRTUALHOME_ID and "oracle" in {r.reward for r in self.row_specs}:
            raise ValueError(
                "EmbodiedBenchConfig.rows (--rows) has an oracle row: VirtualHome-v0 has no "
                "planner to shape on; its perfect-judge row rates steps by the goal check"
            )
        if set(self.validation.splits) != {"validation"}:
            raise ValueError(
                "EmbodiedBenchConfig.validation must play the 'validation' split only: test "
                "instructions and the shifted layout are read only for the final tables"
            )
        for name in ("workers", "latency_steps", "bootstrap"):
            if getattr(self, name) < 1:
                raise ValueError(f"EmbodiedBenchConfig.{name}={getattr(self, name)}: use >= 1")

    @property
    def row_specs(self) -> tuple[Row, ...]:
        """The rows as ``Row`` objects."""
        return tuple(Row.parse(name) for name in self.rows)

    def tuned_for(self, row: Row) -> Tuned:
        """The tuned values of ``row`` (the library defaults if none were recorded)."""
        for item in self.tuned:
            if (item.algorithm, item.reward) == (row.algorithm, row.reward):
                return item
        return Tuned(row.algorithm, row.reward)

    def replace(self, **changes: object) -> EmbodiedBenchConfig:
        """A copy with ``changes`` applied (and checked)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


QUICK_ROWS: tuple[str, ...] = (*REFERENCE_ROWS, "cql/coren", "cql/single-prompt", "cql/average")
"""The quick preset's rows: every reference row, COREN, and two of its ablations (one prompt
instead of the ensemble: Table 5; the mean of C, S, T instead of the orchestrator: Table 3)."""

TUNE_COMMAND = (
    "rewardgym bench embodied --preset quick --mode tune --rows bc/none filtered-bc/none "
    "cql/sparse iql/sparse cql/oracle iql/oracle cql/perfect-judge cql/coren"
)
"""The first tune stage (recorded in docs/results/embodied-tune.md)."""

TUNE_STAGE2_COMMAND = (
    "rewardgym bench embodied --preset quick --mode tune --rows bc/none iql/sparse cql/sparse "
    "cql/oracle cql/perfect-judge cql/coren --tune-grid.around-tuned "
    "--tune-grid.learning-rates 1e-3 3e-3 --tune-grid.cql-alphas 3 10"
)
"""The second stage, past the edge the first stage's best sat on (lr 1e-3, alpha 3), at each
row's tuned lambda (recorded in docs/results/embodied-tune-stage2.md)."""

_CHOSEN: tuple[Tuned, ...] = (
    Tuned("bc", "none", learning_rate=1e-3, validation_sr=27.7),
    Tuned("filtered-bc", "none", learning_rate=3e-4, validation_sr=19.0),
    Tuned("cql", "sparse", learning_rate=1e-3, cql_alpha=10.0, validation_sr=19.7),
    Tuned("iql", "sparse", learning_rate=1e-3, iql_weight_temp=3.0, validation_sr=28.2),
    Tuned(
        "cql", "oracle", dense_weight=10.0, learning_rate=1e-3, cql_alpha=3.0, validation_sr=27.3
    ),
    Tuned(
        "iql",
        "oracle",
        dense_weight=1.0,
        learning_rate=3e-4,
        iql_weight_temp=3.0,
        validation_sr=27.7,
    ),
    Tuned(
        "cql",
        "perfect-judge",
        dense_weight=1.0,
        learning_rate=1e-3,
        cql_alpha=3.0,
        validation_sr=35.7,
    ),
    Tuned("cql", "coren", dense_weight=5.0, learning_rate=1e-3, cql_alpha=3.0, validation_sr=23.7),
)
"""The values chosen on validation by ``TUNE_COMMAND`` and then ``TUNE_STAGE2_COMMAND`` (which
kept every row's first-stage values but sparse CQL's alpha: 10, 19.7 against 19.3), per row."""

COREN_SHARED = "coren"
"""The COREN ablations train with the values tuned for this scheme (the paper tunes once)."""


def with_ablations(chosen: tuple[Tuned, ...]) -> tuple[Tuned, ...]:
    """``chosen`` plus, for every other COREN scheme, a copy of cql/coren's values."""
    coren = [t for t in chosen if (t.algorithm, t.reward) == ("cql", COREN_SHARED)]
    copies = tuple(
        dataclasses.replace(coren[0], reward=scheme, validation_sr=None)
        for scheme in COREN_SCHEMES
        if coren and scheme != COREN_SHARED
    )
    return chosen + copies


TUNED: tuple[Tuned, ...] = with_ablations(_CHOSEN)
"""The tuned values of every row the presets train (rows not listed: the library's)."""
TUNED_SOURCE = (
    f"chosen on the validation split (600 episodes of training instructions, seed 100) by "
    f"`{TUNE_COMMAND}`, then past that grid's edge by `{TUNE_STAGE2_COMMAND}`; COREN's "
    "ablations share cql/coren's values; see docs/results/embodied-tune.md and "
    "embodied-tune-stage2.md"
)
"""Where ``TUNED`` came from, printed under every table."""

_TUNED = {"tuned": TUNED, "tuned_source": TUNED_SOURCE}

FULL_EVAL_EVERY = 1_000
"""Steps between the validation scorings of the full presets' agents (their learning curves on
the page): a divisor of every row's budget, which ``CurveGrid.eval_every`` steps also are."""

PresetName = Literal["demo", "quick", "full", "paper"]
"""The names of :data:`PRESETS`, as a ``Literal`` for tyro's choices (a test keeps both equal)."""

PRESETS: dict[str, EmbodiedBenchConfig] = {
    "demo": EmbodiedBenchConfig(
        name="demo",
        collect=variant_config(SUITE_VARIANT, episodes=600),
        quality_judges=("embedding",),
        quality_states=100,
        quality_episodes=20,
        rows=("filtered-bc/none", "cql/sparse", "cql/perfect-judge", "cql/coren"),
        seeds=(0,),
        evaluation=EvalConfig(splits=("fine", "abstract"), instructions_per_task=2),
        latency_steps=20,
        indicative=True,
        **_TUNED,  # type: ignore[arg-type]
    ),
    "quick": EmbodiedBenchConfig(
        name="quick",
        rows=QUICK_ROWS,
        quality_judges=("embedding",),  # SmolLM2's probe (2.5 min on 2 cores) is in full
        indicative=True,
        **_TUNED,  # type: ignore[arg-type]
    ),
    # Sized from the recorded pages (2 cores alone, 2 workers): an agent (3,000 steps, then 4
    # held-out splits) costs 39.1 worker-s in quick (586.5 s x 2 workers / 30 agents) and 39.5
    # in full (1008.4 s x 2 / 51); full's other phases (data, 10 labellings, judge probes) took
    # 1249 - 1008 = 240 s. Full trains 17 distinct rows (self-consistency = C) per seed, so
    # S seeds take 240 + 17 x S x 39.5 / 2 = 240 + 336 S s: 5 seeds 32.0 min, 6 seeds 37.6,
    # 7 seeds 43.2. Recorded with 6 seeds on a 2-core AMD EPYC of family 25 (Zen 4,
    # docs/results/embodied-full.md, a4e8948): 40.5 min in all, 2138.9 s for the 102 agents
    # (41.9 worker-s an agent) and 285 s for the rest, 4.5 of the 45 minutes to spare. The
    # slowest machine seen, a 2-core EPYC of family 23 (Zen 1), took 222 worker-s an agent
    # (docs/results/embodied-sizing.md, four quick agents of a heavier mix, before the CQL
    # update shared its forward pass, which saves about 12%): there full takes about
    # 285 + 102 x 222 / 2 = 11,600 s, some 3.2 hours. Its validation curves (a scoring of the
    # 600 validation episodes every FULL_EVAL_EVERY steps, 3.7 CPU-s each, timed on 2 shared
    # cores on 2026-12-07) add 102 x 3 x 3.7 / 2 = 566 s, about 9.4 min; they change no weight.
    "full": EmbodiedBenchConfig(
        name="full",
        seeds=(0, 1, 2, 3, 4, 5),
        training=OfflineConfig(n_steps=3000, batch_size=256, eval_every=FULL_EVAL_EVERY),
        **_TUNED,  # type: ignore[arg-type]
    ),
    "paper": EmbodiedBenchConfig(
        name="paper",
        collect=variant_config(SUITE_VARIANT),
        training=OfflineConfig(batch_size=256),  # OfflineConfig's own 20,000 steps
        latency_steps=200,
        judge_policy_instructions=5,
        **_TUNED,  # type: ignore[arg-type]
    ),
}
"""``demo``: the reference rows and COREN on a small data set for ``make demo`` (one seed, two
held-out splits); ``quick``: the reference rows, COREN and two ablations, 3 seeds, within 15
minutes on 2 CPU cores; ``full``: every row of COREN's Tables 1, 3 and 5 at quick's size
with 6 seeds, within 45 minutes on 2 cores (the arithmetic is beside the preset);
``paper``: COREN's data size and test set. All share the values tuned on validation."""


__all__ = [
    "ALGORITHMS",
    "COREN_ROWS",
    "COREN_SCHEMES",
    "FULL_EVAL_EVERY",
    "MODES",
    "PRESETS",
    "QUICK_ROWS",
    "REFERENCE_ROWS",
    "REWARDS",
    "REWARD_HELP",
    "TUNED",
    "TUNED_SOURCE",
    "TUNE_COMMAND",
    "TUNE_STAGE2_COMMAND",
    "CurveGrid",
    "EmbodiedBenchConfig",
    "PresetName",
    "Row",
    "TuneGrid",
    "Tuned",
    "with_ablations",
]
