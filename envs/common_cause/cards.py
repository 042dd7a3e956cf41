"""Common Cause's cards: one 52-card deck and two jokers (``envs/core/cards.py``).

A standard card is ``suit * 13 + rank`` (suits C, D, H, S; ranks A, 2, ..., K); the two
jokers are the physical cards 52 and 53, and ``JOKER`` (52) also names "a joker" wherever the
two are interchangeable (actions, observations, notation). With one deck a standard card's
physical id is its type.
"""

from __future__ import annotations

from ..core.cards import (
    HIGH_ACE_POSITION,
    JOKER,
    JOKER_CODE,
    N_STANDARD,
    RANKS,
    SUITS,
    DeckSpec,
    card_at,
    card_code,
    hand_text,
    is_joker,
    parse_card,
    rank_of,
    sort_key,
    suit_of,
)

DECK = DeckSpec(decks=1, jokers=2)
N_PHYSICAL = DECK.size
parse_deck = DECK.parse
deck_codes = DECK.codes

__all__ = [
    "DECK",
    "HIGH_ACE_POSITION",
    "JOKER",
    "JOKER_CODE",
    "N_PHYSICAL",
    "N_STANDARD",
    "RANKS",
    "SUITS",
    "card_at",
    "card_code",
    "deck_codes",
    "hand_text",
    "is_joker",
    "parse_card",
    "parse_deck",
    "rank_of",
    "sort_key",
    "suit_of",
]
