"""``rewardgym/ShopSession-v0``: replay logged shopping sessions one human step at a time."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium import spaces

from rewardgym.envs.conventions import check_options
from rewardgym.envs.shopping.compact import page_elements
from rewardgym.envs.shopping.context import (
    CONTEXT_MODES,
    ContextMode,
    approx_token_count,
    build_context,
    check_context_limits,
)
from rewardgym.envs.shopping.element_ids import resolve_ids
from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.envs.shopping.schema import ShopStep, actions_match
from rewardgym.envs.shopping.session_log import SessionLog
from rewardgym.envs.shopping.session_sources import DEFAULT_TEST_FRACTION, Split, resolve_sessions
from rewardgym.envs.shopping.spaces import (
    action_space,
    session_observation,
    session_observation_fields,
    text_action,
)
from rewardgym.envs.spaces import discrete_index


class ShopSessionEnv(gym.Env[dict[str, Any], str]):
    """Replay a logged shopping session; the agent predicts each next human rationale and action.

    ## Description
    One episode is one logged session of a real (or synthetic) shopper; one step is one logged
    human step (Shop-R1, arXiv 2507.17842). The policy sees the pages so far and outputs the
    next ``{"rationale": ..., "action": {...}}`` JSON object. Teacher forcing: whatever the
    agent says, the env moves to the human's next logged step.

    ## Observation
    A ``Dict``: ``context`` (the prompt context text: whole-session history by default, the
    latest page only with ``context="latest"``, a compact session with ``context="compact"``:
    one line per past page, every action and rationale, the current page tag-free; cut by the
    rules of :mod:`rewardgym.envs.shopping.context` under ``max_context_chars`` /
    ``max_context_tokens``, and never above 2**26 characters), ``page`` (the current simplified
    HTML, cut at 2**26 characters) and ``history`` (a sequence of the earlier actions, each
    ``{"type": 0|1|2, "name", "text"}`` with types indexed as in ``ACTION_TYPES``, names and
    texts cut at 2**16 characters).

    With ``element_ids=True`` the context lists the current page's elements with short ids
    (``[i] name``; off by default, so a pretrained model sees the paper's format). With
    ``persona=True`` it opens with the session's persona, the description of the shopper the
    session log carries (OPeRA's user table, the synthetic shopper's habits; nothing for a
    session without one).

    ## Action
    The policy's raw text output, any string. One that does not parse is a wrong answer. With
    ``element_ids=True`` an action may name an element of the current page by its id
    (``{"type": "click", "name": "[3]"}``): the env resolves it to the element's name before
    scoring, so the metric and every reward wrapper see the named action; an id not on the
    page is an invalid action (:mod:`rewardgym.envs.shopping.element_ids`).

    ## Reward
    1.0 when the parsed action exactly matches the human's (same type, and name and text equal
    in the canonical form of :mod:`rewardgym.envs.shopping.canonical`: case, punctuation and
    whitespace ignored), else 0.0. Richer rewards come from wrappers such as
    ``rewardgym.wrappers.ShopR1Reward``.

    ## Termination
    Terminates after the session's last logged step; never truncates.

    ## Info
    ``truth`` (the human's action dict), ``prediction`` (parsed action and rationale, or the
    parse error), ``parsed_output`` (the :class:`~rewardgym.envs.shopping.parsing.ParsedOutput`
    itself, so reward wrappers do not parse the output a second time), ``exact_match``,
    ``session_id``, ``step`` (index of the step just predicted; at reset the step to predict)
    and ``n_steps``.

    ## Registered ids
    ``rewardgym/ShopSession-v0``: ``gym.make(id, data=None, split="train",
    context="session"|"latest"|"compact", element_ids=False, persona=False)``.
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012  (Gymnasium's convention)

    def __init__(
        self,
        data: str | os.PathLike[str] | SessionLog | None = None,
        split: Split = "train",
        context: ContextMode = "session",
        max_context_chars: int | None = None,
        max_context_tokens: int | None = None,
        count_tokens: Callable[[str], int] = approx_token_count,
        test_fraction: float = DEFAULT_TEST_FRACTION,
        split_seed: int = 0,
        render_mode: str | None = None,
        element_ids: bool = False,
        persona: bool = False,
    ) -> None:
        if context not in CONTEXT_MODES:
            raise ValueError(f"context must be one of {CONTEXT_MODES}, got {context!r}")
        check_context_limits(max_context_chars, max_context_tokens)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.log, self.sessions = resolve_sessions(
            data, split, test_fraction=test_fraction, split_seed=split_seed
        )
        self.split = split
        self.context_mode = context
        self.max_context_chars = max_context_chars
        self.max_context_tokens = max_context_tokens
        self.count_tokens = count_tokens
        self.render_mode = render_mode
        self.element_ids = bool(element_ids)
        self.persona = bool(persona)
        self.observation_space = spaces.Dict(session_observation_fields())
        self.action_space = action_space()
        self._session = 0
        self._step = 0
        self._history: list[ShopStep] = []
        self._current: ShopStep | None = None
        self._last_obs: dict[str, Any] | None = None

    @property
    def num_sessions(self) -> int:
        """Number of sessions in the chosen split."""
        return len(self.sessions)

    @property
    def session_id(self) -> str:
        """Id of the session being replayed, as the data names it."""
        return self.log.session_ids[self._session]

    def _observation(self) -> dict[str, Any]:
        assert self._current is not None
        text = build_context(
            self._history,
            self._current.page,
            mode=self.context_mode,
            max_chars=self.max_context_chars,
            max_tokens=self.max_context_tokens,
            count_tokens=self.count_tokens,
            element_ids=self.element_ids,
            persona=self.log.persona(self._session) if self.persona else None,
        )
        return session_observation(self._history, self._current.page, text)

    def _base_info(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "step": self._step,
            "n_steps": self.log.session_length(self._session),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a session: ``options={"session": i}`` picks the i-th of the split, else the seed."""
        choice = check_options(options, ("session",), env=type(self).__name__).get("session")
        super().reset(seed=seed)
        if choice is None:
            position = int(self.np_random.integers(len(self.sessions)))
        else:
            position = discrete_index(
                choice,
                len(self.sessions),
                what=f"options['session'] (the {self.split!r} split has {len(self.sessions)} sessions)",
                unit="session index",
            )
        self._session = self.sessions[position]
        self._step = 0
        self._history = []
        self._current = self.log.step(self._session, 0)
        self._last_obs = self._observation()
        return self._last_obs, self._base_info()

    def step(self, action: str) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Score the prediction against the human's step, then move to the human's next step."""
        if self._current is None or self._last_obs is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        text = text_action(action, env=type(self).__name__)
        parsed = parse_output(text)
        if self.element_ids:
            parsed = resolve_ids(parsed, page_elements(self._current.page))
        truth = self._current.action
        match = actions_match(parsed.action, truth)
        info = self._base_info()
        info.update(
            truth=truth.truth_dict(),
            prediction=parsed.to_info(),
            parsed_output=parsed,
            exact_match=match,
            truth_rationale=self._current.rationale,
        )
        self._history.append(self._current)
        self._step += 1
        terminated = self._step >= self.log.session_length(self._session)
        if terminated:
            self._current = None
            obs = self._last_obs
        else:
            self._current = self.log.step(self._session, self._step)
            obs = self._last_obs = self._observation()
        return obs, float(match), terminated, False, info

    def render(self) -> str | None:  # type: ignore[override]
        """The current context text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self._last_obs is None:
            return None
        return str(self._last_obs["context"])


__all__ = ["ShopSessionEnv"]
