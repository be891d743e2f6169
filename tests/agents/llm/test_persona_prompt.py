"""``PromptConfig.persona`` (issue 32, item 4): prompts open with the shopper's persona, off by default."""

from __future__ import annotations

from rewardgym.agents.llm.config import PromptConfig
from rewardgym.agents.llm.dataset import step_rows
from rewardgym.agents.llm.prompt import build_prompt, env_kwargs
from rewardgym.agents.simulation.policies import LLMSimPolicy
from rewardgym.envs.shopping.session_sources import resolve_sessions


def _prompt(observation: dict) -> str:
    return build_prompt(str(observation["context"]))


def _rows(persona: bool) -> list:
    kwargs = {**env_kwargs(PromptConfig(persona=persona)), "max_context_tokens": 400}
    return step_rows(_prompt, env_kwargs=kwargs, max_sessions=2, progress=False)


def test_persona_prompts_open_with_the_sessions_persona_and_keep_the_targets() -> None:
    plain, with_persona = _rows(False), _rows(True)
    assert [r.completion for r in plain] == [r.completion for r in with_persona]
    log, train = resolve_sessions(None, "train")
    first = with_persona[0]
    persona = log.persona(train[first.session])
    assert persona and f"# Session so far\nShopper persona:\n{persona}\n" in first.prompt
    assert all("Shopper persona:" in r.prompt for r in with_persona)
    assert not any("Shopper persona:" in r.prompt for r in plain)
    assert env_kwargs(PromptConfig())["persona"] is False


class _Prompted:
    """The two things :class:`LLMSimPolicy` reads of a policy before it visits."""

    def __init__(self, persona: bool) -> None:
        self.persona = persona

    def env_kwargs(self) -> dict:
        return {**env_kwargs(PromptConfig(persona=self.persona)), "max_context_tokens": 300}


def test_a_simulator_prompted_with_personas_visits_the_store_with_them() -> None:
    assert LLMSimPolicy(_Prompted(True), "p").context.persona  # type: ignore[arg-type]
    assert not LLMSimPolicy(_Prompted(False), "p").context.persona  # type: ignore[arg-type]
