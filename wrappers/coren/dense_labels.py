"""From the judged terms to one dense reward per step: the orchestrator fitted, or a fixed rule.

``dense_rewards`` turns a ``JudgedDataset``'s terms into the dense reward of one ablation:
ablations with two or more terms train COREN's orchestrator on the training share of the
episodes (its softmax weights make the discounted return match the success flag), one-term
ablations use that term, ``average``, ``majority`` and ``single`` apply their fixed rule. It
also measures how the dense return relates to success on the held-out episodes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from rewardgym.embeddings import CachedEmbedder
from rewardgym.wrappers.coren.config import TERMS, CorenConfig
from rewardgym.wrappers.coren.judging import JudgedDataset
from rewardgym.wrappers.coren.label_stats import point_biserial, split_episodes
from rewardgym.wrappers.coren.orchestrator import (
    Orchestrator,
    OrchestratorSpec,
    StepInputs,
    normalised_returns,
    step_inputs,
)
from rewardgym.wrappers.coren.scoring import combine_terms


def dense_rewards(
    judged: JudgedDataset,
    config: CorenConfig,
    embedder: CachedEmbedder,
    orchestrator: Orchestrator | None = None,
) -> tuple[list[np.ndarray], Orchestrator | None, dict[str, Any]]:
    """One dense reward array per episode for ``config.ablation``, and how it was obtained.

    Ablations with two or more terms train the orchestrator on the training episodes (unless
    a trained ``orchestrator`` is given); one-term ablations use that term; ``average``,
    ``majority`` and ``single`` apply their fixed rule. The returned dict holds the losses and
    held-out correlations.
    """
    terms = judged.flat_terms()
    lengths = [len(s.terms) for s in judged.scored]
    episode_index = np.repeat(np.arange(len(lengths)), lengths)
    step_index = np.concatenate([np.arange(n) for n in lengths] or [np.zeros(0, dtype=np.int64)])
    success = np.array([ep.success for ep in judged.data], dtype=np.float64)
    train, heldout = split_episodes(len(lengths), config.holdout_fraction, config.seed)
    info: dict[str, Any] = {"train_episodes": len(train), "heldout_episodes": len(heldout)}
    columns = [TERMS.index(t) for t in config.terms]
    votes = np.concatenate([s.votes for s in judged.scored] or [np.zeros((0, 1))])
    weights = None
    if config.uses_orchestrator:
        inputs = step_inputs([t for steps in judged.transitions for t in steps])
        if orchestrator is None:
            orchestrator = Orchestrator(
                OrchestratorSpec(
                    dim=int(embedder.dim),
                    hidden=config.hidden_size,
                    terms=config.terms,
                    gamma=config.gamma,
                    embedder=embedder.name,
                ),
                embedder,
                seed=config.seed,
            )
            in_train = np.isin(episode_index, train)
            remap = np.full(len(lengths), -1)
            remap[train] = np.arange(len(train))
            losses = orchestrator.fit(
                _subset(inputs, in_train),
                terms[in_train][:, columns],
                remap[episode_index[in_train]],
                step_index[in_train],
                success[train],
                epochs=config.epochs,
                learning_rate=config.learning_rate,
            )
            info["initial_loss"], info["final_loss"] = losses[0], losses[-1]
        if orchestrator.spec.terms != config.terms:
            raise ValueError(
                f"the orchestrator weighs terms {orchestrator.spec.terms} but ablation "
                f"{config.ablation!r} needs {config.terms}"
            )
        weights = orchestrator.weights(inputs)
        info["mean_weights"] = dict(
            zip(config.terms, weights.mean(axis=0).round(4).tolist(), strict=True)
        )
    else:
        orchestrator = None
    flat = combine_terms(terms, votes, config, weights)
    bounds = np.cumsum([0, *lengths])
    rewards = [flat[bounds[i] : bounds[i + 1]].astype(np.float32) for i in range(len(lengths))]
    held_returns = normalised_returns([rewards[i] for i in heldout], config.gamma)
    info["heldout_returns"], info["heldout_success"] = held_returns, success[heldout]
    info["heldout_correlation"] = point_biserial(held_returns, success[heldout])
    info["heldout_term_correlations"] = {
        name: point_biserial(
            normalised_returns([judged.scored[i].terms[:, k] for i in heldout], config.gamma),
            success[heldout],
        )
        for k, name in enumerate(TERMS)
    }
    return rewards, orchestrator, info


def _subset(inputs: StepInputs, mask: np.ndarray) -> StepInputs:
    return replace(
        inputs,
        instruction_index=inputs.instruction_index[mask],
        action_index=inputs.action_index[mask],
        observation_index=inputs.observation_index[mask],
    )


__all__ = ["dense_rewards"]
