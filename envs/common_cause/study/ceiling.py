"""The search ceiling of Common Cause (part of its study): the search agent given the true
deal (its ``sample_deals`` yields the game itself; the rollouts are deterministic, so one
deal is all samples), in the arena's one play loop. How much of the remaining loss is information.
Cheating, for measurement only: never a team member (``make_agent`` knows no name for it);
the true deal reaches the search through the view the arena is given here, never through
a seat's own view."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from commoncause.agents.arena import deal_seed, play_game
from commoncause.agents.registry import make_agent
from commoncause.agents.search import SearchOptions
from commoncause.envs.common_cause.rules import GameConfig
from commoncause.envs.common_cause.seat import SeatView

GAME = "common_cause"


class TrueDeal(SeatView):
    """A Common Cause seat view whose sampled deals are the true one (the ceiling's)."""

    def sample_deals(self, rng: Any, *belief: Any) -> list:
        return [self._state.clone()]


def ceiling_team(team: tuple[str, ...]) -> tuple[tuple[str, ...], SearchOptions]:
    """The blueprints (one per seat) and search options of a team's ceiling: a search
    member's blueprint and options, any other member (trained, baseline, a checkpoint) as
    its own blueprint with the default options; a ValueError for a member that cannot be
    a blueprint."""
    options = SearchOptions()
    blueprints = []
    for member in team:
        name, _, text = member.partition(":")
        if name == "search":
            options = SearchOptions.parse(text)
            blueprints.append(options.blueprint)
        else:
            blueprints.append(replace(options, blueprint=member).blueprint)
    return tuple(blueprints), options


def ceiling_game(
    config: GameConfig, blueprints: tuple[str, ...], seed: int, options: SearchOptions
) -> bool:
    """Whether the search (``options``, following each seat's blueprint) wins the game dealt
    from ``seed`` when both seats know the true deal: one rollout per move, no time budget,
    the unseen cards never sampled (fresh agents each game)."""
    exact = replace(options, rollouts=min(options.rollouts, 1), seconds=0.0, belief="uniform")
    agents = tuple(make_agent(f"search:{replace(exact, blueprint=b).text()}", GAME)
                   for b in blueprints)  # fmt: skip
    return play_game(config, agents, seed, GAME, view=TrueDeal).win


def ceiling_games(
    _agents: tuple, blueprints: tuple[str, ...], config: GameConfig, options: SearchOptions,
    seed: int, first: int, count: int,
) -> list[bool]:  # fmt: skip
    """``ceiling_game`` for deals ``first``..``first + count - 1`` of ``seed`` (a worker-pool
    task of no team: it makes its agents each game)."""
    return [
        ceiling_game(config, blueprints, deal_seed(seed, i), options)
        for i in range(first, first + count)
    ]
