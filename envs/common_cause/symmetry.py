"""Common Cause's suit symmetry: the four suits play alike, so renaming them maps a legal game
to a legal game (Other-Play's symmetries, Hu et al. 2020).

A permutation ``perm`` sends suit ``s`` to ``perm[s]`` (a card ``s * 13 + r`` to
``perm[s] * 13 + r``; jokers stay). ``action_map(perm)[a]`` is action ``a`` with its cards
renamed; ``permuted_game(state, perm)`` is the game ``state`` would be had its deck been
renamed, replayed move for move. ``SuitPermutedAgent`` plays an agent in a renamed world: it
sees its own seat of the renamed game and its moves are renamed back, so its conventions are
those of the agent with the suits relabelled.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from itertools import permutations

from ..core.cards import SUITS
from .actions import ACTIONS, START_LOOKUP, STARTS
from .cards import N_STANDARD
from .rules import GameState
from .seat import SeatView

PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(permutations(range(4)))
"""Every renaming of the four suits (the identity first)."""
_ID = {info: a for a, info in enumerate(ACTIONS)}


def parse_permutation(text: str) -> tuple[int, ...]:
    """``"DCSH"``: the suits C, D, H, S become D, C, S, H (a ValueError otherwise)."""
    word = text.strip().upper()
    if sorted(word) != sorted(SUITS):
        raise ValueError(f"a suit permutation names each of {''.join(SUITS)} once, got {text!r}")
    return tuple(SUITS.index(s) for s in word)


def permute_card(card: int, perm: tuple[int, ...]) -> int:
    return card if card < 0 or card >= N_STANDARD else perm[card // 13] * 13 + card % 13


def _permute_start(sid: int, perm: tuple[int, ...]) -> int:
    a, b = (permute_card(c, perm) for c in STARTS[sid].cards)
    return START_LOOKUP[a * N_STANDARD + b]


@cache
def action_map(perm: tuple[int, ...]) -> tuple[int, ...]:
    """``action_map(perm)[a]``: action ``a`` with every card renamed by ``perm``."""
    out = []
    for info in ACTIONS:
        renamed = replace(
            info,
            card=permute_card(info.card, perm),
            origin=_permute_start(info.origin, perm) if info.origin >= 0 else info.origin,
            stands_for=permute_card(info.stands_for, perm),
        )
        out.append(_ID[renamed])
    return tuple(out)


def inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    back = [0] * len(perm)
    for s, t in enumerate(perm):
        back[t] = s
    return tuple(back)


def permuted_game(state: GameState, perm: tuple[int, ...]) -> GameState:
    """The game with ``state``'s deck renamed by ``perm``, replayed through the same moves."""
    renamed = GameState(state.config, [permute_card(c, perm) for c in state.deck])
    moves = action_map(perm)
    for _, action in state.history:
        renamed.apply(moves[action])
    return renamed


class SuitPermutedAgent:
    """``inner`` playing with the suits renamed by ``perm``: it acts on its seat of the renamed
    game (kept in step with the real one, move by move) and its move is renamed back."""

    def __init__(self, inner, perm: tuple[int, ...]) -> None:
        self.inner = inner
        self.perm = perm
        self.name = f"{inner.name} (suits {''.join(SUITS[s] for s in perm)})"
        self._forward = action_map(perm)
        self._back = action_map(inverse(perm))
        self._real: GameState | None = None
        self._renamed: GameState | None = None

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)
        self._real = self._renamed = None

    def _catch_up(self, real: GameState) -> GameState:
        renamed = self._renamed
        if renamed is None or real is not self._real or len(renamed.history) > len(real.history):
            renamed = GameState(real.config, [permute_card(c, self.perm) for c in real.deck])
            self._real = real
        for _, action in real.history[len(renamed.history) :]:
            renamed.apply(self._forward[action])
        self._renamed = renamed
        return renamed

    def act(self, view: SeatView) -> int:
        renamed = self._catch_up(view._state)
        return self._back[self.inner.act(SeatView(renamed, view.player))]
