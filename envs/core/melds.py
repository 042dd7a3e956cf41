"""Meld rules as data, and the one validator every game and test uses.

:class:`MeldRules` says what a game accepts: whether runs are of one suit, where the Ace may
sit (low, high, or either but never round the corner: no K-A-2), whether a set needs distinct
suits and how large it may grow, which card types are wild and how many real cards a meld
needs. ``read_run`` / ``read_set`` / ``read_meld`` check a meld as laid (card types in table
order) and tell what each wild card stands for; ``can_form`` checks an unordered group of
cards (can these be arranged into a meld?).

A wild card type that also fits naturally (a 2 in A-2-3 when 2s are wild) is read as
itself; every other wild card stands for the card of its place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import HIGH_ACE_POSITION, JOKER, N_STANDARD

ACE_LOW, ACE_HIGH, ACE_BOTH = "low", "high", "both"


@dataclass(frozen=True)
class MeldReading:
    """What a valid meld is: a set of ``rank``, or a run of ``suit`` (-1 when runs need not
    be suited) over positions ``lo`` .. ``hi``. ``stands_for`` maps the index of each wild card
    that does not sit naturally to what it stands for: its run position, or -1 in a set (a
    wild card in a set stands for the rank in no particular suit)."""

    is_set: bool
    rank: int = -1
    suit: int = -1
    lo: int = 0
    hi: int = 0
    stands_for: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class MeldRules:
    """What counts as a meld in one game."""

    min_size: int = 3
    """Fewest cards in a meld."""
    suited_runs: bool = True
    """Runs are of one suit (False: any suits, consecutive ranks)."""
    ace: str = ACE_BOTH
    """Where the Ace sits in a run: "low" (A-2-3), "high" (Q-K-A) or "both" (either, never
    round the corner)."""
    distinct_suit_sets: bool = True
    """A set holds each suit at most once."""
    max_set_size: int | None = 4
    """Most cards in a set (None: no cap)."""
    wild: frozenset[int] = frozenset({JOKER})
    """Card types that are wild."""
    min_natural: int = 1
    """Fewest cards in a meld that are not wild card types."""
    max_wild: int | None = None
    """Most wild cards in a meld (None: no cap)."""

    def __post_init__(self) -> None:
        if self.ace not in (ACE_LOW, ACE_HIGH, ACE_BOTH):
            raise ValueError(f"ace must be 'low', 'high' or 'both', got {self.ace!r}")
        if self.min_size < 2:
            raise ValueError(f"min_size must be at least 2, got {self.min_size}")

    # ----------------------------------------------------------------------------------
    @property
    def lowest_position(self) -> int:
        return 2 if self.ace == ACE_HIGH else 1

    @property
    def highest_position(self) -> int:
        return 13 if self.ace == ACE_LOW else HIGH_ACE_POSITION

    def is_wild(self, card: int) -> bool:
        return card in self.wild

    def _counts_ok(self, cards: list[int]) -> bool:
        wild = sum(1 for c in cards if c in self.wild)
        return (
            len(cards) >= self.min_size
            and len(cards) - wild >= self.min_natural
            and (self.max_wild is None or wild <= self.max_wild)
        )

    def _run_suits(self, naturals: list[int]) -> list[int] | None:
        """The suit a run of these real cards can have ([-1]: any, or runs are unsuited),
        or None when they are of several suits in a suited game."""
        suits = {c // 13 for c in naturals}
        if not self.suited_runs or not suits:
            return [-1]
        return [suits.pop()] if len(suits) == 1 else None

    def _fits(self, card: int, suit: int, position: int) -> bool:
        """Whether a standard card type sits naturally at ``position`` of a run of ``suit``
        (any suit when runs are not suited)."""
        if card >= N_STANDARD:
            return False
        if suit >= 0 and card // 13 != suit:
            return False
        return card % 13 == (position - 1) % 13

    # ----------------------------------------------------------------------------------
    def read_set(self, cards: list[int]) -> MeldReading | None:
        """A set as laid (card types), or None if it is not one."""
        if not self._counts_ok(cards):
            return None
        if self.max_set_size is not None and len(cards) > self.max_set_size:
            return None
        ranks = {c % 13 for c in cards if c not in self.wild}
        if len(ranks) != 1:
            return None
        rank = ranks.pop()
        # a wild card type of the set's own rank sits naturally (a 2 in a set of 2s)
        real = [c for c in cards if c < N_STANDARD and c % 13 == rank]
        if self.distinct_suit_sets and len({c // 13 for c in real}) != len(real):
            return None
        stands = {i: -1 for i, c in enumerate(cards) if not (c < N_STANDARD and c % 13 == rank)}
        return MeldReading(True, rank=rank, stands_for=stands)

    def read_run(self, cards: list[int]) -> MeldReading | None:
        """A run as laid, lowest position first (card types), or None if it is not one."""
        if not self._counts_ok(cards):
            return None
        n = len(cards)
        naturals = [(i, c) for i, c in enumerate(cards) if c not in self.wild]
        suits = self._run_suits([c for _, c in naturals])
        if suits is None:
            return None
        for suit in suits:
            for lo in range(self.lowest_position, self.highest_position - n + 2):
                if not all(self._fits(c, suit, lo + i) for i, c in naturals):
                    continue
                stands = {
                    i: lo + i
                    for i, c in enumerate(cards)
                    if c in self.wild and not self._fits(c, suit, lo + i)
                }
                return MeldReading(False, suit=suit, lo=lo, hi=lo + n - 1, stands_for=stands)
        return None

    def read_meld(self, cards: list[int]) -> MeldReading | None:
        """A set or a run as laid; a group that reads as both (all wild but one, say) is a set."""
        return self.read_set(cards) or self.read_run(cards)

    def can_form(self, cards: list[int]) -> bool:
        """Whether the card types, in any order, make one valid meld."""
        if self.read_set(cards) is not None:
            return True
        if not self._counts_ok(cards):
            return False
        n = len(cards)
        naturals = [c for c in cards if c not in self.wild]
        wild = n - len(naturals)
        suits = self._run_suits(naturals)
        if suits is None:
            return False
        for suit in suits:
            for lo in range(self.lowest_position, self.highest_position - n + 2):
                free = set(range(lo, lo + n))
                ok = True
                for c in naturals:
                    spot = next((p for p in sorted(free) if self._fits(c, suit, p)), None)
                    if spot is None:
                        ok = False
                        break
                    free.discard(spot)
                if ok and len(free) <= wild:
                    return True
        return False
