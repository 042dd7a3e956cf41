"""Cards as small ints: a *card type* (what a card is) and a *physical id* (which card it is).

A card type is ``suit * 13 + rank`` for the 52 standard cards, suits C D H S (0-3) and ranks
A, 2, ..., K (0-12); ``JOKER`` (52) is the type of every joker. A deck is data
(:class:`DeckSpec`): ``decks`` copies of the 52 cards and ``jokers`` jokers. Physical ids run
``0 .. size - 1``: copy ``k`` of type ``t`` is ``k * 52 + t``, and the jokers come last
(``52 * decks + j``). One deck with two jokers (Common Cause) therefore has physical ids equal
to the types for the standard cards and jokers 52 and 53; two decks mean two 7H, ids 32 and 84.
Which cards are wild is a property of a game's meld rules (``melds.MeldRules``), not of the
card. Strings appear only at the edges: ``card_code`` / ``parse_card`` / ``DeckSpec.parse``.

Run positions: in a run a card sits at ``position = rank + 1`` (A=1, 2=2, ..., K=13); the Ace
may also sit at position 14 (``HIGH_ACE_POSITION``, above the King) where a game allows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
N_STANDARD = 52
JOKER = 52
N_CARD_TYPES = N_STANDARD + 1
JOKER_CODE = "JK"
HIGH_ACE_POSITION = 14

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_CODE_TO_CARD = {r + s: si * 13 + ri for si, s in enumerate(SUITS) for ri, r in enumerate(RANKS)}
_CARD_TO_CODE = {c: code for code, c in _CODE_TO_CARD.items()}


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def is_joker(card: int) -> bool:
    """Whether a card type (or a physical id of a one-deck game) is a joker."""
    return card >= N_STANDARD


def card_at(suit: int, position: int) -> int:
    """The standard card type of ``suit`` at run ``position`` (1-14, 14 being the high Ace)."""
    return suit * 13 + (position - 1) % 13


def positions_of(card: int, high_ace: bool = True) -> tuple[int, ...]:
    """Run positions a standard card type may sit at: its rank + 1, and 14 for an Ace."""
    rank = card % 13
    return (1, HIGH_ACE_POSITION) if rank == 0 and high_ace else (rank + 1,)


def card_code(card: int) -> str:
    """``7H``, ``10C``, ``AS`` for a card type; ``JK`` for a joker."""
    return JOKER_CODE if card >= N_STANDARD else _CARD_TO_CODE[card]


def parse_card(text: str) -> int:
    """Card type from a code, any letter case (``T`` is 10); ``JK`` gives ``JOKER``.

    Raises ValueError naming the code and the accepted form."""
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


def sort_key(card: int) -> tuple[int, int]:
    """Hand order of card types: by suit, then rank, jokers last."""
    return (4, 0) if card >= N_STANDARD else (card // 13, card % 13)


def hand_text(types: list[int]) -> str:
    """Card types as codes in hand order, or ``(empty)``."""
    return " ".join(card_code(c) for c in sorted(types, key=sort_key)) or "(empty)"


@dataclass(frozen=True)
class DeckSpec:
    """A deck as data: ``decks`` copies of the 52 standard cards plus ``jokers`` jokers."""

    decks: int = 1
    """Copies of the 52 standard cards."""
    jokers: int = 2
    """Jokers (physical ids after the standard cards)."""

    def __post_init__(self) -> None:
        if not isinstance(self.decks, int) or self.decks < 1:
            raise ValueError(f"a deck needs at least one set of 52 cards, got decks={self.decks!r}")
        if not isinstance(self.jokers, int) or self.jokers < 0:
            raise ValueError(f"jokers must be a non-negative int, got {self.jokers!r}")

    @property
    def size(self) -> int:
        return N_STANDARD * self.decks + self.jokers

    @property
    def first_joker(self) -> int:
        """Physical id of the first joker."""
        return N_STANDARD * self.decks

    def type_of(self, physical: int) -> int:
        """The card type of a physical id (``JOKER`` for every joker)."""
        return JOKER if physical >= self.first_joker else physical % N_STANDARD

    def copies(self, card_type: int) -> list[int]:
        """The physical ids of one card type."""
        if card_type == JOKER:
            return list(range(self.first_joker, self.size))
        return [k * N_STANDARD + card_type for k in range(self.decks)]

    def describe(self) -> str:
        cards = "52 cards" if self.decks == 1 else f"{self.decks} x 52 cards"
        return f"{self.size} card codes ({cards} and {self.jokers} jokers)"

    def parse(self, codes) -> list[int]:
        """Physical ids from ``size`` card codes (or card ints, numpy ones included), top first.

        The k-th code of a card type gets that type's k-th physical id, so a deck written as
        codes is dealt the same way every time. Raises ValueError naming the problem: wrong
        length, an unknown code, more copies of a card than the deck holds."""
        if isinstance(codes, str) or not hasattr(codes, "__len__"):
            raise ValueError(f"a deck must be a list of {self.describe()}, top first")
        if len(codes) != self.size:
            raise ValueError(f"a deck must hold {self.describe()}, got {len(codes)}")
        deck: list[int] = []
        used: dict[int, int] = {}
        for i, code in enumerate(codes):
            if isinstance(code, Integral) and not isinstance(code, bool) and 0 <= code < self.size:
                card = self.type_of(int(code))  # (numpy ints too: np.arange(size) is a deck)
            elif isinstance(code, str):
                try:
                    card = parse_card(code)
                except ValueError as e:
                    raise ValueError(f"deck position {i + 1}: {e}") from None
            else:
                raise ValueError(f"deck position {i + 1}: {code!r} is not a card code")
            copies = self.copies(card)
            k = used.get(card, 0)
            if k == len(copies):
                if card == JOKER:
                    nth = _ORDINALS[k] if k < len(_ORDINALS) else f"{k + 1}th"
                    what = f"a {nth} joker (a deck has {self.jokers})"
                elif self.decks == 1:
                    what = f"duplicate card {card_code(card)}"
                else:
                    what = f"copy {k + 1} of {card_code(card)} (a deck has {self.decks})"
                raise ValueError(f"deck position {i + 1}: {what}")
            used[card] = k + 1
            deck.append(copies[k])
        return deck

    def codes(self, deck: list[int]) -> list[str]:
        """Card codes of physical ids (the inverse of ``parse`` up to copy numbers)."""
        return [card_code(self.type_of(c)) for c in deck]
