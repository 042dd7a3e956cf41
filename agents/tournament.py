"""Competitive games: a table of agents over many deals, every member in every seat.

Deal ``i`` of seed ``s`` comes from ``deal_seed(s, i)`` and is played ``n`` times, once per
rotation of the members round the table (member ``k`` in seat ``(k + r) % n``), so every
member meets the same cards from every seat and the comparisons are paired by deal. Per
member: the mean return per game (for Dummy rummy, minus the penalty points of a hand) with
a 95% interval over deals, the game's own per-seat figures (``State.seat_stats``: points,
hands gone out, contracts laid) and the rate of games it won outright (ties share).
``vs_field``: member 0's return minus the mean of the others' on the same deals, with its
paired 95% interval (over deals, normal approximation).

A game scored hand by hand (its seat figures count ``hands``: Dummy rummy) is also reported
per hand, its whole games weighted by their hands: each member's ``per_hand`` (its return and
every figure over the hands played, e.g. ``went_out``: the share of hands it went out) and
``vs_field_per_hand``, each with a 95% interval over deals (ratio estimates, delta method).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from commoncause.envs.registry import get_game

from .base import Agent
from .evaluate import Job, deal_seed, run_jobs
from .stats import normal_interval, ratio_interval


@dataclass(frozen=True)
class SeatResult:
    """One member's game: its return, its seat's figures, and its share of the win."""

    member: int
    seat: int
    value: float
    stats: dict[str, float]
    win_share: float


def play_rotations(
    agents: tuple[Agent, ...], game: str, config: Any, seed: int, first: int, count: int
) -> list[list[SeatResult]]:
    """Deals ``first`` .. ``first + count - 1``, each played in every rotation; one list of
    results (one per member per rotation) per deal."""
    record = get_game(game)
    n = len(agents)
    out = []
    for i in range(first, first + count):
        deal = deal_seed(seed, i)
        results: list[SeatResult] = []
        for r in range(n):
            state = record.new_game(config, deal)
            seated = [agents[(s - r) % n] for s in range(n)]  # member k sits at (k + r) % n
            views = [record.seat_view(state, s) for s in range(n)]
            for s, agent in enumerate(seated):
                agent.reset(deal * n + s)
            moves = 0
            while not state.is_terminal and moves < record.max_moves:
                state.apply(seated[state.current].act(views[state.current]))
                moves += 1
            returns = state.returns()
            best = max(returns)
            winners = sum(1 for x in returns if x == best)
            for k in range(n):
                seat = (k + r) % n
                stats = {**state.seat_stats(seat), "truncated": float(not state.is_terminal)}
                share = 1.0 / winners if returns[seat] == best else 0.0
                results.append(SeatResult(k, seat, returns[seat], stats, share))
        out.append(results)
    return out


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


@dataclass
class TableReport:
    game: str
    team: tuple[str, ...]
    config: dict
    seed: int
    deals: int
    games: int
    members: list[dict]
    vs_field: dict
    truncated: int
    seconds: float
    games_per_second: float
    workers: int
    per_deal: list[list[float]] = field(default_factory=list, repr=False)
    vs_field_per_hand: dict | None = None

    def to_json(self) -> dict:
        data = dict(self.__dict__)
        data.pop("per_deal")
        return data


def read_journal(path: Path, text: str | None = None) -> tuple[dict, dict[int, list[SeatResult]]]:
    """The run a ``Journal`` names and the deals it holds, by deal number (``text``: the
    file's, if read already); a row cut short by a stop is skipped."""
    lines = (path.read_text() if text is None else text).splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict):
        raise ValueError(f"journal {path} is not an evaluation journal")
    done: dict[int, list[SeatResult]] = {}
    for number, line in enumerate(lines[1:], 2):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:  # a chunk cut short by the stop: played again
            continue
        try:
            for i, deal in enumerate(row["deals"], row["first"]):
                done[i] = [SeatResult(**r) for r in deal]
        except (KeyError, TypeError) as error:
            raise ValueError(
                f"journal {path} line {number} is not a row of deals ({error!r}): "
                "mend or remove that line"
            ) from None
    return header, done


class Journal:
    """The deals of a table evaluation played so far, one JSON line per finished chunk
    after a first line naming the run (game, team, config, seed): a run stopped part way
    continues from it, and a longer run of the same table extends it. The header names the
    members as given (a checkpoint by its path, not its contents): retrained weights at the
    same path need a new journal."""

    def __init__(self, path: Path, run: dict, read_only: bool = False) -> None:
        """Open ``path`` for ``run`` (``read_only``: read what it holds, change nothing)."""
        self.path = path
        self.done: dict[int, list[SeatResult]] = {}
        try:
            text = path.read_text() if path.exists() else ""
        except UnicodeDecodeError:
            raise ValueError(f"journal {path} is not an evaluation journal (not text)") from None
        if read_only:
            if text:
                self._read(text, run)
        elif text and not json.dumps(run).startswith(text):  # not this run's header cut short
            self._read(text, run)
            kept = path.with_name(path.name + ".tmp")  # rewritten whole, a cut line dropped
            kept.write_text("".join(json.dumps(x) + "\n" for x in [run, *self._rows()]))
            os.replace(kept, path)  # at once: a stop here loses nothing
        else:  # new, or only a header cut short by a stop
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(run) + "\n")

    def _read(self, text: str, run: dict) -> None:
        header, self.done = read_journal(self.path, text)
        if header != run:
            raise ValueError(
                f"journal {self.path} is of another run ({header}), not of this one ({run}): "
                "give another file"
            )

    def _rows(self) -> list[dict]:
        return [{"first": i, "deals": [[asdict(r) for r in d]]} for i, d in self.done.items()]

    def add(self, first: int, chunk: list[list[SeatResult]]) -> None:
        """Keep deals ``first`` .. ``first + len(chunk) - 1`` (written at once)."""
        for i, deal in enumerate(chunk, first):
            self.done[i] = deal
        row = {"first": first, "deals": [[asdict(r) for r in d] for d in chunk]}
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")


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


def evaluate_table(
    team: tuple[str, ...],
    config: Any,
    deals: int,
    seed: int = 0,
    workers: int = 1,
    game: str = "dummy_rummy",
    progress: Callable[[int], None] | None = None,
    pool: Executor | None = None,
    journal: Path | None = None,
    so_far: bool = False,
) -> TableReport:
    """Play ``deals`` deals of a competitive ``game``, each in every seat rotation; with a
    ``journal`` (``Journal``), only the deals it does not hold yet (``seconds`` and
    ``games_per_second`` are this run's); ``so_far``: none, the figures of the deals below
    ``deals`` that the journal holds (a run not finished)."""
    if deals < 1:
        raise ValueError(f"--games must be at least 1, got {deals}")
    if so_far and (journal is None or not journal.exists()):
        raise ValueError(f"--so-far reports what a --journal holds: no journal {journal}")
    team = tuple(team)
    n = len(team)
    run = {"game": game, "team": list(team), "config": config.to_dict(), "seed": seed}
    kept = Journal(journal, run, read_only=so_far) if journal is not None else None
    done = kept.done if kept else {}
    todo = [] if so_far else [i for i in range(deals) if i not in done]
    size = max(1, min(50, len(todo) // (workers * 8) or 1))
    jobs = [
        Job(play_rotations, game, team, (game, config, seed, first, count), count * n)
        for first, count in _ranges(todo, size)
    ]
    played: dict[int, list[SeatResult]] = {i: d for i, d in done.items() if i < deals}
    if progress and played:
        progress(len(played) * n)
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
        raise ValueError(f"journal {journal} holds none of the first {deals} deals yet")
    games_now = len(todo) * n
    # per deal and member: mean over the rotations
    per_deal = [
        [sum(r.value for r in deal if r.member == k) / n for k in range(n)] for deal in by_deal
    ]
    members = []
    for k, name in enumerate(team):
        mine = [r for deal in by_deal for r in deal if r.member == k]
        keys = sorted({key for r in mine for key in r.stats})
        members.append(
            {
                "member": name,
                "return": normal_interval([row[k] for row in per_deal]),
                "win_rate": sum(r.win_share for r in mine) / len(mine),
                **{f"mean_{key}": sum(r.stats.get(key, 0.0) for r in mine) / len(mine)
                   for key in keys},
            }
        )  # fmt: skip
    field_diff = [row[0] - sum(row[1:]) / (n - 1) for row in per_deal]
    truncated = sum(
        1 for deal in by_deal for r in deal if r.member == 0 and r.stats.get("truncated")
    )
    per_hand = None
    if all("hands" in r.stats for deal in by_deal for r in deal) and any(
        r.stats["hands"] for deal in by_deal for r in deal
    ):
        per_hand, per_hand_margin = _per_hand(by_deal, n)
        for member, figures in zip(members, per_hand, strict=True):
            member["per_hand"] = figures
    return TableReport(
        game=game,
        team=team,
        config=config.to_dict(),
        seed=seed,
        deals=len(by_deal),
        games=len(by_deal) * n,
        members=members,
        vs_field=normal_interval(field_diff),
        truncated=truncated,
        seconds=seconds,
        games_per_second=games_now / seconds if seconds > 0 else float("inf"),
        workers=workers,
        per_deal=per_deal,
        vs_field_per_hand=per_hand_margin if per_hand else None,
    )
