# cython: language_level=3, boundscheck=False, wraparound=False
"""``CompiledState``: a Common Cause game played by engine.c, with the part of
``GameState``'s interface that the training view uses (see ``__init__.py``)."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t

import operator

import numpy as np

from ...core.game import IllegalMoveError
from ..rules import STOCK_OUT, GameState


cdef extern from "engine.h":
    enum:
        CC_N_STARTS
        CC_MAX_ACTIONS
        CC_MAX_LEGAL

    ctypedef struct cc_tables:
        int16_t kind[CC_MAX_ACTIONS]
        int16_t card[CC_MAX_ACTIONS]
        int16_t origin[CC_MAX_ACTIONS]
        int16_t stands_for[CC_MAX_ACTIONS]
        int16_t position[CC_MAX_ACTIONS]
        int16_t start_a[CC_N_STARTS]
        int16_t start_b[CC_N_STARTS]
        int16_t start_kind[CC_N_STARTS]
        int16_t start_suit[CC_N_STARTS]
        int16_t start_rank[CC_N_STARTS]
        int16_t start_lo[CC_N_STARTS]
        int16_t start_hi[CC_N_STARTS]
        int16_t completion_n[CC_N_STARTS]
        int16_t completion_aid[CC_N_STARTS][6]
        int16_t completion_card[CC_N_STARTS][6]
        int16_t completion_pos[CC_N_STARTS][6]
        int16_t start_lookup[2704]
        int16_t layoff_real[CC_N_STARTS][52]
        int16_t layoff_joker[CC_N_STARTS][53]
        int16_t swap[CC_N_STARTS][52]
        double kind_bonus[CC_N_STARTS]
        int16_t discard_base, start_base, complete_base
        int32_t off_hand, off_partner_hand, off_my_starts, off_partner_starts
        int32_t off_completes_mine, off_completes_partner, off_meld_cards, off_stand_ins
        int32_t off_layoff_cards, off_table_jokers, off_mine, off_theirs, off_turned, off_taken
        int32_t off_in_pile, off_order, off_top, off_recent, off_pending, off_scalars, obs_size
        int32_t recent, recent_width

    ctypedef struct cc_meld:
        int8_t n

    ctypedef struct cc_state:
        int8_t hand[2][54]
        int8_t hand_n[2]
        int8_t stock_n
        int8_t current, phase, pending, result
        int16_t turns, pickups
        int16_t legal[CC_MAX_LEGAL]
        int16_t legal_n

    void cc_init(cc_state *s, const cc_tables *t, const int8_t *deck, int stock_size,
                 int ace_low, int max_open_starts, int open_hands, int signal_rule)
    int cc_legal(cc_state *s, const cc_tables *t)
    void cc_apply(cc_state *s, const cc_tables *t, int action)
    void cc_encode(const cc_state *s, const cc_tables *t, int seat, float *out)
    int cc_baseline(cc_state *s, const cc_tables *t)
    void cc_encode_hidden(const cc_state *s, int seat, float *out)


cdef cc_tables TABLES
cdef bint READY = False


def load_tables(dict tables) -> None:
    """Fill the engine's tables (``__init__.tables()``: actions.py's and observer.py's)."""
    global READY
    cdef int i, j, k
    if len(tables["kind"]) != CC_MAX_ACTIONS or len(tables["start_cards"]) != CC_N_STARTS:
        raise ValueError(
            f"engine.c is built for {CC_MAX_ACTIONS:,} action ids and {CC_N_STARTS} open starts"
        )
    for i in range(CC_MAX_ACTIONS):
        TABLES.kind[i] = tables["kind"][i]
        TABLES.card[i] = tables["card"][i]
        TABLES.origin[i] = tables["origin"][i]
        TABLES.stands_for[i] = tables["stands_for"][i]
        TABLES.position[i] = tables["position"][i]
    for i in range(CC_N_STARTS):
        TABLES.start_a[i], TABLES.start_b[i] = tables["start_cards"][i]
        TABLES.start_kind[i] = tables["start_kind"][i]
        TABLES.start_suit[i] = tables["start_suit"][i]
        TABLES.start_rank[i] = tables["start_rank"][i]
        TABLES.start_lo[i], TABLES.start_hi[i] = tables["start_positions"][i]
        TABLES.kind_bonus[i] = tables["kind_bonus"][i]
        TABLES.completion_n[i] = len(tables["completions"][i])
        for k, (aid, card, pos) in enumerate(tables["completions"][i]):
            TABLES.completion_aid[i][k] = aid
            TABLES.completion_card[i][k] = card
            TABLES.completion_pos[i][k] = pos
        for j in range(52):
            TABLES.layoff_real[i][j] = tables["layoff_real"][i][j]
            TABLES.swap[i][j] = tables["swap"][i][j]
        for j in range(53):
            TABLES.layoff_joker[i][j] = tables["layoff_joker"][i][j]
    for i in range(2704):
        TABLES.start_lookup[i] = tables["start_lookup"][i]
    TABLES.discard_base = tables["discard_base"]
    TABLES.start_base = tables["start_base"]
    TABLES.complete_base = tables["complete_base"]
    o = tables["offsets"]
    TABLES.off_hand, TABLES.off_partner_hand = o["hand"], o["partner_hand"]
    TABLES.off_my_starts, TABLES.off_partner_starts = o["my_starts"], o["partner_starts"]
    TABLES.off_completes_mine = o["completes_my_starts"]
    TABLES.off_completes_partner = o["completes_partner_starts"]
    TABLES.off_meld_cards, TABLES.off_stand_ins = o["meld_cards"], o["meld_joker_stand_ins"]
    TABLES.off_layoff_cards, TABLES.off_table_jokers = o["layoff_cards"], o["table_jokers"]
    TABLES.off_mine, TABLES.off_theirs = o["discarded_by_me"], o["discarded_by_partner"]
    TABLES.off_turned, TABLES.off_taken = o["turned_up"], o["taken_from_pile"]
    TABLES.off_in_pile, TABLES.off_order = o["in_pile"], o["discard_order"]
    TABLES.off_top, TABLES.off_recent = o["top_discard"], o["recent_discards"]
    TABLES.off_pending, TABLES.off_scalars = o["pending"], o["scalars"]
    TABLES.obs_size = tables["obs_size"]
    TABLES.recent, TABLES.recent_width = tables["recent"], tables["recent_width"]
    READY = True


_RESULTS = (None, "win", "loss")


cdef int _seat(seat) except -1:
    if seat not in (0, 1):
        raise ValueError(f"a seat is 0 or 1, got {seat!r}")
    return seat


cdef class CompiledState:
    """A game in progress, played by engine.c (the rules of rules.py's ``GameState``)."""

    cdef cc_state s
    cdef readonly object config
    cdef readonly list history
    """(seat, action) of every move so far."""
    cdef readonly list deck

    def __init__(self, config, deck) -> None:
        if not READY:
            raise RuntimeError("the engine's tables are not loaded (engine.load_tables)")
        cdef int8_t cards[54]
        cdef int i
        if config.early_loss:
            raise ValueError("the compiled engine does not play early_loss (the Python one does)")
        if sorted(deck) != list(range(54)):
            raise ValueError("a deck must hold each of the 54 physical cards exactly once")
        for i in range(54):
            cards[i] = deck[i]
        self.config = config
        self.deck = list(deck)
        self.history = []
        cc_init(&self.s, &TABLES, cards, config.stock_size, config.ace_low,
                config.max_open_starts, config.open_hands, config.signal_rule)

    num_seats = 2

    @property
    def current(self) -> int:
        return self.s.current

    @property
    def phase(self) -> int:
        return self.s.phase

    @property
    def pending(self) -> int:
        return self.s.pending

    @property
    def turns(self) -> int:
        return self.s.turns

    @property
    def pickups(self) -> int:
        return self.s.pickups

    @property
    def stock_size(self) -> int:
        return self.s.stock_n

    @property
    def result(self):
        """"win", "loss" or None while playing."""
        return _RESULTS[self.s.result]

    @property
    def is_terminal(self) -> bool:
        return self.s.result != 0

    @property
    def loss_reason(self) -> str:
        return STOCK_OUT if self.s.result == 2 else ""  # (the only loss it plays)

    def outcome(self) -> str:
        """The result in words ("" while playing), as ``GameState.outcome`` says it."""
        return GameState.outcome(self)

    def clone(self) -> CompiledState:
        """An independent copy."""
        cdef CompiledState new = CompiledState.__new__(CompiledState)
        new.s = self.s
        new.config = self.config
        new.deck = self.deck
        new.history = list(self.history)
        return new

    def python_state(self) -> GameState:
        """The same game in the Python engine (its deal replayed move by move)."""
        state = GameState(self.config, self.deck)
        for _, action in self.history:
            state.apply(action)
        return state

    def hand(self, seat) -> list:
        """``seat``'s hand (physical ids, in the engine's order)."""
        seat = _seat(seat)
        return [self.s.hand[seat][i] for i in range(self.s.hand_n[seat])]

    def legal_actions(self) -> list:
        """The current player's legal action ids, ascending (empty once the game is over)."""
        cdef int n = cc_legal(&self.s, &TABLES)
        return [self.s.legal[i] for i in range(n)]

    def apply(self, move) -> None:
        """Play ``move``; raises IllegalMoveError if it is not legal."""
        cdef int i, n, action
        try:
            action = operator.index(move)
        except (TypeError, OverflowError):
            raise IllegalMoveError(-1, self.legal_actions(), f"{move!r} is no legal move id")
        if not (action == 0 and self.s.phase == 0 and self.s.stock_n and self.s.result == 0):
            n = cc_legal(&self.s, &TABLES)
            for i in range(n):
                if self.s.legal[i] == action:
                    break
            else:
                raise IllegalMoveError(action, self.legal_actions())
        self.history.append((self.s.current, action))
        cc_apply(&self.s, &TABLES, action)

    def forced_action(self) -> int:
        """The only legal move, or -1 when there are several or none."""
        cdef int n = cc_legal(&self.s, &TABLES)
        return self.s.legal[0] if n == 1 else -1

    def returns(self) -> tuple:
        """Team return, identical for both seats: +1 win, -1 loss, 0 while playing."""
        cdef double r = 1.0 if self.s.result == 1 else -1.0 if self.s.result == 2 else 0.0
        return (r, r)

    rewards = returns

    def seat_stats(self, seat) -> dict:
        _seat(seat)
        return {"won": float(self.s.result == 1), "turns": self.s.turns,
                "pickups": self.s.pickups}

    def encode(self, seat):
        """``seat``'s observation (observer.py's ``Observer.encode``), a new array."""
        seat = _seat(seat)
        out = np.empty(TABLES.obs_size, dtype=np.float32)
        cdef float[::1] view = out
        cc_encode(&self.s, &TABLES, seat, &view[0])
        return out

    def encode_hidden(self, seat):
        """What ``seat`` does not see (observer.py's ``encode_hidden``), a new array."""
        seat = _seat(seat)
        out = np.empty(3 * 54, dtype=np.float32)
        cdef float[::1] view = out
        cc_encode_hidden(&self.s, seat, &view[0])
        return out

    def write_mask(self, mask) -> None:
        """Set ``mask`` (a bool array of every action id) to the legal moves."""
        if mask.dtype != np.bool_ or mask.shape != (CC_MAX_ACTIONS,):
            raise ValueError(
                f"a mask is a bool array of {CC_MAX_ACTIONS:,} entries, one per action id"
            )
        cdef uint8_t[::1] view = mask.view(np.uint8)
        cdef int i, n = cc_legal(&self.s, &TABLES)
        view[:] = 0
        for i in range(n):
            view[self.s.legal[i]] = 1

    def baseline_action(self) -> int:
        """The move of baseline.py's ``BaselineAgent`` with its default options for the seat
        to move (from what that seat sees)."""
        return cc_baseline(&self.s, &TABLES)
