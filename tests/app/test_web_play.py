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
from commoncause.envs.open_rummy.actions import MAX_SEATS  # noqa: E402
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
    *[("dummy_rummy", {"num_players": n}) for n in (2, 3, 4)],
    ("dummy_rummy", {"num_players": 2, "hands": 1}),
    ("dummy_rummy", {"hands": 1}),
    ("dummy_rummy", {}),
    *[("open_rummy", {"num_players": n}) for n in range(2, MAX_SEATS + 1)],
    ("open_rummy", {}),
    ("common_cause", {}),
    ("common_cause", {"open_hands": True}),
]
"""Every player count of each game, and their defaults."""


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


def values(client, **body) -> tuple[list[str], dict]:
    r = client.post("/api/partners", json=body)
    assert r.status_code == 200, r.text
    return [c["value"] for c in r.json()["partners"]], r.json()


@pytest.mark.parametrize(
    ("game", "options"), [(g, o) for g, o in DEFAULTS if g != "common_cause" or not o]
)
def test_partners_offered_for_the_options(client, game, options):
    """The start form's choices follow the options (issue 36, item 4): ``trained`` only
    where a policy is shipped for them, else the baseline first, with the note the terminal
    prints; the first choice is what a game with no partner named gets."""
    offered, data = values(client, game=game, options=options)
    made = client.post("/api/games", json={"game": game, "options": options, "seed": 2}).json()
    if shipped(game, options):
        assert offered[0] == "trained" and data["note"] is None
    else:
        assert "trained" not in offered and "search" not in offered
        assert offered[0] == "baseline" and data["note"] == made["note"]
    assert data["default"] == offered[0]
    assert offered[-1] == "person" and "random" in offered


def test_partners_for_bad_options_is_a_clear_400(client):
    r = client.post("/api/partners", json={"game": "open_rummy", "options": {"num_players": 1}})
    assert r.status_code == 400 and "num_players" in r.json()["error"]
    r = client.post("/api/partners", json={"game": "nope"})
    assert r.status_code == 400 and "unknown game" in r.json()["error"]


def test_trained_where_none_is_shipped_names_the_choices(client):
    """Asking for ``trained`` where none is shipped: a 400 listing what may be chosen, not
    'name a checkpoint path' (which a request may not do)."""
    body = {"game": "open_rummy", "options": {"num_players": 3}, "partner": "trained"}
    r = client.post("/api/games", json=body)
    error = r.json()["error"]
    assert r.status_code == 400 and "checkpoint path" not in error
    assert "no trained" in error and "baseline" in error and "random" in error


def test_a_bad_move_suggests_no_help_command(client):
    """The API has no 'help' command, so its errors do not suggest typing it (item 10)."""
    made = client.post("/api/games", json={"partner": "baseline", "seed": 3}).json()
    headers = {"Authorization": f"Bearer {made['token']}"}
    for move in ("gibberish", "\uff11", "+1"):
        r = client.post(f"/api/games/{made['id']}/moves", json={"move": move}, headers=headers)
        assert r.status_code == 400 and "help" not in r.json()["error"], r.json()
    view = client.get(f"/api/games/{made['id']}", headers=headers).json()
    assert view["moves_played"] == made["view"]["moves_played"]


def test_a_web_game_is_cut_at_the_move_limit(tmp_path, monkeypatch):
    """The web session stops at the game's ``max_moves`` too (item 17): the game is over,
    says why, takes no more moves, and stays over when loaded from its record."""
    from tests.app.test_session import limited

    limited(monkeypatch, 12)
    client = TestClient(web.create_app(tmp_path))
    body = {"game": "dummy_rummy", "options": {"num_players": 2}, "partner": "random"}
    made = client.post("/api/games", json={**body, "seed": 3}).json()
    headers = {"Authorization": f"Bearer {made['token']}"}
    view = made["view"]
    while not view["over"]:
        move = {"move": view["legal"][0]["text"]}
        view = client.post(f"/api/games/{made['id']}/moves", json=move, headers=headers).json()
    assert view["moves_played"] == 12 and "cut short after 12 moves" in view["result"]
    assert view["summary"]["truncated"] and view["legal"] == []
    r = client.post(f"/api/games/{made['id']}/moves", json={"move": "1"}, headers=headers)
    assert r.status_code == 409 and "cut short" in r.json()["error"]
    again = TestClient(web.create_app(tmp_path))  # a restarted server
    assert again.get(f"/api/games/{made['id']}", headers=headers).json()["over"]
