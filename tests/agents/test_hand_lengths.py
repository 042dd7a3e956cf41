"""studies/hand_lengths.py: its move counts and cuts are the games' own, its figures add up,
and the command runs end to end and refuses what it cannot measure."""

from __future__ import annotations

import json

import pytest
from helpers import load_bench

from commoncause.agents.evaluate import deal_seed, make_agent
from commoncause.envs.registry import get_game


def test_counts_are_the_games_own_and_a_stalled_hand_is_cut():
    script = load_bench("hand_lengths")
    game = get_game("dummy_rummy")
    config = game.make_config(num_players=4, hands=1, first_contract=11)
    hands = script.hand_lengths(game, config, make_agent("baseline", game.name), 4, 202)
    baseline = make_agent("baseline", game.name)
    for d, (moves, cut) in enumerate(hands):
        state = game.new_game(config, deal_seed(202, d))
        while not state.is_terminal and len(state.history) < game.max_moves:
            state.apply(baseline.act(game.seat_view(state, state.current)))
        assert (moves, cut) == (len(state.history), not state.is_terminal)
    assert any(cut for _, cut in hands) and not all(cut for _, cut in hands)
    assert all(moves == game.max_moves for moves, cut in hands if cut)


def test_summary_adds_up():
    figures = load_bench("hand_lengths").summary([(100, False), (5000, True), (60, False)])
    assert figures == {"hands": 3, "cut": pytest.approx(1 / 3),
                       "moves in cut hands": pytest.approx(5000 / 5160),
                       "finished mean": 80, "finished longest": 100}  # fmt: skip


def test_command_end_to_end_and_bad_arguments(tmp_path, capsys):
    script = load_bench("hand_lengths")
    out = tmp_path / "lengths.json"
    args = ["--num-players", "2", "--deals", "2", "--contracts", "1,3-4", "--json", str(out)]
    assert script.main(args) == 0
    record = json.loads(out.read_text())
    assert list(record["contracts"]) == ["1", "3", "4"] and record["all"]["hands"] == 6
    assert "contract" in capsys.readouterr().out
    for bad, words in [
        (["--contracts", "13"], "contracts are 1-12"),
        (["--contracts", "one"], "numbers or ranges"),
        (["--deals", "0"], "--deals"),
        (["--game", "open_rummy"], "--game dummy_rummy"),
    ]:
        with pytest.raises(SystemExit, match=words):
            script.main(bad)
