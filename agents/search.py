"""Test-time search on top of a blueprint policy (SPARTA: Lerer, Hu, Foerster, Brown, AAAI
2020), for any game whose seat view can sample deals (``SeatView.sample_deals``: every game
registered so far).

At each decision of its seat with more than one legal move, ``SearchAgent`` samples deals
consistent with everything its seat view shows (the cards it cannot see re-dealt at random,
keeping where they are the cards whose place is public), plays each candidate move on each
sampled deal and then the blueprint for every seat to the end of the game, and takes the
move that won most often over the same deals, but only when it beats the blueprint's own
move by more than ``threshold``: otherwise it plays the blueprint's move. With
``rollouts=0`` it is the blueprint. Only its seat view reaches it: ``sample_deals`` builds a
sampled game from the cards the seat cannot see, placed from public information alone.

A rollout is won when a team game is won, or when the seat ends a competitive game with the
best return (ties included: in Dummy rummy, going out). The rollout policy is the blueprint
itself: a game's baseline (microseconds a move) or a trained policy (``PolicyRollouts``:
one network pass per step for all rollouts together); ``others`` may name another member
for the other seats, a model of the opponents or partner, and ``belief=others`` deals the
unseen cards around what that model's play says of its hand (``cannot_hold``: the Dummy
rummy baseline lays off all it can, so it holds nothing that fitted the table when it last
discarded). Common Cause's study (``envs/common_cause/study/ceiling.py``) plays the same
search given the true deal: a measurement of how much of the remaining loss is information,
never an agent (it is not a team member).

Team member: ``search`` or ``search:rollouts=16;blueprint=trained;threshold=0.05;moves=4``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, fields
from itertools import islice
from typing import Any, ClassVar

import numpy as np

from commoncause.envs.core.game import Game, State
from commoncause.envs.core.options import option_pairs
from commoncause.envs.core.seat import SeatView
from commoncause.envs.registry import get_game

from .base import Agent


def can_search(game: Game) -> bool:
    """Whether the search agent plays this game: its seat view can sample deals."""
    return game.seat_view.searchable


def require_search(game: Game) -> None:
    """A one-line ValueError where the search agent cannot play ``game``."""
    if not can_search(game):
        raise ValueError(
            f"the search agent cannot play {game.title}: its seat view samples no deals"
        )


def seat_won(game: Game, state: State, seat: int) -> float:
    """1.0 when the game is over and ``seat`` won it (a team game won; in a competitive
    game the best return, ties included), else 0.0."""
    if not state.is_terminal:
        return 0.0
    returns = state.returns()
    return float(returns[seat] > 0 if game.team else returns[seat] >= max(returns))


@dataclass(frozen=True)
class SearchOptions:
    """How the search agent searches (``search:<name>=<value>[;...]``)."""

    rollouts: int = 16
    """Sampled deals per decision; every legal move is played out once on each (0: the
    blueprint itself)."""
    blueprint: str = "trained"
    """The policy followed, and played by both seats in the rollouts: ``trained``,
    ``baseline`` or a checkpoint path."""
    rollout: str = "blueprint"
    """Who plays both seats in the rollouts: ``blueprint``, or another member (``baseline``,
    a few microseconds a move; ``trained``; a checkpoint path)."""
    others: str = "rollout"
    """Who plays every other seat in the rollouts (the partner, or the opponents):
    ``rollout`` (as the searching seat), or a member (``baseline``, ``trained``, a
    checkpoint path): a model of the others, such as the opponents' known policy."""
    belief: str = "uniform"
    """How the unseen cards are dealt: ``uniform`` (at random, as public information
    allows), or ``others`` (also keeping out of each other seat's hand what the ``others``
    member's play says it does not hold: ``cannot_hold``, as the Dummy rummy baseline)."""
    threshold: float = 0.05
    """Leave the blueprint's move only for one that wins this much more often on the same
    deals (a share of games, 0-1)."""
    moves: int = 4
    """Moves searched: the blueprint's most likely ones (a trained blueprint only; 0: every
    legal move)."""
    seconds: float = 0.0
    """A time budget per decision: stop sampling deals after this many seconds (at least
    one batch); 0: always ``rollouts`` deals. With a budget, decisions depend on speed."""
    batch: int = 8
    """Deals played out together under a time budget (one network pass per step)."""
    horizon: int = 0
    """Moves a rollout may play (every seat's, from the move searched to the end of the
    game) before it counts as not won; 0: no horizon (only the rollouts' own caps, of
    ``max_moves`` each). It bounds a decision's cost where a hand cycles (every seat laid,
    nothing fits), so it suits one-hand games: a rollout of a whole game is longer. The
    longest Dummy rummy hand that ended in ``studies/hand_lengths.py``'s sample took 464
    moves. Named in ``text`` only when set, so that journals written before it existed
    still name their runs."""

    TYPES: ClassVar[dict[str, type]] = {
        "rollouts": int, "blueprint": str, "rollout": str, "others": str, "belief": str,
        "threshold": float, "moves": int, "seconds": float, "batch": int, "horizon": int,
    }  # fmt: skip

    def __post_init__(self) -> None:
        if self.rollouts < 0:
            raise ValueError(f"search option rollouts must be 0 or more, got {self.rollouts}")
        if not 0 <= self.threshold <= 1:
            raise ValueError(f"search option threshold must be 0-1, got {self.threshold}")
        if self.seconds < 0:
            raise ValueError(f"search option seconds must be 0 or more, got {self.seconds}")
        if self.moves < 0:
            raise ValueError(f"search option moves must be 0 or more, got {self.moves}")
        if self.belief not in ("uniform", "others"):
            raise ValueError(f"search option belief must be uniform or others, got {self.belief!r}")
        if self.belief == "others" and self.others == "rollout":
            raise ValueError("search option belief=others needs an others member (others=baseline)")
        if self.batch < 1:
            raise ValueError(f"search option batch must be 1 or more, got {self.batch}")
        if self.horizon < 0:
            raise ValueError(f"search option horizon must be 0 or more, got {self.horizon}")
        for name in ("blueprint", "rollout", "others"):
            value = getattr(self, name)
            if value.partition(":")[0] in ("search", "random") or value == "":
                raise ValueError(
                    f"search option {name}={value}: choose trained, baseline or a checkpoint path"
                )

    @classmethod
    def parse(cls, text: str) -> SearchOptions:
        """From ``"rollouts=16;blueprint=baseline"`` (';' separated); a ValueError names an
        unknown option or a bad value."""
        kwargs: dict[str, Any] = {}
        for key, value in option_pairs(text, tuple(cls.TYPES), "search").items():
            try:
                kwargs[key] = cls.TYPES[key](value)
            except ValueError:
                raise ValueError(f"search option {key}={value!r} is not a number") from None
        return cls(**kwargs)

    def text(self) -> str:
        """The options in ``parse``'s form (``horizon`` only when set)."""
        named = [f.name for f in fields(self) if f.name != "horizon" or self.horizon]
        return ";".join(f"{name}={getattr(self, name)}" for name in named)


# --------------------------------------------------------------------- rollouts


class BaselineRollouts:
    """Plays games to the end with one hand-coded agent in every seat (or ``others`` in
    every seat but the searching one)."""

    def __init__(
        self, agent: Agent, game: Game, others: Agent | None = None, horizon: int = 0
    ) -> None:
        self.agent = agent
        self.game = game
        self.others = others or agent
        self.limit = min(horizon or game.max_moves, game.max_moves)

    def finish(self, states: list[State], seat: int) -> list[float]:
        """1.0 per game ``seat`` won, else 0.0 (``seat_won``; the states are played on)."""
        game = self.game
        out = []
        for state in states:
            seats = range(state.num_seats)
            acts = [self.agent.act if s == seat else self.others.act for s in seats]
            views = [game.seat_view(state, s) for s in seats]
            moves = 0
            while not state.is_terminal and moves < self.limit:
                p = state.current
                state.apply(acts[p](views[p]))
                moves += 1
            out.append(seat_won(game, state, seat))
        return out


class PolicyRollouts:
    """Plays games to the end with a trained policy's most likely move in every seat (or
    ``others`` in every seat but the searching one), one network pass per step for all the
    games still running."""

    def __init__(
        self, agent: Any, game: Game, others: Agent | None = None, horizon: int = 0
    ) -> None:
        self.policy = agent.policy
        self.game = game
        self.others = others
        self.horizon = horizon

    def finish(self, states: list[State], seat: int) -> list[float]:
        """1.0 per game ``seat`` won, else 0.0 (``seat_won``; the states are played on)."""
        from .networks import legal_logits

        game, others = self.game, self.others
        observers = [[game.observer(s) for s in range(st.num_seats)] for st in states]
        views = (
            [[game.seat_view(st, s) for s in range(st.num_seats)] for st in states]
            if others
            else []
        )
        policy = self.policy
        running = list(range(len(states)))
        moves = 0
        others_moves = [0] * len(states)  # (a bound on the others' play between passes)
        played = [0] * len(states)  # every seat's moves, for the horizon
        horizon = self.horizon or float("inf")
        while running and moves < game.max_moves:
            waiting: list[tuple[int, list[int]]] = []
            for i in running:
                state = states[i]
                while (
                    not state.is_terminal
                    and others_moves[i] < game.max_moves
                    and played[i] < horizon
                ):
                    legal = state.legal_actions()
                    if len(legal) == 1:
                        state.apply(legal[0])
                    elif others is not None and state.current != seat:
                        state.apply(others.act(views[i][state.current]))
                        others_moves[i] += 1
                    else:
                        waiting.append((i, legal))
                        break
                    played[i] += 1
            if not waiting:
                break
            obs = np.stack([observers[i][states[i].current].encode(states[i]) for i, _ in waiting])
            logits = legal_logits(policy, obs, [legal for _, legal in waiting])
            for (i, legal), scores in zip(waiting, logits, strict=True):
                states[i].apply(legal[int(np.argmax(scores))])
                played[i] += 1
            running = [i for i, _ in waiting]
            moves += 1
        return [seat_won(game, s, seat) for s in states]


def rollout_player(
    player: Agent, game: Game, others: Agent | None = None, horizon: int = 0
) -> BaselineRollouts | PolicyRollouts:
    """Who plays the rollouts: ``player`` (the blueprint or the ``rollout`` member; batched
    for a trained policy), and ``others`` in the other seats where one is given."""
    if hasattr(player, "policy"):
        return PolicyRollouts(player, game, others, horizon)
    return BaselineRollouts(player, game, others, horizon)


# ----------------------------------------------------------------------- search


@dataclass
class SearchStats:
    """What the searches of one agent cost and changed."""

    decisions: int = 0
    """Decisions with more than one legal move."""
    searched: int = 0
    deviations: int = 0
    """Searched decisions that left the blueprint's move."""
    rollouts: int = 0
    """Games played out (deals x moves searched)."""


def rollout_rates(
    moves: list[int],
    deals: Iterable[State],
    rollouts: BaselineRollouts | PolicyRollouts,
    options: SearchOptions,
    stats: SearchStats,
    seat: int,
) -> np.ndarray | None:
    """How often each of ``moves`` won over ``deals`` when played and then the blueprint to
    the end (the same deals for every move; ``options.rollouts`` of them, fewer under a time
    budget), won as ``seat`` sees it; None when no deal was played."""
    start = time.perf_counter()
    size = options.batch if options.seconds else max(options.rollouts, 1)
    wins = np.zeros(len(moves))
    played = 0
    deals = iter(deals)
    while played < options.rollouts:
        batch = list(islice(deals, min(size, options.rollouts - played)))
        if not batch:
            break
        states = []
        for deal in batch:
            for a in moves:
                state = deal.clone()
                state.apply(a)
                states.append(state)
        wins += np.asarray(rollouts.finish(states, seat)).reshape(len(batch), len(moves)).sum(0)
        played += len(batch)
        stats.rollouts += len(states)
        if options.seconds and time.perf_counter() - start >= options.seconds:
            break
    stats.searched += 1
    return wins / played if played else None


def choose(
    moves: list[int],
    blueprint_move: int,
    deals: Iterable[State],
    rollouts: BaselineRollouts | PolicyRollouts,
    options: SearchOptions,
    stats: SearchStats,
    seat: int,
) -> int:
    """The one of ``moves`` (legal, the blueprint's among them) that won most often over
    ``deals`` (``rollout_rates``) if it beats ``blueprint_move`` by more than the
    threshold; else ``blueprint_move``."""
    rates = rollout_rates(moves, deals, rollouts, options, stats, seat)
    return better_move(moves, blueprint_move, rates, options.threshold, stats)


def better_move(
    moves: list[int],
    blueprint_move: int,
    rates: np.ndarray | None,
    threshold: float,
    stats: SearchStats,
) -> int:
    """The move of ``moves`` with the best rollout win rate (``rates``) if it beats
    ``blueprint_move``'s by more than ``threshold``; else ``blueprint_move``."""
    if rates is None:
        return blueprint_move
    best = int(np.argmax(rates))
    if rates[best] - rates[moves.index(blueprint_move)] > threshold:
        stats.deviations += 1
        return moves[best]
    return blueprint_move


def search_moves(blueprint: Agent, view: SeatView, legal: list[int], k: int) -> list[int]:
    """The legal moves to search: the ``k`` most likely under a trained blueprint (its own
    move first among equals), ascending; else (``k`` 0, or a blueprint without
    probabilities) all."""
    if not k or k >= len(legal) or not hasattr(blueprint, "probabilities"):
        return legal
    probs = blueprint.probabilities(view)
    return sorted(sorted(legal, key=lambda a: -probs[a])[:k])


def decide(
    blueprint: Agent,
    rollouts: BaselineRollouts | PolicyRollouts,
    view: SeatView,
    deals: Iterable[State],
    options: SearchOptions,
    stats: SearchStats,
) -> int:
    """One decision with several legal moves: the blueprint's move, or a better one found
    by ``choose`` over ``deals`` among the moves ``search_moves`` keeps."""
    move = blueprint.act(view)
    stats.decisions += 1
    if options.rollouts:
        moves = search_moves(blueprint, view, view.legal_actions(), options.moves)
        move = choose(moves, move, deals, rollouts, options, stats, view.player)
    return move


class SearchAgent:
    """The blueprint, improved by Monte Carlo search over the deals its seat thinks
    possible (module docstring)."""

    def __init__(
        self,
        options: SearchOptions,
        game: str,
        blueprint: Agent,
        rollout: Agent | None = None,
        others: Agent | None = None,
    ) -> None:
        """Search as ``options`` say on ``game``, following ``blueprint``; ``rollout`` and
        ``others`` are the members those options name (None: the blueprint, and no model
        of the others). ``agents.registry.make_agent`` builds them from the options."""
        record = get_game(game)
        require_search(record)
        self.options = options
        self.blueprint = blueprint
        player = blueprint if rollout is None else rollout
        self.rollouts = rollout_player(player, record, others, options.horizon)
        self.belief = None
        if self.options.belief == "others":
            self.belief = getattr(self.rollouts.others, "cannot_hold", None)
            if self.belief is None:
                raise ValueError(
                    f"search option belief=others: others={self.options.others} does not say"
                    " what it cannot hold (the Dummy rummy baseline does)"
                )
        self.rng = random.Random(0)
        self.stats = SearchStats()
        self.name = f"search:{self.options.text()}"

    def reset(self, seed: int) -> None:
        self.rng.seed(seed)
        self.blueprint.reset(seed)

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        deals = self.deals(view)  # (drawn only when searching)
        return decide(self.blueprint, self.rollouts, view, deals, self.options, self.stats)

    def deals(self, view: SeatView) -> Iterable[State]:
        """The deals this seat thinks possible (``sample_deals``), around the ``belief``."""
        if self.belief is None:
            return view.sample_deals(self.rng)
        others = (s for s in range(view.num_seats) if s != view.player)
        return view.sample_deals(self.rng, {s: self.belief(view, s) for s in others})
