"""Scripted Open Rummy deals for the rule tests.

``deal(deals, upcard, stock, jokers=4) -> list[str]``: the first round's codes, top first,
for ``reset(options={"deck": ...})`` or ``new_game``; ``deals`` is one string of codes per
player (player_0 first; 13 each, 12 at eight players), ``stock`` the codes drawn first; the
rest of the stock is filled with the unused cards in a fixed order.
``new_game(deals, upcard, stock, **config) -> GameState`` and ``play(state, *moves)``.
"""

from __future__ import annotations

from collections import Counter

from commoncause.envs.core.cards import RANKS, SUITS, card_code, parse_card
from commoncause.envs.open_rummy.notation import move_text, parse_move
from commoncause.envs.open_rummy.rules import GameState, OpenConfig, hand_size_for


def full(jokers: int = 4) -> Counter:
    return Counter({r + s: 2 for s in SUITS for r in RANKS} | ({"JK": jokers} if jokers else {}))


def codes(text: str) -> list[str]:
    return [card_code(parse_card(t)) for t in text.split()]


def deal(deals: list[str], upcard: str, stock: str = "", jokers: int = 4) -> list[str]:
    n = len(deals)
    k = hand_size_for(n)
    held = [codes(h) for h in deals]
    assert all(len(h) == k for h in held), f"{k} cards per hand"
    used = Counter(c for h in held for c in h) + Counter(codes(upcard)) + Counter(codes(stock))
    assert not used - full(jokers), f"more copies than the deck holds: {used - full(jokers)}"
    rest = sorted((full(jokers) - used).elements(), key=lambda c: (c == "JK", c))
    deck = [held[i % n][i // n] for i in range(k * n)]
    return deck + codes(upcard) + codes(stock) + rest


def new_game(deals: list[str], upcard: str, stock: str = "", **config) -> GameState:
    cfg = OpenConfig(num_players=len(deals), **config)
    return GameState(cfg, cfg.deck.parse(deal(deals, upcard, stock, cfg.jokers)))


def legal_texts(state: GameState) -> list[str]:
    return [move_text(state, a) for a in state.legal_actions()]


def play(state: GameState, *moves: str) -> GameState:
    for text in moves:
        state.apply(parse_move(state, text))
        assert len(state.locations()) == state.spec.size
    return state
