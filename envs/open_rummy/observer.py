"""Seat view: the numeric observation of one Open Rummy player, from what that player sees.

A flat float32 vector in [0, 1]. Seats are counted from the observer (0 = oneself, then
clockwise); a table of fewer than eight leaves the missing seats' entries at zero. Card
planes have one entry per card type (52 standard cards ``suit * 13 + rank``, 52 = joker)
and hold counts scaled by ``CARD_SCALE`` (a natural card / 2, a joker / 4: the most copies
a deck holds). Other players' hands, the stock order and later deals never reach it.

==================  ========  =======================================================
field               size      meaning
==================  ========  =======================================================
hand                53        own hand: count of each card type (scaled)
melds               52 x 60   per meld slot: present, closed, being laid, is a set,
                              owner (8, relative), run suit (4), run positions 2-A
                              held (13), run positions held by a joker (13), set
                              rank (13), set natural suits (4), set jokers / 2
seats               8 x 6     per seat: present, hand size / 20, total points /
                              target if positive, minus total / target if negative
                              (both capped at 1), points placed this round / target,
                              laid a meld this round
discarded_by        8 x 53    per seat: card types it discarded this round (scaled)
taken_by            8 x 53    per seat: card types it took from the pile this round
in_pile             53        card types lying in the discard pile (scaled)
top_discard         53        the top card of the pile
closed              53        card types in closed sets (out of the game; scaled)
recent_discards     4 x 62    the last 4 discards, newest first: card (53), by seat
                              (8), taken
scalars             22        see ``SCALARS``
==================  ========  =======================================================
"""

from __future__ import annotations

import numpy as np

from ..core.cards import N_CARD_TYPES, N_STANDARD
from ..core.game import field_offsets
from ..core.planes import DiscardPlanes, HiddenCards
from .actions import (
    LAYOFF_BASE,
    LAYOFF_WIDTH,
    MAX_DECK_SIZE,
    MAX_JOKERS,
    MAX_MELDS,
    MAX_SEATS,
    SET_STEP_BASE,
    STEAL_BASE,
    TYPE_OF,
)
from .rules import DRAW_PHASE, PLACE_PHASE, GameState

MELD_WIDTH = 60
SEAT_WIDTH = 6
RECENT = 4
RECENT_WIDTH = N_CARD_TYPES + MAX_SEATS + 1
CARD_SCALE: tuple[float, ...] = (0.5,) * N_STANDARD + (1 / MAX_JOKERS,)
SCALARS = (
    "stock size / 108",
    "phase: draw",
    "phase: place",
    "my turn",
    "laying a new meld (begun, not finished)",
    "I have laid a meld this round (may lay off and steal)",
    "the card-swap chain is open",
    "the top discard is a joker's stand-in (may not be taken)",
    "round number / 10 (capped)",
    "2 players", "3 players", "4 players", "5 players", "6 players", "7 players", "8 players",
    "jokers / 4",
    "card swap on",
    "reward: win/lose",
    "target / 1000 (capped)",
    "rounds / 10 (capped; 0: play to the target)",
    "card swaps this round / 8",
)  # fmt: skip
FIELDS: list[tuple[str, int]] = [
    ("hand", N_CARD_TYPES),
    ("melds", MAX_MELDS * MELD_WIDTH),
    ("seats", MAX_SEATS * SEAT_WIDTH),
    ("discarded_by", MAX_SEATS * N_CARD_TYPES),
    ("taken_by", MAX_SEATS * N_CARD_TYPES),
    ("in_pile", N_CARD_TYPES),
    ("top_discard", N_CARD_TYPES),
    ("closed", N_CARD_TYPES),
    ("recent_discards", RECENT * RECENT_WIDTH),
    ("scalars", len(SCALARS)),
]
OFFSET, OBS_SIZE = field_offsets(FIELDS)
# The full state for centralised critics: the observation of seat 0 plus every hand and the
# stock as scaled card-type counts, and whose turn it is.
STATE_SIZE = OBS_SIZE + MAX_SEATS * N_CARD_TYPES + N_CARD_TYPES + MAX_SEATS


_HAND, _MELDS, _SEATS = OFFSET["hand"], OFFSET["melds"], OFFSET["seats"]
_MELDS_END = _MELDS + MAX_MELDS * MELD_WIDTH
_CLOSED, _SCALARS = OFFSET["closed"], OFFSET["scalars"]
_LOG_SCALE = CARD_SCALE * (2 * MAX_SEATS + 1)  # discarded_by, taken_by, in_pile
# the hand plane's entry of each physical card, and what one copy adds to it
_HAND_AT = tuple(_HAND + t for t in TYPE_OF)
_HAND_STEP = tuple(CARD_SCALE[t] for t in TYPE_OF)
# a hand size's entry (capped at 1), by the hand size (at most every card of a deck)
_SIZE_VALUE = tuple(min(k / 20, 1.0) for k in range(MAX_DECK_SIZE + 1))
# the scalars that change within a round (the others are the config's, and fixed)
_TURN_SCALARS = tuple(_SCALARS + i for i in (0, 1, 2, 3, 4, 5, 6, 7, 8, 21))


class Observer:
    """The observation of one seat.

    It keeps its own buffer of the public planes, which change only when a card is
    discarded, taken or placed, and brings it up to date at each ``encode`` from what
    changed since it last looked (the state keeps nothing for it but a count of its
    placements): the discard-log planes (``core.planes.DiscardPlanes``) follow the log; the
    meld planes are written again only for the melds the moves since the last look placed a
    card on (read from the state's history, looked at only when the count moved: meld
    steps, lay-offs, steals); the seats' planes when a points total, points placed or a
    first meld changed. A new game (another state object, a clone included) or a new round
    (a new log, a new table) starts them afresh. Each ``encode`` returns a new array."""

    __slots__ = ("player", "_state", "_public", "_pile", "_table", "_melds_seen", "_moves",
                 "_placements", "_totals", "_placed", "_laid", "_size_at")  # fmt: skip

    def __init__(self, player: int) -> None:
        self.player = player
        self._state: GameState | None = None

    def encode(self, state: GameState) -> np.ndarray:
        me, n = self.player, state.n
        if state is not self._state:
            self._new_game(state, n)
        public = self._public
        self._pile.update(state, me, n, public)
        self._melds(state, me, n, public)
        totals, placed, laid = state.totals, state.placed, state.laid
        if totals != self._totals or placed != self._placed or laid != self._laid:
            self._seats(state, me, n, public)
        obs = public.copy()
        # the rest written one entry at a time through a memoryview (each value capped at 1)
        view = memoryview(obs)
        for c in state.hands[me]:
            view[_HAND_AT[c]] += _HAND_STEP[c]  # exact in float32, at most 1 (``CARD_SCALE``)
        for i, hand in zip(self._size_at, state.hands, strict=True):
            view[i] = _SIZE_VALUE[len(hand)]
        playing = state.result is None
        acting = state.current == me and playing
        (stock, draw, place, turn, building, has_laid, swap_open, blocked, round_no,
         swaps) = _TURN_SCALARS  # fmt: skip
        view[stock] = len(state.stock) / MAX_DECK_SIZE
        view[draw] = state.phase == DRAW_PHASE and playing
        view[place] = state.phase == PLACE_PHASE and playing
        view[turn] = acting
        view[building] = acting and state.pending is not None
        view[has_laid] = laid[me]
        view[swap_open] = state.swap_open and playing
        view[blocked] = playing and state.top_blocked()
        view[round_no] = min(state.round_no / 10, 1.0)
        view[swaps] = min(state.swaps / MAX_SEATS, 1.0)
        return obs

    def _new_game(self, state: GameState, n: int) -> None:
        """Fresh public planes for another state, the config's scalars set."""
        self._state = state
        self._table = self._totals = self._placed = self._laid = None
        self._public = public = np.zeros(OBS_SIZE, dtype=np.float32)
        self._pile = DiscardPlanes(
            log=OFFSET["discarded_by"],
            top=OFFSET["top_discard"],
            recent=OFFSET["recent_discards"],
            n_recent=RECENT,
            max_seats=MAX_SEATS,
            type_of=TYPE_OF,
            scale=_LOG_SCALE,
        )
        # each seat's hand-size entry, seats in table order
        self._size_at = [_SEATS + ((s - self.player) % n) * SEAT_WIDTH + 1 for s in range(n)]
        cfg = state.config
        public[_SCALARS + 9 + n - 2] = 1.0  # 2 ... 8 players
        public[_SCALARS + 16 : _SCALARS + 21] = (
            cfg.jokers / MAX_JOKERS,
            cfg.card_swap,
            cfg.reward == "win",
            min(cfg.target / 1000, 1.0),
            min(cfg.rounds / 10, 1.0),
        )

    def _seats(self, state: GameState, me: int, n: int, public: np.ndarray) -> None:
        """The seats' planes but hand sizes (they change with points and first melds), and
        copies of the lists they are read from, to tell when those change."""
        target = state.config.target
        totals, placed, laid = state.totals, state.placed, state.laid
        self._totals, self._placed, self._laid = list(totals), list(placed), list(laid)
        view = memoryview(public)
        for s in range(n):
            base = _SEATS + ((s - me) % n) * SEAT_WIDTH
            total = totals[s]
            view[base] = 1.0
            view[base + 2] = min(max(total, 0) / target, 1.0)
            view[base + 3] = min(max(-total, 0) / target, 1.0)
            view[base + 4] = min(placed[s] / target, 1.0)
            view[base + 5] = laid[s]

    # ----------------------------------------------------------------------------------
    def _melds(self, state: GameState, me: int, n: int, public: np.ndarray) -> None:
        """The meld planes and ``closed``, kept in ``public``: the melds a card was placed
        on since the last look are written again (a new meld, or the one being laid, by a
        meld step; the meld named by a lay-off or a steal), found in the moves since then
        when the state counts a placement since then."""
        table, history = state.melds, state.history
        if table is not self._table:
            self._table = table
            public[_MELDS:_MELDS_END] = 0.0
            public[_CLOSED : _CLOSED + N_CARD_TYPES] = 0.0
            dirty = set(range(len(table)))
        elif state.placements == self._placements:
            self._moves = len(history)
            return
        else:
            dirty = set()
            # a meld step places a card on the meld being laid or begins a new one
            begun = range(max(self._melds_seen - 1, 0), len(table))
            for _, a in history[self._moves :]:
                if a < SET_STEP_BASE:
                    continue
                if a < LAYOFF_BASE:
                    dirty.update(begun)
                elif a < STEAL_BASE:
                    dirty.add((a - LAYOFF_BASE) // LAYOFF_WIDTH)
                else:
                    dirty.add((a - STEAL_BASE) // N_STANDARD)
        self._moves = len(history)
        self._placements = state.placements
        self._melds_seen = len(table)
        view = memoryview(public)
        closed = False
        for slot in dirty:
            m = table[slot]
            base = _MELDS + slot * MELD_WIDTH
            public[base : base + MELD_WIDTH] = 0.0
            closed |= m.closed
            _write_meld(view, m, m is state.pending, (m.owner - me) % n, base)
        if closed:
            counts: dict[int, int] = {}
            for m in table:
                if m.closed:
                    for c in m.cards:
                        t = TYPE_OF[c]
                        counts[t] = counts.get(t, 0) + 1
            public[_CLOSED : _CLOSED + N_CARD_TYPES] = 0.0
            for t, k in counts.items():
                public[_CLOSED + t] = min(k * 0.5, 1.0)


def _write_meld(view: memoryview, m, pending: bool, owner: int, base: int) -> None:
    """Write a meld's entries (from ``base``, values in [0, 1]) into its cleared planes;
    ``owner`` counted from the observer."""
    if m.closed:
        view[base + 1] = 1.0
        return
    view[base] = 1.0
    view[base + 2] = pending
    view[base + 3] = m.is_set
    view[base + 4 + owner] = 1.0
    if m.is_set:
        jokers = 0
        for c in m.cards:
            t = TYPE_OF[c]
            if t == N_STANDARD:
                jokers += 1
            else:
                view[base + 55 + t // 13] = 1.0
        if m.rank >= 0:
            view[base + 42 + m.rank] = 1.0
        view[base + 59] = min(jokers / 2, 1.0)
    else:
        view[base + 12 + m.suit] = 1.0
        for pos, c in m.slots.items():
            view[base + 14 + pos] = 1.0  # 16 + pos - 2
            if TYPE_OF[c] == N_STANDARD:
                view[base + 27 + pos] = 1.0  # 29 + pos - 2


def encode(state: GameState, player: int) -> np.ndarray:
    return Observer(player).encode(state)


def encode_state(state: GameState) -> np.ndarray:
    """Every card, hidden ones included: for centralised critics in training only."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = encode(state, 0)
    for seat, hand in enumerate(state.hands):
        for c in hand:
            t = TYPE_OF[c]
            out[OBS_SIZE + seat * N_CARD_TYPES + t] += CARD_SCALE[t]
    base = OBS_SIZE + MAX_SEATS * N_CARD_TYPES
    for c in state.stock:
        t = TYPE_OF[c]
        out[base + t] += CARD_SCALE[t]
    if not state.is_terminal:
        out[base + N_CARD_TYPES + state.current] = 1.0
    np.clip(out, 0.0, 1.0, out=out)
    return out


HIDDEN = HiddenCards(TYPE_OF, CARD_SCALE, MAX_SEATS)
"""What a seat does not see, for centralised critics in training only (counts scaled by
``CARD_SCALE``)."""

__all__ = ["HIDDEN", "OBS_SIZE", "STATE_SIZE", "Observer", "encode", "encode_state"]
