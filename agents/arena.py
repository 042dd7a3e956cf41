"""The one play loop: a game of any registered game between agents, from one deal seed.

Game ``i`` of a run with seed ``s`` is dealt from ``deal_seed(s, i)`` (the game record's
``new_game``: a deck shuffled by ``random.Random(deal_seed(s, i))``), so every team meets the
same deals (paired comparisons). ``rotation`` seats the members round the table (member
``k`` in seat ``(k + rotation) % n``): a competitive evaluation plays each deal in every
rotation, a team game is one rotation. The agent in seat ``s`` is reset with
``seed * n + s``. A game stops at the game's ``max_moves`` (truncated, as the env does).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
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


def game_moves(
    config: Any,
    agents: tuple[Agent, ...],
    seed: int,
    game: str = DEFAULT_GAME,
    watch: Callable[[Any, int], None] | None = None,
    rotation: int = 0,
    view: Callable[[State, int], SeatView] | None = None,
) -> Generator[tuple[Agent, SeatView], int, GameOutcome]:
    """The one play loop (``play_game``'s arguments), as a generator: it yields (agent, its
    seat's view) at each decision, is sent the agent's move, and returns the outcome. Each
    agent is asked by whoever drives it: ``play_game`` one game at a time,
    ``play_side_by_side`` many games with the decisions of batch-acting agents together."""
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
        action = yield seated[player], views[player]
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
    moves = game_moves(config, agents, seed, game, watch, rotation, view)
    try:
        agent, seat_view = next(moves)
        while True:
            agent, seat_view = moves.send(agent.act(seat_view))
    except StopIteration as end:
        return end.value


def play_side_by_side(
    config: Any,
    teams: list[tuple[Agent, ...]],
    seeds: list[int],
    game: str = DEFAULT_GAME,
    rotations: list[int] | None = None,
) -> list[GameOutcome]:
    """The games ``play_game(config, teams[i], seeds[i], game, rotation=rotations[i])``,
    played side by side with the same outcomes: each game needs agents of its own (they
    are reset per game). At each round the waiting decisions of agents that act in batches
    (a ``batch_key``, the same for agents that can act together, and
    ``act_batch(agents, views)``) are taken together, group by group; the others one by
    one."""
    owners: dict[int, int] = {}
    for i, team in enumerate(teams):
        for agent in team:
            if owners.setdefault(id(agent), i) != i:
                raise ValueError(f"{agent.name} plays in two games side by side: each game "
                                 "needs agents of its own")  # fmt: skip
    rotations = rotations or [0] * len(seeds)
    running = [game_moves(config, team, seed, game, rotation=r)
               for team, seed, r in zip(teams, seeds, rotations, strict=True)]  # fmt: skip
    outcomes: list[GameOutcome | None] = [None] * len(running)
    waiting: dict[int, tuple[Agent, SeatView]] = {}

    def advance(i: int, action: int | None) -> None:
        """Game ``i`` to its next decision (sent ``action``, none at its start), or its end."""
        try:
            waiting[i] = next(running[i]) if action is None else running[i].send(action)
        except StopIteration as end:
            outcomes[i] = end.value
            waiting.pop(i, None)

    for i in range(len(running)):
        advance(i, None)
    while waiting:
        groups: dict[Any, list[int]] = {}
        for i, (agent, _) in waiting.items():
            key = getattr(agent, "batch_key", None)
            groups.setdefault(("alone", i) if key is None else ("batch", key), []).append(i)
        chosen: dict[int, int] = {}
        for (kind, _), games in groups.items():
            agents = [waiting[i][0] for i in games]
            views = [waiting[i][1] for i in games]
            if kind == "alone":
                chosen[games[0]] = agents[0].act(views[0])
            else:
                chosen.update(zip(games, agents[0].act_batch(agents, views), strict=True))
        for i, action in chosen.items():
            advance(i, action)
    return outcomes
