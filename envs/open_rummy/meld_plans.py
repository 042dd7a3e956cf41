"""Which steps of a new meld keep it completable: the no-dead-end masking of meld steps.

A new meld is laid in three steps (reading 5), one card each: ``set_step`` ids for a set,
``run_step`` / ``run_joker`` ids for a run (the joker's place and suit named). A step is
legal exactly when, after it, the meld can still be completed to three cards from the hand,
keeping one card to discard (reading 6), so laying a meld never reaches a dead end.

A *plan* is a full three-card meld as a frozenset of step ids: a set of three distinct suits
of one rank, or two of them and a joker; a run of three consecutive positions (2..14) of one
suit, all natural or one joker in any place (reading 4: at least two natural cards). The
legal steps are the union, over the plans that hold every step laid so far and whose other
steps the hand can pay for, of those other steps (``legal_steps``). The first step of a meld,
asked for on most turns, is found without the plans by ``first_steps``: bit arithmetic on
the card types held.
"""

from __future__ import annotations

import functools
from itertools import combinations

from ..core.cards import JOKER, N_STANDARD
from .actions import (
    ACE_POSITION,
    LOW_POSITION,
    RUN_JOKER_BASE,
    RUN_STEP_BASE,
    SET_STEP_BASE,
    card_at_position,
    run_joker_action,
)

MELD_SIZE = 3
SET_JOKER = SET_STEP_BASE + JOKER


def plans(naturals: frozenset[int], joker: bool, kind: str = "") -> list[frozenset[int]]:
    """Every three-card meld of the natural card types ``naturals`` (and one joker if
    ``joker``), as step ids; ``kind`` "set" or "run" keeps only that kind."""
    out: list[frozenset[int]] = []
    if kind != "run":
        for rank in range(13):
            suits = [s for s in range(4) if s * 13 + rank in naturals]
            if len(suits) >= 3:
                out.extend(
                    frozenset(SET_STEP_BASE + s * 13 + rank for s in three)
                    for three in combinations(suits, 3)
                )
            if joker and len(suits) >= 2:
                out.extend(
                    frozenset((SET_STEP_BASE + a * 13 + rank, SET_STEP_BASE + b * 13 + rank,
                               SET_JOKER))
                    for a, b in combinations(suits, 2)
                )  # fmt: skip
    if kind != "set":
        for suit in range(4):
            held = [card_at_position(suit, p) in naturals for p in range(ACE_POSITION + 1)]
            for lo in range(LOW_POSITION, ACE_POSITION - MELD_SIZE + 2):
                window = range(lo, lo + MELD_SIZE)
                have = [p for p in window if held[p]]
                if len(have) == MELD_SIZE:
                    out.append(frozenset(RUN_STEP_BASE + card_at_position(suit, p) for p in window))
                if joker and len(have) >= MELD_SIZE - 1:
                    for q in window:
                        others = [p for p in window if p != q]
                        if all(held[p] for p in others):
                            steps = [RUN_STEP_BASE + card_at_position(suit, p) for p in others]
                            out.append(frozenset((*steps, run_joker_action(suit, q))))
    return out


def _is_joker_step(step: int) -> bool:
    return step == SET_JOKER or step >= RUN_STEP_BASE + N_STANDARD


def _natural_of(step: int) -> int:
    return step - (SET_STEP_BASE if step < RUN_STEP_BASE else RUN_STEP_BASE)


def _plans_by_lowest() -> tuple[tuple[tuple, ...], ...]:
    """Every plan of a full hand, under its lowest natural card type: (steps, natural card
    types, holds a joker, is a set). A plan of a hand is found under one of its cards."""
    out: list[list[tuple]] = [[] for _ in range(N_STANDARD)]
    for plan in plans(frozenset(range(N_STANDARD)), True):
        naturals = frozenset(_natural_of(s) for s in plan if not _is_joker_step(s))
        is_set = min(plan) < RUN_STEP_BASE
        out[min(naturals)].append((plan, naturals, any(map(_is_joker_step, plan)), is_set))
    return tuple(tuple(p) for p in out)


_PLANS_BY_LOWEST = _plans_by_lowest()


@functools.lru_cache(maxsize=1 << 16)
def legal_steps(
    held: frozenset[int], jokers: int, hand_size: int, laid: frozenset[int], kind: str
) -> tuple[int, ...]:
    """The meld steps that keep the meld completable, ascending.

    ``held``: natural card types in hand; ``jokers``: jokers in hand; ``laid``: the steps of
    the meld being laid (empty: a new meld may be begun); ``kind``: its kind ("" none yet).
    The plans looked at are those of ``plans(pool, ...)``, found under their lowest card."""
    if hand_size - (MELD_SIZE - len(laid)) < 1:
        return ()
    pool = held | {_natural_of(s) for s in laid if not _is_joker_step(s)}
    joker = jokers > 0 or any(_is_joker_step(s) for s in laid)
    steps: set[int] = set()
    for t in pool:
        for plan, naturals, has_joker, is_set in _PLANS_BY_LOWEST[t]:
            if (has_joker and not joker) or (kind and is_set != (kind == "set")):
                continue
            if not naturals <= pool or not laid <= plan:
                continue
            rest = plan - laid
            if all(_is_joker_step(s) or _natural_of(s) in held for s in rest):
                # one joker at most in a plan: the hand pays for it if it holds one
                if any(_is_joker_step(s) for s in rest) and jokers == 0:
                    continue
                steps |= rest
    return tuple(sorted(steps))


_SUIT_BITS = (1 << 13) - 1  # a suit's ranks, or its run positions
_WINDOWS = (1 << 11) - 1  # the runs of three by their lowest position (2-12)


def _run_tables() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """For each suit's held ranks (bit ``r``: rank ``r``, the Ace 0): the ranks that may
    begin a run without a joker and with one (windows of three run positions held whole,
    or two of them), and the run positions a joker may take (bit ``position - 2``)."""
    whole, with_joker, joker_at = [], [], []
    for x in range(1 << 13):
        p = (x >> 1) | ((x & 1) << 12)  # bit i: run position i + 2 (the Ace 14)
        low, mid, high = p >> 1 & p >> 2, p & p >> 2, p & p >> 1 & _WINDOWS
        w = p & p >> 1 & p >> 2  # windows by their lowest position, held whole
        full = w | w << 1 | w << 2
        w = low | mid | high  # ... holding two positions or three
        part = p & (w | w << 1 | w << 2)
        whole.append(((full << 1) & _SUIT_BITS) | full >> 12)
        with_joker.append(((part << 1) & _SUIT_BITS) | part >> 12)
        joker_at.append(low | mid << 1 | high << 2)
    return tuple(whole), tuple(with_joker), tuple(joker_at)


_RUN_WHOLE, _RUN_WITH_JOKER, _RUN_JOKER_AT = _run_tables()


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def first_steps(held: int, jokers: int, hand_size: int) -> list[int]:
    """``legal_steps(..., laid=frozenset(), kind="")`` (the steps that may begin a new meld)
    from ``held``, a bit mask of the natural card types in hand (bit ``t``), by bit
    arithmetic: a set step of a rank held in three suits, or two and a joker; a run step of
    a card in a window of three run positions of its suit held whole, or two of them and a
    joker (which may stand in the third)."""
    if hand_size - MELD_SIZE < 1:
        return []
    a, b = held & _SUIT_BITS, held >> 13 & _SUIT_BITS
    c, d = held >> 26 & _SUIT_BITS, held >> 39
    two = (a & b) | (c & d) | ((a | b) & (c | d))  # ranks held in two suits or more
    ranks = (a & b & (c | d)) | (c & d & (a | b))  # ... in three or more
    if jokers:
        ranks |= two
        runs = _RUN_WITH_JOKER
        at = _RUN_JOKER_AT
        joker_at = at[a] | at[b] << 13 | at[c] << 26 | at[d] << 39
    else:
        runs = _RUN_WHOLE
        joker_at = 0
    naturals = runs[a] | runs[b] << 13 | runs[c] << 26 | runs[d] << 39
    out = []
    if ranks:
        sets = held & (ranks | ranks << 13 | ranks << 26 | ranks << 39)
        out = [SET_STEP_BASE + t for t in _bits(sets)]
    if jokers and two:
        out.append(SET_JOKER)
    if naturals:
        out += [RUN_STEP_BASE + t for t in _bits(naturals)]
    if joker_at:
        out += [RUN_JOKER_BASE + k for k in _bits(joker_at)]
    return out
