"""The agent interface: every agent acts on a seat view and returns an action id."""

from __future__ import annotations

import random
from typing import Protocol

from commoncause.envs.core.seat import SeatView

ILLEGAL_LOGIT = -1e8
"""The logit of an illegal move in a policy network: its probability is exactly 0 and it
gets no gradient (here, below ``networks`` and ``trained`` alike, so neither imports the
other for it)."""


class Agent(Protocol):
    name: str

    def reset(self, seed: int) -> None:
        """Start a new game; ``seed`` makes any random choices reproducible."""

    def act(self, view: SeatView) -> int:
        """One legal action id for the seat whose turn it is."""


class RandomAgent:
    """Uniformly random legal moves."""

    name = "random"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def reset(self, seed: int) -> None:
        self.rng.seed(seed)

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions()
        return legal[self.rng.randrange(len(legal))]
