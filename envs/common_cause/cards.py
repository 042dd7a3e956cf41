"""Cards as small ints, and their text codes.

A standard card is ``suit * 13 + rank`` with suits C, D, H, S (0-3) and ranks A, 2, ..., K
(0-12); the two jokers are the physical cards 52 and 53. ``JOKER`` (52) also names "a joker"
wherever the two are interchangeable (actions, observations, notation). Strings appear only
at the edges: ``card_code`` / ``parse_card`` / ``parse_deck``.

Run positions: in a run a card sits at ``position = rank + 1`` (A=1, 2=2, ..., K=13); the Ace
may also sit at position 14 (above the King) unless the ace-low variant is played.
"""

from __future__ import annotations

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
N_STANDARD = 52
JOKER = 52
N_PHYSICAL = 54
JOKER_CODE = "JK"
HIGH_ACE_POSITION = 14

_CODE_TO_CARD = {r + s: si * 13 + ri for si, s in enumerate(SUITS) for ri, r in enumerate(RANKS)}
_CARD_TO_CODE = {c: code for code, c in _CODE_TO_CARD.items()}


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def is_joker(card: int) -> bool:
    return card >= N_STANDARD


def card_at(suit: int, position: int) -> int:
    """The standard card of ``suit`` at run ``position`` (1-14, 14 being the high Ace)."""
    return suit * 13 + (position - 1) % 13


def card_code(card: int) -> str:
    """``7H``, ``10C``, ``AS``; both jokers are ``JK``."""
    return JOKER_CODE if card >= N_STANDARD else _CARD_TO_CODE[card]


def parse_card(text: str) -> int:
    """Card type from a code, any letter case; ``JK`` gives ``JOKER``. Raises ValueError."""
    code = text.strip().upper()
    if code == JOKER_CODE:
        return JOKER
    if code == "T" or (len(code) == 2 and code[0] == "T"):
        code = "10" + code[1:]
    try:
        return _CODE_TO_CARD[code]
    except KeyError:
        raise ValueError(
            f"unknown card code {text!r}: use a rank A 2-10 J Q K and a suit C D H S "
            f"(e.g. 7H, 10C, AS), or JK for a joker"
        ) from None


def parse_deck(codes: list[str] | tuple[str, ...]) -> list[int]:
    """Physical card ids (jokers 52 and 53 in order) from 54 codes, top first.

    Raises ValueError naming the problem: wrong length, an unknown code, a duplicate.
    """
    if isinstance(codes, str) or not hasattr(codes, "__len__"):
        raise ValueError("a deck must be a list of 54 card codes, top first")
    if len(codes) != N_PHYSICAL:
        raise ValueError(
            f"a deck must hold 54 card codes (52 cards and 2 jokers), got {len(codes)}"
        )
    deck: list[int] = []
    seen: set[int] = set()
    jokers = 0
    for i, code in enumerate(codes):
        if isinstance(code, int) and not isinstance(code, bool) and 0 <= code < N_PHYSICAL:
            card = JOKER if code >= N_STANDARD else code
        elif isinstance(code, str):
            try:
                card = parse_card(code)
            except ValueError as e:
                raise ValueError(f"deck position {i + 1}: {e}") from None
        else:
            raise ValueError(f"deck position {i + 1}: {code!r} is not a card code")
        if card == JOKER:
            if jokers == 2:
                raise ValueError(f"deck position {i + 1}: a third joker (a deck has two)")
            deck.append(N_STANDARD + jokers)
            jokers += 1
            continue
        if card in seen:
            raise ValueError(f"deck position {i + 1}: duplicate card {card_code(card)}")
        seen.add(card)
        deck.append(card)
    return deck


def deck_codes(deck: list[int]) -> list[str]:
    return [card_code(c) for c in deck]


def sort_key(card: int) -> tuple[int, int]:
    """Hand order: by suit, then rank, jokers last."""
    return (4, 0) if card >= N_STANDARD else (suit_of(card), rank_of(card))
