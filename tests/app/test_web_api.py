"""The browser's HTTP API (commoncause.web.app) through FastAPI's TestClient: every route,
the errors, resume after a restart, two people as partners, each game (that no answer
carries anything hidden is tests/app/test_web_leak.py's)."""

from __future__ import annotations

import copy
import json
import random
import re
import warnings
from argparse import Namespace

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note about httpx2
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from commoncause import records, replay  # noqa: E402
from commoncause.envs.registry import get_game  # noqa: E402
from commoncause.web import app as web  # noqa: E402


@pytest.fixture
def client(tmp_path):
    return TestClient(web.create_app(tmp_path))


JSON = {"content-type": "application/json"}


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, **body) -> dict:
    body.setdefault("partner", "baseline")
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def play_out(client, game_id, tokens: dict[int, str], rng, limit=400) -> dict:
    """Play random legal moves for the people's seats until the end (or ``limit`` moves)."""
    seat = next(iter(tokens))
    view = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat])).json()
    for _ in range(limit):
        if view["over"]:
            break
        seat = view["current"]
        view = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat])).json()
        move = rng.choice(view["legal"])["text"]
        r = client.post(
            f"/api/games/{game_id}/moves", json={"move": move}, headers=auth(tokens[seat])
        )
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def test_meta_lists_games_options_and_partners(client):
    data = client.get("/api/meta").json()
    names = [g["name"] for g in data["games"]]
    assert names[:1] == ["common_cause"] and {"dummy_rummy", "open_rummy"} <= set(names)
    cc = data["games"][0]
    assert cc["team"] and cc["seats"] == 2 and "normal" in cc["levels"]
    values = [p["value"] for p in cc["partners"]]
    assert "baseline" in values and "person" in values and "random" in values


def test_pages_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/nothing.js").status_code == 404
    assert client.get("/replay").status_code == 200
    for text in (
        page.text,
        client.get("/static/app.js").text,
        client.get("/static/style.css").text,
    ):
        assert not re.search(
            r"(src|href)=[\"']?(https?:)?//|url\(\s*[\"']?(https?:)?//|@import", text
        )


def test_api_docs_work_offline(client):
    """The interactive docs load nothing from another host: their script, style sheet and
    icon are served by the app."""
    page = client.get("/api/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assert not re.search(r"https?://|//cdn", page.text)
    assets = re.findall(r"(?:src|href)=\"([^\"]+)\"", page.text)
    assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets)
    for asset in assets:
        r = client.get(asset)
        assert r.status_code == 200 and len(r.content) > 1000, asset
    assert "SwaggerUIBundle" in client.get(next(a for a in assets if a.endswith(".js"))).text
    assert client.get("/api/openapi.json").json()["paths"]


def test_create_view_move_and_record(client, tmp_path):
    made = new_game(client, seed=11, level="normal")
    game_id, token = made["id"], made["token"]
    assert made["seat"] == 0 and "partner_token" not in made
    assert (tmp_path / f"{game_id}.json").is_file()
    view = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
    assert view["id"] == game_id and view["seat"] == 0 and view["game"] == "common_cause"
    assert view["hand_sizes"][1] == 10 and view["stock"] is not None
    assert view["your_turn"] and view["legal"]
    before = view["moves_played"]
    after = client.post(
        f"/api/games/{game_id}/moves", json={"move": view["legal"][-1]["text"]}, headers=auth(token)
    ).json()
    assert after["moves_played"] > before
    rec = client.get(f"/api/games/{game_id}/record", headers=auth(token)).json()
    assert rec["deck"] is None and rec["view_of"] == 0  # unfinished: the seat's own view
    assert all(m["player"] == 0 or m.get("probabilities") is None for m in rec["moves"])
    saved = records.load(tmp_path / f"{game_id}.json")
    assert saved["seats"][0] == {"player": "human", "interface": "web"}
    assert saved["partner"]["seat"] == 1 and saved["web_id"] == game_id


def test_illegal_and_unreadable_moves_leave_the_game_unchanged(client):
    made = new_game(client, seed=3)
    url, h = f"/api/games/{made['id']}", auth(made["token"])
    before = client.get(url, headers=h).json()
    for bad in ("discard ZZ", "fly away", "99", ""):
        r = client.post(f"{url}/moves", json={"move": bad}, headers=h)
        assert r.status_code == 400, bad
        body = r.json()
        assert body["error"] and body["legal"] == [m["text"] for m in before["legal"]]
    assert client.get(url, headers=h).json() == before
    assert client.post(f"{url}/moves", json={"mv": "x"}, headers=h).status_code == 422
    r = client.post(f"{url}/moves", json={"move": 1}, headers=h)  # a number is no move text
    assert r.status_code == 422 and "move" in r.json()["error"]
    r = client.post(
        f"{url}/moves", content=b"{not json", headers={**h, "Content-Type": "application/json"}
    )
    assert r.status_code == 422 and "error" in r.json()


def test_tokens_and_ids(client):
    made = new_game(client, seed=4)
    url = f"/api/games/{made['id']}"
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"Authorization": "Basic abc"}).status_code == 401
    r = client.get(url, headers=auth("wrong-token"))
    assert r.status_code == 403 and "token" in r.json()["error"]
    r = client.post(f"{url}/moves", json={"move": "draw stock"}, headers=auth("nope"))
    assert r.status_code == 403
    assert client.get("/api/games/0123456789abcdef", headers=auth("x")).status_code == 404
    r = client.get("/api/games/..%2F..%2Fetc", headers=auth("x"))
    assert r.status_code == 404 and "error" in r.json()
    assert client.get(f"{url}/record").status_code == 401  # unfinished: a seat's own only


def test_ids_and_partner_names_are_matched_whole(client):
    """A trailing newline makes neither an id nor a partner name (``fullmatch``, not ``$``)."""
    made = new_game(client, seed=4)
    r = client.get(f"/api/games/{made['id']}%0A", headers=auth(made["token"]))
    assert r.status_code == 404 and "ids are 16 hex digits" in r.json()["error"]
    r = client.post("/api/games", json={"partner": "baseline\n"})
    assert r.status_code == 400 and "unknown partner 'baseline\\n'" in r.json()["error"]


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"game": "chess"}, 400, "unknown game"),
        ({"level": "impossible"}, 400, "level"),
        ({"level": "easy", "options": {"level": "normal"}}, 400, "disagree"),
        ({"options": {"stock_size": 99}}, 400, "stock_size"),
        ({"options": {"wings": True}}, 400, "wings"),
        ({"seat": 5}, 400, "seat"),
        ({"partner": "../../etc/passwd.pt"}, 400, "unknown partner"),
        ({"partner": ["baseline", "baseline"]}, 400, "other players"),
        ({"seed": -1}, 422, "seed"),
        ({"colour": "red"}, 422, "colour"),
        ({"deck": ["AS"] * 54}, 400, "deck"),
        # wrong JSON types are refused, never coerced
        ({"seed": True}, 422, "seed"),
        ({"seed": 7.0}, 422, "seed"),
        ({"seat": "1"}, 422, "seat"),
        ({"game": "dummy_rummy", "options": {"num_players": 3.0}}, 422, "num_players"),
        ({"level": 3}, 422, "level"),
        ({"partner": 5}, 422, "partner"),
        ({"deck": [1.0] * 54}, 422, "deck"),
    ],
)
def test_bad_new_games(client, body, status, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]


def test_big_bodies_are_refused(client):
    r = client.post("/api/games", content=b"x" * (web.MAX_BODY + 1))
    assert r.status_code == 413 and "too large" in r.json()["error"]


def test_explicit_deck(client, tmp_path):
    deck = get_game("common_cause").deck(get_game("common_cause").make_config())
    codes = deck.codes(list(range(deck.size)))
    made = new_game(client, deck=codes, seed=1)
    saved = records.load(tmp_path / f"{made['id']}.json")
    assert saved["deck"] == codes and saved["explicit_deck"]
    assert made["view"]["hand"]  # dealt from that deck: cards 1, 3, 5, ... to player_0
    assert set(made["view"]["hand"]) <= set(codes[0:22:2]) | set(codes[20:])


def test_hint_is_recorded_with_the_move(client, tmp_path):
    made = new_game(client, seed=5)
    url, h = f"/api/games/{made['id']}", auth(made["token"])
    hint = client.get(f"{url}/hint", headers=h).json()
    legal = [m["text"] for m in client.get(url, headers=h).json()["legal"]]
    assert hint["move"] == legal[hint["n"] - 1]
    client.post(f"{url}/moves", json={"move": hint["move"]}, headers=h)
    saved = records.load(tmp_path / f"{made['id']}.json")
    mine = [m for m in saved["moves"] if m["player"] == 0 and not m.get("forced")]
    assert mine[-1]["hint"] == hint["move"]
    assert client.get(f"{url}/rules").json()["rules"]


def test_resume_after_a_restart(tmp_path):
    first = TestClient(web.create_app(tmp_path))
    made = new_game(first, seed=21)
    url, h = f"/api/games/{made['id']}", auth(made["token"])
    view = first.get(url, headers=h).json()
    view = first.post(f"{url}/moves", json={"move": view["legal"][0]["text"]}, headers=h).json()
    second = TestClient(web.create_app(tmp_path))  # a new server, nothing in memory
    again = second.get(url, headers=h).json()
    assert again == view
    assert second.get(url, headers=auth("stolen")).status_code == 403
    end = play_out(second, made["id"], {0: made["token"]}, random.Random(0))
    assert end["over"] and end["result"]


def test_two_people_as_partners(client, tmp_path):
    made = new_game(client, partner="person", seed=8)
    game_id = made["id"]
    tokens = {0: made["token"], made["partner_seat"]: made["partner_token"]}
    assert made["partner_seat"] == 1 and made["others"] == [{"seat": 1, "token": tokens[1]}]
    url = f"/api/games/{game_id}"
    v0 = client.get(url, headers=auth(tokens[0])).json()
    v1 = client.get(url, headers=auth(tokens[1])).json()
    assert v0["seat"] == 0 and v1["seat"] == 1 and v0["kinds"] == ["person", "person"]
    assert v0["hand"] != v1["hand"] and "hands" not in v0
    waiting = tokens[1 - v0["current"]]
    r = client.post(f"{url}/moves", json={"move": "draw stock"}, headers=auth(waiting))
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    end = play_out(client, game_id, tokens, random.Random(1))
    assert end["over"] and end["won"] in (True, False)
    saved = records.load(tmp_path / f"{game_id}.json")
    assert [s["player"] for s in saved["seats"]] == ["human", "human"]
    assert all(s["interface"] == "web" for s in saved["seats"])
    # both finished views agree on the result; the record is now public by id
    assert client.get(url, headers=auth(tokens[1])).json()["result"] == end["result"]
    assert client.get(f"{url}/record").json()["deck"] == saved["deck"]


@pytest.mark.parametrize("game", ["common_cause", "dummy_rummy", "open_rummy"])
def test_each_game_plays_records_and_replays(client, tmp_path, game, capsys):
    body = {"game": game, "seed": 2, "partner": "baseline"}
    if game != "common_cause":
        body["options"] = {"num_players": 2}
    made = new_game(client, **body)
    game_id = made["id"]
    view = play_out(client, game_id, {0: made["token"]}, random.Random(2), limit=80)
    assert view["game"] == game and len(view["hand_sizes"]) == 2
    path = tmp_path / f"{game_id}.json"
    if view["over"]:
        assert view["record_url"] and view["replay_url"] == f"/replay/{game_id}"
        record = client.get(f"/api/games/{game_id}/record").json()
        frame = client.get(f"/api/games/{game_id}/replay?move=3").json()
        assert frame["move"] == 3 and frame["line"]["n"] == 3 and "hands" in frame["screen"]
        last = client.get(f"/api/games/{game_id}/replay?move=100000&seat=1").json()
        assert last["move"] == last["total"] and last["summary"] and "hands" not in last["screen"]
    else:
        record = records.load(path)
        frame = client.get(
            f"/api/games/{game_id}/replay?move=2", headers=auth(made["token"])
        ).json()
        assert frame["screen"]["seat"] == 0 and "hands" not in frame["screen"]
    up = client.post("/api/replay?move=1", json=record)
    assert up.status_code == 200 and up.json()["total"] == len(record["moves"])
    # the terminal's replay reads web records
    assert replay.run(Namespace(file=path, seat=None, step=False)) == 0
    assert "Replay of" in capsys.readouterr().out


def test_replay_upload_refuses_broken_records(client):
    assert client.post("/api/replay", json={"format": "x"}).status_code == 400
    made = new_game(client, seed=9)
    record = client.get(f"/api/games/{made['id']}/record", headers=auth(made["token"])).json()
    r = client.post("/api/replay", json=record)  # a seat's view has no deck
    assert r.status_code == 400 and "bad record" in r.json()["error"]


@pytest.mark.parametrize(
    "change, words",
    [
        ({"seats": "xx"}, "seats: Input should be a valid list"),
        ({"seats": [1, 2]}, "seats.0: Input should be an object"),
        ({"seats": [{"player": "human"}]}, "has 2 seats, the record describes 1"),
        ({"seed": -3}, "seed"),
        ({"moves": [{"player": 0, "action": 1, "move": "x", "probabilities": 1}]}, "probab"),
        ({"moves": [{"player": 0, "action": 99999, "move": "fly"}]}, "record move 1"),
    ],
)
def test_replay_upload_names_what_is_wrong(client, change, words):
    made = new_game(client, seed=9)
    end = play_out(client, made["id"], {0: made["token"]}, random.Random(9))
    record = client.get(f"/api/games/{made['id']}/record").json()
    assert end["over"] and client.post("/api/replay", json=record).status_code == 200
    r = client.post("/api/replay", json={**record, **change})
    assert r.status_code == 400, r.text
    assert r.json()["error"].startswith("bad record: ") and words in r.json()["error"]


def test_replay_upload_refuses_strings_that_are_not_text(client):
    """A string of an uploaded record, key or value, that is no text (a lone surrogate,
    ``"\\ud800"`` in the JSON: no UTF-8 for it) is a 400 naming where, not a 500 when the
    answer echoes it."""
    made = new_game(client, seed=9)
    play_out(client, made["id"], {0: made["token"]}, random.Random(9))
    record = client.get(f"/api/games/{made['id']}/record").json()
    for where, change in [
        ("seats.1.agent: not", lambda r: r["seats"][1].update(agent="baseline\ud800")),
        ("moves.2.hint: not", lambda r: r["moves"][2].update(hint="\ud800")),
        ("seats.0: a key is not", lambda r: r["seats"][0].update({"\ud800": "web"})),
    ]:
        broken = copy.deepcopy(record)
        change(broken)
        r = client.post("/api/replay?move=3", content=json.dumps(broken), headers=JSON)
        assert r.status_code == 400, r.text
        assert r.json()["error"] == f"bad record: {where} valid text"


@pytest.mark.parametrize("path", ["/api/games", "/api/partners", "/api/replay"])
@pytest.mark.parametrize(
    "body, words",
    [
        (b'{"seed": 1' + b"0" * 5000 + b"}", "number too large"),
        (b"[" * 30000 + b"]" * 30000, "nested too deeply"),
        (b'{"game": "\xff"}', "not valid UTF-8"),
    ],
    ids=["huge number", "deep nesting", "not UTF-8"],
)
def test_unparsable_bodies_are_a_422_naming_the_problem(client, path, body, words):
    r = client.post(path, content=body, headers=JSON)
    assert r.status_code == 422 and r.json() == {"error": f"bad request: body: {words}"}


def test_trained_partner(client):
    choices = [p["value"] for p in client.get("/api/meta").json()["games"][0]["partners"]]
    if "trained" not in choices:
        pytest.skip("no shipped checkpoint")
    made = new_game(client, partner="trained", seed=13)
    end = play_out(client, made["id"], {0: made["token"]}, random.Random(13))
    assert end["over"] and end["players"][1] == "trained"


@pytest.mark.parametrize("partner", ["trained", "checkpoints/normal_seed11"])
def test_no_answer_shows_a_server_path(client, tmp_path, partner):
    """Checkpoints are shown as the project names them (``checkpoints/<name>/best.pt``) with
    their sha256, in views, records and replays; error messages name no server folder."""
    choices = [p["value"] for p in client.get("/api/meta").json()["games"][0]["partners"]]
    if partner not in choices:
        pytest.skip(f"{partner} is not shipped")
    made = new_game(client, partner=partner, seed=13)
    url, h = f"/api/games/{made['id']}", auth(made["token"])
    answers = [client.get(url, headers=h), client.get(f"{url}/record", headers=h)]
    answers.append(client.get(f"{url}/replay?move=1", headers=h))
    play_out(client, made["id"], {0: made["token"]}, random.Random(13))
    answers += [client.get(url, headers=h), client.get(f"{url}/replay?move=1")]
    record = client.get(f"{url}/record").json()
    name = "normal" if partner == "trained" else partner.split("/")[1]
    shipped = web.ROOT / "checkpoints" / name / "best.pt"
    assert record["seats"][1]["checkpoint"] == f"checkpoints/{name}/best.pt"
    assert record["seats"][1]["sha256"] == records.sha256_of(shipped)
    assert record["partner"]["checkpoint"] == f"checkpoints/{name}/best.pt"
    for r in answers:
        assert r.status_code == 200 and str(web.ROOT) not in r.text, r.text[:300]
    assert str(web.ROOT) not in json.dumps(record)
    # a record broken on disk: the message names the game's record, not the server's folder
    broken = new_game(client, seed=14)
    (tmp_path / f"{broken['id']}.json").write_text("{not json")
    fresh = TestClient(web.create_app(tmp_path))
    r = fresh.get(f"/api/games/{broken['id']}", headers=auth(broken["token"]))
    assert r.status_code == 409 and f"{broken['id']}.json" in r.json()["error"]
    assert str(tmp_path) not in r.text
