"""A hand-coded Dummy rummy baseline: collect toward the contract, lay it as soon as
possible, lay off, discard the costliest useless card. It acts on its own seat view only.

Each choice is an option (``baseline:<option>=<value>[;...]``):

- ``take_discard``: ``useful`` (default: take the top discard when it pairs with a held rank
  for a set, sits near held ranks for a run, or is wild) or ``never``.
- ``lay``: ``at_once`` (default: lay the contract as soon as it can be laid) or
  ``after_another`` (wait until another player has laid theirs, not to be the first whose
  melds take lay-offs).
- ``layoff``: ``all`` (default: lay off every card that fits, before discarding) or ``none``
  (lay off only when no discard is legal; reading 1 bars discarding a card that fits
  while a card that fits nothing is held).
- ``wild_layoffs``: ``yes`` (default: lay wild cards off like any other card once the
  contract is down; they cost 50 points if caught) or ``no`` (keep them).
- ``discard``: ``useless`` (default: the card that helps the contract least, costliest first)
  or ``costly`` (the costliest card, usefulness ignored).
- ``cut_in``: ``useful`` (default: cut in for a useful card) or ``never``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from ..core.options import AgentOptions
from .actions import (
    CONTRACTS,
    CUTIN_PASS,
    CUTIN_TAKE,
    DECK,
    DECODED,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    IS_WILD,
    LAYOFF_BASE,
    SET_MELD_BASE,
    points,
)
from .rules import CUTIN_PHASE, DRAW_PHASE
from .seat import SeatView


@dataclass(frozen=True)
class BaselineOptions(AgentOptions):
    take_discard: str = "useful"
    lay: str = "at_once"
    layoff: str = "all"
    wild_layoffs: str = "yes"
    discard: str = "useless"
    cut_in: str = "useful"

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {
        "take_discard": ("useful", "never"),
        "lay": ("at_once", "after_another"),
        "layoff": ("all", "none"),
        "wild_layoffs": ("yes", "no"),
        "discard": ("useless", "costly"),
        "cut_in": ("useful", "never"),
    }


def usefulness(card: int, hand: list[int], contract_index: int) -> float:
    """How much a card helps toward the contract: wild cards most, then a rank held more
    than once (sets) or near other held ranks (runs)."""
    if IS_WILD[card]:
        return 10.0
    if contract_index >= len(CONTRACTS):
        return 0.0
    contract = CONTRACTS[contract_index]
    rank = card % 13
    ranks = [t % 13 for t in hand if not IS_WILD[t]]
    score = 0.0
    if contract.sets:
        score = max(score, float(ranks.count(rank) - 1))  # the card itself is in hand
    if contract.runs:
        length = max(contract.runs)
        near = {r for r in ranks if r != rank and r != 1 and abs(r - rank) < length}
        if rank == 0:  # the Ace also sits above the King
            near |= {r for r in ranks if r >= 13 - length + 1}
        score = max(score, len(near) / 2)
    return score


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
        me = view.player
        hand = view.hand
        if view.phase == CUTIN_PHASE:
            top = DECK.type_of(view.discard_pile[-1])
            wanted = opts.cut_in == "useful" and self._wanted(view, top, hand)
            return CUTIN_TAKE if wanted and CUTIN_TAKE in legal else CUTIN_PASS
        if view.phase == DRAW_PHASE:
            if (
                DRAW_DISCARD in legal
                and opts.take_discard == "useful"
                and self._wanted(view, DECK.type_of(view.discard_pile[-1]), hand)
            ):
                return DRAW_DISCARD
            return DRAW_STOCK
        discards = [a - DISCARD_BASE for a in legal if DISCARD_BASE <= a < CUTIN_TAKE]
        melds = [a for a in legal if SET_MELD_BASE <= a < LAYOFF_BASE]
        others_laid = any(view.laid(s) for s in range(view.num_seats) if s != me)
        if melds and (opts.lay == "at_once" or others_laid or not discards):
            natural = [a for a in melds if not IS_WILD[DECODED[a].card]]
            return min(natural or melds)
        layoffs = [a for a in legal if a >= LAYOFF_BASE]
        if layoffs and (opts.layoff == "all" or not discards):
            natural = [a for a in layoffs if not IS_WILD[DECODED[a].card]]
            if natural:
                return min(natural)
            if opts.wild_layoffs == "yes" or not discards:
                return min(layoffs)
        contract = view.contract_index(me)
        laid = view.laid(me)

        def cost(t: int) -> tuple:
            if laid or opts.discard == "costly":
                return (-points(t), t)
            return (usefulness(t, hand, contract), -points(t), t)

        return DISCARD_BASE + min(discards, key=cost)

    def cannot_hold(self, view: SeatView, seat: int) -> set[int]:
        """The physical cards ``seat`` does not hold if it plays as this baseline (a belief
        for search): once its contract is down it lays off every natural card that fits
        (and every wild card, with ``wild_layoffs=yes``) before it discards, and draws
        nothing but its next turn's card, so what it holds fitted nothing on the table at
        its last discard. Empty before that discard, and with ``layoff=none``."""
        move = view.laid_off_all(seat)
        if move < 0 or self.options.layoff == "none":
            return set()
        wilds = self.options.wild_layoffs == "yes"
        fitted = view.fitted_table(move)
        return {c for t in fitted if wilds or not IS_WILD[t] for c in DECK.copies(t)}

    @staticmethod
    def _wanted(view: SeatView, card: int, hand: list[int]) -> bool:
        if view.laid(view.player):
            return False
        return usefulness(card, [*hand, card], view.contract_index(view.player)) >= 1.0


__all__ = ["BaselineAgent", "BaselineOptions", "usefulness"]
