"""A new game is one folder and one registry line: Dummy rummy's folder copied under a new
name (``new_rummy``: the folder, its spec module ``<name>.py`` and the name inside renamed)
and one entry added to ``GAMES``, and ``commoncause games``, ``eval``, ``play`` (watched),
``replay``, ``train`` and ``serve`` work for it, and so does the conformance suite.

The copy lives in a temporary folder put on ``commoncause.envs``' search path, and the
registry line is added to ``envs.registry.GAMES`` for this module's tests (the line a game
adds in the file); PettingZoo learns the id as the registry tells it at import.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

import pettingzoo
import pytest
from competitive import smoke_train

import commoncause.envs as envs
from commoncause.cli import main
from commoncause.envs import registry
from tests.games import test_conformance as conformance

NAME = "new_rummy"
SOURCE = "dummy_rummy"
ROOT = Path(__file__).resolve().parents[2]
OPTIONS = ["--num-players", "2", "--hands", "1"]


def copy_game(source: Path, folder: Path) -> Path:
    """The game folder ``source`` copied as ``folder / NAME``: its spec module renamed
    ``NAME.py`` and its name replaced by ``NAME`` in its files."""
    target = folder / NAME
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    (target / f"{SOURCE}.py").rename(target / f"{NAME}.py")
    for path in target.iterdir():
        if path.suffix in (".py", ".md"):
            path.write_text(path.read_text().replace(SOURCE, NAME))
    return target


@pytest.fixture(scope="module", autouse=True)
def new_game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games")
    copy_game(ROOT / "envs" / SOURCE, folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(envs, "__path__", [*envs.__path__, str(folder)])
        mp.setitem(registry.GAMES, NAME, 0)  # the one registry line
        registry.register_with_pettingzoo(pettingzoo)  # what the line gets at import
        yield folder
        pettingzoo.aec_registry.pop(registry.env_id(NAME), None)
    for module in [m for m in sys.modules if m.startswith(f"commoncause.envs.{NAME}")]:
        del sys.modules[module]


def test_the_copy_is_the_new_game():
    game = registry.get_game(NAME)
    assert game.name == NAME and game.env_module == f"commoncause.envs.{NAME}.{NAME}"
    e = pettingzoo.make("aec", registry.env_id(NAME))
    e.reset(seed=1)
    assert e.unwrapped.metadata["name"] == f"{NAME}_v0"


def test_games_lists_it(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert NAME in out and registry.env_id(NAME) in out


def test_eval_plays_it(tmp_path, capsys):
    out = tmp_path / "eval.json"
    args = ["eval", "--game", NAME, *OPTIONS, "--games", "4", "--seed", "1", "--json", str(out)]
    assert main(args) == 0
    data = json.loads(out.read_text())
    assert data["game"] == NAME, data


def test_play_watched_then_replayed(tmp_path, capsys):
    play = ["play", "--game", NAME, *OPTIONS, "--player", "baseline", "--partner", "baseline",
            "--seed", "1", "--record-dir", str(tmp_path)]  # fmt: skip
    assert main(play) == 0
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text())
    assert record["game"] == NAME and record["finished"]
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    assert record["moves"][-1]["move"] in capsys.readouterr().out


def test_train_runs_a_smoke_config(tmp_path, monkeypatch):
    config = tmp_path / "smoke_new.yaml"
    text = (ROOT / "configs" / "smoke_dummy.yaml").read_text()
    config.write_text(text.replace(f"game: {SOURCE}", f"game: {NAME}"))
    monkeypatch.chdir(tmp_path)
    smoke_train(NAME, config, "new", tmp_path)


def test_serve_creates_a_game_and_takes_a_move(tmp_path):
    from fastapi.testclient import TestClient

    from commoncause.web import app as web

    client = TestClient(web.create_app(tmp_path))
    assert NAME in [g["name"] for g in client.get("/api/meta").json()["games"]]
    body = {"game": NAME, "partner": "baseline", "options": {"num_players": 2, "hands": 1}}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    url, auth = f"/api/games/{created['id']}", {"Authorization": f"Bearer {created['token']}"}
    view = client.get(url, headers=auth).json()
    move = random.Random(1).choice(view["legal"])["text"]
    r = client.post(f"{url}/moves", json={"move": move}, headers=auth)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    "check",
    [
        conformance.check_api,
        conformance.check_seed,
        conformance.check_mask,
        conformance.check_hidden_cards,
        conformance.check_copies_play_on,
        conformance.check_notation,
        conformance.check_cards_conserved,
        conformance.check_kept_observer,
    ],
    ids=lambda check: check.__name__,
)
def test_the_conformance_suite_passes(check):
    check(NAME)


def test_the_golden_record_of_the_source_replays_for_the_copy():
    """The same rules replay the same record; the suite names what a new game lacks."""
    conformance.check_golden(NAME, conformance.golden_path(SOURCE))
    assert not conformance.golden_path(NAME).is_file()
    assert conformance.reference_encoder(NAME) is None
