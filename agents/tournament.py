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

import math
import time
from collections.abc import Callable
from concurrent.futures import Executor
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from commoncause.envs.registry import get_game

from .base import Agent
from .evaluate import Job, deal_seed, run_jobs


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


def _mean_interval(values: list[float], z: float = 1.959964) -> dict:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "ci95": [mean, mean] if n else [0.0, 0.0], "n": n}
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": n}


def _ratio_interval(numerators: list[float], denominators: list[float],
                    z: float = 1.959964) -> dict:  # fmt: skip
    """sum(numerators) / sum(denominators) with a 95% interval over the pairs (the delta
    method: the pairs are the deals, each a sum over its games)."""
    n = len(numerators)
    ratio = sum(numerators) / sum(denominators)
    if n < 2:
        return {"mean": ratio, "ci95": [ratio, ratio], "n": n}
    mean_den = sum(denominators) / n
    residuals = [a - ratio * b for a, b in zip(numerators, denominators, strict=True)]
    var = sum(r * r for r in residuals) / (n - 1)
    half = z * math.sqrt(var / n) / mean_den
    return {"mean": ratio, "ci95": [ratio - half, ratio + half], "n": n}


def _per_hand(by_deal: list[list[SeatResult]], n: int) -> tuple[list[dict], dict]:
    """Each member's return and figures per hand, and member 0's margin over the others'
    mean per hand (every seat of a game plays the same hands)."""
    hands = [sum(r.stats["hands"] for r in deal if r.member == 0) for deal in by_deal]
    members = []
    for k in range(n):
        mine = [[r for r in deal if r.member == k] for deal in by_deal]
        keys = {key for deal in mine for r in deal for key in r.stats}
        keys = sorted(keys - {"hands", "truncated"})  # (truncated counts games)
        figures = {"return": _ratio_interval([sum(r.value for r in d) for d in mine], hands)}
        for key in keys:
            totals = [sum(r.stats.get(key, 0.0) for r in d) for d in mine]
            figures[key] = _ratio_interval(totals, hands)
        members.append(figures)
    margins = [
        sum(r.value for r in deal if r.member == 0)
        - sum(r.value for r in deal if r.member != 0) / (n - 1)
        for deal in by_deal
    ]
    return members, _ratio_interval(margins, hands)


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


def evaluate_table(
    team: tuple[str, ...],
    config: Any,
    deals: int,
    seed: int = 0,
    workers: int = 1,
    game: str = "dummy_rummy",
    progress: Callable[[int], None] | None = None,
    pool: Executor | None = None,
) -> TableReport:
    """Play ``deals`` deals of a competitive ``game``, each in every seat rotation."""
    if deals < 1:
        raise ValueError(f"--games must be at least 1, got {deals}")
    team = tuple(team)
    n = len(team)
    size = max(1, min(50, deals // (workers * 8) or 1))
    jobs = [
        Job(play_rotations, game, team, (game, config, seed, first, min(size, deals - first)),
            min(size, deals - first) * n)
        for first in range(0, deals, size)
    ]  # fmt: skip
    by_deal: list[list[SeatResult]] = []
    start = time.perf_counter()
    with closing(run_jobs(jobs, workers, pool, progress)) as results:
        for _, chunk in results:  # in deal order
            by_deal.extend(chunk)
    seconds = time.perf_counter() - start
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
                "return": _mean_interval([row[k] for row in per_deal]),
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
    games = deals * n
    return TableReport(
        game=game,
        team=team,
        config=config.to_dict(),
        seed=seed,
        deals=deals,
        games=games,
        members=members,
        vs_field=_mean_interval(field_diff),
        truncated=truncated,
        seconds=seconds,
        games_per_second=games / seconds if seconds > 0 else float("inf"),
        workers=workers,
        per_deal=per_deal,
        vs_field_per_hand=per_hand_margin if per_hand else None,
    )
