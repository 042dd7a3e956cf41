"""Scripted rule tests for Common Cause: one chosen deal per rule or edge.

The rule sheet (docs/rules/common_cause.md) is the authority; envs/common_cause/readings.md
lists the engine's readings of open points (referred to here as "reading #n"). Every move
goes through ``helpers.play`` (or ``env_play``), which checks card conservation after it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_cards, deal, legal_texts, new_game, play
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

from commoncause.envs.common_cause import LEVELS, GameConfig, IllegalMoveError, env, raw_env
from commoncause.envs.common_cause.actions import DISCARD_BASE, START_BASE, start_id
from commoncause.envs.common_cause.cards import card_code, parse_card
from commoncause.envs.common_cause.notation import meld_text, parse_move, start_text
from commoncause.envs.common_cause.rules import DRAW_PHASE, PLACE_PHASE

# ----------------------------------------------------------------------------------------
# local helpers


def melds(state) -> list[str]:
    return [meld_text(m) for m in state.melds]


def starts(state, p: int) -> list[str]:
    return [start_text(s) for s in state.starts[p]]


def hand(state, p: int) -> list[str]:
    return sorted(card_code(c) for c in state.hands[p])


def cards(text: str) -> list[str]:
    return sorted(text.split())


def moves(state, verb: str) -> set[str]:
    return {m for m in legal_texts(state) if m.split()[0] == verb}


def discards_of(codes: str) -> set[str]:
    return {f"discard {c}" for c in codes.split()}


def env_play(e, *texts: str) -> None:
    """Step the env with each move text (checking it is legal and conservation after)."""
    for text in texts:
        raw = e.unwrapped
        assert text in raw.legal_moves(), (text, raw.legal_moves())
        e.step(raw.move_to_action(text))
        check_cards(raw.game_state)


def assert_round_trip(e) -> None:
    raw = e.unwrapped
    legal = raw.game_state.legal_actions()
    assert [raw.action_to_move(a) for a in legal] == raw.legal_moves()
    for a in legal:
        assert raw.move_to_action(raw.action_to_move(a)) == a


# ----------------------------------------------------------------------------------------
# deal layout, levels, configs, decks

H0 = "2C 5C 8C JC 2D 5D 8D JD AH 4H"
H1 = "3C 6C 9C QC 3D 6D 9D QD 2H 5H"


def test_deal_layout_engine():
    deck = deal(H0, H1, "KS", "7S KH AS")
    assert len(deck) == 54 and deck[20] == "KS"
    assert deck[0:20:2] == H0.split() and deck[1:20:2] == H1.split()
    s = new_game(H0, H1, "KS", "7S KH AS")  # stock 22, filled after the given codes
    assert hand(s, 0) == cards(H0) and hand(s, 1) == cards(H1)
    assert [card_code(c) for c in s.discard] == ["KS"]
    assert len(s.aside) == 33 - 22 and len(s.stock) == 22
    check_cards(s)
    assert (s.current, s.phase, s.turns, s.pickups, s.result) == (0, DRAW_PHASE, 0, 0, None)
    assert legal_texts(s) == ["draw stock"]
    play(s, "draw stock")
    assert "7S" in hand(s, 0) and s.phase == PLACE_PHASE and s.turns == 1
    play(s, "discard 7S", "draw stock")
    assert "KH" in hand(s, 1) and len(s.stock) == 20


@pytest.mark.parametrize("stock_size", [33, 27, 22, 17, 1, 0])
def test_put_aside_count(stock_size):
    deck = deal(H0, H1, "KS", "", stock_size)
    e = env(stock_size=stock_size)
    e.reset(options={"deck": deck})
    g = e.unwrapped.game_state
    assert len(g.stock) == stock_size and len(g.aside) == 33 - stock_size
    aside = [card_code(c) for c in g.aside]
    assert aside == deck[21 : 21 + 33 - stock_size]
    stock_top_first = [card_code(c) for c in reversed(g.stock)]
    assert stock_top_first == deck[21 + 33 - stock_size :]
    check_cards(g)


def test_levels_and_stock_size_override():
    assert LEVELS["full"] == 33 and LEVELS["normal"] == 22
    assert raw_env().config.stock_size == 22
    assert raw_env(level="full").config.stock_size == 33
    assert raw_env(level="normal").config.stock_size == 22
    assert raw_env(level="full", stock_size=5).config.stock_size == 5
    assert raw_env(level="hard", stock_size=33).config.stock_size == 33
    e = env(level="full")
    e.reset(options={"deck": deal(H0, H1, "KS", "", 33)})
    assert len(e.unwrapped.game_state.stock) == 33 and e.unwrapped.game_state.aside == []


@pytest.mark.parametrize(
    "kwargs, problem",
    [
        ({"stock_size": 34}, "stock_size"),
        ({"stock_size": -1}, "stock_size"),
        ({"stock_size": "x"}, "stock_size"),
        ({"max_open_starts": 4}, "max_open_starts"),
        ({"level": "insane"}, "unknown level 'insane'"),
    ],
)
def test_bad_config_raises(kwargs, problem):
    with pytest.raises(ValueError, match=problem):
        env(**kwargs)
    with pytest.raises(ValueError, match=problem):
        GameConfig.make(**kwargs)


def _bad_decks():
    good = deal(H0, H1, "KS", "")
    dup = list(good)
    dup[30] = dup[0]  # a second 2C
    jokers = list(good)
    jokers[25] = "JK"  # the deck holds both jokers already (put aside)
    unknown = list(good)
    unknown[7] = "1X"
    return [
        (good[:53], "54 card codes"),
        (unknown, "unknown card code '1X'"),
        (dup, "duplicate card 2C"),
        (jokers, "third joker"),
    ]


@pytest.mark.parametrize("deck, problem", _bad_decks())
def test_malformed_deck_raises_at_reset(deck, problem):
    e = env()
    with pytest.raises(ValueError, match=problem):
        e.reset(options={"deck": deck})


# ----------------------------------------------------------------------------------------
# open starts


def test_open_start_shapes():
    s = new_game("4C 5C 7C 5D 9H 9S JK 2D QS KH", "3H 8D 10S JC AS 6D 2H 4S 8H QC", "10H", "JD")
    play(s, "draw stock")
    # pair, neighbours, one gap; never 4C 7C, 4C 5D, QS KH or anything with the joker
    assert moves(s, "start") == {"start 4C 5C", "start 5C 7C", "start 5C 5D", "start 9H 9S"}
    for text in ("start 4C 7C", "start 4C 5D", "start QS KH", "start 9H JK"):
        with pytest.raises(ValueError):
            parse_move(s, text)


@pytest.mark.parametrize("max_open_starts", [2, 3])
def test_open_start_limit(max_open_starts):
    s = new_game(
        "2C 3C 5D 5H 8S 9S JH QH AD 10C",
        "3H 8D 10S JC AS 6D 2H 4S 8H QC",
        "6C",
        "KS",
        max_open_starts=max_open_starts,
    )
    play(s, "draw stock", "start 2C 3C", "start 5D 5H")
    assert starts(s, 0) == ["2C 3C", "5D 5H"]
    if max_open_starts == 2:
        assert moves(s, "start") == set()
        return
    assert moves(s, "start") == {"start 8S 9S", "start JH QH"}
    play(s, "start JH QH")
    assert starts(s, 0) == ["2C 3C", "5D 5H", "JH QH"]
    assert moves(s, "start") == set()


# deal 2: player_0 lays 7H 7S and 4C 5C; player_1 holds 7C, 3C, 6C and both jokers.
D2_0 = "7H 7S 4C 5C 7D 9D JS KH 2H 10D"
D2_1 = "7C JK JK 3C 6C QD 5H 9S AH 8D"


def two_starts_game(**variants):
    s = new_game(D2_0, D2_1, "4S", "QS 3D 10C 2S JH", **variants)
    play(s, "draw stock", "start 7H 7S", "start 4C 5C")
    return s


def test_no_completing_or_adding_to_own_start():
    s = two_starts_game()
    assert starts(s, 0) == ["7H 7S", "4C 5C"]
    # player_0 holds 7D but may not add it to the own start, nor lay off on it
    assert set(legal_texts(s)) == discards_of("7D 9D JS KH 2H 10D QS")
    play(s, "discard QS")
    assert (s.current, s.phase) == (1, DRAW_PHASE)
    play(s, "draw stock")
    assert moves(s, "complete") == {
        "complete 7H 7S with 7C",
        "complete 7H 7S with JK",
        "complete 4C 5C with 3C",
        "complete 4C 5C with 6C",
        "complete 4C 5C with JK as 3C",
        "complete 4C 5C with JK as 6C",
    }


def test_complete_set_with_real_card():
    s = two_starts_game()
    play(s, "discard QS", "draw stock", "complete 7H 7S with 7C")
    assert melds(s) == ["7H 7S 7C"] and starts(s, 0) == ["4C 5C"]
    assert "7C" not in hand(s, 1)
    play(s, "discard 3D", "draw stock")
    # player_0 (who laid the start) may lay off on the complete meld
    assert "layoff 7D on 7H 7S 7C" in legal_texts(s)
    play(s, "layoff 7D on 7H 7S 7C")
    assert melds(s) == ["7H 7S 7C 7D"]


def test_complete_run_with_joker_and_layoffs_at_both_ends():
    s = two_starts_game()
    play(s, "discard QS", "draw stock", "complete 4C 5C with JK as 6C")
    assert melds(s) == ["4C 5C JK(6C)"] and starts(s, 0) == ["7H 7S"]
    assert hand(s, 1).count("JK") == 1
    run_layoffs = {m for m in moves(s, "layoff") if m.endswith("on 4C 5C JK(6C)")}
    assert run_layoffs == {
        "layoff 3C on 4C 5C JK(6C)",
        "layoff 7C on 4C 5C JK(6C)",
        "layoff JK as 3C on 4C 5C JK(6C)",
        "layoff JK as 7C on 4C 5C JK(6C)",
    }
    # reading #3: a second joker in the same run
    play(s, "layoff JK as 7C on 4C 5C JK(6C)")
    assert melds(s) == ["4C 5C JK(6C) JK(7C)"]
    assert moves(s, "swap") == {
        "swap 6C on 4C 5C JK(6C) JK(7C)",
        "swap 7C on 4C 5C JK(6C) JK(7C)",
    }
    play(s, "swap 6C on 4C 5C JK(6C) JK(7C)")
    assert melds(s) == ["4C 5C 6C JK(7C)"] and "JK" in hand(s, 1)
    play(s, "layoff 3C on 4C 5C 6C JK(7C)")  # low end
    play(s, "layoff JK as 8C on 3C 4C 5C 6C JK(7C)")  # high end
    assert melds(s) == ["3C 4C 5C 6C JK(7C) JK(8C)"]
    assert moves(s, "swap") == {"swap 7C on 3C 4C 5C 6C JK(7C) JK(8C)"}
    play(s, "swap 7C on 3C 4C 5C 6C JK(7C) JK(8C)")
    assert melds(s) == ["3C 4C 5C 6C 7C JK(8C)"] and hand(s, 1).count("JK") == 1


def test_set_joker_swap_either_missing_suit_then_four_card_set():
    s = two_starts_game()
    play(s, "discard QS", "draw stock", "complete 7H 7S with JK")
    assert melds(s) == ["7H 7S JK"]
    # reading #1: in a three-card set either missing suit swaps the joker (7C here ...)
    assert "swap 7C on 7H 7S JK" in legal_texts(s)
    assert "layoff 7C on 7H 7S JK" in legal_texts(s)
    assert "layoff JK on 7H 7S JK" in legal_texts(s)
    play(s, "discard 3D", "draw stock")
    # ... and 7D (held by player_0) as well
    assert "swap 7D on 7H 7S JK" in legal_texts(s)
    play(s, "layoff 7D on 7H 7S JK")
    assert melds(s) == ["7H 7S JK 7D"]
    play(s, "discard 10C", "draw stock")
    # four cards: no more lay-offs, and only the one missing suit (7C) swaps the joker
    assert {m for m in legal_texts(s) if "7H 7S JK 7D" in m} == {"swap 7C on 7H 7S JK 7D"}
    play(s, "swap 7C on 7H 7S JK 7D")
    assert melds(s) == ["7H 7S 7C 7D"] and hand(s, 1).count("JK") == 2
    assert {m for m in legal_texts(s) if "7H 7S 7C 7D" in m} == set()


def test_two_jokers_in_a_set():
    s = two_starts_game()
    play(s, "discard QS", "draw stock", "complete 7H 7S with JK", "layoff JK on 7H 7S JK")
    assert melds(s) == ["7H 7S JK JK"] and "JK" not in hand(s, 1)
    assert {m for m in legal_texts(s) if "7H 7S JK JK" in m} == {"swap 7C on 7H 7S JK JK"}
    play(s, "swap 7C on 7H 7S JK JK")
    assert melds(s) == ["7H 7S 7C JK"] and hand(s, 1).count("JK") == 1
    play(s, "discard 3D", "draw stock", "swap 7D on 7H 7S 7C JK")
    assert melds(s) == ["7H 7S 7C 7D"] and hand(s, 0).count("JK") == 1


def test_joker_may_stand_for_a_card_on_the_table():
    # reading #2: a run joker may stand for a card on the table (the real 6C in a set, then
    # also another joker's stand-in); such a joker can never be swapped out
    s = new_game(
        "4C 5C 6H 6S 7C 8C 9D JS KH 10H",
        "JK JK 6C 3C QD 5H 9S 2D 10D 2S",
        "7S",
        "QS 4D 5S 7D",
    )
    play(s, "draw stock", "start 4C 5C", "start 6H 6S", "discard QS")
    play(s, "draw stock", "complete 6H 6S with 6C")
    assert melds(s) == ["6H 6S 6C"]
    assert moves(s, "complete") == {
        "complete 4C 5C with 3C",
        "complete 4C 5C with JK as 3C",
        "complete 4C 5C with JK as 6C",
    }
    play(s, "complete 4C 5C with JK as 6C")
    assert melds(s) == ["6H 6S 6C", "4C 5C JK(6C)"]
    assert moves(s, "swap") == set()  # the real 6C is taken
    assert "layoff 3C on 4C 5C JK(6C)" in legal_texts(s)
    play(s, "discard 4D", "draw stock", "start 7C 8C", "discard 5S", "draw stock")
    assert moves(s, "complete") == {
        "complete 7C 8C with JK as 6C",
        "complete 7C 8C with JK as 9C",
    }
    play(s, "complete 7C 8C with JK as 6C")
    assert melds(s) == ["6H 6S 6C", "4C 5C JK(6C)", "JK(6C) 7C 8C"]
    assert moves(s, "swap") == set()
    assert hand(s, 1).count("JK") == 0


# ----------------------------------------------------------------------------------------
# the Ace


def test_ace_low_and_high_never_round_the_corner():
    s = new_game(
        "QC KC 2D 3D 4S 8H 9D 6S JH 10S",
        "AC AD 4D JC 2C KD KH 2H AH 9C",
        "5S",
        "7S 10D 3S",
    )
    play(s, "draw stock", "start QC KC", "start 2D 3D", "discard 7S", "draw stock")
    assert "start KH AH" in legal_texts(s) and "start AH 2H" in legal_texts(s)
    assert "start KH 2H" not in legal_texts(s)
    with pytest.raises(ValueError, match="no open start"):
        parse_move(s, "start KH 2H")
    assert moves(s, "complete") == {
        "complete QC KC with JC",
        "complete QC KC with AC",
        "complete 2D 3D with AD",
        "complete 2D 3D with 4D",
    }
    play(s, "complete QC KC with AC", "complete 2D 3D with AD")
    assert melds(s) == ["QC KC AC", "AD 2D 3D"]
    # Q-K-A takes the J only (not the 2C); A-2-3 takes the 4 only (not the KD)
    assert moves(s, "layoff") == {"layoff JC on QC KC AC", "layoff 4D on AD 2D 3D"}


def test_two_to_king_run_takes_the_ace_once():
    s = new_game(
        "2H 3H AH JK 5S 8C 9D JS KC 10S",
        "4H 5H 6H 7H 8H 9H 10H JH QH KH",
        "2S",
        "4D 3S 7D",
    )
    play(s, "draw stock", "start 2H 3H", "discard 4D", "draw stock", "complete 2H 3H with 4H")
    for c in ["5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]:
        play(s, f"layoff {c} on the meld grown from 2H 3H")
    run = "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    assert melds(s) == [run]
    play(s, "discard 3S", "draw stock")
    assert moves(s, "layoff") == {f"layoff AH on {run}", f"layoff JK as AH on {run}"}
    play(s, f"layoff AH on {run}")
    assert melds(s) == ["AH " + run]  # the Ace went low
    assert moves(s, "layoff") == set()


@pytest.mark.parametrize("ace_low", [False, True])
def test_ace_low_variant(ace_low):
    s = new_game(
        "QC KC KD AD QH AH AS 2S 3S 9D",
        "JC AC JK 4H 8H 6D 10S 7C 2H 5S",
        "4C",
        "8D 10C",
        ace_low=ace_low,
    )
    play(s, "draw stock")
    legal = legal_texts(s)
    for ok in ("start QC KC", "start AS 2S", "start AS 3S", "start 2S 3S"):
        assert ok in legal
    for high in ("start KD AD", "start QH AH"):
        assert (high in legal) is not ace_low
    play(s, "start QC KC", "discard 8D", "draw stock")
    low_only = {"complete QC KC with JC", "complete QC KC with JK as JC"}
    high = {"complete QC KC with AC", "complete QC KC with JK as AC"}
    assert moves(s, "complete") == (low_only if ace_low else low_only | high)
    play(s, "complete QC KC with JC")
    expected = set() if ace_low else {"layoff AC on JC QC KC", "layoff JK as AC on JC QC KC"}
    assert {m for m in moves(s, "layoff") if "AC on" in m} == expected


# ----------------------------------------------------------------------------------------
# drawing


def test_take_discard_needing_two_placements():
    # player_1 has two open starts (no start with 7C), player_0 has 4C 5C, player_1 holds
    # 6C (and 3C): the 7C can be placed by completing 4C 5C with the 6C, then laying it off
    s = new_game(
        "4C 5C 6H 6S 7C 2D 9D JS KH 10H",
        "6D 6C 9H 9S JD QD 3C 2S 8D AH",
        "4D",
        "4S KS 3H",
    )
    play(s, "draw stock", "start 4C 5C", "start 6H 6S", "discard 4S")
    play(s, "draw stock", "complete 6H 6S with 6D", "start 9H 9S", "start JD QD", "discard KS")
    play(s, "draw stock", "discard 7C")
    assert legal_texts(s) == ["draw stock", "draw discard"]
    play(s, "draw discard")
    assert (s.turns, s.pickups, card_code(s.pending)) == (4, 1, "7C")
    # no discard until the 7C is placed; laying the 6C off on the set would strand it
    assert set(legal_texts(s)) == {"complete 4C 5C with 3C", "complete 4C 5C with 6C"}
    play(s, "complete 4C 5C with 6C")
    assert set(legal_texts(s)) == {"layoff 3C on 4C 5C 6C", "layoff 7C on 4C 5C 6C"}
    play(s, "layoff 7C on 4C 5C 6C")
    assert s.pending == -1 and melds(s) == ["6H 6S 6D", "4C 5C 6C 7C"]
    assert discards_of("3C 2S 8D AH") <= set(legal_texts(s))
    play(s, "discard 2S")
    assert (s.current, s.phase, s.pickups) == (0, DRAW_PHASE, 1)


def test_cannot_take_a_discard_that_cannot_be_placed():
    s = new_game(
        "4C 5C 6H 6S 7C 2D 9D JS KH 10H",
        "6D 8C 9H 9S JD QD 3C 2S 8D AH",  # no 6C: the 7C cannot be placed now
        "4D",
        "4S KS 3H",
    )
    play(s, "draw stock", "start 4C 5C", "start 6H 6S", "discard 4S")
    play(s, "draw stock", "complete 6H 6S with 6D", "start 9H 9S", "start JD QD", "discard KS")
    play(s, "draw stock", "discard 7C")
    assert legal_texts(s) == ["draw stock"]
    with pytest.raises(IllegalMoveError):
        play(s, "draw discard")


# ----------------------------------------------------------------------------------------
# empty hands, winning, losing

E0 = "2C 3C 2D 3D 10C JC QC KC AD 5H"
E1 = "4C 5C 6C 7C 8C 9C 4D 5D 6D 7D"


def emptying_game(stock: str):
    """player_1 empties the hand by placements in turn 2, player_0 is left with 5H + a draw."""
    s = new_game(E0, E1, "KS", "9S 8D " + stock)
    play(s, "draw stock", "start 2C 3C", "start 2D 3D", "discard 9S")
    play(s, "draw stock", "complete 2C 3C with 4C", "complete 2D 3D with 4D")
    for c in ["5C", "6C", "7C", "8C", "9C"]:
        play(s, f"layoff {c} on the meld grown from 2C 3C")
    for c in ["5D", "6D", "7D"]:
        play(s, f"layoff {c} on the meld grown from 2D 3D")
    assert hand(s, 1) == ["8D"] and "discard 8D" in legal_texts(s)
    play(s, "layoff 8D on 2D 3D 4D 5D 6D 7D")
    # the placement emptied the hand: the turn passes at once, without a discard
    assert hand(s, 1) == [] and (s.current, s.phase) == (0, DRAW_PHASE)
    assert [card_code(c) for c in s.discard] == ["KS", "9S"] and s.result is None
    play(s, "draw stock")
    for c in ["10C", "JC", "QC", "KC"]:
        play(s, f"layoff {c} on the meld grown from 2C 3C")
    play(s, "layoff AD on the meld grown from 2D 3D")
    assert melds(s) == [
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC",
        "AD 2D 3D 4D 5D 6D 7D 8D",
    ]
    return s


def test_empty_hand_placing_the_drawn_card_wins():
    s = emptying_game("4H 6H")
    play(s, "start 4H 5H")
    # both hands are empty but an open start is left: no win yet, the turn passes
    assert hand(s, 0) == [] and hand(s, 1) == [] and starts(s, 0) == ["4H 5H"]
    assert s.result is None and (s.current, s.phase, s.turns) == (1, DRAW_PHASE, 3)
    assert legal_texts(s) == ["draw stock"]
    play(s, "draw stock")
    assert set(legal_texts(s)) == {"complete 4H 5H with 6H", "discard 6H"}
    play(s, "complete 4H 5H with 6H")
    assert s.result == "win" and s.returns() == (1.0, 1.0) and s.legal_actions() == []
    assert starts(s, 0) == [] and melds(s)[-1] == "4H 5H 6H" and s.turns == 4


def test_empty_hand_discards_the_drawn_card_and_partner_takes_it():
    s = emptying_game("4H QS 6H")
    play(s, "start 4H 5H", "draw stock")
    assert legal_texts(s) == ["discard QS"]  # nothing to place: discard the drawn card
    play(s, "discard QS")
    assert hand(s, 1) == [] and (s.current, s.phase) == (0, DRAW_PHASE)
    play(s, "draw stock")
    assert legal_texts(s) == ["discard 6H"]  # not on the own start
    play(s, "discard 6H", "draw discard")
    assert s.pickups == 1 and legal_texts(s) == ["complete 4H 5H with 6H"]
    play(s, "complete 4H 5H with 6H")
    assert s.result == "win" and s.turns == 6


def test_discard_emptying_the_last_hand_wins():
    # sheet: "You win together as soon as both hands are empty and no open start is left"
    s = emptying_game("9D")
    play(s, "layoff 9D on AD 2D 3D 4D 5D 6D 7D 8D")
    assert legal_texts(s) == ["discard 5H"]
    play(s, "discard 5H")
    assert hand(s, 0) == [] and hand(s, 1) == [] and s.starts == [[], []]
    assert s.result == "win"


def test_take_back_own_discard():
    # reading #11: player_1 empties the hand by placements and does not discard, so
    # player_0's own 10C is still on top; it may be taken back to lay it off
    s = new_game(E0, E1, "KS", "9S 8D")
    play(s, "draw stock", "start 2C 3C", "start 2D 3D", "discard 10C")
    play(s, "draw stock", "complete 2C 3C with 4C", "complete 2D 3D with 4D")
    play(s, *(f"layoff {c} on the meld grown from 2C 3C" for c in ["5C", "6C", "7C", "8C", "9C"]))
    play(s, *(f"layoff {c} on the meld grown from 2D 3D" for c in ["5D", "6D", "7D", "8D"]))
    assert hand(s, 1) == [] and s.current == 0
    assert legal_texts(s) == ["draw stock", "draw discard"]
    play(s, "draw discard")
    assert "layoff 10C on 2C 3C 4C 5C 6C 7C 8C 9C" in legal_texts(s)
    assert moves(s, "discard") == set()
    play(s, "layoff 10C on 2C 3C 4C 5C 6C 7C 8C 9C")
    assert s.pickups == 1 and [card_code(c) for c in s.discard] == ["KS"]


def test_loss_when_stock_is_empty_and_top_discard_unplaceable():
    # reading #8: the player to draw faces an empty stock and cannot take the top discard:
    # the one legal move is "draw stock", and it loses
    e = env(stock_size=2)
    e.reset(options={"deck": deal(H0, H1, "QH", "7S KS", 2)})
    env_play(e, "draw stock", "discard 7S", "draw stock", "discard KS")
    g = e.unwrapped.game_state
    assert g.stock == [] and g.result is None and not any(e.terminations.values())
    assert e.agent_selection == "player_0" and e.unwrapped.legal_moves() == ["draw stock"]
    env_play(e, "draw stock")
    assert g.result == "loss" and "stock is empty" in g.loss_reason
    assert g.legal_actions() == [] and hand(g, 0) == cards(H0)
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": -1.0, "player_1": -1.0}


def test_empty_stock_with_placeable_top_discard_goes_on():
    s = new_game(H0, H1, "QH", "7S 7C", 2)
    play(s, "draw stock", "discard 7S", "draw stock", "discard 7C")
    assert s.result is None and s.stock == []
    assert legal_texts(s) == ["draw discard"]  # 7C 8C is an open start for player_0
    play(s, "draw discard", "start 7C 8C")
    assert starts(s, 0) == ["7C 8C"] and s.pickups == 1


def test_stock_zero_with_unplaceable_upcard_loses_on_the_first_move():
    # reading #8: 9H fits nothing in player_0's hand; the env does not start a game over
    e = env(stock_size=0)
    e.reset(options={"deck": deal(E0, E1, "9H", "", 0)})
    g = e.unwrapped.game_state
    assert g.result is None and not any(e.terminations.values())
    assert e.unwrapped.legal_moves() == ["draw stock"]
    assert e.observe("player_0")["action_mask"].sum() == 1
    env_play(e, "draw stock")
    assert g.result == "loss" and all(e.terminations.values())
    assert e.rewards == {"player_0": -1.0, "player_1": -1.0}


def test_stock_zero_with_placeable_upcard():
    s = new_game(E0, E1, "4H", "", 0)  # 4H 5H is an open start
    assert s.result is None and legal_texts(s) == ["draw discard"]


@pytest.mark.parametrize("early_loss", [True, False])
def test_early_loss_on_a_publicly_dead_start(early_loss):
    # 4C 6C needs the 5C (the upcard, soon buried) or a joker: both jokers get buried
    s = new_game(
        "4C 6C JK 2D 9D JS KH 8S 10H 3S",
        "JK 2H 5S 7D 9C QD AH 6S 10D 4H",
        "5C",
        "QH AS 8H",
        early_loss=early_loss,
    )
    play(s, "draw stock", "start 4C 6C", "discard JK")
    assert s.result is None
    play(s, "draw stock", "discard JK")  # the top joker could still be taken
    assert s.result is None
    play(s, "draw stock", "discard 8H")
    if early_loss:
        assert s.result == "loss" and "4C 6C" in s.loss_reason
        assert s.legal_actions() == []
    else:
        assert s.result is None and (s.current, s.phase) == (1, DRAW_PHASE)
        assert legal_texts(s) == ["draw stock"]


@pytest.mark.parametrize("early_loss", [True, False])
def test_laying_a_dead_start_is_allowed(early_loss):
    # reading #13 (and #10: the early loss comes as soon as the dead start is laid)
    s = new_game(
        "4C 6C JK 2D 9D JS KH 8S 10H 3S",
        "JK 2H 5S 7D 9C QD AH 6S 10D 4H",
        "5C",
        "QH AS 8H 7H 3D",
        early_loss=early_loss,
    )
    play(s, "draw stock", "discard JK", "draw stock", "discard JK", "draw stock", "discard 8H")
    play(s, "draw stock", "discard 7H", "draw stock")
    assert s.result is None and "start 4C 6C" in legal_texts(s)
    play(s, "start 4C 6C")
    if early_loss:
        assert s.result == "loss" and "4C 6C" in s.loss_reason
    else:
        assert s.result is None and s.phase == PLACE_PHASE and starts(s, 0) == ["4C 6C"]


@pytest.mark.parametrize("signal_rule", [False, True])
def test_signal_rule(signal_rule):
    s = new_game(
        "7H 7S 7D 7C JK 2C 5D 9H QS KD",
        H1,
        "4S",
        "3H",
        signal_rule=signal_rule,
    )
    play(s, "draw stock")
    everything = discards_of("7H 7S 7D 7C JK 2C 5D 9H QS KD 3H")
    assert moves(s, "discard") == everything  # no open start yet
    play(s, "start 7H 7S")
    if signal_rule:  # must discard a card that completes the own start (not the joker)
        assert moves(s, "discard") == {"discard 7C", "discard 7D"}
    else:
        assert moves(s, "discard") == everything - discards_of("7H 7S")


# ----------------------------------------------------------------------------------------
# the worked example of the rule sheet, through the env

ANNA = "7H 7S KD JK 10H JH QH 2D 5S 9C"
BEN = "7D 4C 5C 2S 3H 8S 10D 6H 9S 5D"


def test_worked_example():
    e = env(level="normal", render_mode="ansi")
    e.reset(options={"deck": deal(ANNA, BEN, "AS", "4H 8D 7C 6C", 22)})
    g = e.unwrapped.game_state
    assert len(g.stock) == 22 and e.agent_selection == "player_0"

    def step(*texts):
        for text in texts:
            assert_round_trip(e)
            env_play(e, text)

    step("draw stock", "start 7H 7S", "discard KD")
    assert starts(g, 0) == ["7H 7S"] and e.agent_selection == "player_1"
    # Ben can't place the KD
    assert e.unwrapped.legal_moves() == ["draw stock"]
    step("draw stock", "complete 7H 7S with 7D", "start 4C 5C", "discard 2S")
    assert melds(g) == ["7H 7S 7D"] and starts(g, 0) == [] and starts(g, 1) == ["4C 5C"]
    assert "[7H 7S 7D]" in e.render()
    step("draw stock")
    assert "7C" in hand(g, 0)
    step("layoff 7C on 7H 7S 7D", "complete 4C 5C with JK as 6C", "start 10H JH")
    assert melds(g) == ["7H 7S 7D 7C", "4C 5C JK(6C)"] and starts(g, 1) == []
    assert starts(g, 0) == ["10H JH"]
    step("discard QH")
    assert "draw discard" in e.unwrapped.legal_moves()
    step("draw discard", "complete 10H JH with QH")
    assert melds(g) == ["7H 7S 7D 7C", "4C 5C JK(6C)", "10H JH QH"]
    assert starts(g, 0) == [] and g.pickups == 1 and g.turns == 4
    text = e.render()
    for meld in melds(g):
        assert f"[{meld}]" in text
    step("discard 8D", "draw stock")  # Anna draws the real 6C
    assert "swap 6C on 4C 5C JK(6C)" in e.unwrapped.legal_moves()
    step("swap 6C on 4C 5C JK(6C)")
    assert melds(g) == ["7H 7S 7D 7C", "4C 5C 6C", "10H JH QH"]
    assert "JK" in hand(g, 0) and "6C" not in hand(g, 0)
    assert "[4C 5C 6C]" in e.render()
    assert_round_trip(e)


# ----------------------------------------------------------------------------------------
# move notation


def test_notation_forms():
    s = two_starts_game()
    assert parse_move(s, "start 7s 7h") == parse_move(s, "start 7H 7S")
    assert parse_move(s, "start 7S 7H") == START_BASE + start_id(parse_card("7H"), parse_card("7S"))
    assert parse_move(s, "discard 10c") == DISCARD_BASE + parse_card("10C")
    play(s, "discard 10D", "draw stock")
    same = [
        ("complete 7s 7h with 7c", "complete 7H 7S with 7C"),
        ("complete 5C 4C with jk(6c)", "complete 4C 5C with JK as 6C"),
    ]
    for a, b in same:
        assert parse_move(s, a) == parse_move(s, b)
    play(s, "complete 4C 5C with JK as 6C", "complete 7H 7S with JK")
    same = [
        ("layoff 7C on JK 7S 7H", "layoff 7C on 7H 7S JK"),
        ("swap 6c on JK(6C) 5c 4c", "swap 6C on 4C 5C JK(6C)"),
        ("swap 6C on 4C 5C JK", "swap 6C on 4C 5C JK(6C)"),
        ("layoff JK(7C) on 4C 5C JK(6C)", "layoff JK as 7C on 4C 5C JK(6C)"),
    ]
    for a, b in same:
        assert parse_move(s, a) == parse_move(s, b)
    play(s, "swap 6C on JK(6C) 5C 4C")
    assert melds(s) == ["4C 5C 6C", "7H 7S JK"]


@pytest.mark.parametrize(
    "text, problem",
    [
        ("discrad KD", "unknown move 'discrad'"),
        ("start 7H", "write start <card> <card>"),
        ("complete 7H 7S with", "write complete <card> <card> with <card>"),
        ("discard 1X", "unknown card code '1X'"),
        ("complete 4C 5C with JK", "say which card the joker stands for"),
        ("draw", "draw stock"),
        ("", "empty move"),
    ],
)
def test_notation_errors(text, problem):
    s = two_starts_game()
    with pytest.raises(ValueError, match=problem):
        parse_move(s, text)


def test_round_trip_in_several_positions():
    e = env()
    e.reset(options={"deck": deal(D2_0, D2_1, "4S", "QS 3D 10C 2S JH", 22)})
    positions = [
        ("draw stock",),
        ("start 7H 7S", "start 4C 5C", "discard QS", "draw stock"),
        ("complete 4C 5C with JK as 6C", "complete 7H 7S with JK"),
        ("layoff 3C on 4C 5C JK(6C)", "discard 3D", "draw stock"),
    ]
    for texts in positions:
        env_play(e, *texts)
        assert_round_trip(e)


# ----------------------------------------------------------------------------------------
# env: illegal moves


def test_illegal_action_raises_and_changes_nothing():
    e = env()
    e.reset(options={"deck": deal(H0, H1, "KS", "7S", 22)})
    raw = e.unwrapped
    before_moves = raw.legal_moves()
    before_obs = e.observe("player_0")
    illegal = raw.move_to_action("discard 2C")
    with pytest.raises(IllegalMoveError) as info:
        e.step(illegal)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "'discard 2C'" in message and "legal moves: draw stock" in message
    assert raw.legal_moves() == before_moves and e.agent_selection == "player_0"
    after_obs = e.observe("player_0")
    for key in ("observation", "action_mask"):
        assert np.array_equal(before_obs[key], after_obs[key])
    env_play(e, "draw stock")  # the game goes on normally
    assert "7S" in hand(raw.game_state, 0)


def test_terminate_illegal_wrapper_ends_the_game():
    w = TerminateIllegalWrapper(raw_env(), illegal_reward=-1)
    w.reset(options={"deck": deal(H0, H1, "KS", "7S", 22)})
    w.observe(w.agent_selection)
    w.step(w.unwrapped.move_to_action("discard 2C"))
    assert all(w.terminations.values())
    assert w.rewards["player_0"] == -1 and w.rewards["player_1"] == 0
    assert w.unwrapped.game_state.result is None  # the game itself was not played on


def run_python(script: str) -> None:
    """Run ``script`` in a fresh interpreter at the repository root; fail with its stderr."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr


def test_engine_imports_no_rl_library():
    """The rules engine, notation and seat view load without gymnasium, pettingzoo or torch;
    the PettingZoo adapter loads (and registers) only when ``env`` is asked for."""
    run_python(
        "import sys\n"
        "import commoncause.envs.common_cause.rules, commoncause.envs.common_cause.notation\n"
        "import commoncause.envs.common_cause.seat, commoncause.envs.common_cause.observer\n"
        "import commoncause.envs.common_cause.render\n"
        "from commoncause.envs.common_cause import GameConfig, LEVELS\n"
        "rl = sorted(m for m in ('gymnasium', 'pettingzoo', 'torch') if m in sys.modules)\n"
        "assert not rl, rl\n"
        "from commoncause.envs.common_cause import env\n"
        "import pettingzoo\n"
        "e = pettingzoo.make('aec', 'commoncause/common_cause-v0', level='hard')\n"
        "assert e.unwrapped.level == 'hard', e.unwrapped.level\n"
    )


def test_importing_the_package_after_pettingzoo_registers_the_env():
    run_python(
        "import pettingzoo\n"
        "import commoncause.envs.common_cause\n"
        "e = pettingzoo.make('aec', 'commoncause/common_cause-v0', open_hands=True)\n"
        "assert e.unwrapped.config.open_hands\n"
    )
