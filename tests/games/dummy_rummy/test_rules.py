"""Dummy rummy: scripted rule scenarios for every rule and reading (``readings.md``), on deals
chosen in ``dummy_helpers``; the notation; the env's bad-input handling."""

from __future__ import annotations

import pytest
from competitive import (
    check_bad_config_refused,
    check_illegal_move_refused,
    check_malformed_deck_refused,
    check_pile_turns_into_the_stock,
    malformed_decks,
)
from dummy_helpers import deal, legal_texts, new_game, play

from commoncause.agents.evaluate import make_agent
from commoncause.envs.core.cards import parse_card
from commoncause.envs.dummy_rummy import env
from commoncause.envs.dummy_rummy.actions import (
    DISCARD_BASE,
    KIND_NAMES,
    N_ACTIONS,
    TYPE_OF,
    decode,
    points,
)
from commoncause.envs.dummy_rummy.game import GAME
from commoncause.envs.dummy_rummy.notation import move_text, parse_move
from commoncause.envs.dummy_rummy.rules import MELD_RULES, PLACE_PHASE

NO_CONTRACT = "3C 4D 6H 8S 10C QD KH AC 3H 4S 6D 8H 10H"  # no two sets, no run, no wild


def types(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def melds_in(state) -> list[str]:
    return [t for t in legal_texts(state) if t.startswith("meld")]


# ------------------------------------------------------------------------ the contract
def test_a_hand_lacking_the_contract_has_no_meld_step():
    state = new_game([NO_CONTRACT, "7C 7D 7H 9C 9D 9S JK JK 2C 2D 2H 2S 5C"], "KC", "5H")
    play(state, "draw stock")
    assert state.current == 0 and state.phase == PLACE_PHASE
    assert melds_in(state) == []
    assert all(t.startswith("discard") for t in legal_texts(state))


def test_laying_contract_one_then_only_the_stock():
    state = new_game(["7C 7D 7H 9C 9D 9S 3C 4D 5H 6S 8C JD QH", NO_CONTRACT], "KC", "5D 5S 6C")
    play(state, "draw stock", "meld 7C in set 1", "meld 7D in set 1", "meld 7H in set 1")
    assert "discard 3C" not in legal_texts(state)  # a contract begun is finished first
    play(state, "meld 9C in set 2", "meld 9D in set 2", "meld 9S in set 2")
    assert state.laid[0]
    play(state, "discard 3C", "draw stock", "discard 5S")
    assert legal_texts(state) == ["draw stock"]  # a laid contract forbids the discard pile


def test_mixed_suit_runs_and_same_suit_sets_are_melds():
    state = new_game(
        ["5C 6D 7H 8S KC KC KH 3C 3D 9C JD QH 10S", NO_CONTRACT], "AD", "4H", first_contract=2
    )
    play(state, "draw stock", "meld 5C in run 1", "meld 6D in run 1", "meld 7H in run 1",
         "meld 8S in run 1", "meld KC in set 1", "meld KC in set 1",
         "meld KH in set 1")  # fmt: skip
    assert state.laid[0]
    assert MELD_RULES.read_run(types("5C 6D 7H 8S")) is not None
    assert MELD_RULES.read_set(types("KC KC KH")) is not None


def test_k_a_2_is_no_run():
    hand = "KC AD 3H 4S 9C 9D 9H 7D 7H JC JD 6C 6D"  # a set, but no run without a wild
    state = new_game([hand, NO_CONTRACT], "10C", "10S", first_contract=2)
    play(state, "draw stock")
    assert melds_in(state) == []
    assert MELD_RULES.read_run(types("KC AD 2H 3H")) is None  # even with the 2 wild
    assert MELD_RULES.read_run(types("JC QD KH AS")) is not None
    assert MELD_RULES.read_run(types("QC KD AH")) is not None  # the Ace high
    assert MELD_RULES.read_run(types("AC 3D 4H")) is None  # the 2's place is empty


def test_wild_cards_anywhere():
    hand = "5C JK 7H 2S KC KD 2D 3C 9D JD QH 10S 4D"
    state = new_game([hand, NO_CONTRACT], "AC", "AH", first_contract=2)
    play(state, "draw stock")
    texts = melds_in(state)
    assert "meld JK in run 1 as 6" in texts  # inside a run
    assert "meld 2S in run 1 as 8" in texts  # at its end
    assert "meld 2D in set 1" in texts  # in a set
    play(state, "meld 5C in run 1", "meld JK in run 1 as 6", "meld 7H in run 1",
         "meld 2S in run 1 as 8", "meld KC in set 1", "meld KD in set 1",
         "meld 2D in set 1")  # fmt: skip
    assert state.laid[0]


# ------------------------------------------------------------------ a hand, scored
GOES_OUT = ["7C 7D 7H 9C 9D 9S JK JK 2C 2D 2H 2S 5C", NO_CONTRACT]


def going_out():
    state = new_game(GOES_OUT, "KC", "5H 5S 7S")
    play(state, "draw stock")
    play(state, *(f"meld {c} in set 1" for c in ("7C", "7D", "7H")))
    play(state, *(f"meld {c} in set 2" for c in ("9C", "9D", "9S")))
    return state


def test_reading_2_no_layoff_in_the_laying_turn():
    state = going_out()
    texts = legal_texts(state)
    assert not [t for t in texts if t.startswith("layoff")]
    assert "discard JK" in texts  # nothing can be laid off yet, so nothing is held back


def test_scoring_the_next_hand_and_repeated_contracts():
    state = going_out()
    play(state, "discard 5C", "draw stock", "discard 5S", "draw stock")
    texts = legal_texts(state)
    assert "layoff 7S on player_0 set 1" in texts and "layoff JK on player_1 set 1" not in texts
    # reading 1: a card that could be laid off may not be discarded
    assert "discard JK" not in texts and "discard 7S" not in texts and "discard 5H" in texts
    play(state, "layoff 7S on player_0 set 1", *["layoff JK on player_0 set 2"] * 2,
         *(f"layoff 2{s} on player_0 set 1" for s in "CDHS"))  # fmt: skip
    assert [t for t in legal_texts(state) if t.startswith("layoff")] == []  # reading 11
    play(state, "discard 5H")
    assert state.hand_points == [[0, 95]]  # 3 4 6 8 x2 (5 each), 10 Q K (10), 10, A (15)
    assert state.rewards() == (0.0, -95.0) and state.totals == [0, 95]
    assert state.contract == [1, 0]  # player_0 moves on, player_1 repeats contract 1
    assert state.hand_no == 1 and state.current == 1  # reading 9: the next player begins
    assert [len(h) for h in state.hands] == [13, 13] and not state.melds


def test_points_table():
    assert [points(t) for t in types("3C 9D 10H KS AC 2D JK")] == [5, 5, 10, 10, 15, 50, 50]


# -------------------------------------------------------------------- readings
def test_reading_1_a_discard_that_could_be_laid_off_is_barred_unless_every_card_could():
    hand = "7C 7D 7H 9C 9D 9S JK JK 2C 2D 2H 2S 7S"
    state = new_game([hand, NO_CONTRACT], "KC", "5H 7S 9H")
    play(state, "draw stock", *(f"meld {c} in set 1" for c in ("7C", "7D", "7H")),
         *(f"meld {c} in set 2" for c in ("9C", "9D", "9S")), "discard 5H",
         "draw stock")  # fmt: skip
    assert "discard 7S" in legal_texts(state)  # player_1 has laid nothing: no restriction
    play(state, "discard 7S", "draw stock")  # player_0 holds JK JK 2C 2D 2H 2S 7S 9H
    discards = {t for t in legal_texts(state) if t.startswith("discard")}
    assert discards == {f"discard {c}" for c in ("7S", "9H", "2C", "2D", "2H", "2S", "JK")}


def test_reading_3_2s_are_always_wild_and_reading_4_one_natural_card():
    assert MELD_RULES.read_set(types("2C 2D 2H")) is None  # no set of 2s
    assert MELD_RULES.read_set(types("JK 2C JK")) is None  # nor of wild cards only
    assert MELD_RULES.read_set(types("JK 2C JK JK 2S 5D")).stands_for == {
        i: -1 for i in (0, 1, 2, 3, 4)
    }  # any number of wild cards beside one natural
    assert MELD_RULES.read_run(types("AC 2D 3H")).stands_for == {}  # a 2 at the 2's place
    assert MELD_RULES.read_run(types("AC 2D 2H 4S")).stands_for == {2: 3}  # or wild
    assert MELD_RULES.read_run(types("JK 2D 2H 4S")).stands_for == {0: 1, 2: 3}


def test_reading_5_a_wild_card_on_the_table_stays_for_good():
    hand = "5C JK 7H 2S KC KD 2D 3C 9D JD QH 10S 4D"
    state = new_game([hand, NO_CONTRACT], "AC", "AH 5S 6D", first_contract=2)
    play(state, "draw stock", "meld 5C in run 1", "meld JK in run 1 as 6", "meld 7H in run 1",
         "meld 2S in run 1 as 8", "meld KC in set 1", "meld KD in set 1", "meld 2D in set 1",
         "discard AH", "draw stock", "discard 5S", "draw stock")  # fmt: skip
    run = next(m for m in state.melds if not m.is_set)
    joker = run.slots[6]
    texts = legal_texts(state)  # player_0 holds the natural 6D the joker stands for
    assert not [t for t in texts if t.startswith("layoff 6D")]
    assert {"layoff 4D on player_0 run 1", "layoff 9D on player_0 run 1"} <= set(texts)
    play(state, "layoff 9D on player_0 run 1", "layoff 4D on player_0 run 1")
    assert run.slots[6] == joker and sorted(run.slots) == [4, 5, 6, 7, 8, 9]


def test_reading_6_no_step_into_a_dead_end():
    state = new_game(["7C 7D 9C 9D JK 3C 4D 5H 6S 8C 10D QH KS", NO_CONTRACT], "AC", "9H")
    play(state, "draw stock")
    texts = melds_in(state)
    assert "meld 3C in set 1" not in texts  # no set of 3s can be finished
    play(state, "meld 7C in set 1")
    texts = melds_in(state)
    assert "meld JK in set 1" in texts and "meld JK in set 2" not in texts
    assert "meld 9C in set 1" not in texts
    assert not [t for t in legal_texts(state) if t.startswith("discard")]


def test_reading_7_the_pile_turns_into_the_stock():
    state = new_game([NO_CONTRACT, "3D 4C 6C 8C 10S QC KC AD 3S 4H 6D 8D 10D"], "5C")
    check_pile_turns_into_the_stock(state, play, DISCARD_BASE)


def test_reading_7_with_no_card_to_turn_over_the_hand_ends_with_nobody_out():
    """Built directly (random play never gets there: 0 of 900 one-hand games with cut-ins
    at 2-4 seats): player_1 holds the whole stock, and the pile is its top card alone."""
    state = new_game([NO_CONTRACT, "3D 4C 6C 8C 10S QC KC AD 3S 4H 6D 8D 10D"], "5C", hands=1)
    state.hands[1].extend(state.stock)
    state.stock.clear()
    held = [sum(points(t) for t in state.hand_types(s)) for s in (0, 1)]
    play(state, "draw stock")
    assert state.is_terminal and state.hand_points == [held]  # everyone scores their hand
    assert state.returns() == (-held[0], -held[1]) and state.winners() == [0]


def test_reading_8_the_twelfth_contract_ends_the_game():
    p0 = "3C 4D 5H 6S 7C 8D 9H 10S JC QD KC KD KH"
    p1 = "3D 3H 5D 5S 8C 8H JD JH QC QH AC AD 9C"
    state = new_game([p0, p1], "4C", "5C 6C 2S 6D AS", first_contract=12)
    play(state, "draw stock", *(f"meld {c} in run 1" for c in p0.split()[:10]), "discard 5C")
    play(state, "draw stock", "discard 6C", "draw stock", "layoff KC on player_0 run 1",
         "layoff 2S on player_0 run 1 as 2", "discard KH", "draw stock", "discard 6D",
         "draw stock", "layoff AS on player_0 run 1 as A", "discard KD")  # fmt: skip
    assert state.is_terminal and state.winners() == [0]
    assert state.returns() == (0.0, -105.0)  # 3 3 5 5 8 8 9: 35, J J Q Q: 40, A A: 30
    assert state.legal_actions() == []


def test_hands_option_stops_the_game_and_the_lowest_total_wins():
    state = new_game(GOES_OUT, "KC", "5H 5S 7S", hands=1, reward="win")
    play(state, "draw stock", *(f"meld {c} in set 1" for c in ("7C", "7D", "7H")),
         *(f"meld {c} in set 2" for c in ("9C", "9D", "9S")), "discard 5C", "draw stock",
         "discard 5S", "draw stock", "layoff 7S on player_0 set 1",
         *["layoff JK on player_0 set 2"] * 2,
         *(f"layoff 2{s} on player_0 set 1" for s in "CDHS"), "discard 5H")  # fmt: skip
    assert state.is_terminal and state.winners() == [0]
    assert state.returns() == (1.0, -1.0) == state.rewards()


def test_reading_10_cut_ins():
    hands = [
        NO_CONTRACT,
        "3D 4C 6C 8C 10S QC KC AD 3S 4H 6D 8D 10D",
        "5C 7C 9C JC 5D 7D 9D JD 5H 7H 9H JH 7S",
    ]
    state = new_game(hands, "KS", "5C 5D 5H 5S JK", cut_ins=True)
    play(state, "draw stock")
    assert state.current == 1 and legal_texts(state) == ["cutin take", "cutin pass"]
    play(state, "cutin pass")
    assert state.current == 2
    play(state, "cutin take")  # the top discard and three stock cards
    assert len(state.hands[2]) == 17 and state.cutins_used == [0, 0, 1]
    assert state.current == 0 and state.phase == PLACE_PHASE and len(state.hands[0]) == 14
    assert state.hand_types(0)[-1] == parse_card("5S")  # then player_0 drew the next card


TWO_RUNS = "5C 6D 7H 8S 5D 6H 7S 8C 9C 10D JH QS KD"  # 5-8 twice, or 5-8 and 9-Q


@pytest.mark.parametrize(
    "second, layoffs",
    [("5D 6H 7S 8C", ("4H on player_0 run 1", "4H on player_0 run 2")),
     ("9C 10D JH QS", ("4H on player_0 run 1", "8C on player_0 run 2"))],
)  # fmt: skip
def test_reading_12_two_runs_of_a_contract_may_share_or_adjoin_ranks(second, layoffs):
    state = new_game([TWO_RUNS, NO_CONTRACT], "3C", "4H 9D", first_contract=4)
    play(state, "draw stock", *(f"meld {c} in run 1" for c in ("5C", "6D", "7H", "8S")))
    texts = melds_in(state)
    assert {"meld 5D in run 2", "meld 9C in run 2"} <= set(texts)  # the same ranks, or the next
    play(state, *(f"meld {c} in run 2" for c in second.split()))
    assert state.laid[0]
    low = int(second.split()[0][:-1])
    assert [sorted(m.slots) for m in state.melds] == [[5, 6, 7, 8], list(range(low, low + 4))]
    play(state, "discard KD", "draw stock", "discard 9D", "draw stock")
    texts = legal_texts(state)  # each run grows at its own ends, never joined to the other
    assert {f"layoff {x}" for x in layoffs} <= set(texts)


def test_reading_13_a_cut_in_takes_the_card_and_three_more_twice_at_most():
    hands = [
        NO_CONTRACT,
        "3D 4C 6C 8C 10S QC KC AD 3S 4H 6D 8D 10D",
        "5C 7C 9C JC 5D 7D 9D JD 5H 7H 9H JH 7S",
    ]
    state = new_game(hands, "KS", "QS QH QD QC JS JK", cut_ins=True)
    play(state, "draw stock", "cutin pass", "cutin take")  # KS, QS QH QD
    assert len(state.hands[2]) == 13 + 4 and state.cutins_used == [0, 0, 1]
    play(state, "discard 3C", "draw stock", "cutin take")  # 3C, JS JK and one more
    assert len(state.hands[2]) == 13 + 8 and state.cutins_used == [0, 0, 2]
    play(state, "discard 3D", "draw stock", "cutin pass", "cutin pass", "discard 5C")
    play(state, "draw stock")
    assert state.cutin_queue == [1]  # player_2, in twice, is not asked again this hand


def test_reading_14_a_face_up_card_starts_the_pile():
    """The 27th card of a two-player deal (13 each, one at a time) is turned up."""
    other = "3D 4C 6C 8C 10S QC KC AD 3S 4H 6D 8D 10D"
    state = new_game([NO_CONTRACT, other], "KS", "9H")
    assert [state.hand_types(0), state.hand_types(1)] == [types(NO_CONTRACT), types(other)]
    assert [TYPE_OF[c] for c in state.discard] == [parse_card("KS")]
    assert len(state.stock) == 108 - 27
    assert legal_texts(state) == ["draw stock", "draw discard"]  # the first player may take it
    play(state, "draw discard")
    assert state.hand_types(0)[-1] == parse_card("KS") and state.discard == []
    assert len(state.stock) == 108 - 27


# -------------------------------------------------------------------- the baseline
def baseline_move(options: str, state) -> str:
    agent = make_agent(f"baseline:{options}" if options else "baseline", "dummy_rummy")
    return move_text(state, agent.act(GAME.seat_view(state, state.current)))


def test_baseline_lay_option():
    """``lay=after_another`` waits while nobody else has laid, then lays; a contract begun
    is finished."""
    both = ["7C 7D 7H 9C 9D 9S 3C 4D 5H 6S 8C JD QH", "8D 8H 8S JC JH JS 3D 4C 6C 10C QC KC AD"]
    state = new_game(both, "KD", "5D 5S 6D")
    play(state, "draw stock")
    assert baseline_move("", state) == "meld 7C in set 1"
    assert baseline_move("lay=after_another", state).startswith("discard")
    play(state, "discard 5D", "draw stock", *(f"meld {c} in set 1" for c in ("8D", "8H", "8S")))
    assert baseline_move("lay=after_another", state) == "meld JC in set 2"  # begun: finished
    play(state, *(f"meld {c} in set 2" for c in ("JC", "JH", "JS")), "discard 3D", "draw stock")
    assert baseline_move("lay=after_another", state) == "meld 7C in set 1"  # player_1 has laid


def test_baseline_layoff_option():
    """``layoff=none`` discards where the default lays off, and its play says nothing of
    its hand (``cannot_hold``)."""
    state = going_out()
    play(state, "discard 5C", "draw stock", "discard 5S", "draw stock")
    assert baseline_move("", state) == "layoff 7S on player_0 set 1"
    assert baseline_move("layoff=none", state) == "discard 5H"
    play(state, "discard 5H", "draw stock")
    view = GAME.seat_view(state, 1)
    assert make_agent("baseline", "dummy_rummy").cannot_hold(view, 0)
    assert not make_agent("baseline:layoff=none", "dummy_rummy").cannot_hold(view, 0)


# -------------------------------------------------------------------- notation, errors
def test_notation_round_trips_and_names_problems():
    state = new_game(["5C JK 7H 2S KC KD 2D 3C 9D JD QH 10S 4D", NO_CONTRACT], "AC", "AH",
                     first_contract=2)  # fmt: skip
    play(state, "draw stock")
    for action in state.legal_actions():
        assert parse_move(state, move_text(state, action)) == action
    with pytest.raises(ValueError, match="has no run 2"):
        parse_move(state, "meld 5C in run 2")
    with pytest.raises(ValueError, match="wild card stands for"):
        parse_move(state, "meld JK in run 1")
    with pytest.raises(ValueError, match="cannot read"):
        parse_move(state, "throw 5C")
    assert {KIND_NAMES[decode(a).kind] for a in range(N_ACTIONS)} == set(KIND_NAMES)


def test_illegal_action_raises_and_changes_nothing():
    e = env(num_players=2, hands=1)
    check_illegal_move_refused(e, deal(GOES_OUT, "KC", "5H 5S 7S"), "discard 5C")


@pytest.mark.parametrize("deck, problem", malformed_decks(deal(GOES_OUT, "KC")))
def test_malformed_deck_refused_at_reset(deck, problem):
    check_malformed_deck_refused(env(num_players=2), deck, problem)


@pytest.mark.parametrize(
    "options, problem",
    [
        ({"num_players": 5}, "num_players must be 2-4"),
        ({"first_contract": 13}, "first_contract must be 1-12"),
        ({"reward": "money"}, "reward must be"),
        ({"players": 3}, "unknown game option"),
    ],
)
def test_bad_config_refused_at_construction(options, problem):
    check_bad_config_refused("dummy_rummy", options, problem)
