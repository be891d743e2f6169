"""Only a file rewardgym created is a cache (issue 24, item 7).

``JudgeCache`` marks the SQLite files it creates (``PRAGMA application_id``) and refuses,
without writing a byte, any existing file without the mark: a database of the user's, a file
that is not SQLite, a directory. ``label coren --cache`` pointed at a user's database stops with
one line and leaves the database (its tables and its journal mode) as it was. The embedding
cache follows the same rule for its ``.npz`` files.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from rewardgym.embeddings import CachedEmbedder, NotAnEmbeddingCacheError, hashing_encode
from rewardgym.wrappers.judges.cache import (
    APPLICATION_ID,
    JudgeCache,
    NotACacheError,
    is_cache_file,
)


def _users_database(path: Path) -> bytes:
    """A small SQLite database of the user's (rollback journal); its bytes."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
        db.execute("INSERT INTO contacts VALUES ('Ada', '555-0100')")
    db.close()
    return path.read_bytes()


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


def test_a_users_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "mine.sqlite"
    before = _users_database(path)
    with pytest.raises(NotACacheError, match="application id") as refused:
        JudgeCache(path)
    assert isinstance(refused.value, FileExistsError) and str(path) in str(refused.value)
    assert path.read_bytes() == before and _siblings(path) == ["mine.sqlite"]  # no -wal, -shm
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["contacts"]
    db.close()


@pytest.mark.parametrize("content", [b"my notes\n" * 20, b"SQLite format 3\x00 but cut short"])
def test_other_files_and_directories_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    with pytest.raises(NotACacheError, match="not a SQLite database"):
        JudgeCache(path)
    assert path.read_bytes() == content
    with pytest.raises(NotACacheError, match="not a regular file"):
        JudgeCache(tmp_path)


def test_a_new_path_becomes_a_marked_cache_that_opens_again(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "cache.sqlite"
    assert not is_cache_file(path)
    cache = JudgeCache(path)
    cache.put_many({"k": "Rating: 2"})
    cache.close()
    assert int.from_bytes(path.read_bytes()[68:72], "big") == APPLICATION_ID
    assert is_cache_file(path)
    again = JudgeCache(path)
    assert again.get_many(["k"]) == {"k": "Rating: 2"}
    again.close()
    empty = tmp_path / "empty.sqlite"
    empty.touch()  # a run killed while creating its cache leaves an empty file
    JudgeCache(empty).close()
    assert is_cache_file(empty)


def test_a_cache_written_before_the_mark_is_still_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:  # what earlier versions created
        db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT)")
        db.execute("INSERT INTO answers VALUES ('k', 'Rating: 1')")
    db.close()
    cache = JudgeCache(path)
    assert cache.get_many(["k"]) == {"k": "Rating: 1"}
    cache.close()
    assert int.from_bytes(path.read_bytes()[68:72], "big") == APPLICATION_ID


def test_label_coren_refuses_a_users_database_as_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardgym.cli import main
    from rewardgym.envs.trajectories import CollectConfig, collect_dataset

    source = tmp_path / "data"
    collect_dataset(CollectConfig(episodes=2, seed=3)).save(source, minari=False)
    database = tmp_path / "mine.sqlite"
    before = _users_database(database)
    args = ["label", "coren", "--dataset", str(source), "--out", str(tmp_path / "out")]
    with pytest.raises((SystemExit, FileExistsError)) as stop:  # main makes it one line
        main([*args, "--judge", "embedding:hashing", "--cache", str(database), "--no-minari"])
    assert not isinstance(stop.value, SystemExit) or stop.value.code not in (0, None)
    message = f"{stop.value}\n{capsys.readouterr().err}"
    assert str(database) in message and "Traceback" not in message
    assert database.read_bytes() == before
    assert _siblings(database) == ["data", "mine.sqlite"]  # no output, no -wal, no temporary


def test_the_embedding_cache_refuses_a_file_it_did_not_write(tmp_path: Path) -> None:
    mine = tmp_path / "ones.npz"
    np.savez(mine, weights=np.ones(3))
    before = mine.read_bytes()
    with pytest.raises(NotAnEmbeddingCacheError, match="weights"):
        CachedEmbedder(hashing_encode, name="ones", cache_dir=tmp_path)
    assert mine.read_bytes() == before
    ours = CachedEmbedder(hashing_encode, name="ours", cache_dir=tmp_path)
    ours.embed(["a red cup"])
    again = CachedEmbedder(hashing_encode, name="ours", cache_dir=tmp_path)
    assert again.encoded == 0 and again.embed(["a red cup"]).shape == (1, 256)
    assert again.encoded == 0
