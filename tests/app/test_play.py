"""The terminal game, driven through a pseudo-terminal (pexpect): full games from typed
input, bad input, quit and resume, replays, records, and the hidden partner hand."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import pytest
from terminal import (
    PROMPT,
    ROOT,
    check_only_own_hand,
    check_quit_and_resume,
    check_replay_shows_every_hand,
    only_record,
    play_through,
    play_to_end,
    run_cli,
    spawn,
)

pexpect = pytest.importorskip("pexpect")

from commoncause import records  # noqa: E402
from commoncause.envs.common_cause.cards import card_code, parse_card  # noqa: E402
from commoncause.envs.common_cause.notation import move_text  # noqa: E402
from commoncause.envs.common_cause.rules import GameConfig, GameState  # noqa: E402
from commoncause.envs.common_cause.seat import SeatView  # noqa: E402
from commoncause.play import BadInput, resolve_input  # noqa: E402

SEED = 3  # player_0 may take the turned-up card on the first turn: both draws are legal


def play_args(record_dir: Path, *extra: str) -> list[str]:
    return [
        "play",
        "--partner",
        "baseline",
        "--seed",
        str(SEED),
        "--record-dir",
        str(record_dir),
        *extra,
    ]


def hand_line(screen: str) -> str:
    lines = [ln for ln in screen.splitlines() if ln.startswith("Your hand (")]
    assert lines, screen
    return lines[-1]


def cards_in(line: str) -> set[str]:
    """Card codes in a screen line (tokens that read as cards, in upper case)."""
    found = set()
    for token in re.split(r"[\s\[\](),:|]+", line):
        if token and token == token.upper():
            with contextlib.suppress(ValueError):
                found.add(card_code(parse_card(token)))
    return found


@pytest.fixture(scope="module")
def full_game(tmp_path_factory):
    """A whole game played by always typing 1, with the baseline partner."""
    folder = tmp_path_factory.mktemp("full")
    answered, screens = play_through(play_args(folder))
    return folder, answered, screens


def test_full_game_from_typed_input(full_game):
    folder, answered, screens = full_game
    assert answered > 5
    end = screens[-1]
    assert "WON" in end or "LOST" in end
    assert "Turns used:" in end and "Stock left:" in end
    assert re.search(
        r"You picked up \d+ of your partner's discards; your partner picked up "
        r"\d+ of yours",
        end,
    )
    record = json.loads(only_record(folder).read_text())
    assert record["format"] == records.FORMAT and record["finished"]
    assert record["result"] in ("win", "loss") and len(record["deck"]) == 54
    assert record["level"] == "normal" and record["seed"] == SEED
    assert record["game"] == "common_cause" and record["config"]["stock_size"] == 22
    assert record["seats"][0] == {"player": "human"}
    assert record["seats"][1]["agent"] == "baseline"
    assert record["partner"]["seat"] == 1 and record["partner"]["sha256"] is None
    human = [m for m in record["moves"] if m["player"] == 0]
    partner = [m for m in record["moves"] if m["player"] == 1]
    assert human and partner
    assert all(m["probabilities"] is None for m in human)
    assert all(m["probabilities"] == {m["move"]: 1.0} for m in partner)
    assert all(m["seconds"] >= 0 for m in record["moves"])
    # the record replays to the recorded end
    state = records.replay_moves(record)
    assert state.result == record["result"] and state.turns == record["turns"]
    assert f"Turns used: {state.turns}" in end


def test_partner_hand_never_on_screen(full_game):
    folder, _, screens = full_game
    record = json.loads(only_record(folder).read_text())
    deck = [card_code(parse_card(c)) for c in record["deck"]]
    own, partner = set(deck[0:20:2]) - {"JK"}, set(deck[1:20:2]) - {"JK"}
    first = screens[0]
    assert cards_in(hand_line(first)) == own
    assert not cards_in(hand_line(first)) & partner
    assert not cards_in(first) & partner  # nowhere on the first screen
    assert "Partner's hand (" not in "".join(screens)  # only the size, never the cards


def test_bad_inputs_rejected_without_losing_state(tmp_path):
    child = spawn(*play_args(tmp_path))
    child.expect(PROMPT)
    board = child.before
    prompt = child.after
    path = only_record(tmp_path)
    for bad, message in [
        ("gibberish", "unknown move 'gibberish'"),
        ("gibberish", "a listed move, or 'help'."),  # the terminal has a help command
        ("\uff11", "unknown move"),  # a fullwidth 1 is no menu number
        ("discard 7C", "'discard 7C' is not a legal move now"),  # 7C is in hand; drawing first
        ("discard 2X", "unknown card code '2X'"),
        ("99", "There is no move 99: choose a number from 1 to 2"),
        ("0", "There is no move 0"),
        ("draw", "could be any of: 1. draw stock; 2. draw discard"),
    ]:
        child.sendline(bad)
        child.expect(PROMPT)
        assert message in child.before, (bad, child.before)
        assert "Your hand (" not in child.before  # no redraw, no move played
        assert child.after == prompt
        assert json.loads(path.read_text())["moves"] == []
    for command, text in [
        ("help", "How to play a move"),
        ("rules", "Nobody melds alone"),
        ("hint", "Hint: the baseline would play"),
    ]:
        child.sendline(command)
        child.expect(PROMPT)
        assert text in child.before and child.after == prompt
    child.sendline("board")
    child.expect(PROMPT)
    assert hand_line(child.before) == hand_line(board)
    child.sendline("DRAW ST")  # case-insensitive prefix, word by word
    child.expect(PROMPT)
    assert "You play: draw stock" in child.before
    moves = json.loads(path.read_text())["moves"]
    assert [m["move"] for m in moves] == ["draw stock"]
    assert moves[0]["hint"] == "draw discard"
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_quit_then_resume_same_game(tmp_path, full_game):
    child = spawn(*play_args(tmp_path))
    _, screens, done = play_to_end(child, stop_after=6)
    assert not done
    before_quit = screens[-1]
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "commoncause play --resume" in child.before
    path = only_record(tmp_path)
    saved = json.loads(path.read_text())
    assert not saved["finished"] and saved["moves"]

    child = spawn("play", "--resume", str(path))
    child.expect("Resuming")
    child.expect(PROMPT)
    resumed = child.before
    # the same position: the same table, discards, hand
    keep = (
        "Turn ",
        "Complete melds",
        "Partner's open",
        "Your open",
        "Top discard",
        "Discards",
        "Your hand",
    )
    for key in keep:
        old = [ln for ln in before_quit.splitlines() if ln.startswith(key)]
        new = [ln for ln in resumed.splitlines() if ln.startswith(key)]
        assert old[-1:] == new[-1:], key
    child.sendline("1")
    _, screens, done = play_to_end(child)
    child.close()
    assert done and child.exitstatus == 0
    final = json.loads(path.read_text())
    assert final["moves"][: len(saved["moves"])] == saved["moves"]
    # quitting and resuming plays the same game as playing straight through
    straight = json.loads(only_record(full_game[0]).read_text())
    assert [m["move"] for m in final["moves"]] == [m["move"] for m in straight["moves"]]
    assert final["deck"] == straight["deck"] and final["result"] == straight["result"]


def test_replay_shows_every_move(full_game):
    path = only_record(full_game[0])
    record = json.loads(path.read_text())
    out = run_cli("replay", str(path))
    assert out.returncode == 0, out.stderr
    for m in record["moves"]:
        assert re.search(
            rf"\b{m['n']}\. player_{m['player']} \(\w+\): {re.escape(m['move'])}", out.stdout
        ), m
    assert "player_1 (baseline) hand (" in out.stdout  # both hands
    assert "Result:" in out.stdout

    child = spawn("replay", str(path), "--seat", "0", "--step")
    child.expect("Enter: next move, q: stop")
    assert "Your hand (" in child.before and "player_1 (baseline) hand" not in child.before
    child.sendline("")
    child.expect("Enter: next move, q: stop")
    assert f"2. player_0 (human): {record['moves'][1]['move']}" in child.before
    child.sendline("q")
    child.expect("Stopped after move 2")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_seat_one_and_open_hands(tmp_path):
    child = spawn(*play_args(tmp_path, "--seat", "1", "--open-hands"))
    child.expect(PROMPT)
    screen = child.before
    assert "Partner just played:" in screen
    assert "Partner's hand (" in screen and "open hands" in screen
    child.sendline("quit")
    child.expect(pexpect.EOF)
    record = json.loads(only_record(tmp_path).read_text())
    assert record["seats"][1] == {"player": "human"} and record["config"]["open_hands"]
    assert record["moves"][0]["player"] == 0


def test_missing_and_corrupt_partner_checkpoint(tmp_path):
    out = run_cli("play", "--partner", str(tmp_path / "none.pt"), "--record-dir", str(tmp_path))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "not found" in out.stderr
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    out = run_cli("play", "--partner", str(bad), "--record-dir", str(tmp_path))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "corrupted" in out.stderr
    assert not list(tmp_path.glob("*.json"))  # no record for a game that never started


def test_resume_refuses_finished_game_and_other_options(full_game, tmp_path):
    path = str(only_record(full_game[0]))
    out = run_cli("play", "--resume", path)
    assert out.returncode == 2 and "already over" in out.stderr
    out = run_cli("play", "--resume", path, "--seat", "1")
    assert out.returncode == 2 and "drop --seat" in out.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    out = run_cli("replay", str(broken))
    assert out.returncode == 2 and "not readable JSON" in out.stderr


def test_trained_partner_records_probabilities(tmp_path):
    torch = pytest.importorskip("torch")
    from commoncause.agents.trained import FORMAT, build_policy
    from commoncause.envs.common_cause.actions import N_ACTIONS
    from commoncause.envs.common_cause.observer import OBS_SIZE

    policy = build_policy(8, [8], "tanh")
    ckpt = tmp_path / "tiny.pt"
    torch.save(
        {
            "format": FORMAT,
            "obs_size": OBS_SIZE,
            "n_actions": N_ACTIONS,
            "features_dim": 8,
            "net_arch": [8],
            "activation": "tanh",
            "policy": policy.state_dict(),
        },
        ckpt,
    )
    out = run_cli(
        "play",
        "--player",
        "baseline",
        "--partner",
        str(ckpt),
        "--seed",
        "1",
        "--record-dir",
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(only_record(tmp_path).read_text())
    assert record["finished"]
    assert record["partner"]["checkpoint"] == str(ckpt)
    assert record["partner"]["sha256"] == records.sha256_of(ckpt)
    state = records.initial_state(record)
    for m in record["moves"]:
        if m["player"] == 1:
            legal = state.legal_actions()
            probs = m["probabilities"]
            assert set(probs) == {move_text(state, a) for a in legal}
            assert abs(sum(probs.values()) - 1) < 1e-3 and m["move"] in probs
        state.apply(m["action"])


def test_resolve_input_forms():
    state = GameState.new_game(GameConfig(), SEED)
    state.apply(0)  # draw stock: now placements and discards
    menu = SeatView(state, 0).menu_order(state.legal_actions())
    texts = [move_text(state, a) for a in menu]
    discard = next(a for a in menu if texts[menu.index(a)].startswith("discard"))
    text = texts[menu.index(discard)]
    assert resolve_input(text.upper(), state, menu, texts) == discard
    assert resolve_input("  " + text.replace(" ", "   ") + " ", state, menu, texts) == discard
    assert resolve_input(str(menu.index(discard) + 1), state, menu, texts) == discard
    start = next(t for t in texts if t.startswith("start"))
    a, b = start.split()[1:]
    assert resolve_input(f"start {b} {a}", state, menu, texts) == menu[texts.index(start)]
    with pytest.raises(BadInput, match="could be any of"):
        resolve_input("disc", state, menu, texts)
    with pytest.raises(BadInput, match="There is no move -1"):
        resolve_input("-1", state, menu, texts)


# ------------------------------------------------------- defects of issue 10 (play, replay)


def test_this_turn_so_far_only_shows_the_current_turn(full_game):
    """At a turn's first prompt (a draw to choose) nothing of the turn is played yet: the
    screen must not show last turn's moves under 'This turn so far'."""
    _, _, screens = full_game
    draw_prompts = [s for s in screens if re.search(r"\b1\. draw stock", s)]
    assert len(draw_prompts) >= 2  # the first turn and at least one later one
    for screen in draw_prompts:
        assert "This turn so far" not in screen, screen
    later = [s for s in screens if not re.search(r"\b1\. draw stock", s)]
    assert any("This turn so far: draw" in s for s in later)  # shown once you have drawn


def test_unknown_partner_lists_the_choices(tmp_path):
    out = run_cli("play", "--partner", "foo", "--record-dir", str(tmp_path))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "not found" not in out.stderr
    for choice in ("baseline", "random", "trained", "checkpoint"):
        assert choice in out.stderr, out.stderr
    assert not list(tmp_path.glob("*.json"))


def test_negative_seed_refused_by_play_replay_demo(tmp_path):
    for args in (["play", "--seed", "-1"], ["demo", "--seed", "-1"]):
        out = run_cli(*args, "--record-dir", str(tmp_path)) if args[0] == "play" else run_cli(*args)
        assert out.returncode == 2 and "a seed is a whole number 0 or more" in out.stderr
        assert "Traceback" not in out.stderr


def test_ctrl_c_in_replay_step_exits_quietly(full_game):
    path = only_record(full_game[0])
    child = spawn("replay", str(path), "--step", timeout=240)  # a busy machine: slow start
    child.expect("Enter: next move, q: stop")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus)
    assert "Traceback" not in child.before and "Interrupted" in child.before
    assert len([ln for ln in child.before.splitlines() if ln.strip()]) <= 2  # ^C, one line


def test_ctrl_c_in_play_keeps_the_game(tmp_path, full_game):
    child = spawn(*play_args(tmp_path), timeout=240)  # a busy machine: slow start and moves
    _, screens, done = play_to_end(child, stop_after=4)
    assert not done
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "Traceback" not in child.before
    assert "Game saved; continue with: commoncause play --resume" in child.before
    path = only_record(tmp_path)
    saved = json.loads(path.read_text())
    assert len([m for m in saved["moves"] if m["player"] == 0]) >= 4 and not saved["finished"]
    child = spawn("play", "--resume", str(path))
    child.expect("Resuming")
    child.expect(PROMPT)
    assert hand_line(child.before) == hand_line(screens[-1])
    child.sendline("1")
    _, _, done = play_to_end(child)
    child.close()
    assert done and child.exitstatus == 0
    straight = json.loads(only_record(full_game[0]).read_text())
    final = json.loads(path.read_text())
    assert [m["move"] for m in final["moves"]] == [m["move"] for m in straight["moves"]]


def test_games_lists_the_registry():
    out = run_cli("games")
    assert out.returncode == 0
    assert "common_cause" in out.stdout and "commoncause/common_cause-v0" in out.stdout
    assert "Common Cause" in out.stdout


# ------------------------------------------------------------------ Dummy rummy


def dummy_args(record_dir: Path, *extra: str) -> list[str]:
    return ["play", "--game", "dummy_rummy", "--num-players", "4", "--hands", "1",
            "--seed", "1", "--record-dir", str(record_dir), *extra]  # fmt: skip


DUMMY_CONTRACT_1 = ROOT / "checkpoints" / "dummy_rummy_4p" / "best.pt"
"""The shipped 4-player policy of one-hand games of contract 1 (``dummy_args``' game)."""


@pytest.fixture(scope="module")
def dummy_game(tmp_path_factory):
    """A hand of Dummy rummy for four: a person typing 1 against the shipped 4-player policy."""
    folder = tmp_path_factory.mktemp("dummy")
    answered, screens = play_through(dummy_args(folder), "the other players: trained")
    return folder, answered, screens


def test_dummy_rummy_played_in_the_terminal(dummy_game):
    folder, answered, screens = dummy_game
    assert answered > 3
    first, end = screens[0], screens[-1]
    assert "Dummy rummy - 4 players - hands" in first
    assert re.search(r"Player_3's hand: 13 cards", first)
    assert "Your contract: 1 of 12 (set of 3 + set of 3), to lay; 0 points" in first
    assert "Player_2's melds: none" in first
    assert "GAME OVER" in end and "won after 1 hand(s)" in end and "Returns: player_0" in end
    record = json.loads(only_record(folder).read_text())
    assert record["game"] == "dummy_rummy" and record["finished"]
    shipped = str(DUMMY_CONTRACT_1)  # a one-hand game of contract 1: its own policy
    assert [s.get("agent") for s in record["seats"]] == [None, shipped, shipped, shipped]
    assert "partner" not in record  # no partner in a game of each for themselves
    assert record["deck"] and len(record["deck"]) == 108


def test_dummy_rummy_screens_show_only_your_hand(dummy_game):
    _, _, screens = dummy_game
    record = json.loads(only_record(dummy_game[0]).read_text())
    dealt = record["deck"][0:52:4]  # player_0's first hand, as dealt
    hand = hand_line(screens[0])
    assert sorted(hand.split(":", 1)[1].split()) == sorted(dealt)
    check_only_own_hand(screens)
    assert any("Player_1's hand: " in screen for screen in screens)  # only its size


def test_dummy_rummy_replay_and_resume(tmp_path, dummy_game):
    path = only_record(dummy_game[0])
    out = check_replay_shows_every_hand(path, 4, "won after 1 hand(s)")
    assert "player_1 (trained) contract: 1 of 12" in out  # its shipped policy, by name

    final = check_quit_and_resume(dummy_args(tmp_path), tmp_path)
    straight = json.loads(path.read_text())
    assert [m["move"] for m in final] == [m["move"] for m in straight["moves"]]


def test_dummy_rummy_help_rules_and_opponents(tmp_path):
    child = spawn(*dummy_args(tmp_path, "--partner", "baseline,random,baseline"))
    child.expect("the others: player_1 baseline, player_2 random, player_3 baseline")
    child.expect(PROMPT)
    for command, text in [
        ("help", "meld 2c in run 1 as 7"),
        ("rules", "Twelve contracts in order"),
        ("hint", "Hint: the baseline would play"),
    ]:
        child.sendline(command)
        child.expect(PROMPT)
        assert text in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    record = json.loads(only_record(tmp_path).read_text())
    assert [s.get("agent") for s in record["seats"]] == [None, "baseline", "random", "baseline"]
    out = run_cli(*dummy_args(tmp_path, "--partner", "random,baseline"))
    assert out.returncode != 0 and "one per other seat" in out.stderr + out.stdout


def test_dummy_rummy_without_a_shipped_policy_plays_the_baseline(tmp_path):
    """Three players: no policy is shipped for them, so the others are baselines, and the
    player is told so."""
    args = ["play", "--game", "dummy_rummy", "--num-players", "3", "--hands", "1", "--seed",
            "1", "--record-dir", str(tmp_path)]  # fmt: skip
    child = spawn(*args)
    child.expect("note: no trained Dummy rummy player for 3 players yet; playing the baseline")
    child.expect("the other players: baseline")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    record = json.loads(only_record(tmp_path).read_text())
    assert [s.get("agent") for s in record["seats"]] == [None, "baseline", "baseline"]


def test_watching_stops_at_the_move_limit(tmp_path, monkeypatch):
    """A watched game of agents stops at the game's ``max_moves`` (issue 36, item 17; cut
    here to 9 so that the test reaches it), says so, and its record is finished."""
    import io

    from rich.console import Console

    from commoncause.play import Terminal
    from commoncause.session import PlaySession
    from tests.app.test_session import limited

    config = limited(monkeypatch, 9)("dummy_rummy").make_config(num_players=2)
    s = PlaySession.new(config, ["random", "random"], 1, tmp_path, "dummy_rummy")
    console = Console(file=io.StringIO(), width=200)
    assert Terminal(s, console).run() == 0
    out = console.file.getvalue()
    assert "GAME OVER" in out and "cut short after 9 moves" in out
    record = json.loads(only_record(tmp_path).read_text())
    assert len(record["moves"]) == 9 and record["finished"] and record["truncated"]


def test_the_board_before_every_move_played_for_you(full_game):
    """A move played for the person (the only legal one) after the partner's turn comes
    after a board showing that turn, so that no turn of theirs goes unseen (issue 36, item
    30)."""
    folder, _, screens = full_game
    segments = re.split(r"(?=You play: |Only one move is possible: )", "".join(screens))[1:]
    record = json.loads(only_record(folder).read_text())
    mine = [i for i, m in enumerate(record["moves"]) if m["player"] == 0]
    assert 0 <= len(mine) - len(segments) <= 3  # a line per move in order (to the last prompt)
    checked = 0
    for k in range(1, len(segments)):
        forced = segments[k].startswith("Only one move is possible: ")
        if forced and mine[k] - mine[k - 1] > 1:  # the partner moved in between
            assert "Partner just played:" in segments[k - 1], segments[k - 1]
            checked += 1
    assert checked, "no move was played for the person after the partner's turn"


def test_a_hand_ends_with_its_scoring_and_a_pause(tmp_path):
    """Dummy rummy over two hands (issue 36, item 30): when a hand ends the terminal shows
    who went out, every seat's cards left and points, and waits for the person before the
    next hand is played; the replay shows the same."""
    two = ["--num-players", "2", "--hands", "2", "--partner", "baseline"]  # (the last wins)
    child = spawn(*dummy_args(tmp_path, *two))
    for _ in range(400):
        if child.expect([PROMPT, "Enter: the next hand"]) == 1:
            break
        child.sendline("1")
    summary = child.before
    assert re.search(r"Hand 1 of 2 is over: (you|player_1) went out\.", summary), summary
    assert re.search(r"\n  you: .*\(\d+ penalty points\)", summary), summary
    assert re.search(r"\n  player_1: .*\(\d+ penalty points\)", summary), summary
    path = only_record(tmp_path)
    paused_at = len(json.loads(path.read_text())["moves"])
    with pytest.raises(pexpect.TIMEOUT):  # it waits: nothing of the next hand is played
        child.expect(PROMPT, timeout=2)
    assert len(json.loads(path.read_text())["moves"]) == paused_at
    child.sendline("")
    child.expect(PROMPT)
    assert "Hand: 2 of 2" in child.before and "Your hand (" in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    out = run_cli("replay", str(path))
    assert out.returncode == 0 and "Hand 1 of 2 is over: " in out.stdout, out.stderr
