"""The one play loop: a game of any registered game between agents, from one deal seed.

Game ``i`` of a run with seed ``s`` is dealt from ``deal_seed(s, i)`` (the game record's
``new_game``: a deck shuffled by ``random.Random(deal_seed(s, i))``), so every team meets the
same deals (paired comparisons). ``rotation`` seats the members round the table (member
``k`` in seat ``(k + rotation) % n``): a competitive evaluation plays each deal in every
rotation, a team game is one rotation. The agent in seat ``s`` is reset with
``seed * n + s``. A game stops at the game's ``max_moves`` (truncated, as the env does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from commoncause.envs.core.game import State
from commoncause.envs.core.seat import SeatView
from commoncause.envs.registry import DEFAULT_GAME, get_game

from .base import Agent


def deal_seed(seed: int, game: int) -> int:
    """The deal seed of game number ``game`` of a run with seed ``seed``."""
    return seed * 1_000_003 + game


REFUSALS = (ValueError, TypeError, IndexError, KeyError)
"""What an engine raises for a move that is not a legal action id."""


def refused(agent: Agent, seat: int, action: object, title: str, exc: Exception) -> ValueError:
    """The one-line error for an agent's move that the game refused."""
    detail = exc if isinstance(exc, ValueError) else "it is not an action id"
    return ValueError(f"{agent.name} in seat {seat} chose {action!r}; {title} refused it: {detail}")


@dataclass(frozen=True)
class GameOutcome:
    """A finished (or truncated) game, keyed by seat."""

    win: bool
    """Seat 0's return is positive (the team won, in a team game)."""
    turns: int
    pickups: int
    """Turns that took the top discard (seat 0's ``seat_stats`` ``pickups``; 0 for a game
    that does not count them)."""
    returns: tuple[float, ...] = ()
    """Every seat's return."""
    seat_stats: tuple[dict[str, float], ...] = ()
    """Every seat's own figures (``State.seat_stats``: points, went out, ...)."""
    truncated: bool = False
    """Cut at the game's ``max_moves`` before it ended."""


def play_game(
    config: Any,
    agents: tuple[Agent, ...],
    seed: int,
    game: str = DEFAULT_GAME,
    watch: Callable[[Any, int], None] | None = None,
    rotation: int = 0,
    view: Callable[[State, int], SeatView] | None = None,
) -> GameOutcome:
    """One game of ``game`` dealt from ``seed``: member ``k`` (``agents[k]``) in seat
    ``(k + rotation) % n``, the agent in seat ``s`` reset with ``seed * n + s``.
    ``watch(state, player)``, if given, sees the state after each move and who made it (a
    measurement; it must not change the state). ``view(state, seat)`` builds each seat's
    view (default the game's ``seat_view``; only a measurement gives another). A move the
    game refuses is a one-line ValueError (``refused``)."""
    record = get_game(game)
    state = record.new_game(config, seed)
    seats = state.num_seats
    if len(agents) != seats:
        raise ValueError(f"{record.title} is played by {seats} seats, got {len(agents)} agents")
    seated = [agents[(s - rotation) % seats] for s in range(seats)]
    make_view = view or record.seat_view
    views = [make_view(state, s) for s in range(seats)]
    for s, agent in enumerate(seated):
        agent.reset(seed * seats + s)
    moves = 0
    while not state.is_terminal and moves < record.max_moves:  # the game's safety net
        player = state.current
        action = seated[player].act(views[player])
        try:
            state.apply(action)
        except REFUSALS as exc:
            raise refused(seated[player], player, action, record.title, exc) from None
        moves += 1
        if watch is not None:
            watch(state, player)
    returns = tuple(state.returns())
    stats = tuple(state.seat_stats(s) for s in range(seats))
    pickups = int(stats[0].get("pickups", 0))
    return GameOutcome(returns[0] > 0, state.turns, pickups, returns, stats, not state.is_terminal)
