"""Evaluations of teams of agents over many seeded deals, for any registered game, on top of
the arena's one play loop (``agents.arena.play_game``) and the interval statistics
(``agents.stats``); one report, keyed by seat.

Game ``i`` of a run with seed ``s`` is dealt from ``deal_seed(s, i)``, so every team meets
the same deals (paired comparisons), and the result does not depend on how many worker
processes share the games. A *team* is one member per seat. A team game (Common Cause) plays
each deal once (one rotation); its *win* is seat 0's return being positive (every seat
shares it). A competitive game plays each deal ``n`` times, once per rotation of the members
round the table (member ``k`` in seat ``(k + r) % n``), so every member meets the same cards
from every seat. A *turn* is one player's draw-place-discard, as on the rule sheet: a
game's turns are its draws.

Per member (``Report.members``; in a team game member ``k`` is seat ``k``): the mean return
per game (for Dummy rummy, minus the penalty points of a hand) with a 95% interval over
deals, the game's own per-seat figures (``State.seat_stats``: points, hands gone out,
contracts laid) and the rate of games it won (outright, ties sharing, in a competitive
game). ``vs_field``: member 0's return minus the mean of the others' on the same deals,
with its paired 95% interval (over deals, normal approximation). A game scored hand by hand
(its seat figures count ``hands``: Dummy rummy) is also reported per hand, its whole games
weighted by their hands: each member's ``per_hand`` (its return and every figure over the
hands played, e.g. ``went_out``: the share of hands it went out) and ``vs_field_per_hand``,
each with a 95% interval over deals (ratio estimates, delta method).

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
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import closing
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from commoncause.envs.registry import DEFAULT_GAME, get_game

from .arena import GameOutcome, deal_seed, play_game, play_side_by_side
from .base import Agent
from .journal import Journal, SeatResult
from .registry import make_agent
from .stats import mean_interval, normal_interval, ratio_interval, wilson_interval

# ------------------------------------------------------------------ the worker pool

_agents: dict[tuple[str, str, int, int], Agent] = {}
"""(game, member, seat, copy) -> agent, per process."""


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


def team_agents(game: str, team: tuple[str, ...], copy: int = 0) -> tuple[Agent, ...]:
    """This process's agents for ``team``, made once per (game, member, seat, copy): games
    played side by side each need their own (``play_deals``)."""
    agents = []
    for seat, member in enumerate(team):
        key = (game, member, seat, copy)
        if key not in _agents:
            _agents[key] = make_agent(member, game)
        agents.append(_agents[key])
    return tuple(agents)


CHEAP = ("baseline", "random")
"""Members made afresh for every game played side by side (they cost nothing to make);
a search or a user's class is not, so a team with one plays its games one by one."""


def side_by_side(agents: tuple[Agent, ...], team: tuple[str, ...]) -> bool:
    """Whether ``team``'s games are played side by side (``play_deals``): a member acts in
    batches (a ``batch_key``) and every other one is cheap to make per game (``CHEAP``)."""
    batched = [getattr(a, "batch_key", None) is not None for a in agents]
    cheap = [m.partition(":")[0] in CHEAP for m in team]
    return any(batched) and all(b or c for b, c in zip(batched, cheap, strict=True))


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


def seat_results(outcomes: list[GameOutcome], team: bool) -> list[SeatResult]:
    """A deal's games (one per rotation, ``outcomes[r]``) as one row per member and game:
    its return, its seat's figures and its share of the win (a team game: 1 for a win;
    a competitive game: the best return, ties sharing)."""
    n = len(outcomes[0].returns)
    rows = []
    for r, outcome in enumerate(outcomes):
        returns = outcome.returns
        best = max(returns)
        winners = sum(1 for x in returns if x == best)
        for k in range(n):
            seat = (k + r) % n
            stats = {**outcome.seat_stats[seat], "truncated": float(outcome.truncated)}
            if team:
                share = float(returns[seat] > 0)
            else:
                share = 1.0 / winners if returns[seat] == best else 0.0
            rows.append(SeatResult(k, seat, returns[seat], stats, share))
    return rows


def play_deals(
    agents: tuple[Agent, ...], game: str, config: Any, seed: int, first: int, count: int,
    rotations: int, team: tuple[str, ...],
) -> list[list[SeatResult]]:  # fmt: skip
    """Deals ``first`` .. ``first + count - 1``, each played in ``rotations`` rotations
    (``play_game``) by ``agents`` (``team``'s); one list of rows (``seat_results``) per
    deal (a pool task). Where ``side_by_side`` says so, the games are played side by side,
    each with agents of its own (``arena.play_side_by_side``: the same games, the
    batch-acting members' decisions taken together)."""
    deals = [deal_seed(seed, i) for i in range(first, first + count) for _ in range(rotations)]
    rotation_of = [r for _ in range(count) for r in range(rotations)]
    if side_by_side(agents, team):
        teams = [team_agents(game, team, copy) for copy in range(len(deals))]
        games = play_side_by_side(config, teams, deals, game, rotation_of)
    else:
        games = [play_game(config, agents, deal, game, rotation=r)
                 for deal, r in zip(deals, rotation_of, strict=True)]  # fmt: skip
    team_game = get_game(game).team
    return [seat_results(games[k : k + rotations], team_game)
            for k in range(0, len(games), rotations)]  # fmt: skip


def _per_hand(by_deal: list[list[SeatResult]], n: int) -> tuple[list[dict], dict]:
    """Each member's return and figures per hand, and member 0's margin over the others'
    mean per hand (every seat of a game plays the same hands)."""
    hands = [sum(r.stats["hands"] for r in deal if r.member == 0) for deal in by_deal]
    members = []
    for k in range(n):
        mine = [[r for r in deal if r.member == k] for deal in by_deal]
        keys = {key for deal in mine for r in deal for key in r.stats}
        keys = sorted(keys - {"hands", "truncated"})  # (truncated counts games)
        figures = {"return": ratio_interval([sum(r.value for r in d) for d in mine], hands)}
        for key in keys:
            totals = [sum(r.stats.get(key, 0.0) for r in d) for d in mine]
            figures[key] = ratio_interval(totals, hands)
        members.append(figures)
    margins = [
        sum(r.value for r in deal if r.member == 0)
        - sum(r.value for r in deal if r.member != 0) / (n - 1)
        for deal in by_deal
    ]
    return members, ratio_interval(margins, hands)


def _won(shares: list[float]) -> dict:
    """``win_rate`` (a member's share of the games won, ties shared), its 95% interval over
    the deals (``win_rate_ci95``) and their number (``win_rate_deals``)."""
    won = mean_interval(shares)
    return {"win_rate": won["value"], "win_rate_ci95": won["ci95"], "win_rate_deals": won["n"]}


def _members(team: tuple[str, ...], by_deal: list[list[SeatResult]], rotations: int) -> list[dict]:
    """Each member's figures: its return per game (a 95% interval over deals), the rate of
    games it won (a 95% interval over deals) and the mean of each of its seats' figures."""
    members = []
    for k, name in enumerate(team):
        mine = [r for deal in by_deal for r in deal if r.member == k]
        keys = sorted({key for r in mine for key in r.stats})
        members.append(
            {
                "member": name,
                "return": normal_interval(
                    [sum(r.value for r in deal if r.member == k) / rotations for deal in by_deal]
                ),
                **_won(
                    [sum(r.win_share for r in deal if r.member == k) / rotations
                     for deal in by_deal]
                ),
                **{f"mean_{key}": sum(r.stats.get(key, 0.0) for r in mine) / len(mine)
                   for key in keys},
            }
        )  # fmt: skip
    return members


@dataclass
class Report:
    """One evaluation, keyed by seat: ``members[k]`` holds member ``k``'s figures (in a team
    game, seat ``k``'s), ``by_deal`` every deal's rows (``SeatResult``, one per member and
    game). The team figures (``wins``, ``win_rate``, ...) are seat 0's (a team game's);
    the table figures (``vs_field``, ...) member 0's against the others'."""

    game: str
    team: tuple[str, ...]
    config: dict
    seed: int
    deals: int
    games: int
    members: list[dict]
    seconds: float
    games_per_second: float
    workers: int
    level: str = ""
    by_deal: list[list[SeatResult]] = field(default_factory=list, repr=False)

    @cached_property
    def team_game(self) -> bool:
        return get_game(self.game).team

    @cached_property
    def wins_by_game(self) -> list[bool]:
        """Per game (a team game's deals), whether seat 0's return was positive."""
        return [r.value > 0 for deal in self.by_deal for r in deal if r.member == 0]

    @property
    def wins(self) -> int:
        return sum(self.wins_by_game)

    @property
    def win_rate(self) -> float:
        return self.wins / len(self.wins_by_game)

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% Wilson interval of ``win_rate``."""
        return wilson_interval(self.wins, len(self.wins_by_game))

    def _seat0_mean(self, key: str) -> float:
        first = [r for deal in self.by_deal for r in deal if r.member == 0]
        return sum(r.stats.get(key, 0) for r in first) / len(first)

    @property
    def mean_turns(self) -> float:
        return self._seat0_mean("turns")

    @property
    def mean_discard_pickups(self) -> float:
        return self._seat0_mean("pickups")

    @property
    def stock_size(self) -> int | None:
        return self.config.get("stock_size")

    @property
    def mean_returns(self) -> list[float]:
        """Each member's mean return per game."""
        return [sum(r.value for deal in self.by_deal for r in deal if r.member == k) / self.games
                for k in range(len(self.team))]  # fmt: skip

    @cached_property
    def per_deal(self) -> list[list[float]]:
        """Per deal and member: its mean return over the deal's games."""
        rotations = self.games // self.deals
        return [[sum(r.value for r in deal if r.member == k) / rotations
                 for k in range(len(self.team))] for deal in self.by_deal]  # fmt: skip

    @cached_property
    def vs_field(self) -> dict:
        """Member 0's return minus the mean of the others' (a 95% interval over deals)."""
        n = len(self.team)
        return normal_interval([row[0] - sum(row[1:]) / (n - 1) for row in self.per_deal])

    @property
    def truncated(self) -> int:
        """Games cut at the game's ``max_moves``."""
        return sum(
            1 for deal in self.by_deal for r in deal if r.member == 0 and r.stats.get("truncated")
        )

    @property
    def vs_field_per_hand(self) -> dict | None:
        return self.per_hand[1] if self.per_hand else None

    @cached_property
    def per_hand(self) -> tuple[list[dict], dict] | None:
        """A game scored by hands: each member's figures per hand and ``vs_field`` per hand
        (``_per_hand``); else None."""
        rows = [r for deal in self.by_deal for r in deal]
        if all("hands" in r.stats for r in rows) and any(r.stats["hands"] for r in rows):
            return _per_hand(self.by_deal, len(self.team))
        return None

    def to_json(self) -> dict:
        """The figures as published: a team game's win rate, turns and pickups with every
        game's win; a competitive game's members and margin over the field."""
        if self.team_game:
            variants = {k: v for k, v in self.config.items() if k != "stock_size"}
            return {
                "team": self.team, "level": self.level, "stock_size": self.stock_size,
                "variants": variants, "seed": self.seed, "games": self.games,
                "wins": self.wins, "win_rate": self.win_rate, "ci95": self.ci95,
                "mean_turns": self.mean_turns, "mean_discard_pickups": self.mean_discard_pickups,
                "seconds": self.seconds, "games_per_second": self.games_per_second,
                "workers": self.workers, "game": self.game, "mean_returns": self.mean_returns,
                "wins_by_game": "".join("1" if w else "0" for w in self.wins_by_game),
                "turn_definition": "one player's draw-place-discard (a game's turns = its draws)",
            }  # fmt: skip
        return {
            "game": self.game, "team": self.team, "config": self.config, "seed": self.seed,
            "deals": self.deals, "games": self.games, "members": self.members,
            "vs_field": self.vs_field, "truncated": self.truncated, "seconds": self.seconds,
            "games_per_second": self.games_per_second, "workers": self.workers,
            "vs_field_per_hand": self.vs_field_per_hand,
        }  # fmt: skip


def _ranges(todo: list[int], size: int) -> list[tuple[int, int]]:
    """Consecutive runs of the deal numbers ``todo`` (ascending), cut at ``size``: (first,
    count) each."""
    out: list[tuple[int, int]] = []
    for i in todo:
        if out and out[-1][0] + out[-1][1] == i and out[-1][1] < size:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((i, 1))
    return out


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
    journal: Path | None = None,
    so_far: bool = False,
) -> Report:
    """Play ``games`` deals of ``game`` under ``config``, each once (a team game) or in every
    seat rotation (a competitive game); ``progress(n)`` is called with the games each
    finished chunk played. With ``workers`` > 1 the deals run in chunks in worker processes
    (``pool``, from ``worker_pool``, if given). With a ``journal`` (``Journal``), only the
    deals it does not hold yet (``seconds`` and ``games_per_second`` are this run's);
    ``so_far``: none, the figures of the deals below ``games`` that the journal holds (a
    run not finished)."""
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if so_far and (journal is None or not journal.exists()):
        raise ValueError(f"--so-far reports what a --journal holds: no journal {journal}")
    team = tuple(team)
    record = get_game(game)
    rotations = 1 if record.team else len(team)
    run = {"game": game, "team": list(team), "config": config.to_dict(), "seed": seed}
    kept = Journal(journal, run, read_only=so_far) if journal is not None else None
    done = kept.done if kept else {}
    todo = [] if so_far else [i for i in range(games) if i not in done]
    # chunks small enough that the workers finish together, large enough to cost nothing
    if record.team:
        size = max(1, min(250, len(todo) // (workers * 16) or 1))
    else:
        size = max(1, min(50, len(todo) // (workers * 8) or 1))
    jobs = [
        Job(play_deals, game, team, (game, config, seed, first, n, rotations, team), n * rotations)
        for first, n in _ranges(todo, size)
    ]
    played: dict[int, list[SeatResult]] = {i: d for i, d in done.items() if i < games}
    if progress and played:
        progress(len(played) * rotations)
    start = time.perf_counter()
    with closing(run_jobs(jobs, workers, pool, progress, ordered=False)) as results:
        for job, chunk in results:
            first = job.args[3]
            played.update(enumerate(chunk, first))
            if kept:
                kept.add(first, chunk)
    seconds = time.perf_counter() - start
    by_deal = [played[i] for i in sorted(played)]
    if not by_deal:
        raise ValueError(f"journal {journal} holds none of the first {games} deals yet")
    members = _members(team, by_deal, rotations)
    report = Report(
        game=game, team=team, config=config.to_dict(), seed=seed, deals=len(by_deal),
        games=len(by_deal) * rotations, members=members, seconds=seconds,
        games_per_second=len(todo) * rotations / seconds if seconds > 0 else float("inf"),
        workers=workers, level=level or config.label(), by_deal=by_deal,
    )  # fmt: skip
    if report.per_hand:
        for member, figures in zip(members, report.per_hand[0], strict=True):
            member["per_hand"] = figures
    return report
