"""Playing the conditions: every (team, intervention, hands) run on the same deals, in the
worker pool that evaluation uses."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from contextlib import closing
from dataclasses import dataclass, replace

import numpy as np

from commoncause.agents.arena import deal_seed
from commoncause.agents.evaluate import Job, run_jobs
from commoncause.envs.common_cause.rules import GameConfig

from .interventions import DiscardEvent, GameRecord, Listening, play_measured


@dataclass(frozen=True)
class RunSpec:
    """One condition: a team, an intervention mode, and whether hands are open."""

    team: tuple[str, str]
    mode: str = "normal"
    open_hands: bool = False


@dataclass
class RunData:
    spec: RunSpec
    wins: np.ndarray  # 0/1 per game
    turns: np.ndarray
    pickups: np.ndarray
    events: list[tuple[int, DiscardEvent]]  # (game, event)
    listening: list[tuple[int, Listening]]  # (game, decision)
    corrupted: int
    fallbacks: int


BASELINE = ("baseline", "baseline")
GAME = "common_cause"
"""The analysis reads Common Cause's discards: it plays that game only."""


def _play_chunk(
    agents, spec: RunSpec, config: GameConfig, seed: int, first: int, count: int,
    collect: bool, listen_games: int,
) -> tuple[RunSpec, int, list[GameRecord]]:  # fmt: skip
    """Run in a pool worker (``agents`` are the worker's, one per member and seat)."""
    records = [
        play_measured(
            config, agents, deal_seed(seed, i), spec.mode, collect, listen=i < listen_games
        )
        for i in range(first, first + count)
    ]
    return spec, first, records


def play_ceiling(
    team: tuple[str, str],
    config: GameConfig,
    games: int,
    seed: int,
    workers: int = 1,
) -> np.ndarray:
    """Wins (0/1) of ``team``'s search ceiling (``ceiling.ceiling_games``: the search
    knowing the true deal) on games 0..games-1, in the evaluation worker pool."""
    from .ceiling import ceiling_games, ceiling_team

    blueprints, options = ceiling_team(team)
    size = max(1, min(10, games // (workers * 4) or 1))
    jobs = [
        Job(ceiling_games, GAME, (), (blueprints, config, options, seed, first, count), count)
        for first, count in ((f, min(size, games - f)) for f in range(0, games, size))
    ]
    wins: list[bool] = []
    with closing(run_jobs(jobs, workers)) as results:
        for _, result in results:
            wins.extend(result)
    return np.array(wins, dtype=np.float64)


def play_runs(
    runs: dict[RunSpec, tuple[bool, int]],
    config: GameConfig,
    games: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    pool: Executor | None = None,
) -> dict[RunSpec, RunData]:
    """Play every run (spec -> (collect events, listening games)) on games 0..games-1, in
    this process (``workers`` == 1) or in the evaluation worker pool (``pool`` if given)."""
    size = max(1, min(50, games // (workers * 8) or 1))
    jobs = []
    for spec, (collect, listen) in runs.items():
        cfg = replace(config, open_hands=True) if spec.open_hands else config
        for first in range(0, games, size):
            count = min(size, games - first)
            args = (spec, cfg, seed, first, count, collect, listen)
            jobs.append(Job(_play_chunk, GAME, spec.team, args, count))
    records: dict[RunSpec, list[GameRecord | None]] = {s: [None] * games for s in runs}
    total, done = games * len(runs), 0
    with closing(run_jobs(jobs, workers, pool, ordered=False)) as results:
        for _, (spec, first, recs) in results:
            records[spec][first : first + len(recs)] = recs
            done += len(recs)
            if progress:
                progress(done, total)
    out = {}
    for spec, recs in records.items():
        out[spec] = RunData(
            spec,
            np.array([r.win for r in recs], dtype=np.float64),
            np.array([r.turns for r in recs], dtype=np.float64),
            np.array([r.pickups for r in recs], dtype=np.float64),
            [(g, e) for g, r in enumerate(recs) for e in r.events],
            [(g, x) for g, r in enumerate(recs) for x in r.listening],
            sum(r.corrupted_decisions for r in recs),
            sum(r.blind_fallbacks for r in recs),
        )
    return out
