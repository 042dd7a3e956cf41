"""Play teams of agents over many seeded deals and report win rates, for any registered game.

Game ``i`` of a run with seed ``s`` is dealt from ``deal_seed(s, i)`` (the game record's
``new_game``: a deck shuffled by ``random.Random(deal_seed(s, i))``), so every team meets
the same deals (paired comparisons), and the result does not depend on how many worker
processes share the games. A *team* is one agent per seat (two for Common Cause); a game's
*win* is seat 0's return being positive (in a team game every seat shares it). A *turn* is
one player's draw-place-discard, as on the rule sheet: a game's turns are its draws.

One worker pool serves evaluation, calibration and the communication analysis
(``worker_pool`` and ``run_jobs``): a worker makes each agent once per (game, member, seat),
so a checkpoint is loaded once per process, not once per chunk, and ignores Ctrl-C, which
only the main process handles (it cancels what is queued and shuts the pool down).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import closing
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from commoncause.envs.registry import DEFAULT_GAME, get_game

from .base import Agent, RandomAgent
from .stats import wilson_interval
from .user import is_user_spec, load_user_agent

AGENT_NAMES = (
    "baseline",
    "baseline:<option>=<value>[;...]",
    "random",
    "trained",
    "search[:<option>=<value>[;...]]",
    "a checkpoint path (.pt)",
    "FILE.py:Class (your own agent class)",
)
"""What a team member may be, in words (``--team`` help and error messages)."""
AGENT_CHOICES = f"{', '.join(AGENT_NAMES[:-1])} or {AGENT_NAMES[-1]}"


def make_agent(spec: str, game: str = DEFAULT_GAME) -> Agent:
    """An agent from its name: ``baseline`` (the game's own baseline), ``baseline:jokers=hold``,
    ``random``, ``trained`` (the game's shipped checkpoint for its default config),
    ``search:rollouts=16`` (search on top of a blueprint, ``agents.search``),
    a checkpoint path (a policy for this game) or ``FILE.py:Class`` (``agents.user``).
    Anything else is a ValueError that lists the choices."""
    if is_user_spec(spec):
        return load_user_agent(spec)
    name, _, options = spec.partition(":")
    if name == "baseline":
        return get_game(game).baseline(options)
    if name == "random" and not options:
        return RandomAgent()
    if name == "search":
        from .search import SearchAgent, SearchOptions

        return SearchAgent(SearchOptions.parse(options), game)
    if spec == "trained" or spec.endswith(".pt") or "/" in spec:
        from .trained import PolicyAgent, shipped_checkpoint

        return PolicyAgent(shipped_checkpoint(game) if spec == "trained" else spec, game=game)
    raise ValueError(f"unknown team member {spec!r}: choose {AGENT_CHOICES}")


def parse_team(
    text: str, seats: int = 2, game: str = DEFAULT_GAME, config: Any = None
) -> tuple[str, ...]:
    """``"baseline,random"`` -> ("baseline", "random"): one member per seat, each checked;
    a single member fills every seat. With ``config``, ``trained`` names the game's shipped
    policy for that config (its path, where it is not the default config's), as a member
    and as a search member's blueprint or rollout policy."""
    members = [m.strip() for m in text.split(",")]
    if len(members) == 1 and members[0]:
        members = members * seats
    if config is not None:
        members = [_for_config(m, game, config) for m in members]
    if len(members) != seats or not all(members):
        count = _WORDS[seats] if seats < len(_WORDS) else str(seats)
        raise ValueError(
            f"a team is {count} members separated by commas (one per seat), got {text!r}"
        )
    for m in members:
        make_agent(m, game)
    return tuple(members)


def _for_config(member: str, game: str, config: Any) -> str:
    """``member`` with ``trained`` (itself, or a search member's policy) naming the shipped
    policy of ``config`` (``trained_spec``); a ValueError where the game ships none."""
    from .trained import trained_spec

    if member == "trained":
        return trained_spec(game, config)
    name, _, text = member.partition(":")
    if name != "search":
        return member
    from .search import SearchOptions

    options = SearchOptions.parse(text)
    fixed = {
        policy: trained_spec(game, config)
        for policy in ("blueprint", "rollout", "others")
        if getattr(options, policy) == "trained"
    }
    if all(spec == "trained" for spec in fixed.values()):
        return member  # the default config's policy: the member as written
    return f"search:{replace(options, **fixed).text()}"


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def deal_seed(seed: int, game: int) -> int:
    return seed * 1_000_003 + game


@dataclass(frozen=True)
class GameOutcome:
    win: bool
    """Seat 0's return is positive (the team won, in a team game)."""
    turns: int
    pickups: int
    """Turns that took the top discard (0 for a game that does not count them)."""
    returns: tuple[float, ...] = ()
    """Every seat's return."""


REFUSALS = (ValueError, TypeError, IndexError, KeyError)
"""What an engine raises for a move that is not a legal action id."""


def refused(agent: Agent, seat: int, action: object, title: str, exc: Exception) -> ValueError:
    """The one-line error for an agent's move that the game refused."""
    detail = exc if isinstance(exc, ValueError) else "it is not an action id"
    return ValueError(f"{agent.name} in seat {seat} chose {action!r}; {title} refused it: {detail}")


def play_game(
    config: Any,
    agents: tuple[Agent, ...],
    seed: int,
    game: str = DEFAULT_GAME,
    watch: Callable[[Any, int], None] | None = None,
) -> GameOutcome:
    """One game of ``game`` dealt from ``seed``; seat ``i`` is ``agents[i]`` (reset with
    ``seed * num_seats + i``). ``watch(state, player)``, if given, sees the state after each
    move and who made it (a measurement; it must not change the state)."""
    record = get_game(game)
    state = record.new_game(config, seed)
    seats = state.num_seats
    if len(agents) != seats:
        raise ValueError(f"{record.title} is played by {seats} seats, got {len(agents)} agents")
    views = [record.seat_view(state, s) for s in range(seats)]
    for s, agent in enumerate(agents):
        agent.reset(seed * seats + s)
    moves = 0
    while not state.is_terminal and moves < record.max_moves:  # the game's safety net
        player = state.current
        action = agents[player].act(views[player])
        try:
            state.apply(action)
        except REFUSALS as exc:
            raise refused(agents[player], player, action, record.title, exc) from None
        moves += 1
        if watch is not None:
            watch(state, player)
    returns = tuple(state.returns())
    return GameOutcome(returns[0] > 0, state.turns, getattr(state, "pickups", 0), returns)


def _play_games(
    agents: tuple[Agent, ...], game: str, config: Any, seed: int, first: int, count: int
) -> list[GameOutcome]:
    return [
        play_game(config, agents, deal_seed(seed, i), game) for i in range(first, first + count)
    ]


# ------------------------------------------------------------------ the worker pool

_agents: dict[tuple[str, str, int], Agent] = {}
"""(game, member, seat) -> agent, per process."""


PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when its parent dies."""


def die_with_parent(parent: int) -> None:
    """In a worker process: have the kernel kill it when its parent dies, however it died
    (``kill -9``, the OOM killer: no chance to stop its workers), on Linux; exit now if the
    parent is already gone."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # (it died before the line above)
        os._exit(0)


def _init_worker(parent: int) -> None:
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's business
    _agents.clear()


def one_against_baselines(member: Agent, game: str, seats: int, deal: int) -> tuple[Agent, ...]:
    """The seats of deal number ``deal`` for one member against the game's baseline: the
    member in seat ``deal % seats`` (every seat in turn over the deals), a fresh baseline in
    each other."""
    return tuple(member if s == deal % seats else make_agent("baseline", game)
                 for s in range(seats))  # fmt: skip


def team_agents(game: str, team: tuple[str, ...]) -> tuple[Agent, ...]:
    """This process's agents for ``team``, made once per (game, member, seat)."""
    agents = []
    for seat, member in enumerate(team):
        key = (game, member, seat)
        if key not in _agents:
            _agents[key] = make_agent(member, game)
        agents.append(_agents[key])
    return tuple(agents)


@dataclass(frozen=True)
class Job:
    """A chunk of work for the pool: ``task(agents, *args)`` with ``team``'s agents. ``task``
    must be a module-level function (it travels to the worker by name)."""

    task: Callable[..., Any]
    game: str
    team: tuple[str, ...]
    args: tuple
    size: int = 1
    """How many games the job plays (for progress)."""


def _run_job(job: Job) -> Any:
    return job.task(team_agents(job.game, job.team), *job.args)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool to share between several ``evaluate`` / ``run_jobs`` calls (``pool=``)."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                               initargs=(os.getpid(),))  # fmt: skip


def run_jobs(
    jobs: list[Job],
    workers: int = 1,
    pool: Executor | None = None,
    progress: Callable[[int], None] | None = None,
    ordered: bool = True,
) -> Iterable[tuple[Job, Any]]:
    """Run ``jobs`` and yield (job, result): in this process with ``workers`` == 1 and no
    ``pool``, else in ``pool`` (or a pool of ``workers`` made and shut down here). Results
    come in job order if ``ordered``, else as they finish. ``progress(job.size)`` is called
    per finished job. On any exception (Ctrl-C included) queued jobs are cancelled."""
    if workers == 1 and pool is None:
        _agents.clear()  # fresh agents for each run, as a fresh worker would make
        for job in jobs:
            result = _run_job(job)
            if progress:
                progress(job.size)
            yield job, result
        return
    own_pool = pool is None
    executor = worker_pool(workers) if pool is None else pool
    futures = [executor.submit(_run_job, job) for job in jobs]
    done = False
    try:
        if ordered:
            for job, future in zip(jobs, futures, strict=True):
                result = future.result()
                if progress:
                    progress(job.size)
                yield job, result
        else:
            index = {future: job for job, future in zip(jobs, futures, strict=True)}
            for future in as_completed(futures):
                if progress:
                    progress(index[future].size)
                yield index[future], future.result()
        done = True
    finally:
        if not done:
            for future in futures:
                future.cancel()
        if own_pool:
            executor.shutdown(wait=done, cancel_futures=True)


# ------------------------------------------------------------------------ evaluate


@dataclass
class EvalReport:
    team: tuple[str, ...]
    level: str
    stock_size: int | None
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
    game: str = DEFAULT_GAME
    mean_returns: list[float] = field(default_factory=list)
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
    team: tuple[str, ...],
    config: Any,
    games: int,
    seed: int = 0,
    workers: int = 1,
    level: str = "",
    progress: Callable[[int], None] | None = None,
    pool: Executor | None = None,
    game: str = DEFAULT_GAME,
) -> EvalReport:
    """Play ``games`` deals of ``game`` under ``config``; ``progress(n)`` is called as games
    finish. With ``workers`` > 1 the games run in chunks in worker processes (``pool``, from
    ``worker_pool``, if given)."""
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    team = tuple(team)
    # chunks small enough that the workers finish together, large enough to cost nothing
    size = max(1, min(250, games // (workers * 16) or 1))
    jobs = [
        Job(_play_games, game, team, (game, config, seed, first, count), count)
        for first, count in _chunks(games, size)
    ]
    outcomes: list[GameOutcome] = []
    start = time.perf_counter()
    with closing(run_jobs(jobs, workers, pool, progress)) as results:
        for _, result in results:
            outcomes.extend(result)
    seconds = time.perf_counter() - start
    wins = sum(o.win for o in outcomes)
    seats = len(team)
    options = config.to_dict()
    stock_size = options.pop("stock_size", None)
    return EvalReport(
        team=team,
        level=level or config.label(),
        stock_size=stock_size,
        variants=options,
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
        game=game,
        mean_returns=[sum(o.returns[s] for o in outcomes) / games for s in range(seats)],
        outcomes=outcomes,
    )
