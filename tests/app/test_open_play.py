"""Open Rummy above the engine: a person's session to the end (screens show only their own
hand), record, replay and resume; the real ``play`` CLI driven through a pseudo-terminal;
``eval`` with rotated seats; the per-seat figures (``seat_stats``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from competitive import (
    check_record_replays,
    check_resume_continues,
    check_screen,
    play_person,
)
from terminal import (
    PROMPT,
    check_only_own_hand,
    check_quit_and_resume,
    check_replay_shows_every_hand,
    only_record,
    play_to_end,
    run_cli,
    spawn,
)

try:
    import pexpect
except ImportError:  # the terminal test needs it; the rest does not
    pexpect = None

from commoncause.envs.registry import get_game
from commoncause.session import PlaySession

GAME = get_game("open_rummy")


def open_session(tmp_path, seed=1, seats=None, **options) -> PlaySession:
    config = GAME.make_config(**{"num_players": 4, "rounds": 1, **options})
    seats = seats or ["human", "baseline", "baseline", "baseline"]
    return PlaySession.new(config, seats, seed, tmp_path, "open_rummy")


def test_open_rummy_session_to_the_end_with_a_person(tmp_path):
    s = open_session(tmp_path)
    assert s.humans == [0]
    moves = play_person(s)
    assert s.is_over and moves > 3
    check_screen(s, 0)
    out = s.summary()
    assert not out["team"] and len(out["returns"]) == 4 and "won after 1 round" in out["result"]
    data = s.screen(0)
    labels = [(x["label"], x["seat"]) for x in data["sections"]]
    assert ("score", 3) in labels and ("melds", 0) in labels and ("Round", None) in labels
    assert any(x["items"] for x in data["sections"] if x["label"] == "melds")  # melds laid
    assert len(check_record_replays(s, "open_rummy")["deck"]) == 108


def test_open_rummy_resume_continues_the_same_game(tmp_path):
    check_resume_continues(lambda folder: open_session(folder, seed=2), tmp_path)


def test_open_rummy_table_names_melds_and_joker_stand_ins():
    from tests.open_helpers import new_game, play

    state = new_game(
        [
            "7H 8H JK 6H 9H KS 2C 3C 4D 9S 9D QH QD",
            "AC AD AS 2H 3H 4H 6S 7S 8S 9C 10C JC QC",
        ],
        upcard="KD",
        stock="2S 3S",
    )
    play(state, "draw stock", "meld run 7H", "meld run 8H", "meld run JK as 9H")
    view = GAME.seat_view(state, 1)
    table = view.table()
    melds = {(x["seat"], x["label"]): x for x in table["sections"] if "items" in x}
    assert melds[(0, "melds")]["items"] == ["meld 1: 7H 8H JK(9H)"]
    scores = {x["seat"]: x["text"] for x in table["sections"] if x["label"] == "score"}
    assert scores[0] == "15 points (15 placed this round); laid a meld"
    assert scores[1] == "0 points (0 placed this round); no meld laid yet"
    assert table["hand_sizes"] == [11, 13] and len(table["hand"]) == 13
    assert "Open Rummy in short" in view.rules_text() and "steal meld" in view.move_examples()
    # the menu: meld steps before lay-offs and steals, discards last
    kinds = [GAME.move_text(state, a).split()[0] for a in view.menu_order(state.legal_actions())]
    assert kinds == sorted(kinds, key=["meld", "layoff", "steal", "discard"].index)
    assert {"meld", "layoff", "steal", "discard"} <= set(kinds)


def test_seat_stats_add_up():
    from commoncause.agents.evaluate import deal_seed

    config = GAME.make_config(num_players=3, target=150)
    state = GAME.new_game(config, deal_seed(0, 0))
    agent = GAME.baseline("")
    views = [GAME.seat_view(state, s) for s in range(3)]
    while not state.is_terminal:
        state.apply(agent.act(views[state.current]))
    stats = [state.seat_stats(s) for s in range(3)]
    rounds = len(state.round_scores)
    assert all(x["rounds"] == rounds for x in stats)
    assert sum(x["went_out"] for x in stats) == sum(1 for o in state.round_out if o >= 0)
    for s, x in enumerate(stats):
        assert x["points"] == state.totals[s] == x["placed"] - x["in_hand"]
        assert 0 <= x["laid"] <= rounds
    assert max(x["points"] for x in stats) >= 150


# ----------------------------------------------------------------------- the real CLI


def test_eval_rotates_seats_and_writes_figures(tmp_path):
    out = tmp_path / "eval.json"
    done = run_cli("eval", "--game", "open_rummy", "--num-players", "4", "--rounds", "1",
                   "--team", "baseline", "--games", "4", "--seed", "3", "--workers", "1",
                   "--json", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "4 deals x 4 seat rotations = 16 games" in done.stdout
    data = json.loads(out.read_text())
    assert data["game"] == "open_rummy" and data["games"] == 16 and data["truncated"] == 0
    assert data["config"]["rounds"] == 1
    member = data["members"][0]
    assert member["mean_rounds"] == 1.0 and 0 < member["mean_went_out"] <= 1
    assert member["mean_points"] == pytest.approx(member["return"]["mean"])
    # a stronger member against a weaker one, heads-up
    done = run_cli("eval", "--game", "open_rummy", "--num-players", "2", "--rounds", "1",
                   "--team", "baseline,random", "--games", "6", "--seed", "0",
                   "--workers", "1", "--json", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    base, rand = json.loads(out.read_text())["members"]
    assert base["return"]["mean"] > rand["return"]["mean"]
    assert base["mean_went_out"] > rand["mean_went_out"]


def test_cli_flags_of_open_rummys_options(tmp_path):
    """Every command builds its parser with Open Rummy's options: ``--target`` (points)
    beside calibrate's own ``--target`` (a win rate), ``--reward`` a word."""
    done = run_cli("calibrate", "--game", "open_rummy", "--target", "0.5", "--team", "baseline")
    assert done.returncode == 2 and "has no study for `commoncause calibrate`" in done.stderr
    done = run_cli("eval", "--game", "open_rummy", "--num-players", "2", "--target", "60",
                   "--reward", "win", "--team", "baseline,random", "--games", "2",
                   "--workers", "1", "--json", str(tmp_path / "e.json"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "e.json").read_text())
    assert data["config"]["target"] == 60 and data["config"]["reward"] == "win"
    assert all(-1 <= m["return"]["mean"] <= 1 for m in data["members"])  # +1 / -1 a game


def play_args(record_dir: Path, *extra: str) -> list[str]:
    return ["play", "--game", "open_rummy", "--num-players", "4", "--rounds", "1",
            "--seed", "1", "--record-dir", str(record_dir), *extra]  # fmt: skip


@pytest.mark.skipif(pexpect is None, reason="needs pexpect")
def test_open_rummy_played_in_the_terminal(tmp_path):
    """The real CLI against the shipped 4-player policy: help and rules, a round to the end
    typing 1, only one's own hand on screen, then replay; a second game quit and resumed to
    the same moves."""
    child = spawn(*play_args(tmp_path / "a"))
    child.expect("the other players: trained")  # the shipped 4-player policy
    child.expect(PROMPT)
    for command, text in [
        ("help", "steal meld 1 with 8h"),
        ("rules", "Open Rummy in short"),
        ("hint", "Hint: the baseline would play"),
    ]:
        child.sendline(command)
        child.expect(PROMPT)
        assert text in child.before
    child.sendline("1")
    answered, screens, done = play_to_end(child)
    child.close()
    assert done and child.exitstatus == 0 and answered > 3
    first, end = screens[0], screens[-1]
    assert "Open Rummy - 4 players" in first and "Round: 1 of 1; 300 points win" in first
    assert re.search(r"Player_3's hand: 13 cards", first)
    assert "Player_2's melds: none" in first
    assert "GAME OVER" in end and "won after 1 round(s)" in end and "Returns: player_0" in end
    check_only_own_hand(screens)
    path = only_record(tmp_path / "a")
    record = json.loads(path.read_text())
    assert record["game"] == "open_rummy" and record["finished"]
    assert [x.get("agent") for x in record["seats"]] == [None, "trained", "trained", "trained"]

    check_replay_shows_every_hand(path, 4, "won after 1 round(s)")

    final = check_quit_and_resume(play_args(tmp_path / "b"), tmp_path / "b")
    straight = [m["move"] for m in record["moves"]]
    assert [m["move"] for m in final] == straight
