"""``commoncause benchmark``: the ad-hoc teamplay benchmark of ``study.benchmark`` for one
agent: a table on the terminal and the JSON (``--json``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from commoncause.agents.registry import AGENT_CHOICES
from commoncause.envs.common_cause.study.benchmark import (
    BENCHMARK,
    DEFAULT_GAMES,
    LISTEN_GAMES,
    SEED,
    ZOO,
    run_benchmark,
    zoo_matrix,
)
from commoncause.options import add_seed_argument, check_output_file
from commoncause.progress import progress


def add_arguments(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--agent", help=f"the agent to score: {AGENT_CHOICES}")
    what.add_argument(
        "--zoo-matrix", action="store_true",
        help="play every partner of the zoo with every partner (the published cross-play "
        "matrix) instead of scoring an agent",
    )  # fmt: skip
    p.add_argument(
        "--split", default="all", choices=("train", "test", "all"),
        help="the zoo's partners to play with (default all)",
    )  # fmt: skip
    p.add_argument(
        "--games", type=int, default=DEFAULT_GAMES,
        help=f"deals per pairing and seat (default {DEFAULT_GAMES:,})",
    )  # fmt: skip
    add_seed_argument(p, SEED, f"deal seed ({BENCHMARK}'s published seed by default)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument(
        "--listen-games", type=int, default=LISTEN_GAMES,
        help=f"self-play deals on which listening is measured (default {LISTEN_GAMES}; each "
        "costs a decision per other legal discard at every listener decision)",
    )  # fmt: skip
    p.add_argument(
        "--compare", metavar="SPEC",
        help="another member played on the same deals: the paired differences of self-play "
        "and each split's score (agent minus it)",
    )  # fmt: skip
    p.add_argument("--json", type=Path, help="write the benchmark JSON here")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    check_output_file(args.json, "--json")
    if args.zoo_matrix:
        return _run_matrix(args)
    if args.listen_games < 0:
        raise ValueError(f"--listen-games must not be negative, got {args.listen_games}")
    with progress("benchmark games", 1) as done:
        result = run_benchmark(
            args.agent, args.split, args.games, args.seed, args.workers, done,
            args.listen_games, args.compare,
        )  # fmt: skip
    table = Table(title=f"{BENCHMARK}: {args.agent}, seed {result['seed']}, "
                  f"{result['games']:,} deals per pairing and seat")  # fmt: skip
    for column in ("partner", "split", "win rate", "95% interval", "games"):
        table.add_column(column, justify="right", overflow="fold")

    def row(name: str, split: str, figure: dict, games: int) -> None:
        low, high = figure["ci"]
        table.add_row(name, split, f"{figure['win_rate']:.1%}", f"{low:.1%} - {high:.1%}",
                      f"{games:,}")  # fmt: skip

    row("itself (self-play)", "", result["self_play"], result["games"])
    for p in result["partners"]:
        row(p["name"], p["split"], p, p["games"])
    for split, figure in result["adhoc"].items():
        row(f"ad-hoc mean ({figure['partners']} partners)", split, figure, 2 * result["games"])
    Console(width=None if sys.stdout.isatty() else 10_000).print(table)
    s = result["signalling"]
    mv = s["message_value"]
    print(
        f"signalling (self-play): W {s['W']:.1%}, W_blind {s['W_blind']:.1%}, message value "
        f"{mv['value']:+.1%} [{mv['ci95'][0]:+.1%}, {mv['ci95'][1]:+.1%}], causal influence "
        f"{s['causal_influence_bits']['value']:.3f} bits ({s['listening_games']} games)"
    )
    if "compare" in result:
        c = result["compare"]
        parts = [("self-play", c["self_play"]), *c["adhoc"].items()]
        print(f"minus {c['agent']}, paired over the same deals: " + ", ".join(
            f"{name} {d['value']:+.1%} [{d['ci95'][0]:+.1%}, {d['ci95'][1]:+.1%}]"
            for name, d in parts))  # fmt: skip
    print(f"{result['seconds']:.0f} s with {args.workers} worker(s)")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0


def _run_matrix(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    with progress("zoo cross-play games", 1) as done:
        result = zoo_matrix(args.games, args.seed, args.workers, done)
    table = Table(title=f"{BENCHMARK} zoo cross-play (row begins), seed {result['seed']}, "
                  f"{result['games']:,} deals a pairing")  # fmt: skip
    table.add_column("seat 0 \\ seat 1", justify="left")
    for p in ZOO:
        table.add_column(f"{p.name} ({p.split})", justify="right", overflow="fold")
    for p, row in zip(ZOO, result["win_rate"], strict=True):
        table.add_row(f"{p.name} ({p.split})", *(f"{x:.1%}" for x in row))
    Console(width=None if sys.stdout.isatty() else 10_000).print(table)
    for split, figure in result["with_split"].items():
        low, high = figure["ci"]
        print(f"with a {split} partner: {figure['win_rate']:.1%} [{low:.1%}, {high:.1%}]")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0
