"""Shared helpers for scripted Common Cause tests (stable API, keep it small).

``deal(hand0, hand1, upcard, stock, stock_size=None) -> list[str]``
    A full 54-code deck, top first, for ``reset(options={"deck": ...})`` or ``parse_deck``.
    ``hand0`` / ``hand1`` are 10 space-separated codes each (dealt alternately: deck[0] to
    player_0, deck[1] to player_1, ...), ``upcard`` is card 21, ``stock`` the codes drawn
    from the stock, first drawn first. ``stock_size`` defaults to the number of stock codes;
    when it is larger, the rest of the stock (drawn after the given codes) and then the
    ``33 - stock_size`` put-aside cards are filled with the unused cards in a fixed order
    (clubs, diamonds, hearts, spades, A..K each, then the jokers).
``new_game(hand0, hand1, upcard, stock, stock_size=22, **variants) -> GameState``
    Engine-level game with ``GameConfig(stock_size=stock_size, **variants)`` and that deal.
``play(state, *moves) -> GameState``
    Applies each move text (``notation.parse_move`` + ``state.apply``) and checks card
    conservation after every move; returns ``state``.
``legal_texts(state) -> list[str]``
    The current player's legal moves in move notation.
``check_cards(state) -> None``
    Asserts that all 54 physical cards are somewhere, each exactly once.
``load_bench(name) -> module``
    The script ``bench/<name>.py`` or ``studies/<name>.py`` imported as a module, for their tests.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from commoncause.envs.common_cause.cards import N_PHYSICAL, RANKS, SUITS, card_code, parse_card
from commoncause.envs.common_cause.cards import parse_deck as _parse_deck
from commoncause.envs.common_cause.notation import move_text, parse_move
from commoncause.envs.common_cause.rules import MAX_STOCK, GameConfig, GameState

FILL_ORDER = [r + s for s in SUITS for r in RANKS] + ["JK", "JK"]


def load_bench(name: str) -> ModuleType:
    """The script ``bench/<name>.py`` or ``studies/<name>.py`` as a module (neither is a
    package)."""
    root = Path(__file__).resolve().parents[1]
    places = (root / "bench" / f"{name}.py", root / "studies" / f"{name}.py")
    path = next(p for p in places if p.is_file())
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _codes(text: str) -> list[str]:
    """Normalised codes (``7h`` -> ``7H``, any joker -> ``JK``)."""
    return [card_code(parse_card(t)) for t in text.split()]


def deal(
    hand0: str, hand1: str, upcard: str, stock: str, stock_size: int | None = None
) -> list[str]:
    h0, h1, up, st = _codes(hand0), _codes(hand1), _codes(upcard), _codes(stock)
    if len(h0) != 10 or len(h1) != 10:
        raise ValueError(f"each hand needs 10 cards, got {len(h0)} and {len(h1)}")
    if len(up) != 1:
        raise ValueError(f"one upcard, got {up}")
    if stock_size is None:
        stock_size = len(st)
    if not len(st) <= stock_size <= MAX_STOCK:
        raise ValueError(f"stock_size {stock_size} must be {len(st)}-{MAX_STOCK}")
    used = h0 + h1 + up + st
    remaining = list(FILL_ORDER)
    for code in used:
        if code not in remaining:
            raise ValueError(f"card {code} is dealt twice (or a third joker)")
        remaining.remove(code)
    fill = stock_size - len(st)
    stock_codes = st + remaining[:fill]
    aside = remaining[fill:]
    assert len(aside) == MAX_STOCK - stock_size
    dealt = [c for pair in zip(h0, h1, strict=True) for c in pair]
    deck = dealt + up + aside + stock_codes
    assert len(deck) == N_PHYSICAL
    return deck


def new_game(
    hand0: str, hand1: str, upcard: str, stock: str, stock_size: int = 22, **variants
) -> GameState:
    deck = deal(hand0, hand1, upcard, stock, stock_size)
    return GameState(GameConfig(stock_size=stock_size, **variants), _parse_deck(deck))


def check_cards(state: GameState) -> None:
    where = state.locations()  # raises if a card is in two places
    assert sorted(where) == list(range(N_PHYSICAL)), "a card went missing"


def play(state: GameState, *moves: str) -> GameState:
    for move in moves:
        state.apply(parse_move(state, move))
        check_cards(state)
    return state


def legal_texts(state: GameState) -> list[str]:
    return [move_text(state, a) for a in state.legal_actions()]
