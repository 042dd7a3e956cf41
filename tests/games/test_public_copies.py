"""Which physical copy of a card type leaves a hand tells nothing of the hidden cards
(Dummy rummy and Open Rummy play two decks, so every type has look-alike copies).

A copy whose whereabouts are public (taken from the pile, drawn from a stock turned over
from the pile, taken back from the table) goes first; the seat views' ``known_cards`` are
those copies. Scripted scenarios where the old rules (the copy held longest, or Open
Rummy's newest) gave the hidden copy away, and random play in which two deals that differ
only in one card hidden from a seat, played with the same moves, show that seat the same
physical ids up to a relabelling of look-alike copies it never saw.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from competitive import random_play

from commoncause.envs.dummy_rummy import actions as dummy
from commoncause.envs.open_rummy import actions as open_
from commoncause.envs.registry import get_game

T, COPY_A, COPY_B = 5, 5, 57  # a card type and its physical copies in the two decks


def deck_with(size: int, placed: dict[int, int]) -> list[int]:
    """The deck ``0..size-1`` with card ``placed[i]`` at position ``i``, the rest in order."""
    rest = iter(c for c in range(size) if c not in placed.values())
    return [placed[i] if i in placed else next(rest) for i in range(size)]


def play(name: str, config: Any, deck: list[int], moves: list[int]) -> Any:
    state = get_game(name).new_state(config, deck)
    for move in moves:
        assert move in state.legal_actions(), (move, state.legal_actions())
        state.apply(move)
    return state


def test_dummy_rummy_discards_the_copy_taken_from_the_pile():
    """Seat 0 is dealt copy A of a type and takes copy B, turned up, from the pile, then
    discards that type: copy B goes (the copy held longest, A, told seat 1 that seat 0 had
    another), whether or not seat 0 was dealt A."""
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    moves = [dummy.DRAW_DISCARD, dummy.DISCARD_BASE + T]
    up = 2 * 13  # the card turned up after two hands of 13
    dealt = play("dummy_rummy", config, deck_with(108, {0: COPY_A, up: COPY_B}), moves)
    not_dealt = play("dummy_rummy", config, deck_with(108, {107: COPY_A, up: COPY_B}), moves)
    for state in (dealt, not_dealt):
        view = get_game("dummy_rummy").seat_view(state, 1)
        assert view.discard_log[-1] == [COPY_B, 0, -1]
        assert view.known_cards() == {0: []}
    assert COPY_A in dealt.hands[0]


def test_open_rummy_discards_the_copy_taken_from_the_pile():
    """Seat 0 takes copy B from the pile, later draws copy A from the stock, then discards
    that type: copy B goes (the newest, A, told seat 1 that seat 0 had drawn another)."""
    game = get_game("open_rummy")
    config = game.make_config(num_players=2, rounds=1)
    up = 2 * 13
    # seat 0: takes B, discards a card of type 0; seat 1: draws, discards a card of type 1;
    # seat 0: draws the stock's second card (A, or another card), discards type T
    moves = [open_.DRAW_DISCARD, open_.DISCARD_BASE + 0, open_.DRAW_STOCK,
             open_.DISCARD_BASE + 1, open_.DRAW_STOCK, open_.DISCARD_BASE + T]  # fmt: skip
    hands = {0: 0, 1: 1}  # seat 0 is dealt a card of type 0, seat 1 one of type 1
    drawn = play("open_rummy", config, deck_with(108, {**hands, up: COPY_B, up + 2: COPY_A}),
                 moves)  # fmt: skip
    not_drawn = play("open_rummy", config, deck_with(108, {**hands, up: COPY_B, 107: COPY_A}),
                     moves)  # fmt: skip
    for state in (drawn, not_drawn):
        view = game.seat_view(state, 1)
        assert view.discard_log[-1] == [COPY_B, 0, -1]
        assert view.known_cards() == {0: []}
    assert COPY_A in drawn.hands[0]


def test_a_card_drawn_from_a_turned_over_stock_is_known():
    """Once the pile has become the stock (its order public), a card drawn from it is known
    to be in the drawer's hand."""
    game = get_game("dummy_rummy")
    config = game.make_config(num_players=4, hands=1, cut_ins=True)
    top = None  # the turned-over stock's top card before the last move
    for state, _ in random_play("dummy_rummy", config, 2, 0.0, dummy.SET_MELD_BASE, 3000):
        if top is not None and top not in state.stock:
            break
        top = state.stock[-1] if state.stock_shown and state.stock else None
    else:
        pytest.fail("seed 2 no longer draws from a stock turned over from the pile")
    drawer = next(s for s, hand in enumerate(state.hands) if top in hand)
    for seat in range(state.num_seats):
        if seat != drawer:
            assert top in game.seat_view(state, seat).known_cards()[drawer]


def seen(name: str, state: Any, seat: int) -> tuple:
    """The physical ids ``seat`` sees (its hand, the discard log, the table, the known
    cards), each as its type and the order in which the seat first met it: equal for two
    games that differ by a relabelling of look-alike copies the seat never saw."""
    view = get_game(name).seat_view(state, seat)
    type_of, order = state.TYPE_OF, {}

    def label(card: int) -> tuple[int, int]:
        return type_of[card], order.setdefault(card, len(order))

    hand = [label(c) for c in state.hands[seat]]
    log = [(label(c), who, taken) for c, who, taken in view.discard_log]
    table = [[label(c) for c in m.physical()] for m in state.melds]
    known = {s: sorted(label(c) for c in cards) for s, cards in view.known_cards().items()}
    return hand, log, table, known


CONFIGS = [
    ("dummy_rummy", {"num_players": 2, "hands": 1}, dummy.SET_MELD_BASE),
    ("dummy_rummy", {"num_players": 4, "hands": 1, "cut_ins": True}, dummy.SET_MELD_BASE),
    ("open_rummy", {"num_players": 2, "rounds": 1}, open_.SET_STEP_BASE),
    ("open_rummy", {"num_players": 4, "rounds": 1}, open_.SET_STEP_BASE),
]


@pytest.mark.parametrize("name,options,placing", CONFIGS)
def test_two_deals_a_seat_cannot_tell_apart_show_it_the_same_copies(name, options, placing):
    """Random games; each twin deal swaps one card (of a type some seat took from the pile)
    with the stock's bottom one and replays the moves while they stay legal: every seat
    whose hand and observation are the same in both sees the same physical ids, up to a
    relabelling of copies it never saw."""
    game = get_game(name)
    config = game.make_config(**options)
    compared = 0
    for seed in range(4):
        plays = list(random_play(name, config, seed, 0.5, placing, 400))
        moves = [a for _, a in plays if a is not None]
        deck = list(range(game.deck(config).size))
        random.Random(seed).shuffle(deck)  # (random_play's deal)
        end, type_of = plays[-1][0], plays[-1][0].TYPE_OF
        taken = {type_of[c] for c, _, taker in end.discard_log if taker >= 0}
        # the copies of types taken from the pile: where the copy that leaves a hand matters
        look_alikes = [i for i in range(len(deck) - 1) if type_of[deck[i]] in taken]
        for position in random.Random(seed).sample(look_alikes, min(20, len(look_alikes))):
            twin_deck = list(deck)
            twin_deck[position], twin_deck[-1] = twin_deck[-1], twin_deck[position]
            state, twin = game.new_state(config, deck), game.new_state(config, twin_deck)
            for move in moves:
                if move not in twin.legal_actions() or state.is_terminal:
                    break
                state.apply(move)
                twin.apply(move)
            for seat in range(state.num_seats):
                if state.hands[seat] != twin.hands[seat]:
                    continue
                observer = game.observer(seat)
                if not np.array_equal(observer.encode(state), game.observer(seat).encode(twin)):
                    continue
                assert seen(name, state, seat) == seen(name, twin, seat), (seed, position, seat)
                compared += 1
    assert compared > 20
