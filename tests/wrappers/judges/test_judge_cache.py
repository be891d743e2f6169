"""The judge cache stores any answer text, survives damaged rows, and names its file on errors."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from rewardgym.embeddings import hashing_embedder
from rewardgym.wrappers.judges import EmbeddingJudge, JudgeRequest, Transition
from rewardgym.wrappers.judges.cache import JudgeCache, cached_complete, storable_text
from rewardgym.wrappers.judges.prompts import load_prompts


class CountingJudge(EmbeddingJudge):
    """An embedding judge that counts the requests it answers and can answer odd text."""

    def __init__(self, answer: str | None = None) -> None:
        super().__init__(hashing_embedder())
        self.answered = 0
        self.answer = answer

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        self.answered += len(requests)
        if self.answer is not None:
            return [self.answer] * len(requests)
        return super()._complete(requests)


def _requests(n: int = 3) -> list[JudgeRequest]:
    prompt = load_prompts(1)[0]
    return [
        JudgeRequest("rate", prompt, Transition(f"task {i}", "obs", "walk to kitchen"))
        for i in range(n)
    ]


def test_lone_surrogates_are_stored_as_replacement_characters(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite")
    judge = CountingJudge(answer="Rating: 2 \ud800 and \udfff")
    first = cached_complete(judge, _requests(), cache)
    assert all(a is not None and "\ud800" not in a and "\ufffd" in a for a in first)
    again = cached_complete(CountingJudge(), _requests(), cache)
    assert again == first
    assert storable_text("plain") == "plain" and storable_text("é\ud83d") == "é\ufffd"


def test_a_damaged_row_is_asked_again_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = JudgeCache(path)
    judge = CountingJudge()
    answers = cached_complete(judge, _requests(), cache)
    cache.close()
    with sqlite3.connect(path) as db:  # another program (or a bad disk) spoils two rows
        keys = [row[0] for row in db.execute("SELECT key FROM answers ORDER BY key LIMIT 2")]
        db.execute("UPDATE answers SET answer = NULL WHERE key = ?", (keys[0],))
        db.execute("UPDATE answers SET answer = ? WHERE key = ?", (b"\xff\x00", keys[1]))
    rerun = CountingJudge()
    assert cached_complete(rerun, _requests(), JudgeCache(path)) == answers
    assert rerun.answered == 2
    final = CountingJudge()
    cached_complete(final, _requests(), JudgeCache(path))
    assert final.answered == 0


def test_a_file_that_is_not_sqlite_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"not a database at all, just bytes" * 100)
    with pytest.raises(RuntimeError, match=str(path)):
        JudgeCache(path)
