"""Open Rummy's cards, points and fixed action ids.

Cards: two 52-card decks and ``jokers`` jokers (0-4, default 4: reading 1), physical ids as
in ``envs/core/cards`` (two 7H are ids 32 and 84, jokers 104 and up). Jokers are wild.
Runs are of one suit in the order 2-3-...-K-A: run positions 2..14 (14 = the Ace, which is
never low: reading 3), so a natural card has exactly one run position.

Melds on the table are named by their *slot*: the order in which they were begun this
round (0-based; ``meld 1`` in notation). A closed set keeps its slot, empty. Every new meld
lays at least two natural cards (reading 4) and natural cards never leave the table during
a round, so a round never sees more than 104 / 2 = 52 melds (``MAX_MELDS``).

Actions (5,777 ids; ``t`` a card type 0-51, 52 = a joker):

==================  ===========  ============================================================
block               ids          meaning
==================  ===========  ============================================================
``DRAW_STOCK``      0            draw the top card of the stock
``DRAW_DISCARD``    1            take the top discard
``DISCARD_BASE``    2-54         discard card type ``t`` (ends the turn; the last card goes
                                 out)
``CARDSWAP_BASE``   55-107       round-start card swap: give card type ``t`` to the pile,
                                 take its top card; ends the turn
``SET_STEP_BASE``   108-160      lay card type ``t`` in the new meld being laid, a set
``RUN_STEP_BASE``   161-212      lay natural card ``t`` in the new meld, a run (at its rank's
                                 place)
``RUN_JOKER_BASE``  213-264      lay a joker in the new meld, a run, standing for the card
                                 of suit ``s`` at position ``p`` (2-14): 213 + s * 13 + p - 2
``LAYOFF_BASE``     265-3072     lay off on meld slot ``m``: 265 + m * 54 + k; k 0-51: that
                                 natural card, 52: a joker (a set, or a run's low end), 53: a
                                 joker at a run's high end
``STEAL_BASE``      3073-5776    take the joker from meld slot ``m``, putting natural card
                                 ``t`` in its place: 3073 + m * 52 + t
==================  ===========  ============================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.cards import JOKER, N_CARD_TYPES, N_STANDARD, DeckSpec, card_at

MAX_JOKERS = 4
MAX_SEATS = 8
MAX_MELDS = 52
DECKS = 2
MAX_DECK_SIZE = N_STANDARD * DECKS + MAX_JOKERS
TYPE_OF: tuple[int, ...] = tuple(
    JOKER if p >= N_STANDARD * DECKS else p % N_STANDARD for p in range(MAX_DECK_SIZE)
)
"""Card type of each physical id, whatever the joker count (a lookup for the hot paths)."""
ACE_POSITION = 14
LOW_POSITION = 2
JOKER_IN_HAND = 30


def deck_spec(jokers: int) -> DeckSpec:
    return DeckSpec(decks=DECKS, jokers=jokers)


def position_of(card_type: int) -> int:
    """The run position of a natural card type: its rank + 1, the Ace 14."""
    rank = card_type % 13
    return ACE_POSITION if rank == 0 else rank + 1


def card_at_position(suit: int, position: int) -> int:
    return card_at(suit, position)


def points(card_type: int) -> int:
    """Points of a natural card (2-9: 5, 10-K: 10, Ace: 15); a joker left in hand: 30."""
    if card_type >= N_STANDARD:
        return JOKER_IN_HAND
    rank = card_type % 13
    return 15 if rank == 0 else 10 if rank >= 9 else 5


DRAW_STOCK = 0
DRAW_DISCARD = 1
DISCARD_BASE = 2
CARDSWAP_BASE = DISCARD_BASE + N_CARD_TYPES
SET_STEP_BASE = CARDSWAP_BASE + N_CARD_TYPES
RUN_STEP_BASE = SET_STEP_BASE + N_CARD_TYPES
RUN_JOKER_BASE = RUN_STEP_BASE + N_STANDARD
LAYOFF_BASE = RUN_JOKER_BASE + 4 * 13
LAYOFF_WIDTH = N_STANDARD + 2
STEAL_BASE = LAYOFF_BASE + MAX_MELDS * LAYOFF_WIDTH
N_ACTIONS = STEAL_BASE + MAX_MELDS * N_STANDARD
JOKER_LOW, JOKER_HIGH = N_STANDARD, N_STANDARD + 1


def run_joker_action(suit: int, position: int) -> int:
    return RUN_JOKER_BASE + suit * 13 + position - LOW_POSITION


def layoff_action(slot: int, k: int) -> int:
    """``k``: a natural card type, ``JOKER_LOW`` (52) or ``JOKER_HIGH`` (53)."""
    return LAYOFF_BASE + slot * LAYOFF_WIDTH + k


def steal_action(slot: int, card_type: int) -> int:
    return STEAL_BASE + slot * N_STANDARD + card_type


(
    KIND_DRAW_STOCK, KIND_DRAW_DISCARD, KIND_DISCARD, KIND_CARDSWAP, KIND_SET_STEP,
    KIND_RUN_STEP, KIND_LAYOFF, KIND_STEAL,
) = range(8)  # fmt: skip
KIND_NAMES = (
    "draw_stock", "draw_discard", "discard", "cardswap", "set_step", "run_step", "layoff",
    "steal",
)  # fmt: skip
"""An action's kind is a small int (it indexes tables in the hot paths); its name, for show."""


@dataclass(frozen=True)
class ActionInfo:
    kind: int  # a KIND_* constant
    card: int = -1  # card type placed, discarded, swapped or put in a joker's place
    slot: int = -1  # layoff / steal: the meld slot
    suit: int = -1  # run_step: the run's suit
    position: int = 0  # run_step: the run position; layoff of a joker: 0 low / set, 1 high
    end: int = 0  # layoff of a joker on a run: 0 low end, 1 high end


def _meaning(action: int) -> ActionInfo:
    """What an action id in range means (``decode`` reads it from ``DECODED``)."""
    if action == DRAW_STOCK:
        return ActionInfo(KIND_DRAW_STOCK)
    if action == DRAW_DISCARD:
        return ActionInfo(KIND_DRAW_DISCARD)
    if action < CARDSWAP_BASE:
        return ActionInfo(KIND_DISCARD, card=action - DISCARD_BASE)
    if action < SET_STEP_BASE:
        return ActionInfo(KIND_CARDSWAP, card=action - CARDSWAP_BASE)
    if action < RUN_STEP_BASE:
        return ActionInfo(KIND_SET_STEP, card=action - SET_STEP_BASE)
    if action < RUN_JOKER_BASE:
        t = action - RUN_STEP_BASE
        return ActionInfo(KIND_RUN_STEP, card=t, suit=t // 13, position=position_of(t))
    if action < LAYOFF_BASE:
        suit, p = divmod(action - RUN_JOKER_BASE, 13)
        return ActionInfo(KIND_RUN_STEP, card=JOKER, suit=suit, position=p + LOW_POSITION)
    if action < STEAL_BASE:
        slot, k = divmod(action - LAYOFF_BASE, LAYOFF_WIDTH)
        if k >= N_STANDARD:
            return ActionInfo(KIND_LAYOFF, card=JOKER, slot=slot, end=k - N_STANDARD)
        return ActionInfo(KIND_LAYOFF, card=k, slot=slot)
    slot, t = divmod(action - STEAL_BASE, N_STANDARD)
    return ActionInfo(KIND_STEAL, card=t, slot=slot)


DECODED: tuple[ActionInfo, ...] = tuple(_meaning(a) for a in range(N_ACTIONS))
"""Every action id's meaning, indexed by the id (``ActionInfo`` is frozen: shared)."""


def decode(action: int) -> ActionInfo:
    """What an action id means; ValueError if out of range."""
    if isinstance(action, bool) or not 0 <= action < N_ACTIONS:
        raise ValueError(f"action {action} is out of range 0-{N_ACTIONS - 1}")
    return DECODED[action]
