"""Shop-R1's hybrid reward (arXiv 2507.17842) as pure functions, and the ``ShopR1Reward`` wrapper.

``total = format + rationale + type + attribute + value``, where, for a policy output that
predicts action ``a`` against the human's action ``h``:

* ``format``: ``format_weight`` (0.5) when the output is one JSON object with a string
  ``rationale`` and an ``action`` object of a valid type (``ParsedOutput.has_valid_format`` of
  the project's one parser, :func:`rewardgym.envs.shopping.parsing.parse_output`), else 0;
  ``format_rule="lenient"`` pays it for any object holding both keys (``has_format``), so
  ``{"rationale": 1, "action": 2}`` earns it there and not by default;
* ``rationale``: ``alpha * s`` (alpha 0.005) with ``s`` the self-certainty of the rationale's
  tokens (:mod:`rewardgym.wrappers.self_certainty`); 0 when the policy supplied no
  log-probabilities (``rationale_missing`` = 1) or the output holds no rationale string;
* ``type``: ``type_weight`` (0.3) when ``a.type == h.type``; nothing below is paid otherwise;
* ``attribute`` (the element ``name``): ``click``: ``click_name_bonus`` (0.2) when the
  predicted name is non-blank, plus ``dars * R(name)``; ``type_and_submit``:
  ``submit_name_bonus`` (0.1) when non-blank, plus ``submit_name_rouge_weight * R(name)`` (0.1);
* ``value`` (the typed ``text``): ``type_and_submit`` only: ``submit_text_bonus`` (0.1) when
  non-blank, plus ``dars * R(text)``; ``terminate`` earns the type term alone.

``R(x) = ROUGE-L(predicted x, human x)`` over the canonical tokens that exact match compares too
(:mod:`rewardgym.envs.shopping.canonical`: case, punctuation and whitespace ignored) when that
F-measure is ``>= rouge_threshold`` (0.75) and
0 below it: the raw score, not 1, is what is weighted. The paper has ROUGE-L "count only above
a threshold"; the issue specifies "when it reaches the threshold", which is the ``>=`` read here
(the two differ only at exactly 0.75, e.g. 3 of 4 tokens shared by two 4-token names). The
test allows :data:`THRESHOLD_TOLERANCE` (1e-12) of rounding: a 3-token prediction inside a
5-token reference has F = 2 * 1 * 0.6 / 1.6 = 0.75 exactly, but 0.7499999999999999 in floats.

Every named reward is a config of this one reward, chosen by name from one registry,
:data:`REWARDS` (:func:`reward_config`; an unknown name is refused with the list): ``full``
(the paper's weights), the paper's ablations ``no-format`` (``format_weight = 0``),
``no-rationale`` (``alpha = 0``), ``no-dars`` (``dars = 1``: the difficulty-aware scaling is
removed, so the ROUGE terms it scales, click name and typed text, get weight 1, while the 0.1
name-ROUGE weight of ``type_and_submit`` stays as it is) and ``binary-action`` (``v(a)`` = 1 on
an exact match, else 0, booked under ``type`` with ``attribute = value = 0`` so the sum above
always holds); ``kang`` (Kang et al.'s self-certainty), and ``binary``, the paper's
"RL (binary)" reward: the exact-match term alone
(:class:`~rewardgym.wrappers.BinaryMatchReward` is ``ShopR1Reward`` at that config). Each
changes the fields it names on a base config (the paper's by default), so a weight set on the
base, say ``dars``, carries into every variant that leaves it alone.

Bounds: every term is ``>= 0`` and ``total <= ShopR1Config.max_reward()``: per-token
certainties handed in precomputed are refused (``ValueError``) when negative, non-finite or
above the largest value their kind can take.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, get_args

import gymnasium as gym
import numpy as np

from rewardgym.bounds import NON_NEGATIVE, PROBABILITY, check_fields
from rewardgym.envs.conventions import brief
from rewardgym.envs.shopping.parsing import ParsedOutput, parse_output
from rewardgym.envs.shopping.schema import ShopAction, actions_match
from rewardgym.wrappers.policy_output import PolicyOutput, as_policy_output
from rewardgym.wrappers.rouge import RougeFn, rouge_l, rouge_metric, rouge_name
from rewardgym.wrappers.self_certainty import (
    CERTAINTY_KINDS,
    CertaintyKind,
    LogProbs,
    max_self_certainty,
    mean_token_certainty,
    self_certainty,
)

THRESHOLD_TOLERANCE = 1e-12
"""Slack of the ROUGE-L threshold test, so a score equal to it in exact arithmetic counts."""

AblationName = Literal["full", "no-format", "no-rationale", "no-dars", "binary-action"]
ABLATIONS: tuple[str, ...] = get_args(AblationName)
"""The paper's ablations (Shop-R1, Table 4): the names of :data:`REWARDS` that remove a term."""
FormatRule = Literal["strict", "lenient"]
FORMAT_RULES: tuple[str, ...] = get_args(FormatRule)


@dataclass(frozen=True)
class ShopR1Config:
    """Every constant of Shop-R1's reward; defaults are the paper's (Shop-R1, arXiv 2507.17842).

    The reward is ``format + alpha * s(rationale) + v(a)`` (module docstring). Weights must be
    finite and ``>= 0``; ``rouge_threshold`` lies in ``[0, 1]``.
    """

    format_weight: Annotated[float, NON_NEGATIVE] = 0.5
    """Paid when the output is one JSON object with a rationale and an action (paper: 0.5)."""
    format_rule: FormatRule = "strict"
    """strict: a string rationale and an action of a valid type; lenient: both keys present."""
    alpha: Annotated[float, NON_NEGATIVE] = 0.005
    """Weight of the rationale's self-certainty (paper: alpha = 0.005)."""
    self_certainty_kind: CertaintyKind = "paper"
    """paper: Eq. 3, mean KL(p||U)/|V|; kang: mean KL(U||p) (Kang et al., arXiv 2502.18581)."""
    type_weight: Annotated[float, NON_NEGATIVE] = 0.3
    """Paid when the predicted action type equals the human's (paper: 0.3)."""
    click_name_bonus: Annotated[float, NON_NEGATIVE] = 0.2
    """click: paid when the predicted element name is non-blank (paper: 0.2)."""
    submit_name_bonus: Annotated[float, NON_NEGATIVE] = 0.1
    """type_and_submit: paid when the predicted element name is non-blank (paper: 0.1)."""
    submit_text_bonus: Annotated[float, NON_NEGATIVE] = 0.1
    """type_and_submit: paid when the predicted text is non-blank (paper: 0.1)."""
    submit_name_rouge_weight: Annotated[float, NON_NEGATIVE] = 0.1
    """type_and_submit: weight of the name's thresholded ROUGE-L (paper: 0.1)."""
    dars: Annotated[float, NON_NEGATIVE] = 1000.0
    """Difficulty-aware reward scaling: weight of the click name's and the typed text's ROUGE-L."""
    rouge_threshold: Annotated[float, PROBABILITY] = 0.75
    """A ROUGE-L score counts (at its raw value) only when at least this (paper: 0.75)."""
    binary_action: bool = False
    """Replace the hierarchical v(a) with binary_action_weight on an exact match, else 0."""
    binary_action_weight: Annotated[float, NON_NEGATIVE] = 1.0
    """The exact-match reward when binary_action is set (paper's binary baseline: 1)."""

    def __post_init__(self) -> None:
        """Refuse weights that are negative or not finite, a threshold outside [0, 1], unknown names."""
        check_fields(self)
        if self.format_rule not in FORMAT_RULES:
            raise ValueError(
                f"ShopR1Config.format_rule must be one of {FORMAT_RULES}, got {self.format_rule!r}"
            )
        if self.self_certainty_kind not in CERTAINTY_KINDS:
            raise ValueError(
                f"ShopR1Config.self_certainty_kind must be one of {CERTAINTY_KINDS}, "
                f"got {self.self_certainty_kind!r}"
            )

    @classmethod
    def ablation(cls, name: AblationName, base: ShopR1Config | None = None) -> ShopR1Config:
        """The paper's ablation ``name`` (one of :data:`ABLATIONS`) applied to ``base`` (defaults).

        A name of the one registry, :data:`REWARDS`: ``reward_config(name, base)``.
        """
        return reward_config(name, base)

    @classmethod
    def binary_baseline(cls) -> ShopR1Config:
        """The paper's "RL (binary)" reward: 1 for an exact match, nothing for format or rationale."""
        return reward_config("binary")

    def max_action_reward(self) -> float:
        """The largest v(a) this config can pay."""
        if self.binary_action:
            return self.binary_action_weight
        click = self.type_weight + self.click_name_bonus + self.dars
        submit = (
            self.type_weight
            + self.submit_name_bonus
            + self.submit_text_bonus
            + self.submit_name_rouge_weight
            + self.dars
        )
        return max(click, submit, self.type_weight)

    def max_reward(self) -> float:
        """An upper bound of ``total`` under this config, for any output and any vocabulary."""
        rationale = self.alpha * max_self_certainty(self.self_certainty_kind)
        return self.format_weight + rationale + self.max_action_reward()


DEFAULT_CONFIG = ShopR1Config()

REWARDS: dict[str, Mapping[str, Any]] = {
    "full": {},
    "no-format": {"format_weight": 0.0},
    "no-rationale": {"alpha": 0.0},
    "no-dars": {"dars": 1.0},
    "binary-action": {"binary_action": True},
    "kang": {"self_certainty_kind": "kang"},
    "binary": {"format_weight": 0.0, "alpha": 0.0, "binary_action": True},
}
"""The named Shop-R1 rewards, each the fields it changes on a base config (module docstring):
the one registry a reward is chosen from by name (:func:`reward_config`)."""


def reward_config(name: str, base: ShopR1Config | None = None) -> ShopR1Config:
    """The registered reward ``name`` (a key of :data:`REWARDS`) as a config: ``base`` (default:
    the paper's weights) with the fields that name changes.

    An unknown name raises ``ValueError`` listing every registered name.
    """
    if name not in REWARDS:
        raise ValueError(
            f"unknown Shop-R1 reward {name!r}: the registered rewards are "
            f"{', '.join(REWARDS)} (rewardgym.wrappers.shop_r1.REWARDS); pick one of them, or "
            "build a ShopR1Config with the weights you want"
        )
    return dataclasses.replace(base if base is not None else DEFAULT_CONFIG, **REWARDS[name])


@dataclass(frozen=True)
class RewardTerms:
    """Every term of one Shop-R1 reward, with ``total == format + rationale + type + attribute + value``."""

    SUMMED: ClassVar[tuple[str, ...]] = ("format", "rationale", "type", "attribute", "value")
    """The terms that add up to ``total``, in order: the one list of Shop-R1's term names."""

    format: float
    rationale: float
    type: float
    attribute: float
    value: float
    self_certainty: float
    """The raw ``s`` before ``alpha``; 0 when it was not computed (no log-probs, no rationale, alpha 0)."""
    rationale_missing: bool
    """No log-probabilities (nor per-token certainties) of the rationale were supplied."""
    has_rationale: bool
    """The output holds a ``rationale`` string."""
    type_match: bool
    exact_match: bool

    @property
    def action(self) -> float:
        """v(a), the action reward: ``type + attribute + value``."""
        return self.type + self.attribute + self.value

    @property
    def total(self) -> float:
        """The reward: the :attr:`SUMMED` terms added left to right, in the order they are listed."""
        total = 0.0
        for name in self.SUMMED:
            total += getattr(self, name)
        return total

    def to_info(self) -> dict[str, float]:
        """The terms as ``info["reward_terms"]``: floats only, flags as 0.0 / 1.0."""
        return {
            **{name: float(getattr(self, name)) for name in self.SUMMED},
            "action": self.action,
            "total": self.total,
            "self_certainty": self.self_certainty,
            "rationale_missing": float(self.rationale_missing),
            "has_rationale": float(self.has_rationale),
            "type_match": float(self.type_match),
            "exact_match": float(self.exact_match),
        }


def format_reward(parsed: ParsedOutput, config: ShopR1Config = DEFAULT_CONFIG) -> float:
    """``format_weight`` when the parsed output has the format ``config.format_rule`` asks for."""
    ok = parsed.has_valid_format if config.format_rule == "strict" else parsed.has_format
    return config.format_weight if ok else 0.0


def thresholded_rouge(
    prediction: str, reference: str, threshold: float, rouge: RougeFn = rouge_l
) -> float:
    """ROUGE-L F-measure of ``prediction`` against ``reference`` when ``>= threshold``, else 0."""
    score = rouge(prediction, reference)
    return score if score >= threshold - THRESHOLD_TOLERANCE else 0.0


def action_parts(
    pred: ShopAction | None,
    truth: ShopAction,
    config: ShopR1Config = DEFAULT_CONFIG,
    *,
    rouge: RougeFn = rouge_l,
) -> dict[str, tuple[float, float]]:
    """v(a) as ``{part: (score, weight)}``, each weight one field of ``config``; ``score * weight`` adds up to v(a).

    The parts, in order: ``type`` (1 on a type match; the exact match under ``binary_action``),
    then for a click ``name_bonus`` (1 for a non-blank name, weight ``click_name_bonus``) and
    ``name_rouge`` (the thresholded ROUGE-L, weight ``dars``), for a type_and_submit
    ``name_bonus``, ``name_rouge`` (weight ``submit_name_rouge_weight``), ``text_bonus`` and
    ``text_rouge`` (weight ``dars``). Parts the human's action type has no use for are absent.
    Both :func:`action_reward` (the wrapper's terms) and trainers that record weighted terms
    (verifiers' traces) read these, so the two cannot drift apart.
    """
    if config.binary_action:
        return {"type": (1.0 if actions_match(pred, truth) else 0.0, config.binary_action_weight)}
    if pred is None or pred.type != truth.type:
        parts = {"type": (0.0, config.type_weight)}
        for part, weight in _unpaid_parts(truth.type, config):
            parts[part] = (0.0, weight)
        return parts
    threshold = config.rouge_threshold
    named = 1.0 if pred.name.strip() else 0.0
    name_rouge = thresholded_rouge(pred.name, truth.name, threshold, rouge)
    if truth.type == "click":
        return {
            "type": (1.0, config.type_weight),
            "name_bonus": (named, config.click_name_bonus),
            "name_rouge": (name_rouge, config.dars),
        }
    if truth.type == "type_and_submit":
        return {
            "type": (1.0, config.type_weight),
            "name_bonus": (named, config.submit_name_bonus),
            "name_rouge": (name_rouge, config.submit_name_rouge_weight),
            "text_bonus": (1.0 if pred.text.strip() else 0.0, config.submit_text_bonus),
            "text_rouge": (
                thresholded_rouge(pred.text, truth.text, threshold, rouge),
                config.dars,
            ),
        }
    return {"type": (1.0, config.type_weight)}


def _unpaid_parts(kind: str, config: ShopR1Config) -> tuple[tuple[str, float], ...]:
    """The parts after ``type`` of a ``kind`` action with their weights (all unpaid on a type miss)."""
    if kind == "click":
        return (("name_bonus", config.click_name_bonus), ("name_rouge", config.dars))
    if kind == "type_and_submit":
        return (
            ("name_bonus", config.submit_name_bonus),
            ("name_rouge", config.submit_name_rouge_weight),
            ("text_bonus", config.submit_text_bonus),
            ("text_rouge", config.dars),
        )
    return ()


ACTION_TERM_OF_PART: dict[str, str] = {
    "type": "type",
    "name_bonus": "attribute",
    "name_rouge": "attribute",
    "text_bonus": "value",
    "text_rouge": "value",
}
"""Which of Shop-R1's summed terms each part of :func:`action_parts` belongs to."""


def action_reward(
    pred: ShopAction | None,
    truth: ShopAction,
    config: ShopR1Config = DEFAULT_CONFIG,
    *,
    rouge: RougeFn = rouge_l,
) -> dict[str, float]:
    """v(a) split into ``type``, ``attribute`` (name) and ``value`` (text) terms; see the module docstring."""
    terms = {"type": 0.0, "attribute": 0.0, "value": 0.0}
    for part, (score, weight) in action_parts(pred, truth, config, rouge=rouge).items():
        if score:
            terms[ACTION_TERM_OF_PART[part]] += weight * score
    return terms


def truth_action(truth: ShopAction | Mapping[str, Any]) -> ShopAction:
    """The human's action from a ``ShopAction`` or a ``{"type", "name", "text"}`` dict (``info["truth"]``)."""
    if isinstance(truth, ShopAction):
        return truth
    if not isinstance(truth, Mapping) or "type" not in truth:
        raise ValueError(
            "the human's action must be a ShopAction or a dict with 'type' (and 'name', 'text'), "
            f"got {truth!r}"
        )
    return ShopAction(truth["type"], name=truth.get("name") or "", text=truth.get("text") or "")


def shop_r1_reward(
    output_text: str,
    truth: ShopAction | Mapping[str, Any],
    rationale_logprobs: LogProbs | None = None,
    config: ShopR1Config = DEFAULT_CONFIG,
    *,
    rationale_token_certainty: Sequence[float] | np.ndarray | None = None,
    rouge: RougeFn = rouge_l,
    parsed: ParsedOutput | None = None,
) -> RewardTerms:
    """Score one raw policy output against the human's action with Shop-R1's hybrid reward.

    ``parsed`` is ``parse_output(output_text)`` when the caller already has it (the env hands it
    over in ``info["parsed_output"]``), so a long output is parsed once.
    """
    human = truth_action(truth)
    if parsed is None or parsed.source != output_text:
        parsed = parse_output(output_text)
    has_rationale = parsed.rationale is not None
    missing = rationale_logprobs is None and rationale_token_certainty is None
    certainty = 0.0
    if rationale_logprobs is None and rationale_token_certainty is not None:
        # Validated even when unused, so a bad input fails the same way under every config.
        supplied = mean_token_certainty(rationale_token_certainty, config.self_certainty_kind)
        certainty = supplied if has_rationale and config.alpha > 0 else 0.0
    elif rationale_logprobs is not None and has_rationale and config.alpha > 0:
        certainty = self_certainty(rationale_logprobs, config.self_certainty_kind)
    action = action_reward(parsed.action, human, config, rouge=rouge)
    return RewardTerms(
        format=format_reward(parsed, config),
        rationale=config.alpha * certainty,
        type=action["type"],
        attribute=action["attribute"],
        value=action["value"],
        self_certainty=certainty,
        rationale_missing=missing,
        has_rationale=has_rationale,
        type_match=parsed.action is not None and parsed.action.type == human.type,
        exact_match=actions_match(parsed.action, human),
    )


class ShopR1Reward(gym.Wrapper[Any, str | PolicyOutput, Any, str], gym.utils.RecordConstructorArgs):
    """Replace a shopping env's reward with Shop-R1's hybrid reward, every term in ``info["reward_terms"]``.

    ``step`` takes the policy's text or a :class:`~rewardgym.wrappers.PolicyOutput` carrying the
    rationale's log-probabilities (or every token's certainty, cut to the rationale the env's
    parse found); the inner env receives the text alone and must put the human's action into
    ``info["truth"]``. Without log-probabilities the rationale term is 0 and
    ``info["reward_terms"]["rationale_missing"]`` is 1.0.

    Example:
        >>> import gymnasium as gym
        >>> import rewardgym
        >>> from rewardgym.wrappers import ShopR1Reward
        >>> env = ShopR1Reward(gym.make("rewardgym/ShopSession-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> _, reward, *_, info = env.step('{"rationale": "I am done.", "action": {"type": "terminate"}}')
        >>> sorted(info["reward_terms"])[:6]
        ['action', 'attribute', 'exact_match', 'format', 'has_rationale', 'rationale']
        >>> reward == info["reward_terms"]["total"] and info["reward_terms"]["format"] == 0.5
        True
    """

    summed_terms: ClassVar[tuple[str, ...]] = RewardTerms.SUMMED
    """The keys of ``info["reward_terms"]`` that add up to the reward, declared for GRPO's
    per-term advantages (:func:`rewardgym.agents.llm.rewards.summed_terms`)."""

    def __init__(
        self,
        env: gym.Env[Any, str],
        config: ShopR1Config | Mapping[str, Any] = DEFAULT_CONFIG,
        *,
        rouge: RougeFn | str = "rouge_l",
    ) -> None:
        """Wrap a shopping env; ``config`` holds the paper's weights, ``rouge`` the text metric.

        ``config`` may also be the dict of its fields and ``rouge`` a name of
        :data:`~rewardgym.wrappers.rouge.ROUGE_METRICS`: that is what ``env.spec`` records (a
        function as its name), so ``EnvSpec.from_json(env.spec.to_json())`` rebuilds the stack.
        """
        settings = _as_config(config)
        metric = rouge_metric(rouge)
        gym.utils.RecordConstructorArgs.__init__(self, config=settings, rouge=rouge_name(rouge))
        gym.Wrapper.__init__(self, env)
        self.config = settings
        self._rouge = metric

    @property
    def self_certainty_kind(self) -> CertaintyKind | None:
        """The self-certainty kind this reward pays for, or None when ``alpha`` is 0.

        A policy reads it (through ``env.get_wrapper_attr``) to know whether to record its
        rationale tokens' certainty at all; any wrapper that pays such a term declares it so.
        """
        return self.config.self_certainty_kind if self.config.alpha > 0 else None

    def step(self, action: str | PolicyOutput) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the inner env with the text, then score it against ``info["truth"]``."""
        output = as_policy_output(action)
        obs, _, terminated, truncated, info = self.env.step(output.text)
        parsed = parsed_from_info(info)
        if parsed is None or parsed.source != output.text:
            parsed = parse_output(output.text)
        terms = shop_r1_reward(
            output.text,
            truth_from_info(info),
            output.rationale_logprobs,
            self.config,
            # The env's one parse says which tokens are the rationale (PolicyOutput docstring).
            rationale_token_certainty=output.rationale_certainty(parsed),
            rouge=self._rouge,
            parsed=parsed,
        )
        info["reward_terms"] = terms.to_info()
        return obs, terms.total, terminated, truncated, info


def _as_config(config: object) -> ShopR1Config:
    """``config`` as a :class:`ShopR1Config`: itself, or built from a dict of its fields."""
    if isinstance(config, ShopR1Config):
        return config
    if not isinstance(config, Mapping):
        raise ValueError(
            f"config must be a ShopR1Config or a dict of its fields, got {type(config).__name__}"
        )
    names = {field.name for field in dataclasses.fields(ShopR1Config)}
    unknown = [brief(key) for key in config if key not in names]
    if unknown:
        raise ValueError(
            f"config has unknown ShopR1Config fields {', '.join(unknown)}; "
            f"the fields are {sorted(names)}"
        )
    return ShopR1Config(**config)


def parsed_from_info(info: Mapping[str, Any]) -> ParsedOutput | None:
    """The env's own parse of the output (``info["parsed_output"]``), when it supplies one."""
    parsed = info.get("parsed_output")
    return parsed if isinstance(parsed, ParsedOutput) else None


def truth_from_info(info: Mapping[str, Any]) -> ShopAction:
    """The human's action from a step's ``info["truth"]``, with a clear error when the env omits it."""
    if "truth" not in info:
        raise KeyError(
            "a Shop-R1 reward wrapper needs the human's action in info['truth'] "
            "({'type', 'name', 'text'}), as rewardgym/ShopSession-v0 returns it; "
            f"the inner env's info has keys {sorted(info)}"
        )
    return truth_action(info["truth"])


__all__ = [
    "ABLATIONS",
    "ACTION_TERM_OF_PART",
    "DEFAULT_CONFIG",
    "FORMAT_RULES",
    "REWARDS",
    "THRESHOLD_TOLERANCE",
    "AblationName",
    "FormatRule",
    "PolicyOutput",
    "RewardTerms",
    "ShopR1Config",
    "ShopR1Reward",
    "action_parts",
    "action_reward",
    "format_reward",
    "parsed_from_info",
    "reward_config",
    "rouge_l",
    "self_certainty",
    "shop_r1_reward",
    "thresholded_rouge",
    "truth_action",
    "truth_from_info",
]
