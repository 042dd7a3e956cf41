"""Observation pieces the competitive games share, kept up to date incrementally.

Dummy rummy and Open Rummy keep the same discard log on their states: ``discard_log``
(one ``[card, who, taken]`` entry per card that reached the pile: ``who`` the seat that
discarded it, -1 for the card turned up at the deal; ``taken`` -1 while it lies in the pile,
the seat that took it back, or -2 once the pile was turned into the stock) and
``discard_entry`` (the log index of each card in the pile, bottom first). Their observations
lay out the same planes from it: ``discarded_by`` and ``taken_by`` (one card-type plane per
seat counted from the observer), ``in_pile``, ``top_discard`` and ``recent_discards`` (the
newest discards: card type, discarding seat, taken). :class:`DiscardPlanes` writes them into
an observer's buffer of public planes, looking only at what changed since its last look.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

import numpy as np

from .cards import N_CARD_TYPES


class DiscardPlanes:
    """One observer's discard-log planes, brought up to date from what changed in the log.

    The three count planes (``discarded_by`` for ``max_seats`` seats, ``taken_by`` for as
    many, ``in_pile``) are contiguous from offset ``log``; an entry shows its count times
    ``scale[i]`` (``i`` counted from ``log``), capped at 1. ``top`` and ``recent`` are the
    offsets of ``top_discard`` (53) and of ``recent`` blocks of ``53 + max_seats + 1``.

    A log entry's "taken" is -1 exactly while its card lies in the pile (the entries of
    ``discard_entry``, ascending); it becomes a seat when the card is taken back, -2 when the
    pile is turned into the stock, and never changes again. So the entries to look at again
    are those that left the pile since the last look. A new log (a new hand or round, another
    state) starts the planes afresh."""

    __slots__ = ("_log_at", "_by", "_taken", "_pile", "_end", "_top", "_recent", "_n_recent",
                 "_seats", "_type_of", "_scale", "_log", "_seen", "_open", "_counts",
                 "_me", "_n", "_by_at", "_taken_at", "_shown", "discards")  # fmt: skip

    def __init__(
        self,
        *,
        log: int,
        top: int,
        recent: int,
        n_recent: int,
        max_seats: int,
        type_of: Sequence[int],
        scale: Sequence[float],
    ) -> None:
        self._log_at = log
        self._by, self._taken = 0, max_seats * N_CARD_TYPES
        self._pile = 2 * max_seats * N_CARD_TYPES
        self._end = self._pile + N_CARD_TYPES
        if len(scale) != self._end:
            raise ValueError(f"scale needs {self._end} entries, got {len(scale)}")
        self._top, self._recent, self._n_recent = top, recent, n_recent
        self._seats = max_seats
        self._type_of = type_of
        self._scale = scale
        self._log: list | None = None
        self._seen = 0
        self._open: list[int] = []
        self._counts: list[int] = []
        self._shown: list[int] = []  # the entries of top and recent set to one
        self._me = self._n = -1
        self._by_at: list[int] = []  # per seat: its discarded_by plane in ``_counts``
        self._taken_at: list[int] = []  # ... its taken_by plane
        self.discards = 0
        """Cards discarded by a seat in the current log (the turned-up card not counted)."""

    def update(self, state, me: int, n: int, public: np.ndarray) -> None:
        """Bring the planes in ``public`` up to date with ``state`` for seat ``me`` of ``n``
        (nothing to do when no card reached or left the pile since the last look)."""
        log = state.discard_log
        if log is self._log and len(log) == self._seen and state.discard_entry == self._open:
            return
        view = memoryview(public)  # single entries are written through it (faster)
        self._counts_planes(log, state.discard_entry, me, n, public, view)
        # ``top_discard`` and ``recent_discards`` hold ones only: those shown last time are
        # cleared, then the ones shown now set
        for i in self._shown:
            view[i] = 0.0
        type_of, size, seats = self._type_of, N_CARD_TYPES, self._seats
        discard = state.discard
        shown = [self._top + type_of[discard[-1]]] if discard else []
        base = self._recent
        for card, who, taken in log[: -min(self._n_recent, len(log)) - 1 : -1]:
            shown.append(base + type_of[card])
            if who >= 0:
                shown.append(base + size + (who - me) % n)
            if taken >= 0:
                shown.append(base + size + seats)
            base += size + seats + 1
        for i in shown:
            view[i] = 1.0
        self._shown = shown

    def _counts_planes(
        self, log: list, cur: list[int], me: int, n: int, public: np.ndarray, view: memoryview
    ) -> None:
        """``discarded_by``, ``taken_by`` and ``in_pile`` from the counts behind them, the
        entries that changed written again."""
        at = self._log_at
        if log is not self._log:
            self._log = log
            self._seen = 0
            self._open = []
            self._counts = [0] * self._end
            self.discards = 0
            public[at : at + self._end] = 0.0
        if me != self._me or n != self._n:  # each seat's planes, counted from ``me``
            self._me, self._n = me, n
            self._by_at = [self._by + ((s - me) % n) * N_CARD_TYPES for s in range(n)]
            self._taken_at = [self._taken + ((s - me) % n) * N_CARD_TYPES for s in range(n)]
        seen, old = self._seen, self._open
        counts, type_of, pile = self._counts, self._type_of, self._pile
        by_at, taken_at = self._by_at, self._taken_at
        changed: list[int] = []
        k = bisect_left(cur, seen)  # pile entries already seen: a subset of ``old``
        # both ascending: ``cur[:k]`` is ``old[:k]`` when their last entries agree
        if k == 0 or (k <= len(old) and old[k - 1] == cur[k - 1]):
            left = old[k:]
        else:  # the pile was turned into the stock
            keep = set(cur[:k])
            left = [e for e in old if e not in keep]
        for e in left:
            card, _, taken = log[e]
            t = type_of[card]
            counts[pile + t] -= 1
            changed.append(pile + t)
            if taken >= 0:
                i = taken_at[taken] + t
                counts[i] += 1
                changed.append(i)
        for card, who, taken in log[seen:]:
            t = type_of[card]
            if who >= 0:
                i = by_at[who] + t
                counts[i] += 1
                changed.append(i)
                self.discards += 1
            if taken >= 0:
                i = taken_at[taken] + t
                counts[i] += 1
                changed.append(i)
            elif taken == -1:
                counts[pile + t] += 1
                changed.append(pile + t)
        scale = self._scale
        for i in changed:
            value = counts[i] * scale[i]
            view[at + i] = value if value < 1.0 else 1.0
        self._seen = len(log)
        self._open = list(cur)


# ------------------------------------------------------------------ what a seat does not see
NEXT_DRAWS = 8
"""Stock cards ``HiddenCards`` shows in draw order (the rest only counted)."""


class HiddenCards:
    """What one seat of a hands-and-stock game does not see, for a centralised critic in
    training only (``Game.encode_hidden``; never an observation): the other hands, seats
    counted from the seat's left (``max_seats - 1`` card-type planes), the stock's card
    types (one plane), each a count times ``scale`` of its type capped at 1, then the next
    ``NEXT_DRAWS`` cards of the stock in draw order, one-hot by card type. The state needs
    ``hands``, ``num_seats`` and ``stock`` (its top, drawn next, last)."""

    __slots__ = ("_type_of", "_scale", "_max_seats", "size")

    def __init__(self, type_of: Sequence[int], scale: Sequence[float], max_seats: int) -> None:
        self._type_of = type_of
        self._scale = np.asarray(scale, dtype=np.float32)
        self._max_seats = max_seats
        self.size = (max_seats + NEXT_DRAWS) * N_CARD_TYPES

    def encode(self, state, seat: int) -> np.ndarray:
        type_of, n = self._type_of, N_CARD_TYPES
        counts = np.zeros((self._max_seats, n), dtype=np.float32)
        for k in range(1, state.num_seats):
            row = counts[k - 1]
            for c in state.hands[(seat + k) % state.num_seats]:
                row[type_of[c]] += 1.0
        stock = state.stock
        for c in stock:
            counts[-1, type_of[c]] += 1.0
        counts *= self._scale
        np.minimum(counts, 1.0, out=counts)
        nxt = np.zeros((NEXT_DRAWS, n), dtype=np.float32)
        for i, c in enumerate(reversed(stock[-NEXT_DRAWS:])):
            nxt[i, type_of[c]] = 1.0
        return np.concatenate((counts.ravel(), nxt.ravel()))
