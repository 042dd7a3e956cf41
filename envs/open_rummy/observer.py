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
from .actions import MAX_DECK_SIZE, MAX_JOKERS, MAX_MELDS, MAX_SEATS, TYPE_OF
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
            t = TYPE_OF[c]
            add_i(hand + t)
            add_v(CARD_SCALE[t])
        melds, closed = OFFSET["melds"], OFFSET["closed"]
        for m in state.melds:
            base = melds + m.slot * MELD_WIDTH
            if m.closed:
                add_i(base + 1)
                add_v(1.0)
                for c in m.cards:
                    add_i(closed + TYPE_OF[c])
                    add_v(0.5)
                continue
            idx += (base, base + 2, base + 3, base + 4 + (m.owner - me) % n)
            val += (1.0, m is state.pending, m.is_set, 1.0)
            if m.is_set:
                jokers = 0
                for c in m.cards:
                    t = TYPE_OF[c]
                    if t == N_STANDARD:
                        jokers += 1
                    else:
                        add_i(base + 55 + t // 13)
                        add_v(1.0)
                if m.rank >= 0:
                    add_i(base + 42 + m.rank)
                    add_v(1.0)
                add_i(base + 59)
                add_v(jokers / 2)
            else:
                add_i(base + 12 + m.suit)
                add_v(1.0)
                for pos, c in m.slots.items():
                    add_i(base + 14 + pos)  # 16 + pos - 2
                    add_v(1.0)
                    if TYPE_OF[c] == N_STANDARD:
                        add_i(base + 27 + pos)  # 29 + pos - 2
                        add_v(1.0)
        target = state.config.target
        for s in range(n):
            r = (s - me) % n
            base = OFFSET["seats"] + r * SEAT_WIDTH
            total = state.totals[s]
            idx += range(base, base + SEAT_WIDTH)
            val += (
                1.0,
                len(state.hands[s]) / 20,
                max(total, 0) / target,
                max(-total, 0) / target,
                state.placed[s] / target,
                state.laid[s],
            )
        log = state.discard_log
        by, taken_by = OFFSET["discarded_by"], OFFSET["taken_by"]
        for card, who, taken in log:
            t = TYPE_OF[card]
            if who >= 0:
                add_i(by + ((who - me) % n) * N_CARD_TYPES + t)
                add_v(CARD_SCALE[t])
            if taken >= 0:
                add_i(taken_by + ((taken - me) % n) * N_CARD_TYPES + t)
                add_v(CARD_SCALE[t])
        pile = OFFSET["in_pile"]
        for c in state.discard:
            t = TYPE_OF[c]
            add_i(pile + t)
            add_v(CARD_SCALE[t])
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
        playing = not state.is_terminal
        acting = state.current == me and playing
        players = [0.0] * 7
        players[n - 2] = 1.0
        idx += range(s, s + len(SCALARS))
        val += (
            len(state.stock) / MAX_DECK_SIZE,
            state.phase == DRAW_PHASE and playing,
            state.phase == PLACE_PHASE and playing,
            acting,
            acting and state.pending is not None,
            state.laid[me],
            state.swap_open and playing,
            playing and state.top_blocked(),
            state.round_no / 10,
            *players,
            cfg.jokers / MAX_JOKERS,
            cfg.card_swap,
            cfg.reward == "win",
            cfg.target / 1000,
            cfg.rounds / 10,
            state.swaps / MAX_SEATS,
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


__all__ = ["OBS_SIZE", "STATE_SIZE", "Observer", "encode", "encode_state"]
