"""The play session with no UI: data from seat views only, records, resume, input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commoncause import records
from commoncause.session import BadInput, PlaySession

ROOT = Path(__file__).resolve().parent.parent


def agents_game(tmp_path, seed=5):
    return PlaySession.new(seats=["baseline", "baseline"], seed=seed, record_dir=tmp_path)


def test_screen_data_hides_the_partner_hand(tmp_path):
    s = PlaySession.new(seats=["human", "baseline"], seed=3, record_dir=tmp_path)
    deck = s.record["deck"]
    partner = set(deck[1:20:2]) - {"JK"}
    data = s.screen(0)
    json.dumps(data)  # plain data, ready for a browser
    assert sorted(data["hand"]) == sorted(deck[0:20:2])
    assert data["hand_sizes"] == [10, 10] and data["open_hands"] == [None, None]
    shown = {c for c in json.dumps(data).replace('"', " ").replace(",", " ").split()}
    assert not shown & partner
    assert [m["text"] for m in data["legal"]] == ["draw stock", "draw discard"]
    assert s.screen(1)["legal"] == []  # not its turn


def test_screens_never_read_the_state():
    for name in ("screen.py", "play.py", "replay.py"):
        source = (ROOT / "commoncause" / name).read_text()
        assert "_state" not in source and ".state." not in source, name


def test_turn_moves_reset_at_a_new_turn(tmp_path):
    s = PlaySession.new(seats=["human", "baseline"], seed=3, record_dir=tmp_path)
    s.play(s.resolve("draw stock"))
    assert s.screen(0)["last_moves"][0][0].startswith("draw stock (drew ")
    while s.current == 0:  # finish the turn with the first discard listed
        s.play(next(a for a, t in s.legal_moves() if t.startswith("discard")))
    s.step_agents()
    data = s.screen(0)
    assert data["last_moves"][0] == [] and data["last_moves"][1]
    assert all("(drew" not in t for t in data["last_moves"][1])  # a stock draw stays hidden
    assert data["turn"] == 3


def test_input_errors_are_clear(tmp_path):
    s = PlaySession.new(seats=["human", "baseline"], seed=3, record_dir=tmp_path)
    with pytest.raises(BadInput, match="unknown move 'gibberish'"):
        s.resolve("gibberish")
    with pytest.raises(BadInput, match="could be any of: 1. draw stock; 2. draw discard"):
        s.resolve("draw")
    assert s.resolve("DR ST") == 0 and s.hint() in s.state.legal_actions()


def test_record_resume_and_old_format(tmp_path):
    s = agents_game(tmp_path)
    for _ in range(12):
        action, probs, seconds = s.agent_move()
        s.play(action, seconds, probs)
    record = json.loads(s.path.read_text())
    assert record["game"] == "common_cause" and record["config"] == s.config.to_dict()
    resumed = PlaySession.resume(s.path)
    assert resumed.screen(0) == s.screen(0) and resumed.screen(1) == s.screen(1)
    # a record from before the registry: no game, options as stock_size and variants
    old = dict(record)
    del old["game"], old["config"]
    old["stock_size"] = s.config.stock_size
    old["variants"] = {k: v for k, v in s.config.to_dict().items() if k != "stock_size"}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    loaded = PlaySession.from_record(records.load(path))
    assert loaded.config == s.config and loaded.screen(0) == s.screen(0)


def test_agents_play_to_the_end_with_per_seat_returns(tmp_path):
    s = agents_game(tmp_path)
    s.step_agents()
    out = s.summary()
    assert out["over"] and len(out["returns"]) == 2 and out["result"]
    record = json.loads(s.path.read_text())
    assert record["finished"] and record["returns"] == out["returns"]
    with pytest.raises(ValueError, match="already over"):
        PlaySession.resume(s.path)
    assert records.replay_moves(record).turns == out["turns"]


# ------------------------------------------------------------------ Dummy rummy


def dummy_session(tmp_path, seed=1, seats=None, **options):
    from commoncause.envs.registry import get_game

    config = get_game("dummy_rummy").make_config(**{"num_players": 4, "hands": 1, **options})
    seats = seats or ["human", "baseline", "baseline", "baseline"]
    return PlaySession.new(config, seats, seed, tmp_path, "dummy_rummy")


def typed_line(s: PlaySession, k: int) -> str:
    """What a scripted person types: the k-th listed move's text (in upper case) in
    turns, its number otherwise."""
    menu = s.legal_moves()
    i = k % len(menu)
    return menu[i][1].upper() if k % 2 else str(i + 1)


def play_person(s: PlaySession, stop_after: int | None = None) -> int:
    """Agents and a scripted person to the end (or ``stop_after`` person moves); every
    screen of the person is checked to show only their own hand."""
    moves = 0
    while not s.is_over and moves != stop_after:
        s.step_agents()
        if s.is_over:
            break
        data = s.screen(s.current)
        json.dumps(data)
        god = s.screen(None)
        assert "hands" not in data and data["open_hands"] == [None] * s.num_seats
        assert data["hand"] == god["hands"][s.current]
        assert data["hand_sizes"] == [len(h) for h in god["hands"]]
        assert [m["text"] for m in data["legal"]] == [t for _, t in s.legal_moves()]
        s.play(s.resolve(typed_line(s, moves)))
        moves += 1
    return moves


def test_dummy_rummy_session_to_the_end_with_a_person(tmp_path):
    s = dummy_session(tmp_path)
    assert s.humans == [0] and s.game.seat_names(s.config)[3] == "player_3"
    moves = play_person(s)
    assert s.is_over and moves > 3
    out = s.summary()
    assert not out["team"] and len(out["returns"]) == 4 and "won after 1 hand" in out["result"]
    data = s.screen(0)
    labels = [(x["label"], x["seat"]) for x in data["sections"]]
    assert ("contract", 3) in labels and ("melds", 0) in labels and ("Hand", None) in labels
    record = json.loads(s.path.read_text())
    assert record["game"] == "dummy_rummy" and record["finished"]
    assert [x["player"] for x in record["seats"]] == ["human", "agent", "agent", "agent"]
    # the record replays to the same game, seen by every seat alike
    replayed = PlaySession.from_record(records.load(s.path))
    for seat in (None, 0, 1, 2, 3):
        assert replayed.screen(seat) == s.screen(seat)
    assert records.replay_moves(record).returns() == s.state.returns()


def test_dummy_rummy_resume_continues_the_same_game(tmp_path):
    whole = dummy_session(tmp_path / "a", seed=2, cut_ins=True)
    play_person(whole)
    part = dummy_session(tmp_path / "b", seed=2, cut_ins=True)
    done = play_person(part, stop_after=4)
    resumed = PlaySession.resume(part.path)
    assert resumed.screen(0) == part.screen(0)
    k = done
    while not resumed.is_over:  # the same scripted person, from where it stopped
        resumed.step_agents()
        if not resumed.is_over:
            resumed.play(resumed.resolve(typed_line(resumed, k)))
            k += 1
    a, b = (json.loads(x.path.read_text()) for x in (whole, resumed))
    assert [m["move"] for m in a["moves"]] == [m["move"] for m in b["moves"]]
    assert a["returns"] == b["returns"] and b["finished"]


def test_dummy_rummy_stock_draws_stay_private(tmp_path):
    s = dummy_session(tmp_path, seed=4)
    s.play(s.resolve("draw stock"))
    mine, theirs = s.screen(0)["last_moves"][0], s.screen(1)["last_moves"][0]
    assert mine[0].startswith("draw stock (drew ") and theirs == ["draw stock"]


def test_session_and_screen_name_no_game():
    """The house rule: a game is one folder under envs/ plus a registry line, so the
    session and the screens hold no per-game tables, names or words."""
    from commoncause.envs.registry import game_names, get_game

    words = ["open start", "contract", "meld"]
    for name in game_names():
        words += [name, get_game(name).title.lower(), f"envs.{name}"]
    for file in ("session.py", "screen.py"):
        source = (ROOT / "commoncause" / file).read_text().lower()
        found = [w for w in words if w in source]
        assert not found, f"{file} names {found}"
