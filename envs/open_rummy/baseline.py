"""A hand-coded Open Rummy baseline: meld early (it unlocks lay-offs), take jokers back
when it can, lay off, discard the least useful card, costliest first. It acts on its own
seat view only.

Each choice is an option (``baseline:<option>=<value>[;...]``):

- ``take_discard``: ``useful`` (default: take the top discard when it completes a meld with
  the hand, fits a meld on the table once one's own meld is down, or is a joker) or
  ``never``.
- ``card_swap``: ``useful`` (default: at a round's start, swap the least useful card for
  the top discard when the baseline would take it) or ``never``.
- ``steal``: ``yes`` (default: take a joker from the table whenever the stand-in is held)
  or ``no``.
- ``jokers``: ``use`` (default: lay jokers in melds and off like any card) or ``keep``
  (lay a meld of natural cards when one is there; lay jokers off only with four cards or
  fewer left).
- ``discard``: ``useless`` (default: the card that helps least, costliest first) or
  ``costly`` (the costliest card).

Measured (4 seats, ``rounds=1``, 400 rounds each): see
``readings.md``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from ..core.cards import JOKER
from ..core.options import AgentOptions
from .actions import (
    CARDSWAP_BASE,
    DECODED,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF_BASE,
    RUN_JOKER_BASE,
    RUN_STEP_BASE,
    SET_STEP_BASE,
    STEAL_BASE,
    TYPE_OF,
    points,
    position_of,
)
from .meld_plans import SET_JOKER, plans
from .rules import DRAW_PHASE
from .seat import SeatView


@dataclass(frozen=True)
class BaselineOptions(AgentOptions):
    take_discard: str = "useful"
    card_swap: str = "useful"
    steal: str = "yes"
    jokers: str = "use"
    discard: str = "useless"

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {
        "take_discard": ("useful", "never"),
        "card_swap": ("useful", "never"),
        "steal": ("yes", "no"),
        "jokers": ("use", "keep"),
        "discard": ("useless", "costly"),
    }


def usefulness(card: int, hand: list[int]) -> float:
    """How much a card helps toward a meld: a joker most, then one point per other card of
    its rank in another suit and per card of its suit within two run places."""
    if card == JOKER:
        return 10.0
    rank, suit, pos = card % 13, card // 13, position_of(card)
    score = 0.0
    for t in set(hand):
        if t in (JOKER, card):
            continue
        if t % 13 == rank or t // 13 == suit and abs(position_of(t) - pos) <= 2:
            score += 1.0
    return score


def _is_natural_step(action: int) -> bool:
    return action != SET_JOKER and not RUN_JOKER_BASE <= action < LAYOFF_BASE


class BaselineAgent:
    """The rule-of-thumb player described above."""

    name = "baseline"

    def __init__(self, options: BaselineOptions | None = None) -> None:
        self.options = options or BaselineOptions()
        self.rng = random.Random(0)

    def reset(self, seed: int) -> None:
        self.rng.seed(seed)

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        opts = self.options
        hand = view.hand
        if view.phase == DRAW_PHASE:
            top = TYPE_OF[view.discard_pile[-1]] if view.discard_pile else -1
            wanted = top >= 0 and self._wanted(view, top, hand)
            swaps = [a for a in legal if CARDSWAP_BASE <= a < SET_STEP_BASE]
            if swaps and wanted and opts.card_swap == "useful":
                after = [*hand, top]
                return min(swaps, key=lambda a: self._keep(a - CARDSWAP_BASE, after))
            if DRAW_DISCARD in legal and wanted and opts.take_discard == "useful":
                return DRAW_DISCARD
            return DRAW_STOCK
        steps = [a for a in legal if SET_STEP_BASE <= a < LAYOFF_BASE]
        if view.building:
            natural = [a for a in steps if _is_natural_step(a)]
            return min(natural or steps)
        steals = [a for a in legal if a >= STEAL_BASE]
        if steals and opts.steal == "yes":
            return min(steals)
        if steps:
            choice = self._meld_start(view, hand, steps)
            if choice is not None:
                return choice
        layoffs = [a for a in legal if LAYOFF_BASE <= a < STEAL_BASE]
        if layoffs:
            natural = [a for a in layoffs if DECODED[a].card != JOKER]
            if natural:
                return min(natural)
            if opts.jokers == "use" or len(hand) <= 4:
                return min(layoffs)
        discards = [a - DISCARD_BASE for a in legal if DISCARD_BASE <= a < CARDSWAP_BASE]
        if opts.discard == "costly":
            return DISCARD_BASE + min(discards, key=lambda t: (t == JOKER, -points(t), t))
        return DISCARD_BASE + min(discards, key=lambda t: self._keep(t, hand))

    def _meld_start(self, view: SeatView, hand: list[int], steps: list[int]) -> int | None:
        held = frozenset(t for t in hand if t != JOKER)
        natural_plans = [p for p in plans(held, False) if p <= set(steps)]
        if natural_plans:
            best = max(natural_plans, key=lambda p: (sum(_step_points(a) for a in p), -min(p)))
            return min(best)
        if self.options.jokers == "keep" and len(hand) > 4:
            return None
        natural = [a for a in steps if _is_natural_step(a)]
        return min(natural or steps)

    @staticmethod
    def _keep(t: int, hand: list[int]) -> tuple:
        """Sort key of a card to give away: least useful first, then the costliest."""
        return (usefulness(t, hand), -points(t), t)

    @staticmethod
    def _wanted(view: SeatView, card: int, hand: list[int]) -> bool:
        if card == JOKER:
            return True
        if view.laid(view.player) and any(view.fits(m, card) for m in view.live_melds()):
            return True
        if len(hand) < 3:  # a meld of three needs a fourth card to discard
            return False
        held = frozenset(t for t in hand if t != JOKER) | {card}
        jokers = JOKER in hand
        return any(any(_step_card(a) == card for a in p) for p in plans(held, jokers))


def _step_card(action: int) -> int:
    if action < RUN_STEP_BASE:
        return action - SET_STEP_BASE
    if action < RUN_JOKER_BASE:
        return action - (RUN_STEP_BASE)
    return JOKER


def _step_points(action: int) -> int:
    t = _step_card(action)
    return points(t) if t != JOKER else 0


__all__ = ["BaselineAgent", "BaselineOptions", "usefulness"]
