"""Dummy rummy's cards, contracts and fixed action ids.

Cards: two 52-card decks and four jokers (``DECK``, 108 physical cards; ``envs/core/cards``).
2s and jokers are wild. Suits never matter in this game: sets may repeat a suit and runs
mix suits, so a natural card is known by its rank and a run position by its rank.

Run positions as in the core: A=1, 2=2, ..., K=13 and the high Ace 14. Position 2 holds a
wild card only (every 2 is wild: reading 3).

Actions (1,866 ids; a meld on the table is named by its owner, counted from the acting seat,
and its group in the owner's contract, so the same id means the same thing to every seat):

==================  ===========  ============================================================
block               ids          meaning
==================  ===========  ============================================================
``DRAW_STOCK``      0            draw the top card of the stock
``DRAW_DISCARD``    1            take the top discard
``DISCARD_BASE``    2-54         discard card type ``t`` (0-51, 52 = a joker)
``CUTIN_TAKE``      55           cut in: take the top discard and three stock cards
``CUTIN_PASS``      56           let the chance to cut in go
``SET_MELD_BASE``   57-215       lay card type ``t`` in set group ``g`` of one's contract:
                                 57 + g * 53 + t
``RUN_MELD_BASE``   216-593      lay a card at position ``p`` (1-14) of run group ``g``:
                                 216 + (g * 14 + p - 1) * 9 + k; k 0-3: the natural card of
                                 suit k, k 4-8: the wild card 2C 2D 2H 2S JK
``LAYOFF_BASE``     594-1865     lay off on meld (relative owner ``o``, group ``g``):
                                 594 + ((o * 3 + g) * 2 + e) * 53 + t; e 0: a set, or the low
                                 end of a run, e 1: the high end of a run
==================  ===========  ============================================================

Why so: a contract has at most three groups and a table at most four owners; a placement in
a run must say where a wild card goes (nine cards can sit at a run position: the four natural
suits and the five wild types), and a lay-off on a run must say which end.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.cards import JOKER, N_CARD_TYPES, DeckSpec

DECK = DeckSpec(decks=2, jokers=4)
TYPE_OF: tuple[int, ...] = tuple(DECK.type_of(p) for p in range(DECK.size))
"""Card type of each physical id (a lookup for the hot paths)."""
TWO_RANK = 1
WILD_TYPES: tuple[int, ...] = (TWO_RANK, 13 + TWO_RANK, 26 + TWO_RANK, 39 + TWO_RANK, JOKER)
IS_WILD: tuple[bool, ...] = tuple(t in WILD_TYPES for t in range(N_CARD_TYPES))
NATURAL_RANKS: tuple[int, ...] = (0, *range(2, 13))  # every rank but the 2
HIGH_ACE = 14
MAX_GROUPS = 3
MAX_SEATS = 4


def points(card_type: int) -> int:
    """Penalty points of a card left in hand: 3-9 5, 10-K 10, Ace 15, 2 and joker 50."""
    if IS_WILD[card_type]:
        return 50
    rank = card_type % 13
    return 15 if rank == 0 else 10 if rank >= 9 else 5


def rank_at(position: int) -> int:
    """The rank that sits naturally at a run position (1 and 14: the Ace; 2: the 2)."""
    return (position - 1) % 13


def positions_of_rank(rank: int) -> tuple[int, ...]:
    return (1, HIGH_ACE) if rank == 0 else (rank + 1,)


@dataclass(frozen=True)
class Contract:
    """A hand's contract: the sizes of its sets, then the lengths of its runs."""

    sets: tuple[int, ...]
    runs: tuple[int, ...]

    @property
    def groups(self) -> tuple[tuple[bool, int], ...]:
        """(is_set, size) of each group, sets first."""
        return tuple((True, k) for k in self.sets) + tuple((False, n) for n in self.runs)

    @property
    def cards(self) -> int:
        return sum(self.sets) + sum(self.runs)

    def text(self) -> str:
        parts = [f"set of {k}" for k in self.sets] + [f"run of {n}" for n in self.runs]
        return " + ".join(parts)


CONTRACTS: tuple[Contract, ...] = (
    Contract((3, 3), ()),
    Contract((3,), (4,)),
    Contract((4, 4), ()),
    Contract((), (4, 4)),
    Contract((4,), (4,)),
    Contract((3, 3), (4,)),
    Contract((3,), (7,)),
    Contract((3, 3, 3), ()),
    Contract((5, 5), ()),
    Contract((), (5, 5)),
    Contract((8,), ()),
    Contract((), (10,)),
)
"""The twelve contracts in the sheet's order."""


def group_name(contract: Contract, group: int) -> str:
    """``set 1``, ``set 2``, ``run 1``: a group by its kind and number within the kind."""
    is_set, _ = contract.groups[group]
    if is_set:
        return f"set {group + 1}"
    return f"run {group - len(contract.sets) + 1}"


DRAW_STOCK = 0
DRAW_DISCARD = 1
DISCARD_BASE = 2
CUTIN_TAKE = DISCARD_BASE + N_CARD_TYPES
CUTIN_PASS = CUTIN_TAKE + 1
SET_MELD_BASE = CUTIN_PASS + 1
RUN_MELD_BASE = SET_MELD_BASE + MAX_GROUPS * N_CARD_TYPES
RUN_CHOICES = 9  # four natural suits, five wild types
LAYOFF_BASE = RUN_MELD_BASE + MAX_GROUPS * HIGH_ACE * RUN_CHOICES
N_ACTIONS = LAYOFF_BASE + MAX_SEATS * MAX_GROUPS * 2 * N_CARD_TYPES


def set_meld_action(group: int, card_type: int) -> int:
    return SET_MELD_BASE + group * N_CARD_TYPES + card_type


def run_meld_action(group: int, position: int, card_type: int) -> int:
    """The id laying ``card_type`` at ``position`` of run ``group`` (-1: it cannot sit
    there)."""
    if IS_WILD[card_type]:
        choice = 4 + WILD_TYPES.index(card_type)
    elif card_type % 13 == rank_at(position) and position != 2:
        choice = card_type // 13
    else:
        return -1
    return RUN_MELD_BASE + (group * HIGH_ACE + position - 1) * RUN_CHOICES + choice


def layoff_action(owner: int, group: int, end: int, card_type: int) -> int:
    """``owner`` counted from the acting seat (0 = oneself)."""
    return LAYOFF_BASE + ((owner * MAX_GROUPS + group) * 2 + end) * N_CARD_TYPES + card_type


(
    KIND_DRAW_STOCK, KIND_DRAW_DISCARD, KIND_DISCARD, KIND_CUTIN_TAKE, KIND_CUTIN_PASS,
    KIND_SET_MELD, KIND_RUN_MELD, KIND_LAYOFF,
) = range(8)  # fmt: skip
KIND_NAMES = (
    "draw_stock", "draw_discard", "discard", "cutin_take", "cutin_pass", "set_meld",
    "run_meld", "layoff",
)  # fmt: skip
"""An action's kind is a small int (it indexes tables in the hot paths); its name, for show."""


@dataclass(frozen=True)
class ActionInfo:
    kind: int  # a KIND_* constant
    card: int = -1  # card type
    group: int = -1
    position: int = 0  # run_meld
    owner: int = -1  # layoff: relative owner
    end: int = 0  # layoff: 0 set / low end, 1 high end


def _meaning(action: int) -> ActionInfo:
    """What an action id in range means (``decode`` reads it from ``DECODED``)."""
    if action == DRAW_STOCK:
        return ActionInfo(KIND_DRAW_STOCK)
    if action == DRAW_DISCARD:
        return ActionInfo(KIND_DRAW_DISCARD)
    if action < CUTIN_TAKE:
        return ActionInfo(KIND_DISCARD, card=action - DISCARD_BASE)
    if action == CUTIN_TAKE:
        return ActionInfo(KIND_CUTIN_TAKE)
    if action == CUTIN_PASS:
        return ActionInfo(KIND_CUTIN_PASS)
    if action < RUN_MELD_BASE:
        group, card = divmod(action - SET_MELD_BASE, N_CARD_TYPES)
        return ActionInfo(KIND_SET_MELD, card=card, group=group)
    if action < LAYOFF_BASE:
        slot, choice = divmod(action - RUN_MELD_BASE, RUN_CHOICES)
        group, pos0 = divmod(slot, HIGH_ACE)
        position = pos0 + 1
        if choice < 4:
            card = choice * 13 + rank_at(position) if position != 2 else -1
        else:
            card = WILD_TYPES[choice - 4]
        return ActionInfo(KIND_RUN_MELD, card=card, group=group, position=position)
    rest, card = divmod(action - LAYOFF_BASE, N_CARD_TYPES)
    rest, end = divmod(rest, 2)
    owner, group = divmod(rest, MAX_GROUPS)
    return ActionInfo(KIND_LAYOFF, card=card, group=group, owner=owner, end=end)


DECODED: tuple[ActionInfo, ...] = tuple(_meaning(a) for a in range(N_ACTIONS))
"""Every action id's meaning, indexed by the id (``ActionInfo`` is frozen: shared)."""


def decode(action: int) -> ActionInfo:
    """What an action id means; ValueError if out of range."""
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"action {action} is out of range 0-{N_ACTIONS - 1}")
    return DECODED[action]
