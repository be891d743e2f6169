"""Small hand-written shopping sessions, as JSONL, shared by the shopping tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

PAGE_SEARCH = (
    '<html><body><input name="search_input" type="text"/>'
    '<button name="search_button">Search</button></body></html>'
)
PAGE_RESULTS = (
    '<html><body><input name="search_input"/><a name="product_1_title">Trail Jacket</a>'
    '<a name="product_2_title">City Coat</a></body></html>'
)
PAGE_PRODUCT = (
    '<html><body><h1>Trail Jacket</h1><button name="add_to_cart">Add</button></body></html>'
)


def session(sid: str, n_clicks: int = 1) -> dict:
    """A search -> click(s) -> add to cart -> terminate session in the JSONL schema."""
    steps = [
        {
            "page": PAGE_SEARCH,
            "action": {"type": "type_and_submit", "name": "search_input", "text": "rain jacket"},
            "rationale": "I need a rain jacket.",
            "timestamp": 0.0,
        }
    ]
    for i in range(n_clicks):
        steps.append(
            {
                "page": PAGE_RESULTS,
                "action": {"type": "click", "name": "product_1_title"},
                "rationale": f"This one looks right ({i}).",
                "timestamp": 5.0 + i,
            }
        )
    steps.append(
        {
            "page": PAGE_PRODUCT,
            "action": {"type": "click", "name": "add_to_cart"},
            "rationale": "Good price.",
            "timestamp": 20.0,
            "meta": {"url": "/p/1"},
        }
    )
    steps.append(
        {
            "page": PAGE_PRODUCT,
            "action": {"type": "terminate"},
            "rationale": "Done.",
            "timestamp": 25.0,
        }
    )
    return {"session_id": sid, "steps": steps}


@pytest.fixture
def make_session():
    """The :func:`session` factory, for tests that build their own variants."""
    return session


@pytest.fixture
def jsonl_sessions(tmp_path: Path) -> Path:
    """A JSONL file of 30 small sessions."""
    path = tmp_path / "sessions.jsonl"
    with open(path, "w") as handle:
        for i in range(30):
            handle.write(json.dumps(session(f"s{i:02d}", n_clicks=1 + i % 3)) + "\n")
    return path


@pytest.fixture
def rewardgym_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache root for this test."""
    home = tmp_path / "home"
    monkeypatch.setenv("REWARDGYM_HOME", str(home))
    return home
