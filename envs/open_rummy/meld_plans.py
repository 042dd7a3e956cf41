"""Which steps of a new meld keep it completable: the no-dead-end masking of meld steps.

A new meld is laid in three steps (reading 5), one card each: ``set_step`` ids for a set,
``run_step`` / ``run_joker`` ids for a run (the joker's place and suit named). A step is
legal exactly when, after it, the meld can still be completed to three cards from the hand,
keeping one card to discard (reading 6), so laying a meld never reaches a dead end.

A *plan* is a full three-card meld as a frozenset of step ids: a set of three distinct suits
of one rank, or two of them and a joker; a run of three consecutive positions (2..14) of one
suit, all natural or one joker in any place (reading 4: at least two natural cards). The
legal steps are the union, over the plans that hold every step laid so far and whose other
steps the hand can pay for, of those other steps.
"""

from __future__ import annotations

import functools
from itertools import combinations

from ..core.cards import JOKER, N_STANDARD
from .actions import (
    ACE_POSITION,
    LOW_POSITION,
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
