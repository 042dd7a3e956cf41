"""Can a contract still be completed this turn, and which placements keep it so?

The one place that decides whether a player may lay (or go on laying) their contract: the
legal ``meld`` steps are exactly the placements after which the contract can still be
completed from the cards in hand, keeping one card to discard (reading 6), so no step ever
leads to a dead end.

Suits never matter in this game, so a hand is counted by rank: ``counts[r]`` natural cards
of rank ``r`` (the 2s are wild, ``counts[1]`` is 0) and ``wilds`` wild cards. A *plan* fixes
each group's target (a set's rank, a run's lowest position); under a plan, natural cards
fill the slots of their rank as far as they go (which slot takes which natural never changes
how many wild cards are needed) and wild cards the rest. Each meld needs at least one
natural card (reading 4): Hall's condition over the groups that still have none.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from itertools import combinations

from .actions import HIGH_ACE, NATURAL_RANKS, rank_at

# A group as laid so far: (is_set, size, rank (-1: none yet), placed positions (runs) or
# the number of cards placed (sets), has a natural card).
Group = tuple[bool, int, int, "frozenset[int] | int", bool]
# A step: ("set", group, rank), ("set", group, -1) for a wild, ("run", group, position,
# natural?).
Step = tuple


def run_windows(size: int, placed: frozenset[int]) -> list[int]:
    """Lowest positions of the runs of ``size`` that hold ``placed`` (the Ace low or high,
    never both)."""
    lo_min = max(1, (max(placed) - size + 1) if placed else 1)
    lo_max = min(min(placed) if placed else HIGH_ACE, HIGH_ACE - size + 1)
    return [lo for lo in range(lo_min, lo_max + 1) if not (lo == 1 and lo + size - 1 == HIGH_ACE)]


def _targets(group: Group, counts: tuple[int, ...]) -> list[int]:
    is_set, size, rank, placed, _ = group
    if is_set:
        return [rank] if rank >= 0 else [r for r in NATURAL_RANKS if counts[r]]
    return run_windows(size, placed)


def _slots(group: Group, target: int) -> list[int]:
    """The ranks the group's empty slots call for (-1: a wild card only, the 2's place)."""
    is_set, size, _, placed, _ = group
    if is_set:
        return [target] * (size - placed)
    return [
        rank_at(p) if p != 2 else -1 for p in range(target, target + size) if p not in placed
    ]


def _feasible(
    counts: tuple[int, ...], wilds: int, demand: dict[int, int], lacking: list[set[int]]
) -> bool:
    slots = sum(demand.values())
    naturals = sum(min(counts[r], d) for r, d in demand.items() if r >= 0)
    if slots - naturals > wilds:
        return False
    for k in range(1, len(lacking) + 1):
        for chosen in combinations(lacking, k):
            ranks = set().union(*chosen)
            if sum(counts[r] for r in ranks) < k:
                return False
    return True


def _plans(groups: tuple[Group, ...], counts: tuple[int, ...]) -> Iterator[list[int]]:
    def extend(i: int, chosen: list[int]) -> Iterator[list[int]]:
        if i == len(groups):
            yield list(chosen)
            return
        for target in _targets(groups[i], counts):
            chosen.append(target)
            yield from extend(i + 1, chosen)
            chosen.pop()

    return extend(0, [])


@functools.lru_cache(maxsize=1 << 16)
def legal_steps(
    counts: tuple[int, ...], wilds: int, hand_size: int, groups: tuple[Group, ...]
) -> frozenset[Step]:
    """The placements after which the contract can still be completed this turn; empty if
    it cannot be completed at all (or is complete)."""
    remaining = sum(size - (len(p) if not s else p) for s, size, _, p, _ in groups)
    if remaining == 0 or remaining > hand_size - 1:
        return frozenset()
    steps: set[Step] = set()
    for plan in _plans(groups, counts):
        slot_ranks = [_slots(g, t) for g, t in zip(groups, plan, strict=True)]
        demand: dict[int, int] = {}
        for ranks in slot_ranks:
            for r in ranks:
                demand[r] = demand.get(r, 0) + 1
        lacking_ranks = [
            {r for r in ranks if r >= 0} for g, ranks in zip(groups, slot_ranks, strict=True)
            if not g[4]
        ]
        if not _feasible(counts, wilds, demand, lacking_ranks):
            continue
        for gi, (group, target) in enumerate(zip(groups, plan, strict=True)):
            is_set, size, _, placed, _ = group
            for position, rank in _step_slots(group, target):
                others = [
                    {r for r in ranks if r >= 0}
                    for gj, (g, ranks) in enumerate(zip(groups, slot_ranks, strict=True))
                    if gj != gi and not g[4]
                ]
                less = dict(demand)
                less[rank] -= 1
                if rank >= 0 and counts[rank]:  # a natural card of the slot's rank
                    after = counts[:rank] + (counts[rank] - 1,) + counts[rank + 1 :]
                    if _feasible(after, wilds, less, others):
                        steps.add(("set", gi, rank) if is_set else ("run", gi, position, True))
                if wilds:  # a wild card
                    own = [] if group[4] else [_rest(group, target, position)]
                    if _feasible(counts, wilds - 1, less, others + own):
                        steps.add(("set", gi, -1) if is_set else ("run", gi, position, False))
    return frozenset(steps)


def _step_slots(group: Group, target: int) -> list[tuple[int, int]]:
    """(position, rank) of each empty slot a card could go to next (sets: one slot)."""
    is_set, size, _, placed, _ = group
    if is_set:
        return [(0, target)] if size > placed else []
    return [
        (p, rank_at(p) if p != 2 else -1)
        for p in range(target, target + size)
        if p not in placed
    ]


def _rest(group: Group, target: int, position: int) -> set[int]:
    """Ranks of the group's other empty slots (for a group still without a natural card)."""
    is_set, size, _, placed, _ = group
    if is_set:
        return {target} if size - placed > 1 else set()
    return {
        rank_at(p) for p in range(target, target + size) if p not in placed and p not in (2, position)
    }
