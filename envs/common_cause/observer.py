"""Seat view: the numeric observation of one player, built only from what that player may see.

The observation is a flat float32 vector in [0, 1]. Card planes hold one entry per card:
52 standard cards (``suit * 13 + rank``, suits C D H S, ranks A..K) and, where jokers can
be there, two joker entries: 52 = "at least one joker", 53 = "two jokers" (jokers are
interchangeable, so they are counted, never told apart). In the discard-history planes the
two joker entries are the first and any later joker discard, in order.

=========================  ====  =========================================================
field                      size  meaning
=========================  ====  =========================================================
hand                       54    own hand
partner_hand               54    partner's hand (open-hands variant only, else zeros)
my_starts                  52    cards of my open starts
partner_starts             52    cards of partner's open starts
completes_my_starts        52    real cards that would complete one of my open starts
completes_partner_starts   52    real cards that would complete one of partner's starts
meld_cards                 52    real cards in complete melds
meld_joker_stand_ins       52    cards that a joker in a complete run stands for
layoff_cards               52    real cards that fit a complete meld now (lay-off)
table_jokers               54    jokers in complete melds (entries 52, 53; rest zero)
discarded_by_me            54    cards I discarded (history, whether or not still there)
discarded_by_partner       54    cards my partner discarded
turned_up                  54    the card turned up at the deal to start the pile
taken_from_pile            54    discards that were taken back from the pile
in_pile                    54    cards lying in the discard pile now
discard_order              54    position of the card's discard in the history / 64
top_discard                54    the top card of the pile
recent_discards            228   the last 4 discards, newest first, 57 each: card (54),
                                 by me, by partner, taken
pending                    54    the taken discard I still have to place this turn
scalars                    16    see ``SCALARS``
=========================  ====  =========================================================
"""

from __future__ import annotations

import functools
from bisect import bisect_left

import numpy as np

from ..core.game import field_offsets
from .actions import COMPLETIONS, STARTS
from .cards import JOKER, N_STANDARD, card_at
from .rules import DRAW_PHASE, MAX_STOCK, GameState

RECENT = 4
RECENT_WIDTH = 57
FIELDS: list[tuple[str, int]] = [
    ("hand", 54),
    ("partner_hand", 54),
    ("my_starts", 52),
    ("partner_starts", 52),
    ("completes_my_starts", 52),
    ("completes_partner_starts", 52),
    ("meld_cards", 52),
    ("meld_joker_stand_ins", 52),
    ("layoff_cards", 52),
    ("table_jokers", 54),
    ("discarded_by_me", 54),
    ("discarded_by_partner", 54),
    ("turned_up", 54),
    ("taken_from_pile", 54),
    ("in_pile", 54),
    ("discard_order", 54),
    ("top_discard", 54),
    ("recent_discards", RECENT * RECENT_WIDTH),
    ("pending", 54),
    ("scalars", 16),
]
SCALARS = (
    "stock_left / 33",
    "my hand size / 16",
    "partner hand size / 16",
    "my open starts / 3",
    "partner open starts / 3",
    "turns played / 64",
    "draw phase",
    "place phase",
    "I am player_0",
    "stock size at the deal / 33",
    "open hands",
    "ace low",
    "three open starts",
    "early loss",
    "signal rule",
    "discard pickups / 16",
)
OFFSET, OBS_SIZE = field_offsets(FIELDS)
# state(): the observation of player_0 with the partner's hand filled, then the stock's
# cards, the put-aside cards (both as card planes) and whose turn it is.
STATE_SIZE = OBS_SIZE + 54 + 54 + 1
_MINE, _THEIRS = OFFSET["discarded_by_me"], OFFSET["discarded_by_partner"]
_TURNED, _TAKEN = OFFSET["turned_up"], OFFSET["taken_from_pile"]
_ORDER, _PILE = OFFSET["discard_order"], OFFSET["in_pile"]
_TOP, _RECENT = OFFSET["top_discard"], OFFSET["recent_discards"]
_SCALARS = OFFSET["scalars"]
_MELD_CARDS, _STAND_INS = OFFSET["meld_cards"], OFFSET["meld_joker_stand_ins"]
_LAYOFF_CARDS, _TABLE_JOKERS = OFFSET["layoff_cards"], OFFSET["table_jokers"]


def _card_plane(offset: int, cards, out: list[int]) -> None:
    """Append the plane indices of ``cards`` (physical ids; jokers counted)."""
    jokers = 0
    for c in cards:
        if c < N_STANDARD:
            out.append(offset + c)
        else:
            out.append(offset + N_STANDARD + jokers)
            jokers += 1


_HAND, _PARTNER_HAND, _PENDING = OFFSET["hand"], OFFSET["partner_hand"], OFFSET["pending"]


class Observer:
    """The observation of one seat, built only from what that seat may see.

    It keeps the public planes (the discard history, the table, the config scalars) in one
    buffer of its own, brought up to date only where a card was discarded, taken or placed
    since its last look (``_PublicPlanes``); each observation is a copy of that buffer with
    the hands, the pending card and the changing scalars written in. A new game (another
    state object, a clone included) starts the buffer afresh. ``reveal_partner`` (open
    hands, and ``encode_state`` for centralised critics) also shows the partner's hand."""

    __slots__ = ("player", "reveal_partner", "_state", "_public")

    def __init__(self, player: int, reveal_partner: bool = False) -> None:
        self.player = player
        self.reveal_partner = reveal_partner
        self._state: GameState | None = None
        self._public: _PublicPlanes | None = None

    def encode(self, state: GameState) -> np.ndarray:
        player = self.player
        public = self._public
        if state is not self._state or public is None:
            self._state = state
            public = self._public = _PublicPlanes(state, player)
        obs = public.update(state, player).copy()
        view = memoryview(obs)  # single entries are written through it (faster)
        partner = 1 - player
        hands = state.hands
        jokers = 0
        for c in hands[player]:
            if c < N_STANDARD:
                view[_HAND + c] = 1.0
            else:
                view[_HAND + N_STANDARD + jokers] = 1.0
                jokers += 1
        if self.reveal_partner or state.config.open_hands:
            jokers = 0
            for c in hands[partner]:
                if c < N_STANDARD:
                    view[_PARTNER_HAND + c] = 1.0
                else:
                    view[_PARTNER_HAND + N_STANDARD + jokers] = 1.0
                    jokers += 1
        mine = state.current == player
        if mine and state.pending >= 0:
            view[_PENDING + min(state.pending, JOKER)] = 1.0
        s = _SCALARS
        view[s] = len(state.stock) / MAX_STOCK
        view[s + 1] = len(hands[player]) / 16
        view[s + 2] = len(hands[partner]) / 16
        view[s + 3] = len(state.starts[player]) / 3
        view[s + 4] = len(state.starts[partner]) / 3
        view[s + 5] = min(state.turns, 64) / 64
        if mine:
            view[s + 6 + (state.phase != DRAW_PHASE)] = 1.0
        view[s + 15] = min(state.pickups, 16) / 16
        return obs  # scalars 8-14 (seat, config) are set once in the public planes


def encode(state: GameState, player: int, reveal_partner: bool = False) -> np.ndarray:
    """Observation of ``player`` (a one-off: an ``Observer`` kept across steps is faster)."""
    return Observer(player, reveal_partner).encode(state)


def _table_indices(state: GameState, player: int, cache: dict) -> list[int]:
    """Indices of the table's planes (starts, melds) set for ``player``, the melds' pieces
    cached in ``cache`` until the meld changes."""
    maxpos = state.config.max_position
    ones: list[int] = []
    for sid in state.starts[player]:
        ones.extend(_start_indices(sid, True, maxpos))
    for sid in state.starts[1 - player]:
        ones.extend(_start_indices(sid, False, maxpos))
    table_jokers = 0
    for m in state.melds:
        ones.extend(_meld_indices(m, maxpos, cache))
        table_jokers += m.jokers
    ones.extend(_TABLE_JOKERS + N_STANDARD + i for i in range(table_jokers))
    return ones


@functools.cache
def _start_indices(sid: int, mine: bool, maxpos: int) -> tuple[int, ...]:
    """An open start's cards and the real cards completing it, as plane indices."""
    base = OFFSET["my_starts" if mine else "partner_starts"]
    completes = OFFSET["completes_my_starts" if mine else "completes_partner_starts"]
    a, b = STARTS[sid].cards
    cards = [c for _, c, _, pos in COMPLETIONS[sid] if c != JOKER and pos <= maxpos]
    return (base + a, base + b, *(completes + c for c in cards))


def _meld_indices(m, maxpos: int, cache: dict) -> list[int]:
    """A complete meld's real cards, joker stand-ins and lay-off cards, as plane indices;
    cached per meld until it changes (it only grows or swaps a joker out)."""
    key = (len(m.cards), m.jokers)
    cached = cache.get(m.origin)
    if cached is not None and cached[0] == key:
        return cached[1]
    ones = [_MELD_CARDS + c for c in m.cards if c < N_STANDARD]
    if m.is_set:
        if len(m.cards) < 4:
            ones.extend(_LAYOFF_CARDS + c for c in m.missing_suit_cards())
    else:
        ones.extend(_STAND_INS + c for _, c in m.stand_ins())
        ones.extend(_LAYOFF_CARDS + card_at(m.suit, p) for p in m.open_ends(maxpos))
    cache[m.origin] = (key, ones)
    return ones


class _PublicPlanes:
    """One player's public planes (discard history, table, config scalars) in one buffer,
    brought up to date from what changed since the last look: the history's planes as the
    log grows, ``in_pile`` from the cards that left or reached the pile (the pile only
    grows and shrinks at its top, so the entries still there from the last look are those
    logged before it), the top and recent discards (the entries set last time cleared, the
    new ones set) and the table's planes when a card was placed."""

    __slots__ = ("planes", "view", "slots", "jokers", "taken_done", "open", "in_pile",
                 "shown", "placements", "table", "melds")  # fmt: skip

    def __init__(self, state: GameState, player: int) -> None:
        cfg = state.config
        self.planes = np.zeros(OBS_SIZE, dtype=np.float32)
        self.view = memoryview(self.planes)
        self.planes[_SCALARS + 8 : _SCALARS + 15] = (
            player == 0,
            cfg.stock_size / MAX_STOCK,
            cfg.open_hands,
            cfg.ace_low,
            cfg.max_open_starts == 3,
            cfg.early_loss,
            cfg.signal_rule,
        )
        self.slots: list[int] = []  # plane index of each log entry (jokers by discard order)
        self.jokers = 0
        self.taken_done = 0
        self.open: list[int] = []  # the pile's log entries last seen
        self.in_pile = [0] * 54  # per slot: the pile's cards on it
        self.shown: list[int] = []  # the top and recent entries set to one
        self.placements = -1  # the state's placement count last seen
        self.table: list[int] = []  # the table's entries set to one
        self.melds: dict = {}  # meld origin -> ((cards, jokers), indices)

    def update(self, state: GameState, player: int) -> np.ndarray:
        """The planes brought up to date with ``state`` (the caller must not modify them)."""
        if state.placements != self.placements:
            self._table(state, player)
        log = state.discard_log
        if len(log) != len(self.slots) or len(state.taken_entries) != self.taken_done:
            self._pile(state, player, log)
        return self.planes

    def _table(self, state: GameState, player: int) -> None:
        view = self.view
        for i in self.table:
            view[i] = 0.0
        self.table = _table_indices(state, player, self.melds)
        for i in self.table:
            view[i] = 1.0
        self.placements = state.placements

    def _pile(self, state: GameState, player: int, log: list) -> None:
        view, slots = self.view, self.slots
        seen = len(slots)
        for i in range(seen, len(log)):
            card, who, _ = log[i]
            if card < N_STANDARD:
                slot = card
            else:
                slot = N_STANDARD + min(self.jokers, 1)
                self.jokers += 1
            slots.append(slot)
            view[(_MINE if who == player else _THEIRS if who >= 0 else _TURNED) + slot] = 1.0
            view[_ORDER + slot] = min(i + 1, 64) / 64
        taken = state.taken_entries
        for e in taken[self.taken_done :]:
            view[_TAKEN + slots[e]] = 1.0
        self.taken_done = len(taken)
        cur, counts = state.discard_entry, self.in_pile
        k = bisect_left(cur, seen)  # the pile's entries still there from the last look
        for e in self.open[k:]:
            slot = slots[e]
            counts[slot] -= 1
            if not counts[slot]:
                view[_PILE + slot] = 0.0
        for e in cur[k:]:
            slot = slots[e]
            if not counts[slot]:
                view[_PILE + slot] = 1.0
            counts[slot] += 1
        self.open = list(cur)
        for i in self.shown:
            view[i] = 0.0
        shown = [_TOP + slots[cur[-1]]] if cur else []
        for k, i in enumerate(range(len(log) - 1, max(len(log) - 1 - RECENT, -1), -1)):
            _, who, was_taken = log[i]
            base = _RECENT + k * RECENT_WIDTH
            shown.append(base + slots[i])
            if who == player:
                shown.append(base + 54)
            elif who >= 0:
                shown.append(base + 55)
            if was_taken:
                shown.append(base + 56)
        for i in shown:
            view[i] = 1.0
        self.shown = shown


HIDDEN_SIZE = 3 * 54


def encode_hidden(state: GameState, player: int) -> np.ndarray:
    """What ``player``'s observation hides, for centralised critics (training only): the
    partner's hand, the stock by its draw order (1.0 for the next card drawn down to 1/n
    for the last of n; 0 off the stock) and the put-aside cards, on the card planes' slots."""
    out = np.zeros(HIDDEN_SIZE, dtype=np.float32)
    ones: list[int] = []
    _card_plane(0, state.hands[1 - player], ones)
    _card_plane(108, state.aside, ones)
    out[ones] = 1.0
    stock: list[int] = []  # (in stock order: the top, drawn next, is last)
    _card_plane(54, state.stock, stock)
    out[stock] = np.arange(1, len(stock) + 1) / max(len(stock), 1)
    return out


def encode_state(state: GameState) -> np.ndarray:
    """Full state for centralised critics (training only: it shows every hidden card)."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = encode(state, 0, reveal_partner=True)
    ones: list[int] = []
    _card_plane(OBS_SIZE, state.stock, ones)
    _card_plane(OBS_SIZE + 54, state.aside, ones)
    out[ones] = 1.0
    out[-1] = state.current
    return out
