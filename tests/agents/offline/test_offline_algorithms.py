"""The shared tester: every offline algorithm and encoder through fit / save / load / predict."""

from __future__ import annotations

from pathlib import Path

import d3rlpy
import numpy as np
import pytest
from d3rlpy.logging import NoopAdapterFactory

from rewardgym.agents.offline import (
    ALGORITHMS,
    BCSettings,
    CQLSettings,
    DiscreteIQL,
    DiscreteIQLConfig,
    IQLSettings,
    OfflineConfig,
    algorithm_settings,
    make_algo_config,
)
from rewardgym.bounds import numeric_fields

N_ACTIONS = 5


def tiny_mdp(encoding: str, n: int = 60, seed: int = 0) -> d3rlpy.dataset.MDPDataset:
    """Random transitions in 6-step episodes: vectors, or token ids for the transformer."""
    rng = np.random.default_rng(seed)
    if encoding == "tokens":
        observations = rng.integers(0, 50, size=(n, 12)).astype(np.float32)
    else:
        observations = rng.random((n, 8), dtype=np.float32)
    return d3rlpy.dataset.MDPDataset(
        observations=observations,
        actions=rng.integers(N_ACTIONS, size=(n, 1)),
        rewards=rng.random((n, 1), dtype=np.float32),
        terminals=(np.arange(n) % 6 == 5).astype(np.float32),
        action_space=d3rlpy.ActionSpace.DISCRETE,
        action_size=N_ACTIONS,
    )


def fit(algo: d3rlpy.base.LearnableBase, data: d3rlpy.dataset.MDPDataset, steps: int = 4) -> None:
    """A few gradient steps without logging."""
    algo.fit(
        data,
        n_steps=steps,
        n_steps_per_epoch=steps,
        show_progress=False,
        save_interval=steps + 1,
        logger_adapter=NoopAdapterFactory(),
    )


@pytest.mark.parametrize("encoding", ["structured", "tokens"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_fit_save_load_predict(algorithm: str, encoding: str, tmp_path: Path) -> None:
    """Each algorithm trains, and ``d3rlpy.load_learnable`` reproduces its predictions exactly."""
    data = tiny_mdp(encoding)
    config = OfflineConfig(
        algorithm=algorithm_settings(algorithm), encoding=encoding, batch_size=8, hidden_units=(16,)
    )
    d3rlpy.seed(0)
    algo = make_algo_config(config).create(device=False)
    fit(algo, data)
    x = data.episodes[0].observations
    before = algo.predict(x)
    assert before.shape == (len(x),)
    assert ((before >= 0) & (before < N_ACTIONS)).all()
    path = tmp_path / "model.d3"
    algo.save(str(path))
    loaded = d3rlpy.load_learnable(str(path))
    assert type(loaded) is type(algo)
    np.testing.assert_array_equal(loaded.predict(x), before)
    if algorithm != "bc":
        actions = np.zeros(len(x), dtype=np.int64)
        np.testing.assert_allclose(
            loaded.predict_value(x, actions), algo.predict_value(x, actions), rtol=1e-6
        )


def test_iql_updates_change_parameters_and_report_losses() -> None:
    """One DiscreteIQL step moves the critic, value and policy and reports the three losses."""
    data = tiny_mdp("structured")
    algo = DiscreteIQLConfig(batch_size=8).create(device=False)
    algo.build_with_dataset(data)
    assert isinstance(algo, DiscreteIQL)
    impl = algo.impl
    modules = impl.modules.get_torch_modules()
    before = {k: [p.detach().clone() for p in m.parameters()] for k, m in modules.items()}
    metrics = algo.update(data.sample_transition_batch(8))
    assert {"q_loss", "v_loss", "actor_loss", "loss"} <= set(metrics)
    for name in ("policy", "q_funcs", "value_func"):
        after = list(modules[name].parameters())
        assert any(not np.allclose(a.detach(), b) for a, b in zip(after, before[name], strict=True))
    targ = list(modules["targ_q_funcs"].parameters())
    online = list(modules["q_funcs"].parameters())
    assert any(not np.allclose(t.detach(), o.detach()) for t, o in zip(targ, online, strict=True))


@pytest.mark.parametrize(
    "field, value",
    [
        ("expectile", 1.0),
        ("n_critics", 0),
        ("tau", 0.0),
        ("max_weight", 0.0),
        ("compile_graph", True),
    ],
)
def test_iql_config_rejects_bad_values(field: str, value: object) -> None:
    """A bad hyper-parameter fails at construction and names the field."""
    with pytest.raises(ValueError, match=field):
        DiscreteIQLConfig(**{field: value})


@pytest.mark.parametrize(
    "field, value",
    [
        ("expectile", 0.0),
        ("weight_temp", -1.0),
        ("tau", 2.0),
        ("n_critics", 0),
        ("max_weight", -1.0),
    ],
)
def test_iql_settings_and_the_d3rlpy_config_share_defaults_and_ranges(
    field: str, value: object
) -> None:
    """The library's IQLSettings and DiscreteIQLConfig agree on every IQL default and range."""
    import dataclasses

    shared = {f.name for f in dataclasses.fields(IQLSettings)}
    assert shared == {"expectile", "weight_temp", "tau", "n_critics", "max_weight"}
    algo = DiscreteIQLConfig()
    assert {name: getattr(IQLSettings(), name) for name in shared} == {
        name: getattr(algo, name) for name in shared
    }
    built = make_algo_config(OfflineConfig(algorithm=IQLSettings()))
    assert {name: getattr(built, name) for name in shared} == {
        name: getattr(algo, name) for name in shared
    }
    assert algo.n_critics == 2  # Kostrikov et al.'s two critics, in both
    ranges = dict(numeric_fields(DiscreteIQLConfig))
    assert dict(numeric_fields(IQLSettings)) == {name: ranges[name] for name in shared}
    with pytest.raises(ValueError, match=f"IQLSettings.{field}="):
        IQLSettings(**{field: value})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"DiscreteIQLConfig.{field}="):
        DiscreteIQLConfig(**{field: value})


def test_offline_config_round_trip_and_errors() -> None:
    """``OfflineConfig`` survives ``as_dict``/``from_dict`` and rejects unknown names."""
    for settings in (CQLSettings(alpha=0.3), IQLSettings(weight_temp=10.0), BCSettings()):
        config = OfflineConfig(algorithm=settings, hidden_units=(32, 32), seed=3)
        assert OfflineConfig.from_dict(config.as_dict()) == config
    with pytest.raises(ValueError, match="algorithm"):
        algorithm_settings("sac")
    with pytest.raises(TypeError, match="algorithm"):
        OfflineConfig(algorithm="cql")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="encoding"):
        OfflineConfig(encoding="pixels")
    with pytest.raises(ValueError, match="alpha"):
        CQLSettings(alpha=-1.0)


def test_settings_reach_the_d3rlpy_config() -> None:
    """Each algorithm's own fields, and the shared ones, end up in its d3rlpy config."""
    cql = make_algo_config(OfflineConfig(algorithm=CQLSettings(alpha=0.25), learning_rate=1e-3))
    assert (cql.alpha, cql.learning_rate, cql.target_update_interval) == (0.25, 1e-3, 250)
    iql = make_algo_config(OfflineConfig(algorithm=IQLSettings(weight_temp=7.0)))
    assert iql.weight_temp == 7.0 and isinstance(iql, DiscreteIQLConfig)
    bc = make_algo_config(OfflineConfig(algorithm=BCSettings(beta=0.1), batch_size=16))
    assert (bc.beta, bc.batch_size) == (0.1, 16)
    assert set(ALGORITHMS) == {"cql", "iql", "bc"}


def test_vectorised_sampling_draws_the_batches_d3rlpy_would() -> None:
    """The flat sampler picks the same transitions as d3rlpy's own under the same seed."""
    from rewardgym.agents.offline.sampling import FlatTransitions

    data = tiny_mdp("structured")
    flat = FlatTransitions.from_mdp(data)
    assert len(flat) == data.transition_count
    d3rlpy.seed(5)
    ours = flat.sample(16)
    d3rlpy.seed(5)
    theirs = data.sample_transition_batch(16)
    for name in ("observations", "actions", "rewards", "next_observations", "terminals"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name))


def test_instruction_film_encoder_round_trips_and_uses_the_instruction(tmp_path: Path) -> None:
    """The FiLM encoder trains and reloads, and two instructions change its features."""
    import torch

    from rewardgym.agents.offline.film import InstructionFiLMEncoderFactory

    factory = InstructionFiLMEncoderFactory(instruction_dim=3, hidden_units=(8, 8), projection=4)
    data = tiny_mdp("structured")  # 8 floats: 5 of state, 3 of instruction
    d3rlpy.seed(0)
    algo = d3rlpy.algos.DiscreteCQLConfig(encoder_factory=factory, batch_size=8).create()
    fit(algo, data, steps=20)
    algo.save(str(tmp_path / "film.d3"))
    x = data.episodes[0].observations
    np.testing.assert_array_equal(
        d3rlpy.load_learnable(str(tmp_path / "film.d3")).predict(x), algo.predict(x)
    )
    encoder = factory.create((8,))
    with torch.no_grad():
        for p in encoder.film.parameters():
            p.normal_()
        state = torch.rand(1, 5)
        a = encoder(torch.cat([state, torch.tensor([[1.0, 0.0, 0.0]])], dim=1))
        b = encoder(torch.cat([state, torch.tensor([[0.0, 0.0, 1.0]])], dim=1))
    assert not torch.allclose(a, b)
    with pytest.raises(ValueError, match="state"):
        factory.create((3,))
