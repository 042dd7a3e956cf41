"""Seat view: the numeric observation of one Dummy rummy player, from what that player sees.

A flat float32 vector in [0, 1]. Seats are counted from the observer (0 = oneself, then
clockwise); a 2- or 3-player game leaves the missing seats' entries at zero. Card planes
have one entry per card type (52 standard cards ``suit * 13 + rank``, 52 = joker) and hold
counts scaled as noted. Other players' hands, the stock order and later deals never reach
it.

==================  ========  =======================================================
field               size      meaning
==================  ========  =======================================================
hand                53        own hand: count of each card type / 4
melds               12 x 47   per (seat, contract group): present, is a set, complete,
                              required size / 10, run positions held (14), run
                              positions held by a wild card (14), set rank (13),
                              natural cards / 8, wild cards / 8
contracts           4 x 14    per seat: contract (12, one-hot), laid this hand, may lay
                              off now
seats               4 x 5     per seat: present, hand size / 30, total points / 1000
                              (capped at 1), contracts completed / 12, cut-ins used / 2
discarded_by        4 x 53    per seat: card types it discarded this hand / 4
taken_by            4 x 53    per seat: card types it took from the pile this hand / 4
in_pile             53        card types lying in the discard pile / 8
top_discard         53        the top card of the pile
recent_discards     4 x 58    the last 4 discards, newest first: card (53), by seat (4),
                              taken
scalars             16        see ``SCALARS``
==================  ========  =======================================================
"""

from __future__ import annotations

import numpy as np

from ..core.cards import N_CARD_TYPES
from ..core.game import field_offsets
from ..core.planes import DiscardPlanes, HiddenCards
from .actions import CONTRACTS, DECK, IS_WILD, MAX_GROUPS, MAX_SEATS, TYPE_OF
from .rules import CUTIN_PHASE, DRAW_PHASE, PLACE_PHASE, GameState

MELD_WIDTH = 47
RECENT = 4
RECENT_WIDTH = N_CARD_TYPES + MAX_SEATS + 1
SCALARS = (
    "stock_size / 108",
    "phase: draw",
    "phase: place",
    "phase: cut-in decision",
    "my turn (or my cut-in decision)",
    "laying my contract (begun, not finished)",
    "hand number / 12 (capped)",
    "2 players",
    "3 players",
    "4 players",
    "cut-ins on",
    "reward: win/lose",
    "the turn is mine (a cut-in decision goes on in it)",
    "discards this hand / 64 (capped)",
    "my cards to lay for my contract / 10",
    "unused",
)
FIELDS: list[tuple[str, int]] = [
    ("hand", N_CARD_TYPES),
    ("melds", MAX_SEATS * MAX_GROUPS * MELD_WIDTH),
    ("contracts", MAX_SEATS * 14),
    ("seats", MAX_SEATS * 5),
    ("discarded_by", MAX_SEATS * N_CARD_TYPES),
    ("taken_by", MAX_SEATS * N_CARD_TYPES),
    ("in_pile", N_CARD_TYPES),
    ("top_discard", N_CARD_TYPES),
    ("recent_discards", RECENT * RECENT_WIDTH),
    ("scalars", len(SCALARS)),
]
OFFSET, OBS_SIZE = field_offsets(FIELDS)
# The full state for centralised critics: the observation of seat 0 plus every hand and the
# stock, as card-type counts / 4 (hands) and / 8 (stock), and whose turn it is.
STATE_SIZE = OBS_SIZE + MAX_SEATS * N_CARD_TYPES + N_CARD_TYPES + MAX_SEATS


_HAND = OFFSET["hand"]
_MELDS = OFFSET["melds"]
_MELDS_END = _MELDS + MAX_SEATS * MAX_GROUPS * MELD_WIDTH
_CONTRACTS, _SEATS = OFFSET["contracts"], OFFSET["seats"]
_SCALARS = OFFSET["scalars"]
_SEATS_END = OFFSET["discarded_by"]
# the hand plane's entry of each physical card
_HAND_AT = tuple(_HAND + t for t in TYPE_OF)
_DECK_SIZE = DECK.size
# discarded_by and taken_by: count / 4; in_pile: count / 8
_LOG_SCALE = (0.25,) * (2 * MAX_SEATS * N_CARD_TYPES) + (0.125,) * N_CARD_TYPES
_N_CONTRACTS = len(CONTRACTS)
_CONTRACT_CARDS = tuple(c.cards for c in CONTRACTS)


class Observer:
    """The observation of one seat.

    It keeps its own caches of the public planes, which change only when a card is
    discarded, taken or placed, and brings them up to date at each ``encode`` from what
    changed since it last looked (the state is never asked to keep them): the discard-log
    planes (``core.planes.DiscardPlanes``) follow the log as it grows and as pile cards
    are taken back or turned into the stock; the meld planes are looked at only
    when a card reaches the table, and only the melds that grew are written again; the
    contracts and seats (but hand sizes) when a contract is laid, a cut-in taken or a hand
    ends. A new game (another state object, a clone included) or a new hand (a new log, a
    new table) starts them afresh. Each ``encode`` returns a new array."""

    __slots__ = ("player", "_state", "_public", "_pile", "_table", "_table_cards",
                 "_meld_sizes", "_my_placed", "_seats_key")  # fmt: skip

    def __init__(self, player: int) -> None:
        self.player = player
        self._state: GameState | None = None
        self._table: list | None = None

    def encode(self, state: GameState) -> np.ndarray:
        me, n = self.player, state.n
        if state is not self._state:
            self._state = state
            self._table = self._seats_key = None
            self._public = np.zeros(OBS_SIZE, dtype=np.float32)
            self._pile = DiscardPlanes(
                log=OFFSET["discarded_by"],
                top=OFFSET["top_discard"],
                recent=OFFSET["recent_discards"],
                n_recent=RECENT,
                max_seats=MAX_SEATS,
                type_of=TYPE_OF,
                scale=_LOG_SCALE,
            )
        public = self._public
        pile = self._pile
        pile.update(state, me, n, public)
        self._melds(state, me, n, public)
        laid, turns = state.laid, state.turns
        key = (state.hand_no, *laid, *state.cutins_used, *[t < turns for t in state.laid_turn])
        if key != self._seats_key:
            self._seats_key = key
            self._seats(state, me, n, public)
        obs = public.copy()
        # the rest, written straight into the copy (every value already in [0, 1])
        view = memoryview(obs)
        for c in state.hands[me]:
            view[_HAND_AT[c]] += 0.25  # exact in float32: the count / 4
        hands = state.hands
        for s in range(n):
            view[_SEATS + ((s - me) % n) * 5 + 1] = len(hands[s]) / 30
        terminal = state.result is not None
        phase = state.phase
        acting = state.current == me and not terminal
        placed = 0.0
        contract = state.contract[me]
        if not laid[me] and contract < _N_CONTRACTS:
            placed = (_CONTRACT_CARDS[contract] - self._my_placed) / 10
        at = _SCALARS
        view[at] = len(state.stock) / _DECK_SIZE
        view[at + 1] = phase == DRAW_PHASE and not terminal
        view[at + 2] = phase == PLACE_PHASE and not terminal
        view[at + 3] = phase == CUTIN_PHASE and not terminal
        view[at + 4] = acting
        view[at + 5] = acting and state.building
        view[at + 14] = placed
        view[at + 12] = state.turn_owner == me and phase == CUTIN_PHASE
        view[at + 13] = min(pile.discards / 64, 1.0)
        return obs

    # ----------------------------------------------------------------------------------
    def _seats(self, state: GameState, me: int, n: int, public: np.ndarray) -> None:
        """Contracts, seats (but hand sizes) and the scalars fixed within a hand."""
        public[_CONTRACTS:_SEATS_END] = 0.0
        contract, laid, laid_turn, turns = state.contract, state.laid, state.laid_turn, state.turns
        for s in range(n):
            r = (s - me) % n
            base = _CONTRACTS + r * 14
            if contract[s] < _N_CONTRACTS:
                public[base + contract[s]] = 1.0
            if laid[s]:
                public[base + 12] = 1.0
                if laid_turn[s] < turns:
                    public[base + 13] = 1.0
            base = _SEATS + r * 5
            public[base] = 1.0
            public[base + 2] = min(state.totals[s] / 1000, 1.0)
            public[base + 3] = state.completed[s] / 12
            public[base + 4] = state.cutins_used[s] / 2
        cfg = state.config
        at = _SCALARS
        public[at + 6] = min(state.hand_no / 12, 1.0)
        public[at + 7 : at + 12] = (n == 2, n == 3, n == 4, cfg.cut_ins, cfg.reward == "win")

    def _melds(self, state: GameState, me: int, n: int, public: np.ndarray) -> None:
        """The meld planes, kept in ``public``: looked at only when a card has reached the
        table (the cards on the table are those in no hand, stock or pile), and then only
        the melds that grew are written again (a meld only grows: its entries never go)."""
        table = state.melds
        on_table = _DECK_SIZE - len(state.stock) - len(state.discard) - sum(map(len, state.hands))
        if table is self._table and on_table == self._table_cards:
            return
        if table is not self._table:
            self._table = table
            self._meld_sizes = {}
            public[_MELDS:_MELDS_END] = 0.0
        sizes = self._meld_sizes
        mine = 0
        view = memoryview(public)
        for m in table:
            size = len(m)
            if sizes.get(m) != size:
                sizes[m] = size
                _meld_part(m, me, n, view)
            if m.owner == me:
                mine += size
        self._table_cards = on_table
        self._my_placed = mine


def _meld_part(m, me: int, n: int, view: memoryview) -> None:
    """Write a meld's entries (values in [0, 1]) into ``view``, the public planes."""
    base = _MELDS + (((m.owner - me) % n) * MAX_GROUPS + m.group) * MELD_WIDTH
    wild = 0
    if m.is_set:
        if m.rank >= 0:
            view[base + 32 + m.rank] = 1.0
        wild = sum(IS_WILD[TYPE_OF[c]] for c in m.cards)
    else:
        for pos, c in m.slots.items():
            view[base + 3 + pos] = 1.0
            if IS_WILD[TYPE_OF[c]]:
                view[base + 17 + pos] = 1.0
                wild += 1
    view[base] = 1.0
    view[base + 1] = 1.0 if m.is_set else 0.0
    view[base + 2] = 1.0 if len(m) >= m.size else 0.0
    view[base + 3] = m.size / 10
    view[base + 45] = min(m.naturals / 8, 1.0)
    view[base + 46] = min(wild / 8, 1.0)


def encode(state: GameState, player: int) -> np.ndarray:
    return Observer(player).encode(state)


def encode_state(state: GameState) -> np.ndarray:
    """Every card, hidden ones included: for centralised critics in training only."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = encode(state, 0)
    for seat, hand in enumerate(state.hands):
        for c in hand:
            out[OBS_SIZE + seat * N_CARD_TYPES + TYPE_OF[c]] += 0.25
    base = OBS_SIZE + MAX_SEATS * N_CARD_TYPES
    for c in state.stock:
        out[base + TYPE_OF[c]] += 0.125
    if not state.is_terminal:
        out[base + N_CARD_TYPES + state.current] = 1.0
    np.clip(out, 0.0, 1.0, out=out)
    return out


HIDDEN = HiddenCards(TYPE_OF, (0.5,) * (N_CARD_TYPES - 1) + (0.25,), MAX_SEATS)
"""What a seat does not see, for centralised critics in training only (counts: a natural
card / 2, a joker / 4)."""

__all__ = ["DRAW_PHASE", "HIDDEN", "OBS_SIZE", "STATE_SIZE", "Observer", "encode", "encode_state"]
