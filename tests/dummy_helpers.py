"""Scripted Dummy rummy deals for the rule tests.

``deal(deals, upcard, stock) -> list[str]``: the first hand's 108 codes, top first, for
``reset(options={"deck": ...})`` or ``new_game``; ``deals`` is one string of 13 codes per
player (player_0 first), ``stock`` the codes drawn first; the rest of the stock is filled
with the unused cards in a fixed order.
``new_game(deals, upcard, stock, **config) -> GameState`` and ``play(state, *moves)``.
"""

from __future__ import annotations

from collections import Counter

from commoncause.envs.core.cards import RANKS, SUITS, card_code, parse_card
from commoncause.envs.dummy_rummy.actions import DECK
from commoncause.envs.dummy_rummy.notation import move_text, parse_move
from commoncause.envs.dummy_rummy.rules import DummyConfig, GameState

FULL = Counter({r + s: 2 for s in SUITS for r in RANKS} | {"JK": 4})


def codes(text: str) -> list[str]:
    return [card_code(parse_card(t)) for t in text.split()]


def deal(deals: list[str], upcard: str, stock: str = "") -> list[str]:
    n = len(deals)
    held = [codes(h) for h in deals]
    assert all(len(h) == 13 for h in held), "13 cards per hand"
    used = Counter(c for h in held for c in h) + Counter(codes(upcard)) + Counter(codes(stock))
    assert not used - FULL, f"more copies than two decks hold: {used - FULL}"
    rest = sorted((FULL - used).elements(), key=lambda c: (c == "JK", c))
    deck = [held[i % n][i // n] for i in range(13 * n)]
    return deck + codes(upcard) + codes(stock) + rest


def new_game(deals: list[str], upcard: str, stock: str = "", **config) -> GameState:
    cfg = DummyConfig(num_players=len(deals), **config)
    return GameState(cfg, DECK.parse(deal(deals, upcard, stock)))


def legal_texts(state: GameState) -> list[str]:
    return [move_text(state, a) for a in state.legal_actions()]


def play(state: GameState, *moves: str) -> GameState:
    for text in moves:
        state.apply(parse_move(state, text))
        assert len(state.locations()) == DECK.size
    return state
