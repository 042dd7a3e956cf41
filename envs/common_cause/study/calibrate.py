"""Win rate against stock size: find the stock that gives a team a target win rate.

``calibrate`` evaluates a team at every stock size in a range on the same deal seeds
(paired) and picks the size whose win rate is closest to the target; ``plot_curve``
draws the curve with its 95% Wilson bands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from commoncause.agents.evaluate import Report, evaluate, worker_pool

from ..rules import MAX_STOCK
from .runs import GAME


@dataclass
class Calibration:
    team: tuple[str, ...]
    target: float
    games_per_size: int
    seed: int
    points: list[Report]
    best_stock_size: int

    def to_json(self) -> dict:
        return {
            "team": list(self.team),
            "target": self.target,
            "games_per_size": self.games_per_size,
            "seed": self.seed,
            "best_stock_size": self.best_stock_size,
            "curve": [
                {
                    "stock_size": p.stock_size,
                    "win_rate": p.win_rate,
                    "ci95": list(p.ci95),
                    "mean_turns": p.mean_turns,
                }
                for p in self.points
            ],
        }


def calibrate(
    team: tuple[str, ...],
    target: float,
    base: Any,
    games: int,
    seed: int = 0,
    workers: int = 1,
    sizes: range = range(MAX_STOCK + 1),
    progress: Callable[[int], None] | None = None,
) -> Calibration:
    """Evaluate ``team`` at every stock size in ``sizes`` (``base`` with each size) on the
    same deals, in one worker pool."""
    if not 0.0 <= target <= 1.0:
        raise ValueError(f"--target must be a win rate between 0 and 1, got {target}")
    pool = worker_pool(workers) if workers > 1 else None  # one pool for every size
    try:
        points = [
            evaluate(
                team,
                replace(base, stock_size=s),
                games,
                seed,
                workers,
                progress=progress,
                pool=pool,
                game=GAME,
            )
            for s in sizes
        ]
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    best = min(points, key=lambda p: (abs(p.win_rate - target), p.stock_size))
    return Calibration(team, target, games, seed, points, best.stock_size)


def plot_curve(cal: Calibration, path: Path, title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [p.stock_size for p in cal.points]
    rates = [p.win_rate for p in cal.points]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.fill_between(
        sizes, [p.ci95[0] for p in cal.points], [p.ci95[1] for p in cal.points], alpha=0.3,
        label="95% interval",
    )  # fmt: skip
    ax.plot(sizes, rates, marker="o", markersize=3, label="win rate")
    ax.axhline(
        cal.target, color="grey", linestyle="--", linewidth=1, label=f"target {cal.target:.0%}"
    )
    ax.axvline(cal.best_stock_size, color="tab:red", linestyle=":", linewidth=1,
               label=f"closest: stock {cal.best_stock_size}")  # fmt: skip
    ax.set_xlabel("stock size (cards left after the put-aside cards)")
    ax.set_ylabel("team win rate")
    ax.set_ylim(0, 1)
    ax.set_title(
        title or f"{'+'.join(cal.team)}: win rate by stock size ({cal.games_per_size} games each)"
    )
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
