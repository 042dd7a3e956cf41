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


# Nearly every hit is a hand met again within a few turns: a small cache keeps them all,
# and memory stays flat over a long run.
@functools.lru_cache(maxsize=1 << 10)
def legal_steps(
    counts: tuple[int, ...], wilds: int, hand_size: int, groups: tuple[Group, ...]
) -> frozenset[Step]:
    """The placements after which the contract can still be completed this turn; empty if
    it cannot be completed at all (or is complete).

    The plans are searched group by group with the feasibility test applied to each partial
    plan: the wild cards a plan lacks never fall as groups are added, and Hall's condition
    over a part of the groups is part of the condition over all of them, so a partial plan
    that fails has no completion that passes (``slow_legal_steps`` enumerates every plan and
    gives the same answer). Groups that are identical (a contract's fresh twins) are
    interchangeable: only the plans whose twins' targets come in the order of the options
    are searched, and the steps are found for the first twin (``rep``) and given to each
    of them at the end."""
    remaining = sum(size - (len(p) if not s else p) for s, size, _, p, _ in groups)
    if remaining == 0 or remaining > hand_size - 1:
        return frozenset()
    # each group's targets that pass the test alone (a plan with one that fails it fails)
    options = []
    alone: dict[Group, list[tuple]] = {}
    # per group: the previous group identical to it (-1: none); per distinct group: the
    # indices of its twins (``rep``: the first of them)
    prior: list[int] = []
    mates: dict[Group, list[int]] = {}
    for i, g in enumerate(groups):
        if g not in alone:
            alone[g] = _feasible_alone(g, counts, wilds)
            if not alone[g]:
                return frozenset()
            mates[g] = []
        prior.append(mates[g][-1] if mates[g] else -1)
        mates[g].append(i)
        options.append(alone[g])
    ng = len(groups)
    rep = [mates[g][0] for g in groups]
    demand = [0] * 14  # by rank; index 13 (also -1): the slots only a wild card fills
    lacking: list[frozenset[int] | None] = [None] * ng
    plan: list[tuple] = [None] * ng  # type: ignore[list-item]
    picked = [0] * ng  # the index of each group's option in the plan
    steps: set[Step] = set()

    def extend(i: int, short: int) -> None:
        if i == ng:
            _add_steps(groups, rep, plan, counts, wilds, demand, lacking, short, steps)
            return
        # the lacking groups before this one (None: this one has a natural card); an
        # option alone passed Hall's condition in ``_feasible_alone``
        before = [x for x in lacking[:i] if x is not None] if not groups[i][4] else None
        group_options = options[i]
        first = picked[prior[i]] if prior[i] >= 0 else 0
        for o in range(first, len(group_options)):
            option = group_options[o]
            items, ranks = option[1], option[2]
            more = short
            for r, k in items:
                if r < 0:
                    more += k
                else:
                    c, d = counts[r], demand[r]
                    more += k - ((c if c < d + k else d + k) - (c if c < d else d))
            if more > wilds:
                continue
            if before and not _hall_with(counts, before, ranks):
                continue
            for r, k in items:
                demand[r] += k
            lacking[i] = ranks if before is not None else None
            plan[i] = option
            picked[i] = o
            extend(i + 1, more)
            for r, k in items:
                demand[r] -= k
            lacking[i] = None

    extend(0, 0)
    if len(mates) == ng:
        return frozenset(steps)
    return frozenset((s[0], gj, *s[2:]) for s in steps for gj in mates[groups[s[1]]])


@functools.lru_cache(maxsize=1 << 10)
def sets_possible(
    shape: tuple[int, ...], wilds: int, hand_size: int, sets: tuple[Group, ...]
) -> bool:
    """Whether a contract of ``sets`` only, none begun, can be laid from a hand whose
    natural ranks hold ``shape`` cards (in any order: ranks are interchangeable in sets,
    so ``legal_steps`` is empty for the hand exactly when it is for ``shape``); a few
    hundred shapes cover nearly every hand."""
    counts = [0] * 13
    for r, k in zip(NATURAL_RANKS, shape, strict=True):
        counts[r] = k
    return bool(legal_steps(tuple(counts), wilds, hand_size, sets))


def _feasible_alone(group: Group, counts: tuple[int, ...], wilds: int) -> list[tuple]:
    """The group's ``_options`` whose targets pass the feasibility test on their own."""
    out = []
    is_set, _, rank, _, has_natural = group
    any_rank = is_set and rank < 0
    for option in _options(group):
        if any_rank and not counts[option[0]]:
            continue  # a set's rank is one the hand holds (``_targets``)
        short = 0  # the slots its natural cards leave to wild cards
        for r, k in option[1]:
            if r < 0:
                short += k
            elif counts[r] < k:
                short += k - counts[r]
        if short > wilds:
            continue
        if not has_natural and not any([counts[r] for r in option[2]]):
            continue
        out.append(option)
    return out


def _hall_with(counts, before: list[frozenset[int]], ranks: frozenset[int]) -> bool:
    """Hall's condition for every nonempty subset of the lacking groups ``before`` joined
    with a new lacking group of slot ranks ``ranks`` (the subsets without it passed before,
    and ``ranks`` alone passed the test alone)."""
    for k in range(1, len(before) + 1):
        for chosen in combinations(before, k):
            union = ranks.union(*chosen)
            if sum(counts[r] for r in union) < k + 1:
                return False
    return True


def _hall(counts, sets: list[frozenset[int]]) -> bool:
    for k in range(1, len(sets) + 1):
        for chosen in combinations(sets, k):
            if sum(counts[r] for r in frozenset().union(*chosen)) < k:
                return False
    return True


def _add_steps(groups, rep, plan, counts, wilds, demand, lacking, short, steps) -> None:
    """The steps of a feasible plan (``short``: the wild cards it needs), each named by the
    group's first twin ``rep``: a natural card keeps what it needs; a wild card may take a
    slot a natural card would have filled."""
    for gi, group in enumerate(groups):
        is_set = group[0]
        target, _, _, step_slots, rests = plan[gi]
        others = [x for gj, x in enumerate(lacking) if gj != gi and x is not None]
        name = rep[gi]
        for position, rank in step_slots:
            if rank >= 0 and counts[rank]:  # a natural card of the slot's rank
                step = ("set", name, rank) if is_set else ("run", name, position, True)
                if step not in steps and (
                    not others  # Hall's condition over no group holds
                    or _hall(counts[:rank] + (counts[rank] - 1,) + counts[rank + 1 :], others)
                ):
                    steps.add(step)
            if wilds:  # a wild card
                step = ("set", name, -1) if is_set else ("run", name, position, False)
                if step in steps:
                    continue
                # without this slot the plan lacks one wild card fewer, unless its rank's
                # natural cards covered all the rank's slots (one of them is now spare)
                need = short if rank >= 0 and counts[rank] >= demand[rank] else short - 1
                if need > wilds - 1:
                    continue
                own = [] if group[4] else [rests[position]]
                if _hall(counts, others + own):
                    steps.add(step)


# about 4 KB an entry: bounded at a few MB, it holds the groups random play meets (a
# smaller one thrashes while contracts are being laid)
@functools.lru_cache(maxsize=1 << 10)
def _options(group: Group) -> tuple[tuple, ...]:
    """Per target of the group (a set: every natural rank; filtered by the hand in the
    search): (target, its slots' demand as (rank, count) pairs, the ranks of its slots,
    its next-step slots, the ``_rest`` ranks by position)."""
    is_set, size, rank, placed, _ = group
    if is_set:
        targets = [rank] if rank >= 0 else list(NATURAL_RANKS)
    else:
        targets = run_windows(size, placed)
    out = []
    for target in targets:
        ranks = _slots(group, target)
        demand: dict[int, int] = {}
        for r in ranks:
            demand[r] = demand.get(r, 0) + 1
        step_slots = tuple(_step_slots(group, target))
        rests = {pos: frozenset(_rest(group, target, pos)) for pos, _ in step_slots}
        lack = frozenset(r for r in ranks if r >= 0)
        out.append((target, tuple(demand.items()), lack, step_slots, rests))
    return tuple(out)


def slow_legal_steps(
    counts: tuple[int, ...], wilds: int, hand_size: int, groups: tuple[Group, ...]
) -> frozenset[Step]:
    """``legal_steps`` by enumerating every plan (the reference the search is tested
    against)."""
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
        rank_at(p)
        for p in range(target, target + size)
        if p not in placed and p not in (2, position)
    }
