"""The rule sheet's simple strategy: "place whatever they can and discard the card that
completes their own open start" — two players who never see each other's cards.

The sheet's sentence leaves choices open; each is an option (``BaselineOptions``) and the
defaults are the readings below. ``commoncause eval --team baseline:<option>=<value>,...``
measures how much each one moves the win rate (docs/results/common_cause.md, "The baseline").

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
  ``"eager"``: jokers are placed like any card; ``"hoard"``: a joker completes a start only
  when the hand holds nothing else or the stock is nearly gone.
* discard: a real card that completes one's own open start (the message); otherwise the
  real card with the fewest links (cards in hand it forms a start with, then unseen cards
  it could form one with); a joker only when the hand holds nothing else.
  (``discard="random"``: a random card after the message rule; ``message="never"``: a card
  that completes one's own open start is kept while any other discard is legal.)
"""

from __future__ import annotations

import random
from bisect import bisect_left
from dataclasses import dataclass
from typing import ClassVar

from ..core.options import AgentOptions
from .actions import (
    ACTIONS,
    COMPLETE,
    COMPLETIONS,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    NEIGHBOURS,
    PAIR,
    START,
    START_BASE,
    START_LOOKUP,
    STARTS,
    SWAP,
)
from .cards import HIGH_ACE_POSITION, JOKER, N_STANDARD
from .rules import DRAW_PHASE
from .seat import SeatView

# LINKED[c]: the standard cards that form an open start with card c.
LINKED: list[list[int]] = [
    [d for d in range(N_STANDARD) if START_LOOKUP[c * N_STANDARD + d] >= 0]
    for c in range(N_STANDARD)
]
LINKED_SETS: list[frozenset[int]] = [frozenset(linked) for linked in LINKED]
_KIND_ORDER = {PAIR: 0, NEIGHBOURS: 1}
_STANDARD_CARDS = frozenset(range(N_STANDARD))

# Lookup tables for speed (the decisions are those of the plain definitions in the methods).
_KIND = [info.kind for info in ACTIONS]
_CARD = [info.card for info in ACTIONS]
_ORIGIN = [info.origin for info in ACTIONS]
_START_CARDS = [shape.cards for shape in STARTS]
# _COMPLETERS[max position][sid]: the real cards that complete start sid.
_COMPLETERS = {
    mp: [
        tuple(c for _, c, _, pos in options if c != JOKER and pos <= mp) for options in COMPLETIONS
    ]
    for mp in (13, HIGH_ACE_POSITION)
}
_KIND_BONUS = [0.01 * (2 - _KIND_ORDER.get(shape.kind, 2)) for shape in STARTS]
# _COMPLETION_CARDS[sid]: every card type that completes start sid (any position).
_COMPLETION_CARDS = [frozenset(c for _, c, _, _ in options) for options in COMPLETIONS]


@dataclass(frozen=True)
class BaselineOptions(AgentOptions):
    start_choice: str = "best"
    """"best": most unseen completing cards; "first": the first legal start."""
    jokers: str = "hold"
    """"hold": keep jokers for hopeless starts and the end; "eager": place them like any card;
    "hoard": a joker completes a start only when the hand holds nothing else or the stock is
    nearly gone (2 cards), never earlier for a hopeless start."""
    take_discard: str = "direct"
    """"direct": take the top discard when it fits the table as it is or makes an open start
    with a held card; "always": whenever the rules allow (also via several placements);
    "no_start": only when it fits the table as it is."""
    discard: str = "links"
    """"links": after the message rule, the least linked real card; "random": any card."""
    message: str = "offer"
    """"offer": discard a real card that completes one's own open start (the sheet's tip);
    "never": never discard such a card while another discard is legal (no message)."""

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {
        "start_choice": ("best", "first"),
        "jokers": ("eager", "hold", "hoard"),
        "take_discard": ("always", "direct", "no_start"),
        "discard": ("links", "random"),
        "message": ("never", "offer"),
    }



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

    # The methods below are written for speed; each docstring gives the plain rule.

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
        return len(view.my_starts) < view.config.max_open_starts and not LINKED_SETS[
            top
        ].isdisjoint(view.hand)

    @staticmethod
    def _fits_without_own_start(view: SeatView, card: int) -> bool:
        """A joker; a card that completes a partner's start; or a real card a complete meld
        takes now: on a set of its rank with fewer than 4 cards or a joker, at an open end
        of a run of its suit, or in place of a run's joker standing for it (the meld's
        ``offers``: the card lies on the discard pile, so it is in no meld)."""
        if card >= N_STANDARD:
            return True
        for sid in view.partner_starts:
            if card in _COMPLETION_CARDS[sid]:
                return True
        maxpos = view.config.max_position
        for m in view.melds:
            for c, _ in m.offers(maxpos):
                if c == card:
                    return True
        return False

    def _placement(self, view: SeatView, legal: list[int]) -> int:
        """The best placement by (rank, start score), or -1 to discard. Ranks: complete a
        partner's start with a real card 1, lay off a real card 2, swap 3, open start 4,
        complete with a joker 5, lay off a joker 6; a taken discard goes first within a rank,
        then the higher score (open starts: ``_start_score``; joker completions: fewer unseen
        real completing cards), then the lower action id.

        Ranks are looked at in order, so a start is scored only when no placement of ranks
        1-3 exists."""
        pending = view.pending
        pending_type = (pending if pending < N_STANDARD else JOKER) if pending >= 0 else -2
        first = bisect_left(legal, START_BASE)  # legal ids ascend: discards come first
        if first == len(legal):
            return -1
        kinds, cards = _KIND, _CARD
        completes: list[int] = []
        layoffs: list[int] = []
        swaps: list[int] = []
        starts: list[int] = []
        joker_completes: list[int] = []
        joker_layoffs: list[int] = []
        for i in range(first, len(legal)):
            a = legal[i]
            kind = kinds[a]
            if kind == START:
                starts.append(a)
            elif kind == COMPLETE:
                (completes if cards[a] != JOKER else joker_completes).append(a)
            elif kind == LAYOFF:
                (layoffs if cards[a] != JOKER else joker_layoffs).append(a)
            elif kind == SWAP:
                swaps.append(a)
        for group in (completes, layoffs, swaps):
            if group:
                for a in group:
                    if cards[a] == pending_type:
                        return a
                return group[0]
        if starts:
            if pending >= 0:
                with_pending = [a for a in starts if pending in _START_CARDS[_ORIGIN[a]]]
                if with_pending:
                    starts = with_pending
            if self.options.start_choice != "best" or len(starts) == 1:
                return starts[0]
            best, best_score = -1, 0.0
            for a in starts:
                score = self._start_score(view, _ORIGIN[a])
                if best < 0 or score > best_score:
                    best, best_score = a, score
            return best
        hold = self.options.jokers != "eager"
        hoard = self.options.jokers == "hoard"
        if joker_completes:
            # with jokers=hold, a joker completes a start only when the hand holds nothing
            # else, the stock is nearly gone (2 cards) or no real completing card is unseen
            free = not hold or view.stock_size <= 2 or all(c >= N_STANDARD for c in view.hand)
            best, fewest = -1, 0
            for a in joker_completes:
                unseen = self._unseen_completers(view, _ORIGIN[a])
                if not free and (unseen or hoard):
                    continue
                # the joker goes to the start least likely to be completed otherwise
                if best < 0 or unseen < fewest:
                    best, fewest = a, unseen
            if best >= 0:
                return best
        if joker_layoffs and not (hold and any(c < N_STANDARD for c in view.hand)):
            return joker_layoffs[0]
        if pending >= 0:  # the taken card must be placed: any legal placement
            return legal[first]
        return -1

    def _unseen(self, view: SeatView) -> tuple[set[int], int]:
        """Cards this player has not seen anywhere (they are in the partner's hand, the stock
        or put aside), and how many jokers are unseen; computed once per decision."""
        if self._unseen_now is not None:
            return self._unseen_now
        seen = set(view.discard_pile)
        seen.update(view.hand)
        jokers_seen = (N_STANDARD in seen) + (N_STANDARD + 1 in seen)
        for m in view.melds:
            jokers_seen += m.jokers
        unseen = _STANDARD_CARDS.difference(seen, view.table_cards)
        self._unseen_now = (unseen, 2 - jokers_seen)
        return self._unseen_now

    @staticmethod
    def _completers(view: SeatView, sid: int) -> tuple[int, ...]:
        """The real cards that complete start ``sid``."""
        return _COMPLETERS[view.config.max_position][sid]

    def _unseen_completers(self, view: SeatView, sid: int) -> int:
        unseen, _ = self._unseen(view)
        return sum(1 for c in self._completers(view, sid) if c in unseen)

    def _start_score(self, view: SeatView, sid: int) -> float:
        """A start whose completing card is in one's own hand is sure (the message discard
        completes it): 3; else 1 per unseen completing card and 0.5 per unseen joker (plus
        0.02 for a pair, 0.01 for neighbours: the tie-break)."""
        unseen, jokers = self._unseen(view)
        completers = self._completers(view, sid)
        held = view.hand
        sure = 3 if any(c in held for c in completers) else 0
        real = sum(1 for c in completers if c in unseen)
        return sure + real + 0.5 * jokers + _KIND_BONUS[sid]

    def _discard(self, view: SeatView, legal: list[int]) -> int:
        """A real card that completes one's own open start (the lowest such legal discard);
        else (``discard="links"``) the real card with the fewest links: held cards it forms
        a start with, then unseen cards it could form one with, then the higher card; a
        joker only when the hand holds nothing else."""
        discards = legal[: bisect_left(legal, START_BASE)]  # ids ascend: discards first
        completers = _COMPLETERS[view.config.max_position]
        message = {c for sid in view.my_starts for c in completers[sid]}
        withheld: set[int] = set()
        if message and self.options.message == "offer":
            for a in discards:
                if a - DISCARD_BASE in message:
                    return a
        elif message:  # "never": keep the completing cards while anything else can go
            kept = [a for a in discards if a - DISCARD_BASE not in message]
            if kept:
                discards, withheld = kept, message
        if self.options.discard == "random":
            return discards[self.rng.randrange(len(discards))]
        real = [c for c in view.hand if c < N_STANDARD and c not in withheld]
        if not real:
            return discards[0]
        held = set(real)
        fewest, tied = 99, []  # the cards with the fewest held links
        for c in real:
            n = len(LINKED_SETS[c] & held)
            if n < fewest:
                fewest, tied = n, [c]
            elif n == fewest:
                tied.append(c)
        if len(tied) == 1:
            return DISCARD_BASE + tied[0]
        unseen, _ = self._unseen(view)
        best, best_key = -1, None
        for c in tied:
            key = (len(LINKED_SETS[c] & unseen), -c)
            if best_key is None or key < best_key:
                best, best_key = c, key
        return DISCARD_BASE + best
