"""Evaluation speed: baseline-vs-baseline games per second with 1 and 2 worker processes.

Times ``agents.evaluate.evaluate`` (the code behind ``commoncause eval``) on Normal from
seed 1: ``--games`` games, ``--repeats`` runs per worker count, wall clock of the whole
call (process start-up included). Reports mean and median games/s per worker count, and
checks that every run won the same games. The load average before the runs is printed:
other work on the machine lowers the wall-clock figures; games per CPU second (CPU time of
this process and its worker processes) is much less affected by it. Run:
``python bench/bench_eval.py [--games 10000] [--repeats 3] [--workers 1 2] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.evaluate import evaluate  # noqa: E402
from commoncause.envs.common_cause.rules import GameConfig  # noqa: E402

TEAM = ("baseline", "baseline")


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished worker processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure(workers: int, games: int, repeats: int, seed: int = 1) -> dict:
    rates, cpu_rates, wins = [], [], set()
    for _ in range(repeats):
        cpu, start = _cpu_seconds(), time.perf_counter()
        report = evaluate(TEAM, GameConfig(), games, seed=seed, workers=workers)
        rates.append(games / (time.perf_counter() - start))
        cpu_rates.append(games / (_cpu_seconds() - cpu))
        wins.add(report.wins)
    if len(wins) != 1:
        raise AssertionError(f"runs with {workers} workers disagree: wins {sorted(wins)}")
    return {
        "workers": workers,
        "games": games,
        "repeats": repeats,
        "wins": wins.pop(),
        "games_per_s": [round(r, 1) for r in rates],
        "mean_games_per_s": round(statistics.mean(rates), 1),
        "median_games_per_s": round(statistics.median(rates), 1),
        "median_games_per_cpu_s": round(statistics.median(cpu_rates), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per run (10000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per worker count (3)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="(1 2)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    load = os.getloadavg()[0]
    print(
        f"baseline vs baseline, Normal, seed 1: {args.games:,} games x {args.repeats} runs; "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load {load:.2f}"
    )
    results = [measure(w, args.games, args.repeats) for w in args.workers]
    print(
        f"{'workers':>7}  {'mean games/s':>12}  {'median games/s':>14}  {'games/CPU s':>11}  runs"
    )
    for r in results:
        runs = ", ".join(f"{x:,.0f}" for x in r["games_per_s"])
        print(
            f"{r['workers']:>7}  {r['mean_games_per_s']:>12,.0f}  "
            f"{r['median_games_per_s']:>14,.0f}  {r['median_games_per_cpu_s']:>11,.0f}  {runs}"
        )
    if args.json:
        data = {
            "team": list(TEAM),
            "level": "normal",
            "seed": 1,
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_before": round(load, 2),
            "results": results,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
