"""The web play flow around a session (issue 36): who plays the other seats by default,
the partners offered for a config, and what the API says to a person."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note about httpx2
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from commoncause.agents.trained import shipped_checkpoint  # noqa: E402
from commoncause.envs.registry import get_game  # noqa: E402
from commoncause.web import app as web  # noqa: E402


@pytest.fixture
def client(tmp_path):
    return TestClient(web.create_app(tmp_path))


def shipped(game: str, options: dict) -> bool:
    try:
        shipped_checkpoint(game, get_game(game).make_config(**options))
    except ValueError:
        return False
    return True


DEFAULTS = [
    ("dummy_rummy", {"num_players": 2}),
    ("dummy_rummy", {"num_players": 2, "hands": 1}),
    ("dummy_rummy", {"num_players": 3}),
    ("dummy_rummy", {"hands": 1}),
    ("dummy_rummy", {}),
    ("open_rummy", {"num_players": 2}),
    ("open_rummy", {"num_players": 3}),
    ("open_rummy", {}),
    ("common_cause", {}),
    ("common_cause", {"open_hands": True}),
]


@pytest.mark.parametrize(("game", "options"), DEFAULTS)
def test_default_others_are_trained_where_shipped_else_baseline(client, game, options):
    """No partner named: the shipped policy for this config where there is one, else the
    baseline with a note (issue 36, item 3)."""
    r = client.post("/api/games", json={"game": game, "options": options, "seed": 1})
    assert r.status_code == 201, r.text
    made = r.json()
    players = made["view"]["players"][1:]
    if shipped(game, options):
        assert players == ["trained"] * len(players), players
        assert made.get("note") is None
    else:
        assert players == ["baseline"] * len(players), players
        assert "no trained" in made["note"] and "baseline" in made["note"]
