"""The rule sheet's simple strategy: "place whatever they can and discard the card that
completes their own open start" — two players who never see each other's cards.

The sheet's sentence leaves choices open; each is an option (``BaselineOptions``) and the
defaults are the readings below. ``commoncause eval --team baseline:<option>=<value>,...``
measures how much each one moves the win rate (README, "Baseline").

* draw (``take_discard="direct"``): take the top discard when it fits the table as it is
  (completes a partner's start, lays off, swaps a joker) or makes an open start with a held
  card; else draw from the stock. ``"always"``: whenever the rules allow it (also when it
  takes several placements, e.g. a joker first); ``"no_start"``: only when it fits as it is.
* place, in this order, as long as anything can be placed: complete the partner's open start
  with a real card; lay off a real card; swap a joker; lay an open start; complete a
  partner's start with a joker; lay off a joker (a taken discard goes first within a rank).
* which open start (``start_choice="best"``): a start whose completing card is in one's own
  hand is sure (that card becomes the message); else the one with the most completing cards
  still unseen (not on the table, in the discard pile or in one's own hand; an unseen joker
  counts half); ties go to pairs, then neighbours. ``"first"``: the first legal one.
* jokers (``jokers="hold"``, the sheet's "keep a joker for the end"): a joker completes a
  partner's start only when no real completing card is still unseen, the stock is nearly
  gone (2 cards) or the hand holds nothing else, and then the start least likely to be
  completed otherwise; it is laid off only when the hand holds nothing else.
  ``"eager"``: jokers are placed like any card.
* discard: a real card that completes one's own open start (the message); otherwise the
  real card with the fewest links (cards in hand it forms a start with, then unseen cards
  it could form one with); a joker only when the hand holds nothing else.
  (``discard="random"``: a random card after the message rule.)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields

from envs.common_cause.actions import (
    ACTIONS,
    COMPLETE,
    COMPLETIONS,
    DISCARD,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    NEIGHBOURS,
    PAIR,
    START,
    START_LOOKUP,
    STARTS,
    SWAP,
)
from envs.common_cause.cards import JOKER, N_STANDARD
from envs.common_cause.rules import DRAW_PHASE
from envs.common_cause.seat import SeatView

# LINKED[c]: the standard cards that form an open start with card c.
LINKED: list[list[int]] = [
    [d for d in range(N_STANDARD) if START_LOOKUP[c * N_STANDARD + d] >= 0]
    for c in range(N_STANDARD)
]
_KIND_ORDER = {PAIR: 0, NEIGHBOURS: 1}
_STANDARD_CARDS = frozenset(range(N_STANDARD))


@dataclass(frozen=True)
class BaselineOptions:
    start_choice: str = "best"
    """"best": most unseen completing cards; "first": the first legal start."""
    jokers: str = "hold"
    """"hold": keep jokers for hopeless starts and the end; "eager": place them like any card."""
    take_discard: str = "direct"
    """"direct": take the top discard when it fits the table as it is or makes an open start
    with a held card; "always": whenever the rules allow (also via several placements);
    "no_start": only when it fits the table as it is."""
    discard: str = "links"
    """"links": after the message rule, the least linked real card; "random": any card."""

    CHOICES = {
        "start_choice": ("best", "first"),
        "jokers": ("eager", "hold"),
        "take_discard": ("always", "direct", "no_start"),
        "discard": ("links", "random"),
    }

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in self.CHOICES[f.name]:
                allowed = ", ".join(self.CHOICES[f.name])
                raise ValueError(f"baseline option {f.name}={value!r}: choose one of {allowed}")

    @classmethod
    def parse(cls, text: str) -> BaselineOptions:
        """From ``"jokers=hold;start_choice=first"`` (';' or '+' separated)."""
        kwargs = {}
        for item in text.replace("+", ";").split(";"):
            if not item:
                continue
            key, sep, value = item.partition("=")
            if not sep or key not in cls.CHOICES:
                raise ValueError(
                    f"baseline option {item!r}: write name=value with a name among "
                    f"{', '.join(cls.CHOICES)}"
                )
            kwargs[key] = value
        return cls(**kwargs)


class BaselineAgent:
    """The sheet's simple strategy, acting only on its own seat view."""

    def __init__(self, options: BaselineOptions | None = None) -> None:
        self.options = options or BaselineOptions()
        self.name = "baseline"
        self.rng = random.Random(0)
        self._unseen_now: tuple[set[int], int] | None = None

    def reset(self, seed: int) -> None:
        self.rng.seed(seed)

    def act(self, view: SeatView) -> int:
        self._unseen_now = None
        if view.phase == DRAW_PHASE:
            if view.stock_size and not self._take_discard(view):
                return DRAW_STOCK  # (legal without asking: the stock is not empty)
            legal = view.legal_actions()
            return DRAW_DISCARD if DRAW_DISCARD in legal else DRAW_STOCK
        legal = view.legal_actions()
        placement = self._placement(view, legal)
        if placement >= 0:
            return placement
        return self._discard(view, legal)

    # ---------------------------------------------------------------------------
    def _take_discard(self, view: SeatView) -> bool:
        if not view.discard_pile:
            return False
        if self.options.take_discard == "always":
            return True
        top = view.discard_pile[-1]
        if self._fits_without_own_start(view, top):
            return True
        if self.options.take_discard == "no_start" or top >= N_STANDARD:
            return False
        # "direct": also to lay it in a new open start with a held card
        return len(view.my_starts) < view.config.max_open_starts and any(
            h < N_STANDARD and START_LOOKUP[top * N_STANDARD + h] >= 0 for h in view.hand
        )

    @staticmethod
    def _fits_without_own_start(view: SeatView, card: int) -> bool:
        if card >= N_STANDARD:
            return True
        for sid in view.partner_starts:
            if any(c == card for _, c, _, _ in COMPLETIONS[sid]):
                return True
        maxpos = view.config.max_position
        for m in view.melds:
            if m.is_set:
                if m.rank == card % 13 and (len(m.cards) < 4 or m.jokers):
                    return True
            elif m.suit == card // 13:
                ends = m.open_ends(maxpos)
                if any(card % 13 == (p - 1) % 13 for p in ends):
                    return True
                if any(c == card for _, c in m.stand_ins()):
                    return True
        return False

    def _placement(self, view: SeatView, legal: list[int]) -> int:
        """The best placement by (rank, start score), or -1 to discard. Ranks: complete a
        partner's start with a real card 1, lay off a real card 2, swap 3, open start 4,
        complete with a joker 5, lay off a joker 6; a taken discard goes first within a rank."""
        pending = view.pending
        pending_type = min(pending, JOKER) if pending >= 0 else -2
        hold = self.options.jokers == "hold"
        best, best_key = -1, None
        for a in legal:
            info = ACTIONS[a]
            kind = info.kind
            score = 0.0
            if kind == DISCARD:
                continue
            if kind == COMPLETE:
                if info.card != JOKER:
                    rank = 1
                elif hold and not self._joker_completion_wanted(view, info.origin):
                    continue
                else:
                    rank = 5  # the joker goes to the start least likely to be completed
                    score = -self._unseen_completers(view, info.origin)
            elif kind == LAYOFF:
                if info.card != JOKER:
                    rank = 2
                elif hold and any(c < N_STANDARD for c in view.hand):
                    continue
                else:
                    rank = 6
            elif kind == SWAP:
                rank = 3
            else:  # START
                rank = 4
                if self.options.start_choice == "best":
                    score = self._start_score(view, info.origin)
            if kind == START:
                uses_pending = pending in STARTS[info.origin].cards
            else:
                uses_pending = info.card == pending_type
            key = (rank, not uses_pending, -score, a)
            if best_key is None or key < best_key:
                best, best_key = a, key
        if best < 0 and pending >= 0:  # the taken card must be placed: any legal placement
            return next(a for a in legal if ACTIONS[a].kind != DISCARD)
        return best

    def _unseen(self, view: SeatView) -> tuple[set[int], int]:
        """Cards this player has not seen anywhere (they are in the partner's hand, the stock
        or put aside), and how many jokers are unseen; computed once per decision."""
        if self._unseen_now is not None:
            return self._unseen_now
        seen = set(view.discard_pile)
        seen.update(view.hand)
        jokers_seen = (N_STANDARD in seen) + (N_STANDARD + 1 in seen)
        jokers_seen += sum(m.jokers for m in view.melds)
        unseen = _STANDARD_CARDS.difference(seen, view.table_cards)
        self._unseen_now = (unseen, 2 - jokers_seen)
        return self._unseen_now

    @staticmethod
    def _completers(view: SeatView, sid: int) -> list[int]:
        maxpos = view.config.max_position
        return [c for _, c, _, pos in COMPLETIONS[sid] if c != JOKER and pos <= maxpos]

    def _unseen_completers(self, view: SeatView, sid: int) -> int:
        unseen, _ = self._unseen(view)
        return sum(1 for c in self._completers(view, sid) if c in unseen)

    def _start_score(self, view: SeatView, sid: int) -> float:
        """A start whose completing card is in one's own hand is sure (the message discard
        completes it): 3; else 1 per unseen completing card and 0.5 per unseen joker."""
        unseen, jokers = self._unseen(view)
        completers = self._completers(view, sid)
        held = view.hand
        sure = 3 if any(c in held for c in completers) else 0
        real = sum(1 for c in completers if c in unseen)
        kind_bonus = 0.01 * (2 - _KIND_ORDER.get(STARTS[sid].kind, 2))
        return sure + real + 0.5 * jokers + kind_bonus

    def _joker_completion_wanted(self, view: SeatView, sid: int) -> bool:
        only_jokers = all(c >= N_STANDARD for c in view.hand)
        return only_jokers or view.stock_size <= 2 or not self._unseen_completers(view, sid)

    def _discard(self, view: SeatView, legal: list[int]) -> int:
        discards = [a for a in legal if ACTIONS[a].kind == DISCARD]
        maxpos = view.config.max_position
        message = {
            c
            for sid in view.my_starts
            for _, c, _, pos in COMPLETIONS[sid]
            if c != JOKER and pos <= maxpos
        }
        hand = view.hand
        for a in discards:
            if a - DISCARD_BASE in message:
                return a
        if self.options.discard == "random":
            return discards[self.rng.randrange(len(discards))]
        real = [c for c in hand if c < N_STANDARD]
        if not real:
            return discards[0]
        unseen, _ = self._unseen(view)
        held = set(real)

        def links(c: int) -> tuple[int, int, int]:
            linked = LINKED[c]
            return (sum(1 for d in linked if d in held), sum(1 for d in linked if d in unseen), -c)

        return DISCARD_BASE + min(real, key=links)
