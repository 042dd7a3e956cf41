"""Fixed, enumerated action ids (the same for every level and variant).

Every complete meld grew out of exactly one open start, and an open start is two specific
cards, so a meld is named by its *origin* (the start id it grew from). That keeps every move
a fixed id:

==================  =========  =====================================================
block               ids        meaning
==================  =========  =====================================================
``DRAW_STOCK``      0          draw the top card of the stock
``DRAW_DISCARD``    1          take the top discard (must be placed this turn)
``DISCARD_BASE``    2-54       discard card type ``c`` (0-51, 52 = a joker)
``START_BASE``      55-232     lay open start ``s`` (one of 178 two-card starts)
``COMPLETE_BASE``   233-754    complete partner's start with a card / a joker as a card
``LAYOFF_BASE``     755-3188   lay off a card / a joker as a card on a complete meld
``SWAP_BASE``       3189-4444  put a held real card in place of a meld's joker
==================  =========  =====================================================

``ACTIONS[a]`` is an :class:`ActionInfo` describing id ``a``; the tables below map the other way.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import HIGH_ACE_POSITION, JOKER, N_STANDARD, card_at, suit_of

PAIR, NEIGHBOURS, GAP = 0, 1, 2


@dataclass(frozen=True)
class StartShape:
    """A two-card open start: a pair, neighbours or a one-gap run start."""

    cards: tuple[int, int]
    kind: int
    suit: int  # run starts only (-1 for pairs)
    rank: int  # pairs only (-1 for run starts)
    positions: tuple[int, int]  # run positions, low first (0, 0 for pairs)

    @property
    def is_set(self) -> bool:
        return self.kind == PAIR

    @property
    def needs_high_ace(self) -> bool:
        return self.positions[1] == HIGH_ACE_POSITION


def _enumerate_starts() -> list[StartShape]:
    starts: list[StartShape] = []
    for rank in range(13):
        for s1 in range(4):
            for s2 in range(s1 + 1, 4):
                starts.append(StartShape((s1 * 13 + rank, s2 * 13 + rank), PAIR, -1, rank, (0, 0)))
    for gap, kind in ((1, NEIGHBOURS), (2, GAP)):
        for suit in range(4):
            for low in range(1, HIGH_ACE_POSITION - gap + 1):
                high = low + gap
                a, b = card_at(suit, low), card_at(suit, high)
                starts.append(StartShape((min(a, b), max(a, b)), kind, suit, -1, (low, high)))
    return starts


STARTS: list[StartShape] = _enumerate_starts()
N_STARTS = len(STARTS)
START_OF_PAIR: dict[tuple[int, int], int] = {s.cards: i for i, s in enumerate(STARTS)}
# START_LOOKUP[a * 52 + b] is the start id of cards a, b (either order), or -1.
START_LOOKUP: list[int] = [-1] * (N_STANDARD * N_STANDARD)
for _sid, _s in enumerate(STARTS):
    _a, _b = _s.cards
    START_LOOKUP[_a * N_STANDARD + _b] = START_LOOKUP[_b * N_STANDARD + _a] = _sid

DRAW_STOCK = 0
DRAW_DISCARD = 1
DISCARD_BASE = 2
N_CARD_TYPES = N_STANDARD + 1
START_BASE = DISCARD_BASE + N_CARD_TYPES

DRAW, DISCARD, START, COMPLETE, LAYOFF, SWAP = range(6)
KIND_NAMES = ("draw", "discard", "start", "complete", "layoff", "swap")


@dataclass(frozen=True)
class ActionInfo:
    """What an action id means.

    ``card`` is the card type played (0-51, or ``JOKER``); ``stands_for`` is the card a joker
    stands for in a run (-1 for a set joker or a real card); ``position`` the run position the
    card takes (0 in sets); ``origin`` the start id of the start or meld acted on.
    """

    kind: int
    card: int = -1
    origin: int = -1
    stands_for: int = -1
    position: int = 0


ACTIONS: list[ActionInfo] = [ActionInfo(DRAW, origin=-1), ActionInfo(DRAW, origin=-2)]
ACTIONS += [ActionInfo(DISCARD, card=c) for c in range(N_CARD_TYPES)]
ACTIONS += [ActionInfo(START, origin=sid) for sid in range(N_STARTS)]
COMPLETE_BASE = len(ACTIONS)

# COMPLETIONS[sid]: (action id, card type, stands_for, position) for every way to complete it.
COMPLETIONS: list[list[tuple[int, int, int, int]]] = []
for _sid, _s in enumerate(STARTS):
    _options: list[tuple[int, int, int, int]] = []
    if _s.is_set:
        _suits = {suit_of(c) for c in _s.cards}
        _cards = [(su * 13 + _s.rank, -1, 0) for su in range(4) if su not in _suits]
        _cards.append((JOKER, -1, 0))
    else:
        _lo, _hi = _s.positions
        _spots = [_lo + 1] if _s.kind == GAP else [_lo - 1, _hi + 1]
        _spots = [p for p in _spots if 1 <= p <= HIGH_ACE_POSITION]
        _cards = [(card_at(_s.suit, p), -1, p) for p in _spots]
        _cards += [(JOKER, card_at(_s.suit, p), p) for p in _spots]
    for _card, _stands, _pos in _cards:
        _options.append((len(ACTIONS), _card, _stands, _pos))
        ACTIONS.append(ActionInfo(COMPLETE, _card, _sid, _stands, _pos))
    COMPLETIONS.append(_options)
LAYOFF_BASE = len(ACTIONS)


def _meld_cards(s: StartShape) -> list[int]:
    """Real cards that may join a meld grown from start ``s`` (besides its own two)."""
    if s.is_set:
        return [c for c in range(s.rank, N_STANDARD, 13) if c not in s.cards]
    return [c for c in range(s.suit * 13, s.suit * 13 + 13) if c not in s.cards]


# LAYOFFS[sid]: {(card type, stands_for): action id}; a set joker has stands_for -1.
LAYOFFS: list[dict[tuple[int, int], int]] = []
for _sid, _s in enumerate(STARTS):
    _table: dict[tuple[int, int], int] = {}
    for _c in _meld_cards(_s):
        _table[(_c, -1)] = len(ACTIONS)
        ACTIONS.append(ActionInfo(LAYOFF, _c, _sid))
    _jokers = [-1] if _s.is_set else _meld_cards(_s)
    for _c in _jokers:
        _table[(JOKER, _c)] = len(ACTIONS)
        ACTIONS.append(ActionInfo(LAYOFF, JOKER, _sid, _c))
    LAYOFFS.append(_table)
SWAP_BASE = len(ACTIONS)

# SWAPS[sid]: {real card: action id}
SWAPS: list[dict[int, int]] = []
for _sid, _s in enumerate(STARTS):
    _table2: dict[int, int] = {}
    for _c in _meld_cards(_s):
        _table2[_c] = len(ACTIONS)
        ACTIONS.append(ActionInfo(SWAP, _c, _sid))
    SWAPS.append(_table2)
N_ACTIONS = len(ACTIONS)


def discard_action(card: int) -> int:
    return DISCARD_BASE + min(card, JOKER)


def start_id(a: int, b: int) -> int:
    """Start id of two standard cards (either order), or -1 if they are no open start."""
    if a >= N_STANDARD or b >= N_STANDARD:
        return -1
    return START_LOOKUP[a * N_STANDARD + b]
