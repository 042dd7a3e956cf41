"""``commoncause calibrate``: the stock size that gives a team a target win rate (Common
Cause's levels are stock sizes; ``study.calibrate`` does the search)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from commoncause.agents.registry import parse_team
from commoncause.cli import _interrupted, _progress, _team_arguments
from commoncause.options import add_game_arguments, check_output_file, game_and_config

from .calibrate import calibrate, plot_curve

CALIBRATE_REFUSES = ("level", "stock_size")
"""Game options calibrate sets itself (it tries every stock size)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    _team_arguments(p, default_games=2000)
    p.add_argument("--target", type=float, required=True, help="target win rate, e.g. 0.82")
    p.add_argument("--min-stock", type=int, default=0, help="smallest stock size tried")
    p.add_argument("--max-stock", type=int, default=33, help="largest stock size tried")
    p.add_argument("--plot", type=Path, help="PNG of win rate by stock size (95%% bands)")
    add_game_arguments(p)
    for action in p._actions:  # parsed only to be refused with a reason (run_calibrate)
        if action.dest in CALIBRATE_REFUSES:
            action.help = argparse.SUPPRESS


def run(args: argparse.Namespace) -> int:
    """Find the stock size whose win rate is closest to a target."""

    given = [name for name in CALIBRATE_REFUSES if getattr(args, name, None) is not None]
    if given:
        flags = " and ".join("--" + name.replace("_", "-") for name in given)
        raise ValueError(
            f"calibrate tries every stock size from --min-stock to --max-stock: "
            f"{flags} do{'es' if len(given) == 1 else ''} not apply"
        )
    game, config = game_and_config(args)
    team = parse_team(args.team, game.num_seats(config), game.name)
    if not 0 <= args.min_stock <= args.max_stock <= 33:
        raise ValueError("stock sizes must satisfy 0 <= --min-stock <= --max-stock <= 33")
    check_output_file(args.plot, "--plot")
    check_output_file(args.json, "--json")
    sizes = range(args.min_stock, args.max_stock + 1)
    what = f"{'+'.join(team)} stock {sizes.start}-{sizes.stop - 1}"
    try:
        with _progress(what, args.games * len(sizes)) as advance:
            cal = calibrate(
                team, args.target, config, args.games, args.seed, args.workers, sizes, advance
            )
    except KeyboardInterrupt:
        return _interrupted()
    for point in cal.points:
        low, high = point.ci95
        mark = "  <- closest" if point.stock_size == cal.best_stock_size else ""
        print(f"stock {point.stock_size:2d}: {point.win_rate:6.1%}  [{low:.1%}, {high:.1%}]{mark}")
    print(f"stock size closest to {args.target:.0%}: {cal.best_stock_size}")
    if args.plot:
        plot_curve(cal, args.plot)
        print(f"wrote {args.plot}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(cal.to_json(), indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0
