"""Open Rummy: scripted rule scenarios for every rule and reading (``readings.md``), on deals
chosen in ``open_helpers``; the notation; the env's bad-input handling."""

from __future__ import annotations

import pytest
from competitive import (
    check_bad_config_refused,
    check_illegal_move_refused,
    check_malformed_deck_refused,
    check_pile_turns_into_the_stock,
    malformed_decks,
)
from open_helpers import deal, legal_texts, new_game, play

from commoncause.envs.core.cards import parse_card
from commoncause.envs.open_rummy import env
from commoncause.envs.open_rummy import open_rummy as spec
from commoncause.envs.open_rummy.actions import (
    DISCARD_BASE,
    KIND_NAMES,
    N_ACTIONS,
    decode,
    points,
)
from commoncause.envs.open_rummy.game import GAME
from commoncause.envs.open_rummy.meld_plans import legal_steps
from commoncause.envs.open_rummy.notation import move_text, parse_move
from commoncause.envs.open_rummy.rules import (
    DRAW_PHASE,
    MELD_RULES,
    PLACE_PHASE,
    OpenConfig,
)

GOES_OUT = "KD KH KS 7C 8C 9C 4D 4S 4H 10C JC QC 2S"  # four melds, then 6C off and 2S out
NO_MELD = "4C 5D 6C 8S 10H QD AC 3H 9S JH KC 2D 7D"  # no meld; 4C 5D 6C is mixed suits
JOKER_RUN = "4H 5H 6H JK 2C 3S 8D 10S QC AD 9H JD 7S"  # 4H JK(5H) 6H, then 5H to the pile
STEALER = "5H 10C 10D 10H 7S 3C 8H AS 2D 4C 6S QS JD"  # a set of 10s, and 5H


def types(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def with_prefix(state, word: str) -> list[str]:
    return [t for t in legal_texts(state) if t.startswith(word)]


def going_out(**config):
    state = new_game([GOES_OUT, NO_MELD], "5H", "6C", card_swap=False, **config)
    play(state, "draw stock", "meld set KD", "meld set KH", "meld set KS")
    play(state, "meld run 7C", "meld run 8C", "meld run 9C")
    play(state, "meld set 4D", "meld set 4S", "meld set 4H")
    play(state, "meld run 10C", "meld run JC", "meld run QC", "layoff 6C on meld 2")
    return state


# ------------------------------------------------------------------------------ melds
def test_a_turn_draws_melds_lays_off_and_discards():
    state = going_out()
    assert state.placed == [95, 0] and state.totals == [95, 0]  # 30 + 15 + 15 + 30 + 5
    assert legal_texts(state) == ["discard 2S"]  # one card left: no lay-off empties a hand
    assert state.result is None


def test_reading_7_no_layoff_before_ones_first_meld():
    state = new_game([GOES_OUT, NO_MELD], "5H", "2H 8H", card_swap=False)
    play(state, "draw stock", "meld run 7C", "meld run 8C", "meld run 9C")
    assert "layoff 10C on meld 1" in legal_texts(state)  # the meld just laid is one's own
    play(state, "discard 2H", "draw stock")
    assert state.current == 1 and "6C" not in legal_texts(state)
    assert with_prefix(state, "layoff") == [] and with_prefix(state, "steal") == []
    assert all(t.startswith("discard") for t in legal_texts(state))  # 10H/6C fit nothing yet


def test_mixed_suit_run_refused():
    state = new_game([NO_MELD, GOES_OUT], "5H", "9D", card_swap=False)
    play(state, "draw stock")
    assert with_prefix(state, "meld") == []  # 4C 5D 6C is no run
    assert MELD_RULES.read_run(types("4C 5D 6C")) is None
    assert MELD_RULES.read_run(types("4C 5C 6C")) is not None


def test_set_with_a_repeated_suit_refused():
    hand = "9C 9C 9D 2H 4S 6D 8H JC KS AD 3C 5H QS"
    state = new_game([hand, NO_MELD], "7H", "10D", card_swap=False)
    play(state, "draw stock")
    assert with_prefix(state, "meld") == []
    assert MELD_RULES.read_set(types("9C 9C 9D")) is None
    assert MELD_RULES.read_set(types("9C 9H 9D")) is not None


def test_reading_3_k_a_run_accepted_a_2_3_refused():
    hand = "QH KH AH AS 2S 3S 5C 7D 9C JD 4H 6S 8C"
    state = new_game([hand, NO_MELD], "10D", "JS", card_swap=False)
    play(state, "draw stock")
    assert sorted(with_prefix(state, "meld")) == ["meld run AH", "meld run KH", "meld run QH"]
    play(state, "meld run QH", "meld run KH", "meld run AH")
    assert sorted(state.melds[0].slots) == [12, 13, 14] and state.placed[0] == 35
    assert MELD_RULES.read_run(types("QH KH AH")) is not None
    assert MELD_RULES.read_run(types("AS 2S 3S")) is None
    assert MELD_RULES.read_run(types("KS AS 2S")) is None  # never round the corner


def test_reading_8_fifth_card_refused_and_four_suits_close_a_set():
    hand = "KD KH KS KC KD 7C 7D JK 7H 7S 4H 2S QH"
    state = new_game([hand, NO_MELD], "10D", "9D", card_swap=False)
    play(state, "draw stock", "meld set KD", "meld set KH", "meld set KS")
    play(state, "layoff KC on meld 1")
    assert state.melds[0].closed and state.placed[0] == 40
    assert "layoff KD on meld 1" not in legal_texts(state)  # closed: out of the game
    assert state.locations()[state.melds[0].cards[0]] == "closed0"
    play(state, "meld set 7C", "meld set 7D", "meld set JK", "layoff 7H on meld 2")
    assert state.placed[0] == 60 and not state.melds[1].closed  # 7C 7D JK 7H: full, open
    texts = legal_texts(state)
    assert "layoff 7S on meld 2" not in texts  # a fifth card
    assert "steal meld 2 with 7S" in texts
    play(state, "steal meld 2 with 7S")
    assert state.melds[1].closed and state.placed[0] == 60  # the stand-in earns nothing
    assert "JK" in " ".join(legal_texts(state))  # the joker is back in hand
    assert MELD_RULES.read_set(types("KD KH KS KC 7D")) is None


def test_reading_4_at_most_one_joker_in_a_new_meld_more_by_layoff():
    hand = "5S JK JK 9C 9D 2H 4D 6C 8H 10D QS AC 3C"
    state = new_game([hand, NO_MELD], "KH", "JH", card_swap=False)
    play(state, "draw stock")
    assert "meld run 5S" not in legal_texts(state)  # 5S JK JK would need two jokers
    play(state, "meld set 9C", "meld set 9D", "meld set JK")
    assert "layoff JK on meld 1" in legal_texts(state)  # a second joker by lay-off
    play(state, "layoff JK on meld 1")
    assert state.placed[0] == 20  # each joker as a 9
    assert MELD_RULES.read_set(types("9C 9D JK JK")) is not None
    assert "layoff JK on meld 1" not in legal_texts(state)


def test_reading_4_two_jokers_and_one_natural_card_make_no_meld():
    """Every natural card alone in its rank and two or more apart from its suit's others:
    with two jokers any of them would make a run or a set of three, but none is offered."""
    hand = "2C 6C 10C AC 3D 7D JD 4H 8H QH 5S JK JK"
    state = new_game([hand, NO_MELD], "9S", "KS", card_swap=False)
    play(state, "draw stock")
    assert with_prefix(state, "meld") == []
    assert MELD_RULES.read_set(types("KS JK JK")) is None
    assert MELD_RULES.read_run(types("JK 5S JK")) is None


def test_reading_6_no_step_into_a_dead_end_and_no_going_out_by_placing():
    state = new_game([JOKER_RUN, STEALER], "KC", "KS", card_swap=False)
    play(state, "draw stock", "meld run 4H")
    steps = with_prefix(state, "meld")
    assert "meld run JK as 2H" not in steps and "meld run JK as 7H" not in steps
    assert {"meld run 5H", "meld run 6H", "meld run JK as 3H", "meld run JK as 5H"} <= set(steps)
    assert with_prefix(state, "discard") == []  # a meld begun is finished first
    held = frozenset(types("7C 8C 9C"))
    assert legal_steps(held, 0, 3, frozenset(), "") == ()  # three cards: no discard left
    assert legal_steps(held, 0, 4, frozenset(), "") != ()


# ------------------------------------------------------------------------------ jokers
def joker_run_then_stand_in_discarded():
    state = new_game([JOKER_RUN, STEALER], "KC", "2H 9D", card_swap=False)
    play(state, "draw stock", "meld run 4H", "meld run JK as 5H", "meld run 6H")
    assert state.placed[0] == 15  # the joker counts as the 5H
    play(state, "discard 5H")
    return state


def test_reading_9_a_discarded_stand_in_cannot_be_taken():
    state = joker_run_then_stand_in_discarded()
    assert state.current == 1 and state.top_blocked()
    assert legal_texts(state) == ["draw stock"]


def test_reading_9_joker_steal_and_its_points():
    state = joker_run_then_stand_in_discarded()
    play(state, "draw stock")
    assert with_prefix(state, "steal") == []  # no meld of one's own yet
    play(state, "meld set 10C", "meld set 10D", "meld set 10H")
    assert state.placed[1] == 30 and "steal meld 1 with 5H" in legal_texts(state)
    play(state, "steal meld 1 with 5H")
    assert state.placed[1] == 30 and state.rewards() == (0.0, 0.0)  # no points for 5H
    assert state.hand_types(1).count(parse_card("JK")) == 1
    assert not state.stand_ins()
    play(state, "layoff JK on meld 1 as 3H")  # placed again, it counts again
    assert state.placed[1] == 35 and state.rewards() == (0.0, 5.0)
    assert sorted(state.melds[0].slots) == [3, 4, 5, 6]


def test_reading_9_a_stolen_joker_may_be_kept_and_costs_30():
    state = joker_run_then_stand_in_discarded()
    play(state, "draw stock", "meld set 10C", "meld set 10D", "meld set 10H")
    play(state, "steal meld 1 with 5H", "discard 7S")
    assert parse_card("JK") in state.hand_types(1) and points(parse_card("JK")) == 30


# ------------------------------------------------------------------------------ card swap
def test_reading_11_card_swap_chain():
    hands = [GOES_OUT, NO_MELD, STEALER]
    state = new_game(hands, "AH", "2H 3D")
    assert "cardswap 2S" in legal_texts(state)
    play(state, "cardswap 2S")  # ends the turn
    assert state.current == 1 and state.phase == DRAW_PHASE
    assert parse_card("AH") in state.hand_types(0) and state.top_discard() >= 0
    assert "cardswap 7D" in legal_texts(state)  # the one before swapped
    play(state, "cardswap 7D", "draw stock")  # player_2 draws: the chain stops
    assert state.swap_open is False
    play(state, "discard 2H")
    assert with_prefix(state, "cardswap") == []


def test_reading_11_no_swap_after_a_draw_and_once_round_the_table():
    state = new_game([GOES_OUT, NO_MELD], "AH", "2H 3D")
    play(state, "draw stock", "discard 2H")
    assert with_prefix(state, "cardswap") == []
    state = new_game([GOES_OUT, NO_MELD], "AH", "2H 3D")
    play(state, "cardswap 2S", "cardswap 7D")
    assert state.current == 0 and with_prefix(state, "cardswap") == []
    off = new_game([GOES_OUT, NO_MELD], "AH", card_swap=False)
    assert with_prefix(off, "cardswap") == []


# ------------------------------------------------------------------------------ scoring
def test_round_scoring_and_the_next_round():
    state = going_out()
    hand_points = sum(points(t) for t in types(NO_MELD))
    play(state, "discard 2S")
    assert state.round_scores == [[95, -hand_points]] and state.round_out == [0]
    assert state.totals == [95, -hand_points]
    assert state.rewards() == (0.0, -float(hand_points))
    assert state.round_no == 1 and state.current == 1  # reading 10: the next player begins
    assert [len(h) for h in state.hands] == [13, 13] and not state.melds
    assert state.placed == [0, 0] and state.laid == [False, False]


def test_reading_12_a_win_only_after_the_round_ends():
    state = going_out(target=90)
    assert state.totals[0] >= 90 and state.result is None  # during the round: no win
    play(state, "discard 2S")
    assert state.is_terminal and state.winners() == [0]
    assert state.returns()[0] == 95.0 and state.legal_actions() == []
    win = going_out(target=90, reward="win")
    play(win, "discard 2S")
    assert win.returns() == (1.0, -1.0) == win.rewards()


def test_reading_12_ties_at_the_top_all_win():
    state = going_out(target=90)
    state.totals = [120, 120]
    assert state.winners() == [0, 1]


def round_nobody_goes_out(ending: str, **config):
    """Player_0 lays KD KH KS (30 points), keeps 7C 8C and discards 7C; player_1 keeps 4C 5D.
    The round then ends with nobody out (reading 13): a ``"dead round"`` (the other cards go
    under the stock, the set of kings is closed), or ``"no card left"`` (every other card is
    in player_1's hand and player_1 must draw). Positions reached only by long play, set up
    here with every card kept."""
    state = new_game([GOES_OUT, NO_MELD], "5H", "6C", card_swap=False, **config)
    play(state, "draw stock", "meld set KD", "meld set KH", "meld set KS")
    rest = state.hands[0][2:] + state.hands[1][2:]
    state.hands = [h[:2] for h in state.hands]
    if ending == "dead round":
        state.stock[:0] = rest
        state.melds[0].closed = True
    else:
        state.hands[1] += rest + state.stock + state.discard
        state.stock, state.discard, state.discard_entry = [], [], []
    state._legal = None
    play(state, "discard 7C")
    if ending == "no card left":
        play(state, "draw stock")
    return state


@pytest.mark.parametrize("ending", ["dead round", "no card left"])
def test_reading_12_no_win_after_a_round_nobody_went_out_of(ending):
    state = round_nobody_goes_out(ending, target=20)
    assert state.round_out == [-1] and state.round_scores[0][0] == 30 - 5  # 8C left
    assert state.totals[0] == 25 >= state.config.target
    assert state.result is None and state.legal_actions()  # the game goes on
    assert state.round_no == 1 and [len(h) for h in state.hands] == [13, 13] and not state.melds
    stopped = round_nobody_goes_out(ending, target=20, rounds=1)
    assert stopped.is_terminal and stopped.winners() == [0]  # the rounds option still stops


def test_rounds_option_stops_the_game():
    state = going_out(rounds=1)
    play(state, "discard 2S")
    assert state.is_terminal and state.round_no == 1


def test_reading_14_round_rewards_sum_to_the_round_change():
    e = env(num_players=2, rounds=1, card_swap=False)
    e.reset(options={"deck": deal([GOES_OUT, NO_MELD], "5H", "6C")})
    moves = ["draw stock", "meld set KD", "meld set KH", "meld set KS", "meld run 7C",
             "meld run 8C", "meld run 9C", "meld set 4D", "meld set 4S", "meld set 4H",
             "meld run 10C", "meld run JC", "meld run QC", "layoff 6C on meld 2",
             "discard 2S"]  # fmt: skip
    earned = [0.0, 0.0]
    for move in moves:
        e.step(e.move_to_action(move))
        for i, a in enumerate(e.possible_agents):
            earned[i] += e.rewards[a]
    assert all(e.terminations.values())
    assert earned == [float(x) for x in e.unwrapped.game_state.round_scores[0]]


# ------------------------------------------------------------------------------ deal, stock
def test_reading_1_jokers_option_and_reading_2_eight_players():
    cfg = OpenConfig(num_players=8, jokers=0)
    assert cfg.deck.size == 104
    state = GAME.new_game(cfg, seed=1)
    assert [len(h) for h in state.hands] == [12] * 8 and len(state.stock) == 104 - 97
    assert all(t != parse_card("JK") for s in range(8) for t in state.hand_types(s))
    assert OpenConfig().deck.size == 108 and OpenConfig(num_players=7).hand_size == 13
    with pytest.raises(ValueError, match="a first joker"):
        cfg.deck.parse(["JK"] + ["2C"] * 103)


@pytest.mark.parametrize("jokers", range(5))
def test_reading_2_twelve_cards_each_at_eight_players_whatever_the_jokers(jokers):
    eight = env(num_players=8, jokers=jokers)
    eight.reset(seed=jokers)
    state = eight.unwrapped.game_state
    assert [len(h) for h in state.hands] == [12] * 8 and len(state.discard) == 1
    assert len(state.stock) == 7 + jokers  # 13 each: a stock of jokers - 1 (none: no deal)
    seven = GAME.new_game(OpenConfig(num_players=7, jokers=jokers), seed=jokers)
    assert [len(h) for h in seven.hands] == [13] * 7


def test_reading_10_first_player_is_dealt_first():
    state = going_out()
    play(state, "discard 2S")
    first_card_round_1 = state.hands[1][0]
    assert state.first == 1 and first_card_round_1 is not None


def test_reading_13_the_pile_turns_into_the_stock():
    state = new_game([NO_MELD, "3D 4C 6H 8D 10S QC KD AD 3S 5H 7H 9D JS"], "5C",
                     card_swap=False)  # fmt: skip
    assert check_pile_turns_into_the_stock(state, play, DISCARD_BASE) == 81


def test_reading_13_no_card_left_ends_the_round_unscored_for_nobody():
    state = new_game([NO_MELD, GOES_OUT], "5C", card_swap=False)
    state.stock, state.discard = [], state.discard[-1:]  # (a state no real game reaches)
    state._legal = None
    play_moves = state.legal_actions()
    state.apply(play_moves[0])  # draw stock: nothing to draw
    assert state.round_out == [-1] and len(state.round_scores) == 1


# ------------------------------------------------------------------------------ notation, errors
def test_notation_round_trips_and_names_problems():
    state = joker_run_then_stand_in_discarded()
    play(state, "draw stock", "meld set 10C", "meld set 10D", "meld set 10H")
    for action in state.legal_actions():
        assert parse_move(state, move_text(state, action)) == action
    with pytest.raises(ValueError, match="say what a joker stands for"):
        parse_move(state, "meld run JK")
    with pytest.raises(ValueError, match="cannot read"):
        parse_move(state, "throw 5C")
    with pytest.raises(ValueError, match="no open end"):
        parse_move(state, "layoff JK on meld 1 as 9S")
    assert {KIND_NAMES[decode(a).kind] for a in range(N_ACTIONS)} == {
        "draw_stock", "draw_discard", "discard", "cardswap", "set_step", "run_step",
        "layoff", "steal",
    }  # fmt: skip


def test_illegal_action_raises_and_changes_nothing():
    e = env(num_players=2, rounds=1, card_swap=False)
    check_illegal_move_refused(e, deal([GOES_OUT, NO_MELD], "5H", "6C"), "discard 2S")
    assert e.unwrapped.game_state.phase == DRAW_PHASE
    e.step(e.move_to_action("draw stock"))
    assert e.unwrapped.game_state.phase == PLACE_PHASE


@pytest.mark.parametrize("deck, problem", malformed_decks(deal([GOES_OUT, NO_MELD], "5H")))
def test_malformed_deck_refused_at_reset(deck, problem):
    check_malformed_deck_refused(env(num_players=2), deck, problem)


@pytest.mark.parametrize(
    "options, problem",
    [
        ({"num_players": 9}, "num_players must be 2-8"),
        ({"num_players": 1}, "num_players must be 2-8"),
        ({"jokers": 5}, "jokers must be 0-4"),
        ({"target": 0}, "target must be 1 or more"),
        ({"rounds": -1}, "rounds must be 0 or more"),
        ({"card_swap": "yes"}, "card_swap must be true or false"),
        ({"reward": "money"}, "reward must be"),
        ({"players": 3}, "unknown game option"),
    ],
)
def test_bad_config_refused_at_construction(options, problem):
    check_bad_config_refused("open_rummy", options, problem)


def test_registered_with_pettingzoo_and_the_registry():
    import pettingzoo

    from commoncause.envs.registry import game_names, get_game

    assert "open_rummy" in game_names() and get_game("open_rummy") is GAME
    made = pettingzoo.make("aec", GAME.env_id) if hasattr(pettingzoo, "make") else None
    assert made is None or made.unwrapped.metadata["name"] == "open_rummy_v0"


def test_spec_truncation_names_every_way_a_round_ends():
    """The spec's *Truncation* paragraph names the endings ``rules.py`` implements: going
    out, and reading 13's two endings with nobody out (pinned by the tests above)."""
    text = " ".join(spec.__doc__.split("Truncation:")[1].split("\n\n")[0].split())
    for ending in ("discards their last card", "no card is left to draw", "dead round",
                   "reading 13", "max_moves"):  # fmt: skip
        assert ending in text, ending


def test_reading_13_a_dead_round_is_detected():
    state = new_game([GOES_OUT, NO_MELD], "5H", "6C", card_swap=False)
    play(state, "draw stock", "meld set KD", "meld set KH", "meld set KS")
    assert not state.dead_round()  # big hands
    state.hands = [h[:2] for h in state.hands]  # (a position reached only by long play)
    assert not state.dead_round()  # the set of kings still takes the KC
    state.melds[0].closed = True
    assert state.dead_round()
