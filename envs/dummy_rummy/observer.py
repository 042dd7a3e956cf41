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
OFFSET: dict[str, int] = {}
_at = 0
for _name, _size in FIELDS:
    OFFSET[_name] = _at
    _at += _size
OBS_SIZE = _at
# The full state for centralised critics: the observation of seat 0 plus every hand and the
# stock, as card-type counts / 4 (hands) and / 8 (stock), and whose turn it is.
STATE_SIZE = OBS_SIZE + MAX_SEATS * N_CARD_TYPES + N_CARD_TYPES + MAX_SEATS


class Observer:
    """The observation of one seat. Entries are gathered as (index, value) pairs and summed
    in one ``bincount``; nothing is cached (a state changes in place)."""

    __slots__ = ("player",)

    def __init__(self, player: int) -> None:
        self.player = player

    def encode(self, state: GameState) -> np.ndarray:
        me, n = self.player, state.n
        idx: list[int] = []
        val: list[float] = []
        add_i, add_v = idx.append, val.append
        hand = OFFSET["hand"]
        for c in state.hands[me]:
            add_i(hand + TYPE_OF[c])
            add_v(0.25)
        melds = OFFSET["melds"]
        for m in state.melds:
            base = melds + (((m.owner - me) % n) * MAX_GROUPS + m.group) * MELD_WIDTH
            wild = 0
            if m.is_set:
                if m.rank >= 0:
                    add_i(base + 32 + m.rank)
                    add_v(1.0)
                wild = sum(IS_WILD[TYPE_OF[c]] for c in m.cards)
            else:
                for pos, c in m.slots.items():
                    add_i(base + 3 + pos)
                    add_v(1.0)
                    if IS_WILD[TYPE_OF[c]]:
                        add_i(base + 17 + pos)
                        add_v(1.0)
                        wild += 1
            idx += (base, base + 1, base + 2, base + 3, base + 45, base + 46)
            val += (1.0, m.is_set, len(m) >= m.size, m.size / 10, m.naturals / 8, wild / 8)
        for s in range(n):
            r = (s - me) % n
            base = OFFSET["contracts"] + r * 14
            if state.contract[s] < len(CONTRACTS):
                add_i(base + state.contract[s])
                add_v(1.0)
            idx += (base + 12, base + 13)
            val += (state.laid[s], state.laid[s] and state.laid_turn[s] < state.turns)
            base = OFFSET["seats"] + r * 5
            idx += range(base, base + 5)
            val += (
                1.0,
                len(state.hands[s]) / 30,
                state.totals[s] / 1000,
                state.completed[s] / 12,
                state.cutins_used[s] / 2,
            )
        log = state.discard_log
        by, taken_by = OFFSET["discarded_by"], OFFSET["taken_by"]
        discards = 0
        for card, who, taken in log:
            t = TYPE_OF[card]
            if who >= 0:
                add_i(by + ((who - me) % n) * N_CARD_TYPES + t)
                add_v(0.25)
                discards += 1
            if taken >= 0:
                add_i(taken_by + ((taken - me) % n) * N_CARD_TYPES + t)
                add_v(0.25)
        pile = OFFSET["in_pile"]
        for c in state.discard:
            add_i(pile + TYPE_OF[c])
            add_v(0.125)
        if state.discard:
            add_i(OFFSET["top_discard"] + TYPE_OF[state.discard[-1]])
            add_v(1.0)
        for k, i in enumerate(range(len(log) - 1, max(len(log) - 1 - RECENT, -1), -1)):
            card, who, taken = log[i]
            base = OFFSET["recent_discards"] + k * RECENT_WIDTH
            add_i(base + TYPE_OF[card])
            add_v(1.0)
            if who >= 0:
                add_i(base + N_CARD_TYPES + (who - me) % n)
                add_v(1.0)
            add_i(base + N_CARD_TYPES + MAX_SEATS)
            add_v(taken >= 0)
        s = OFFSET["scalars"]
        cfg = state.config
        acting = state.current == me and not state.is_terminal
        placed = 0.0
        if not state.laid[me] and state.contract[me] < len(CONTRACTS):
            left = state.contract_of(me).cards - sum(len(m) for m in state.melds if m.owner == me)
            placed = left / 10
        idx += range(s, s + 16)
        val += (
            len(state.stock) / DECK.size,
            state.phase == DRAW_PHASE and not state.is_terminal,
            state.phase == PLACE_PHASE and not state.is_terminal,
            state.phase == CUTIN_PHASE and not state.is_terminal,
            acting,
            acting and state.building,
            state.hand_no / 12,
            n == 2,
            n == 3,
            n == 4,
            cfg.cut_ins,
            cfg.reward == "win",
            state.turn_owner == me and state.phase == CUTIN_PHASE,
            discards / 64,
            placed,
            0.0,
        )
        obs = np.bincount(idx, weights=val, minlength=OBS_SIZE).astype(np.float32)
        np.clip(obs, 0.0, 1.0, out=obs)
        return obs


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


__all__ = ["DRAW_PHASE", "OBS_SIZE", "STATE_SIZE", "Observer", "encode", "encode_state"]
