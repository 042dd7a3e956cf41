"""A belief over the other hands for search (``search:...;belief=others``): the table's past
(``TableMeld.before``, ``fitted_table``), who has laid off all it could (``laid_off_all``),
what the Dummy rummy baseline's play says it does not hold (``cannot_hold``), and deals
sampled around it (``sample_deals(rng, barred)``)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from dummy_helpers import new_game, play

from commoncause.agents.registry import make_agent
from commoncause.agents.search import SearchOptions
from commoncause.envs.core.cards import parse_card
from commoncause.envs.dummy_rummy.actions import DECK
from commoncause.envs.dummy_rummy.rules import DummyConfig
from commoncause.envs.registry import get_game

GAME = get_game("dummy_rummy")
NO_CONTRACT = "3C 4D 6H 8S 10C QD KH AC 3H 4S 6D 8H 10H"


def test_the_table_before_a_move_and_who_laid_off_all_it_could():
    state = new_game(["7C 7D 7H 9C 9D 9S 3C 4D 5H 6S 8C JD QH", NO_CONTRACT], "KC", "5D 5S 6C")
    play(state, "draw stock", "meld 7C in set 1", "meld 7D in set 1", "meld 7H in set 1")
    laid_at = len(state.history) - 3
    play(state, "meld 9C in set 2", "meld 9D in set 2", "meld 9S in set 2", "discard 3C")
    assert state.laid_off_all(0) == -1  # it discarded on the turn it laid: no lay-offs then
    assert state.fitted_table(laid_at) == []  # nothing on the table before the first meld
    assert state.fitted_table(laid_at + 1) == sorted(cards("7C 7D 7H 7S") + wilds())
    play(state, "draw stock", "discard 5S", "draw stock", "discard 6C")
    assert state.laid_off_all(0) == len(state.history) - 1
    assert state.laid_off_all(1) == -1  # not laid
    fitted = state.fitted_table(state.laid_off_all(0))
    assert {parse_card("9H"), parse_card("7S")} <= set(fitted) and parse_card("5H") not in fitted


def cards(codes: str) -> list[int]:
    return [parse_card(code) for code in codes.split()]


def wilds() -> list[int]:
    return cards("2C 2D 2H 2S JK")


def test_a_runs_past_ends_are_not_its_present_ones():
    p0 = "3C 4D 5H 6S 7C 8D 9H 10S JC QD KC KD KH"
    p1 = "3D 3H 5D 5S 8C 8H JD JH QC QH AC AD 9C"
    state = new_game([p0, p1], "4C", "5C 6C 2S 6D AS", first_contract=12)
    play(state, "draw stock", *(f"meld {c} in run 1" for c in p0.split()[:10]), "discard 5C")
    play(state, "draw stock", "discard 6C", "draw stock")
    before_king = len(state.history)
    play(state, "layoff KC on player_0 run 1")
    then, now = state.fitted_table(before_king), state.fitted_table(len(state.history))
    assert parse_card("KH") in then and parse_card("AH") not in then
    assert parse_card("AH") in now and parse_card("KH") not in now
    assert set(wilds()) <= set(then) & set(now)
    meld = state.melds[0]
    assert len(meld.before(before_king)) == 10 and len(meld) == 11
    assert meld.before(0) is None


@pytest.mark.parametrize("players,cut_ins", [(2, False), (4, False), (4, True)])
def test_the_baseline_never_holds_what_it_is_said_not_to(players, cut_ins):
    """In baseline games, at every move, every other seat's ``cannot_hold`` misses its true
    hand; and it bars cards often enough to matter."""
    config = DummyConfig(num_players=players, hands=1, cut_ins=cut_ins)
    baseline = make_agent("baseline", "dummy_rummy")
    barred = 0
    for seed in range(8):
        state = GAME.new_game(config, seed)
        while not state.is_terminal:
            view = GAME.seat_view(state, state.current)
            for seat in range(players):
                if seat != state.current:
                    cards = baseline.cannot_hold(view, seat)
                    assert not cards & set(state.hands[seat]), (seed, seat)
                    barred += bool(cards)
            state.apply(baseline.act(view))
    assert barred > 50


def test_a_baseline_keeping_wild_cards_may_hold_them():
    config = DummyConfig(num_players=4, hands=1)
    keeper = make_agent("baseline:wild_layoffs=no", "dummy_rummy")
    state = GAME.new_game(config, 3)
    seen = 0
    while not state.is_terminal:
        view = GAME.seat_view(state, state.current)
        for seat in range(4):
            cards = keeper.cannot_hold(view, seat) if seat != state.current else set()
            assert not {c for c in cards if DECK.type_of(c) in wilds()}
            assert not cards & set(state.hands[seat])
            seen += bool(cards)
        state.apply(keeper.act(view))
    assert seen


def test_sampled_deals_keep_barred_cards_out_of_those_hands():
    config = DummyConfig(num_players=4, hands=1)
    baseline = make_agent("baseline", "dummy_rummy")
    rng = random.Random(1)
    checked = 0
    for seed in range(4):
        state = GAME.new_game(config, seed)
        while not state.is_terminal:
            me = state.current
            view = GAME.seat_view(state, me)
            barred = {s: baseline.cannot_hold(view, s) for s in range(4) if s != me}
            if any(barred.values()) and len(state.history) % 4 == 0:
                deal = next(view.sample_deals(rng, barred))
                places = [c for h in deal.hands for c in h] + deal.stock + deal.discard
                places += [c for m in deal.melds for c in m.physical()]
                assert Counter(places) == Counter(range(DECK.size))
                assert [len(h) for h in deal.hands] == [len(h) for h in state.hands]
                assert deal.hands[me] == state.hands[me]
                for seat, cards in barred.items():
                    assert not cards & set(deal.hands[seat])
                checked += 1
            state.apply(baseline.act(view))
    assert checked > 10


def test_a_belief_that_bars_every_card_still_deals_every_hand():
    state = GAME.new_game(DummyConfig(num_players=2, hands=1), 0)
    view = GAME.seat_view(state, 0)
    deal = next(view.sample_deals(random.Random(0), {1: set(range(DECK.size))}))
    assert len(deal.hands[1]) == len(state.hands[1])
    assert deal.hands[0] == state.hands[0]


def test_the_belief_option():
    options = SearchOptions.parse("others=baseline;belief=others")
    assert SearchOptions.parse(options.text()) == options
    assert SearchOptions().belief == "uniform"
    with pytest.raises(ValueError, match="belief must be uniform or others"):
        SearchOptions.parse("others=baseline;belief=exact")
    with pytest.raises(ValueError, match="belief=others needs an others member"):
        SearchOptions.parse("belief=others")
    with pytest.raises(ValueError, match="cannot hold"):
        make_agent("search:others=trained;belief=others", "dummy_rummy")


def test_search_with_the_belief_plays_a_legal_game():
    config = DummyConfig(num_players=4, hands=1)
    searcher = make_agent(
        "search:blueprint=baseline;others=baseline;belief=others;rollouts=2", "dummy_rummy"
    )
    baseline = make_agent("baseline", "dummy_rummy")
    state = GAME.new_game(config, 5)
    while not state.is_terminal:
        agent = searcher if state.current == 0 else baseline
        state.apply(agent.act(GAME.seat_view(state, state.current)))
    assert searcher.stats.searched > 0
