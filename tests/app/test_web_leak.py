"""Nothing hidden reaches a seat through the web API: for each game, a full game played
by people over HTTP, and at every move every GET a seat can make (its view, its record so
far, replay frames at several moves and seats, the hint, the rules, the games' facts) and
every move answer, walked field by field: no seed (nor a number derived from it), no deck,
and no card code that only a hidden place (another hand, the stock, the put-aside cards)
holds at that moment and that the seat has never seen. Once the game is over its record
is whole again (seed and deck), so it replays anywhere."""

from __future__ import annotations

import random
import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note about httpx2
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from commoncause.web import app as web  # noqa: E402

CODE = re.compile(r"(?<![0-9A-Za-z(/])(?<!as )(10|[2-9AJQK])[CDHS](?![0-9A-Za-z])")
"""A card code, but not the card a joker stands for ("with JK as 10D", "JK(10D)",
"JK(3D/3S)")."""

TOKEN = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])")
"""A seat token (``secrets.token_urlsafe(24)``), alone or in an invite link: random, so a
card code inside it ("..._8C") is chance, not a card; it is left out of the card check."""

SEED = 731_559_204
"""Far from any other number in a game's answers, so one equal to it is the seed."""

GAMES = [
    ("common_cause", {"partner": "person"}),
    ("dummy_rummy", {"opponents": "person", "options": {"num_players": 3, "hands": 2}}),
    ("open_rummy", {"opponents": "person", "options": {"num_players": 3, "rounds": 2}}),
]


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def nodes(obj: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, value) of a JSON document, the dicts and lists too, and every key as a
    string of its own (path ending in ``#key``)."""
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield f"{path}.{k}#key", k
            yield from nodes(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from nodes(v, f"{path}[{i}]")


def places(session, seat: int) -> tuple[set[str], set[str]]:
    """Card codes in places ``seat`` cannot see, and in places it can see (with every card
    in the discard log), from the engine's own ``locations``."""
    state = session.state
    spec = session.game.deck(session.config)
    hidden, shown = [], [entry[0] for entry in state.discard_log]
    for card, where in state.locations().items():
        secret = where in ("stock", "aside") or (
            where.startswith("hand") and where != f"hand{seat}"
        )
        (hidden if secret else shown).append(card)
    return set(spec.codes(hidden)) - {"JK"}, set(spec.codes(shown))


def unreadable(session, text: str) -> str:
    """The game's notation's message for an unreadable move (its fixed help, examples and
    all)."""
    with pytest.raises(ValueError) as e:
        session.game.parse_move(session.state, text)
    return str(e.value)


def check(
    answer: Any, seat: int, forbidden: set[int], secret: set[str], what: str, fixed: str = ""
) -> None:
    """Assert that one answer holds no seed, no deck, no secret card code (outside the
    ``fixed`` text, the same whatever the deal)."""
    for path, value in nodes(answer):
        where = f"{what}{path}"
        if path.endswith((".seed", ".deck")):
            assert value is None, f"seat {seat} got {where} = {str(value)[:80]}"
        if isinstance(value, int) and not isinstance(value, bool):
            assert value not in forbidden, f"seat {seat} got the seed (or its kin) at {where}"
        if isinstance(value, str):
            for number in forbidden:
                assert str(number) not in value, f"seat {seat} got the seed at {where}"
            text = TOKEN.sub(" ", value)
            codes = CODE.finditer(text.replace(fixed, "") if fixed else text)
            leaked = {m.group(0) for m in codes} & secret
            assert not leaked, f"seat {seat} was shown {leaked} at {where}: {value!r}"


def test_a_seat_token_is_no_card():
    """A random token that happens to hold a card code is not a leak; the same code in text
    is (the check failed on a token ending in "_8C" once)."""
    token = "X_GsJD075X4v9qYLu8nQDSqpB36kL_8C"
    check({"token": token, "link": f"/?game=0dfee00f1c82ca80&token={token}"}, 0, set(), {"8C"},
          "new game")  # fmt: skip
    with pytest.raises(AssertionError, match="was shown"):
        check({"text": "partner holds 8C"}, 0, set(), {"8C"}, "new game")


@pytest.mark.parametrize("game, extra", GAMES, ids=[g for g, _ in GAMES])
def test_no_answer_carries_anything_hidden(tmp_path, monkeypatch, game, extra):
    client = TestClient(web.create_app(tmp_path))
    rng = random.Random(SEED)
    r = client.post("/api/games", json={"game": game, "seed": SEED, **extra})
    assert r.status_code == 201, r.text
    made = r.json()
    game_id = made["id"]
    tokens = {made["seat"]: made["token"], **{o["seat"]: o["token"] for o in made["others"]}}
    store = client.app.app.state.store
    session = store.get(game_id).session
    n = session.num_seats
    assert sorted(tokens) == list(range(n)) and session.record["seed"] == SEED
    forbidden = {SEED} | {SEED * n + p for p in range(n)}  # the agents' seeds too
    seen: dict[int, set[str]] = {p: set() for p in range(n)}
    url = f"/api/games/{game_id}"

    engine = type(session.state)
    if hasattr(engine, "_deal"):  # a game of several deals: what a seat saw before a new one
        deal = engine._deal

        def noting_deal(state, deck):
            if state is session.state:
                spec = session.game.deck(session.config)
                left = set(spec.codes([c for hand in state.hands for c in hand]))
                for p in range(n):  # and every hand's cards left: the hand's scoring shows them
                    seen[p] |= places(session, p)[1] | left
            deal(state, deck)

        monkeypatch.setattr(engine, "_deal", noting_deal)

    def secret(seat: int) -> set[str]:
        hidden, shown = places(session, seat)
        seen[seat] |= shown
        return hidden - seen[seat]

    check(made, made["seat"], forbidden, secret(made["seat"]), "new game")
    bad_help = unreadable(session, "zz")
    h = auth(made["token"])
    for get in (f"{url}/rules", "/api/meta"):  # the same all game long
        check(client.get(get, headers=h).json(), made["seat"], forbidden, set(), f"GET {get}")
    for _ in range(1000):
        if session.is_over:
            break
        moves, mover = len(session.moves), session.current
        for seat, token in tokens.items():
            gets = [url, f"{url}/record", f"{url}/replay?move={moves}"]
            if seat == mover:
                gets += [f"{url}/replay?move={m}" for m in (0, moves // 2, 10**6)]
                gets += [f"{url}/replay?move={moves}&seat={(seat + 1) % n}", f"{url}/hint"]
            h, hidden = auth(token), secret(seat)
            for get in gets:
                r = client.get(get, headers=h)
                assert r.status_code == 200, (get, r.text)
                check(r.json(), seat, forbidden, hidden, f"GET {get}")
                if get.endswith("/hint"):
                    hint = r.json()["move"]
        h = auth(tokens[mover])
        bad = client.post(f"{url}/moves", json={"move": "zz"}, headers=h)
        assert bad.status_code == 400
        assert unreadable(session, "zz") == bad_help  # the same at every move
        check(bad.json(), mover, forbidden, secret(mover), "a bad move's answer", bad_help)
        # mostly the hint (the baseline's move: a game of a few hundred moves), else any
        move = hint if rng.random() < 0.8 else rng.choice(session.legal_moves())[1]
        r = client.post(f"{url}/moves", json={"move": move}, headers=h)
        assert r.status_code == 200, r.text
        if not session.is_over:
            check(r.json(), mover, forbidden, secret(mover), "a move's answer")
    assert session.is_over, "the game did not end"
    # over: the record is whole and public, so anyone may replay it from its deal
    record = client.get(f"{url}/record").json()
    assert record["seed"] == SEED and record["deck"] == session.record["deck"]
    assert client.get(f"{url}/replay?move=0").json()["seed"] == SEED
    again = client.post("/api/replay?move=100000", json=record).json()
    assert again["total"] == len(record["moves"]) and again["summary"]


def test_with_two_persons_an_only_move_is_theirs_to_play(tmp_path):
    """A person's only legal move (a forced ``draw stock`` tells that the top discard fits
    nowhere in their hand) is played for them with one person at the table, but with two it
    is theirs to play, like any move: played for them at once, its timing would tell the
    other person that it was forced."""
    client = TestClient(web.create_app(tmp_path))
    made = client.post("/api/games", json={"partner": "person", "seed": 11}).json()
    tokens = {0: made["token"], 1: made["partner_token"]}
    url = f"/api/games/{made['id']}"
    session = client.app.app.state.store.get(made["id"]).session
    rng, only = random.Random(3), 0
    view = made["view"]
    for _ in range(400):
        if view["over"]:
            break
        seat = view["current"]
        view = client.get(url, headers=auth(tokens[seat])).json()
        assert view["current"] == seat and not view["over"]  # nothing played for it
        only += len(view["legal"]) == 1
        move = rng.choice(view["legal"])["text"]
        answer = client.post(f"{url}/moves", json={"move": move}, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.text
        view = answer.json()
        assert view["moves_played"] == len(session.moves)
        assert {h["seat"] for h in view["history"][-1:]} <= {seat}  # its own move, last
    assert view["over"] and only > 0
    assert not any(entry.get("forced") for entry in session.record["moves"])
    alone = client.post("/api/games", json={"partner": "baseline", "seed": 11}).json()
    url, h = f"/api/games/{alone['id']}", auth(alone["token"])
    session, view = client.app.app.state.store.get(alone["id"]).session, alone["view"]
    while not view["over"]:  # one person: their only moves are played for them
        assert len(view["legal"]) > 1
        view = client.post(f"{url}/moves", json={"move": rng.choice(view["legal"])["text"]},
                           headers=h).json()  # fmt: skip
    assert any(entry.get("forced") for entry in session.record["moves"])
