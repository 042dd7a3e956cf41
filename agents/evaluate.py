"""Play teams of agents over many seeded deals and report win rates.

Game ``i`` of a run with seed ``s`` is dealt from ``deal_seed(s, i)``, so every team meets
the same deals (paired comparisons), and the result does not depend on how many worker
processes share the games. A *turn* is one player's draw-place-discard, as on the rule
sheet: a game's turns are its draws.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field

from envs.common_cause.rules import GameConfig, GameState
from envs.common_cause.seat import SeatView

from .base import Agent, RandomAgent
from .baseline import BaselineAgent, BaselineOptions

AGENT_NAMES = ("baseline", "random", "trained", "a checkpoint path (.pt)")


def make_agent(spec: str) -> Agent:
    """An agent from its name: ``baseline``, ``baseline:jokers=hold``, ``random``,
    ``trained`` (the shipped checkpoint) or a checkpoint path."""
    name, _, options = spec.partition(":")
    if name == "baseline":
        return BaselineAgent(BaselineOptions.parse(options))
    if name == "random" and not options:
        return RandomAgent()
    if spec == "trained" or spec.endswith(".pt") or "/" in spec:
        from .trained import DEFAULT_CHECKPOINT, PolicyAgent

        return PolicyAgent(DEFAULT_CHECKPOINT if spec == "trained" else spec)
    raise ValueError(f"unknown team member {spec!r}: use one of {', '.join(AGENT_NAMES)}")


def parse_team(text: str) -> tuple[str, str]:
    """``"baseline,random"`` -> ("baseline", "random"); each member is checked."""
    members = [m.strip() for m in text.split(",")]
    if len(members) != 2 or not all(members):
        raise ValueError(f"a team is two members separated by a comma, got {text!r}")
    for m in members:
        make_agent(m)
    return members[0], members[1]


def deal_seed(seed: int, game: int) -> int:
    return seed * 1_000_003 + game


@dataclass(frozen=True)
class GameOutcome:
    win: bool
    turns: int
    pickups: int


def play_game(config: GameConfig, agents: tuple[Agent, Agent], seed: int) -> GameOutcome:
    """One game dealt from ``seed``; seat 0 is ``agents[0]``."""
    state = GameState.new_game(config, seed)
    views = (SeatView(state, 0), SeatView(state, 1))
    agents[0].reset(seed * 2)
    agents[1].reset(seed * 2 + 1)
    while state.result is None:
        player = state.current
        state.apply(agents[player].act(views[player]))
    return GameOutcome(state.result == "win", state.turns, state.pickups)


def _play_games(
    config: GameConfig, agents: tuple[Agent, Agent], seed: int, first: int, count: int
) -> list[GameOutcome]:
    return [play_game(config, agents, deal_seed(seed, i)) for i in range(first, first + count)]


# A worker process makes its team once (a checkpoint is loaded once, not once per chunk).
_worker_team: tuple[tuple[str, str], tuple[Agent, Agent]] | None = None


def _init_worker() -> None:
    global _worker_team
    _worker_team = None


def _play_chunk(args: tuple[GameConfig, tuple[str, str], int, int, int]) -> list[GameOutcome]:
    """Run in a worker process: games ``first`` .. ``first + count - 1``."""
    global _worker_team
    config, team, seed, first, count = args
    if _worker_team is None or _worker_team[0] != team:
        _worker_team = (team, (make_agent(team[0]), make_agent(team[1])))
    return _play_games(config, _worker_team[1], seed, first, count)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool to share between several ``evaluate`` calls of one team (``pool=``)."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_init_worker)


def wilson_interval(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def paired_difference(a, b, z: float = 1.959964) -> dict:
    """Mean of a - b over the same deals (win indicators, or any per-game figure), with a
    normal 95% interval of the paired differences."""
    d = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    n = len(d)
    mean = sum(d) / n
    if n < 2:
        return {"value": mean, "ci95": [float("nan"), float("nan")], "n": n}
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    half = z * math.sqrt(var / n)
    return {"value": mean, "ci95": [mean - half, mean + half], "n": n}


@dataclass
class EvalReport:
    team: tuple[str, str]
    level: str
    stock_size: int
    variants: dict[str, object]
    seed: int
    games: int
    wins: int
    win_rate: float
    ci95: tuple[float, float]
    mean_turns: float
    mean_discard_pickups: float
    seconds: float
    games_per_second: float
    workers: int
    outcomes: list[GameOutcome] = field(default_factory=list, repr=False)

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("outcomes")
        data["wins_by_game"] = "".join("1" if o.win else "0" for o in self.outcomes)
        data["turn_definition"] = "one player's draw-place-discard (a game's turns = its draws)"
        return data


def _chunks(games: int, size: int) -> Iterator[tuple[int, int]]:
    for first in range(0, games, size):
        yield first, min(size, games - first)


def evaluate(
    team: tuple[str, str],
    config: GameConfig,
    games: int,
    seed: int = 0,
    workers: int = 1,
    level: str = "",
    progress: Callable[[int], None] | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> EvalReport:
    """Play ``games`` deals; ``progress(n)`` is called as games finish. With ``workers`` > 1
    the games run in chunks in worker processes (``pool``, from ``worker_pool``, if given)."""
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    # chunks small enough that the workers finish together, large enough to cost nothing
    size = max(1, min(250, games // (workers * 16) or 1))
    jobs = [(config, team, seed, first, count) for first, count in _chunks(games, size)]
    outcomes: list[GameOutcome] = []
    start = time.perf_counter()
    if workers == 1 and pool is None:
        agents = (make_agent(team[0]), make_agent(team[1]))
        for _, _, _, first, count in jobs:
            outcomes.extend(_play_games(config, agents, seed, first, count))
            if progress:
                progress(count)
    else:
        own_pool = pool is None
        executor = worker_pool(workers) if pool is None else pool
        try:
            for job, result in zip(jobs, executor.map(_play_chunk, jobs), strict=True):
                outcomes.extend(result)
                if progress:
                    progress(job[4])
        finally:
            if own_pool:
                executor.shutdown()
    seconds = time.perf_counter() - start
    wins = sum(o.win for o in outcomes)
    variants = {
        "open_hands": config.open_hands,
        "ace_low": config.ace_low,
        "max_open_starts": config.max_open_starts,
        "early_loss": config.early_loss,
        "signal_rule": config.signal_rule,
    }
    return EvalReport(
        team=team,
        level=level or f"stock {config.stock_size}",
        stock_size=config.stock_size,
        variants=variants,
        seed=seed,
        games=games,
        wins=wins,
        win_rate=wins / games,
        ci95=wilson_interval(wins, games),
        mean_turns=sum(o.turns for o in outcomes) / games,
        mean_discard_pickups=sum(o.pickups for o in outcomes) / games,
        seconds=seconds,
        games_per_second=games / seconds if seconds > 0 else float("inf"),
        workers=workers,
        outcomes=outcomes,
    )
