"""SFT rows with element ids: targets name the element by id, and scoring resolves them as the env does."""

from __future__ import annotations

from rewardgym.agents.evaluation.shopping import score_outputs
from rewardgym.agents.llm.config import PromptConfig
from rewardgym.agents.llm.dataset import step_rows
from rewardgym.agents.llm.prompt import ID_INSTRUCTIONS, INSTRUCTIONS, build_prompt, env_kwargs
from rewardgym.envs.shopping.element_ids import resolve_ids
from rewardgym.envs.shopping.parsing import parse_output


def _rows(ids: bool) -> list:
    kwargs = {**env_kwargs(PromptConfig(element_ids=ids)), "max_context_tokens": 400}
    return step_rows(
        lambda obs: str(obs["context"]), env_kwargs=kwargs, max_sessions=3, progress=False
    )


def test_targets_use_ids_only_when_the_option_is_on_and_score_as_the_human() -> None:
    named, with_ids = _rows(False), _rows(True)
    assert [r.truth for r in named] == [r.truth for r in with_ids]
    assert all(r.elements is None for r in named)
    by_id = [r for r in with_ids if r.truth.type != "terminate"]
    assert by_id and all('"name": "[' in r.completion for r in by_id)
    assert not any('"name": "[' in r.completion for r in named)
    for row in by_id:
        assert row.elements is not None
        number = parse_output(row.completion).action.name  # type: ignore[union-attr]
        assert f"{number} {row.truth.name}" in row.prompt  # the id is listed on its page
        assert resolve_ids(parse_output(row.completion), row.elements).action == row.truth

    def score(rows: list, elements: bool) -> float:
        return score_outputs(
            [r.completion for r in rows],
            [r.session for r in rows],
            [r.step for r in rows],
            [r.truth for r in rows],
            [r.elements for r in rows] if elements else None,
        ).metrics.exact_match

    assert score(with_ids, True) == score(named, False) == 100.0
    assert score(with_ids, False) < 50.0  # unresolved ids miss: the resolution is what scores


def test_the_prompt_tells_a_pretrained_model_about_ids() -> None:
    assert env_kwargs(PromptConfig())["element_ids"] is False
    assert build_prompt("c", element_ids=True).startswith(ID_INSTRUCTIONS)
    assert build_prompt("c").startswith(INSTRUCTIONS) and ID_INSTRUCTIONS != INSTRUCTIONS
