"""The ``commoncause`` command line.

Each subcommand is registered in ``SUBCOMMANDS`` as a pair of functions:
``add_arguments(parser)`` declares its options and ``run(args) -> int`` does the
work and returns the exit code. Add later subcommands (eval, calibrate, train,
play, replay, analyze, bench) the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PROG = "commoncause"


@dataclass(frozen=True)
class Subcommand:
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------- demo


def _demo_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="game and agent seed (default 0)")
    p.add_argument("--level", default="normal", help="difficulty level (default normal)")


def run_demo(args: argparse.Namespace) -> int:
    """Play and render one full game between two random legal agents."""
    import numpy as np

    from envs.common_cause import env as make_env

    rng = np.random.default_rng(args.seed)
    e = make_env(level=args.level, render_mode="ansi")
    e.reset(seed=args.seed)
    print(e.render())

    current = e.agent_selection
    team_reward: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, _info = e.last()
        team_reward[agent] = team_reward.get(agent, 0.0) + float(rew)
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        print(f"{agent}: {e.unwrapped.action_to_move(action)}")
        e.step(action)
        nxt = e.agent_selection
        game_over = e.terminations.get(nxt, True) or e.truncations.get(nxt, True)
        if nxt != current and not game_over:
            current = nxt
            print(e.render())

    print(e.render())
    result = e.unwrapped.result
    print(f"result: {result if result is not None else 'none'}")
    print(f"team reward (player_0): {team_reward.get('player_0', 0.0):g}")
    e.close()
    return 0


# ----------------------------------------------------------- eval, calibrate


def _game_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--level", default="normal", help="full, easy, normal (default) or hard")
    p.add_argument("--stock-size", type=int, help="explicit stock size 0-33 (overrides --level)")
    p.add_argument("--open-hands", action="store_true", help="variant: hands face up")
    p.add_argument("--ace-low", action="store_true", help="variant: the Ace is only low")
    p.add_argument("--three-starts", action="store_true", help="variant: three open starts")
    p.add_argument("--early-loss", action="store_true", help="lose once a start is dead")
    p.add_argument("--signal-rule", action="store_true", help="enforce the message discard")


def _config(args: argparse.Namespace):
    from envs.common_cause.rules import GameConfig

    return GameConfig.make(
        args.level,
        args.stock_size,
        open_hands=args.open_hands,
        ace_low=args.ace_low,
        max_open_starts=3 if args.three_starts else 2,
        early_loss=args.early_loss,
        signal_rule=args.signal_rule,
    )


def _team_arguments(p: argparse.ArgumentParser, default_games: int) -> None:
    p.add_argument(
        "--team",
        default="baseline,baseline",
        help="two members, comma separated: baseline, baseline:<option>=<value>[;...], random",
    )
    p.add_argument("--games", type=int, default=default_games, help="games to play")
    p.add_argument("--seed", type=int, default=0, help="deal seed (same seed, same deals)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--json", type=Path, help="write the figures to this JSON file")


def _progress(total: int, what: str):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
    )
    task = bar.add_task(what, total=total)
    return bar, lambda n: bar.advance(task, n)


def _eval_arguments(p: argparse.ArgumentParser) -> None:
    _team_arguments(p, default_games=2000)
    p.add_argument(
        "--compare", help="a second team played on the same deals; prints the paired difference"
    )
    _game_arguments(p)


def run_eval(args: argparse.Namespace) -> int:
    """Play a team over many seeded deals; print a table, optionally write JSON."""
    import json

    from rich.console import Console
    from rich.table import Table

    from agents.evaluate import evaluate, paired_difference, parse_team

    teams = [parse_team(args.team)] + ([parse_team(args.compare)] if args.compare else [])
    config = _config(args)
    level = args.level if args.stock_size is None else f"stock {args.stock_size}"
    reports = []
    for team in teams:
        bar, advance = _progress(args.games, f"{'+'.join(team)} on {level}")
        with bar:
            reports.append(
                evaluate(team, config, args.games, args.seed, args.workers, level, advance)
            )
    table = Table(title=f"Common Cause - {level} (stock {config.stock_size}), seed {args.seed}")
    columns = ("team", "games", "wins", "win rate", "95% interval", "turns", "pickups", "games/s")
    for column in columns:
        table.add_column(column, justify="right")
    for report in reports:
        low, high = report.ci95
        table.add_row(
            "+".join(report.team),
            f"{report.games:,}",
            f"{report.wins:,}",
            f"{report.win_rate:.1%}",
            f"{low:.1%} - {high:.1%}",
            f"{report.mean_turns:.2f}",
            f"{report.mean_discard_pickups:.2f}",
            f"{report.games_per_second:,.0f}",
        )
    Console().print(table)
    print("turns: one player's draw-place-discard; pickups: turns that took the top discard")
    data = reports[0].to_json()
    if len(reports) == 2:
        diff = paired_difference(
            [o.win for o in reports[0].outcomes], [o.win for o in reports[1].outcomes]
        )
        low, high = diff["ci95"]
        print(
            f"difference {'+'.join(teams[0])} - {'+'.join(teams[1])}: "
            f"{100 * diff['value']:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}] "
            f"(95%, paired over the same {diff['n']:,} deals)"
        )
        data["compare"] = reports[1].to_json()
        data["difference"] = diff
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def _calibrate_arguments(p: argparse.ArgumentParser) -> None:
    _team_arguments(p, default_games=2000)
    p.add_argument("--target", type=float, required=True, help="target win rate, e.g. 0.82")
    p.add_argument("--min-stock", type=int, default=0, help="smallest stock size tried")
    p.add_argument("--max-stock", type=int, default=33, help="largest stock size tried")
    p.add_argument("--plot", type=Path, help="PNG of win rate by stock size (95%% bands)")
    _game_arguments(p)


def run_calibrate(args: argparse.Namespace) -> int:
    """Find the stock size whose win rate is closest to a target."""
    import json

    from agents.calibrate import calibrate, plot_curve
    from agents.evaluate import parse_team

    team = parse_team(args.team)
    config = _config(args)
    if not 0 <= args.min_stock <= args.max_stock <= 33:
        raise ValueError("stock sizes must satisfy 0 <= --min-stock <= --max-stock <= 33")
    sizes = range(args.min_stock, args.max_stock + 1)
    bar, advance = _progress(
        args.games * len(sizes), f"{'+'.join(team)} stock {sizes.start}-{sizes.stop - 1}"
    )
    with bar:
        cal = calibrate(
            team, args.target, config, args.games, args.seed, args.workers, sizes, advance
        )
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


# ------------------------------------------------------------------- train


def _train_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", type=Path, help="YAML config (configs/normal.yaml)")
    p.add_argument("--total-steps", type=int, help="override the config's total_steps")
    p.add_argument("--seed", type=int, help="override the config's seed")
    p.add_argument("--resume", type=Path, help="continue a run from its checkpoint (last.pt)")
    p.add_argument("--run-name", help="name of the run directory (default name__seed__time)")


def run_train(args: argparse.Namespace) -> int:
    """Behaviour cloning then self-play PPO; ends with a comparison to the baseline team."""
    from dataclasses import replace

    from rich.console import Console
    from rich.table import Table

    from train.config import TrainConfig, load_config
    from train.trainer import Trainer

    if args.config is None and args.resume is None:
        raise ValueError("give --config (a YAML file in configs/) or --resume (a checkpoint)")
    config = load_config(args.config) if args.config else TrainConfig()
    if args.seed is not None:
        config = replace(config, seed=args.seed)
    if args.total_steps is not None and args.total_steps < 0:
        raise ValueError(f"--total-steps must not be negative, got {args.total_steps}")
    trainer = Trainer(config, args.run_name, args.resume, args.total_steps)
    print(f"run {trainer.state.run_name}: {trainer.run_dir}")
    try:
        final = trainer.run()
    except KeyboardInterrupt:
        return 130
    games = trainer.config.final_eval_games  # the checkpoint's config when resuming
    table = Table(title=f"{trainer.state.run_name}: same {games} deals each")
    for column in ("team", "win rate", "95% interval", "turns", "pickups"):
        table.add_column(column, justify="right")
    for name, r in final.items():
        low, high = r["ci95"]
        table.add_row(name, f"{r['win_rate']:.1%}", f"{low:.1%} - {high:.1%}",
                      f"{r['mean_turns']:.2f}", f"{r['mean_discard_pickups']:.2f}")  # fmt: skip
    Console().print(table)
    print(f"best checkpoint: {trainer.checkpoints / 'best.pt'} (model card beside it)")
    return 0


# ------------------------------------------------------------- play, replay


def _play_arguments(p: argparse.ArgumentParser) -> None:
    from commoncause import play

    play.add_arguments(p)


def run_play(args: argparse.Namespace) -> int:
    """Play one seat of a game with an agent partner in the terminal (recorded)."""
    from commoncause import play

    return play.run(args)


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    from commoncause import replay

    replay.add_arguments(p)


def run_replay(args: argparse.Namespace) -> int:
    """Step through a game record."""
    from commoncause import replay

    return replay.run(args)


# ------------------------------------------------------------------ analyze


def _analyze_arguments(p: argparse.ArgumentParser) -> None:
    from commoncause import analyze

    analyze.add_arguments(p)


def run_analyze(args: argparse.Namespace) -> int:
    """Measure a team's communication through discards; write a report with plots."""
    from commoncause import analyze

    return analyze.run(args)


def _export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", type=Path, help="a run's checkpoint (runs/NAME/checkpoints/best.pt)")
    p.add_argument("--out", type=Path, default=Path("checkpoints/normal"), help="folder")
    p.add_argument("--lineage", action="append", default=[], help="a line of provenance")


def run_export(args: argparse.Namespace) -> int:
    """Ship a checkpoint: weights without optimizer state, model card and training curve."""
    from train.export import export_checkpoint

    target = export_checkpoint(args.source, args.out, args.lineage)
    print(f"wrote {target} ({target.stat().st_size / 2**20:.1f} MB), best.json, curve.png")
    return 0


# ----------------------------------------------------------------- registry

SUBCOMMANDS: dict[str, Subcommand] = {
    "demo": Subcommand(
        help="play and render one game between two random legal agents",
        add_arguments=_demo_arguments,
        run=run_demo,
    ),
    "eval": Subcommand(
        help="play a team over many seeded deals and report its win rate",
        add_arguments=_eval_arguments,
        run=run_eval,
    ),
    "train": Subcommand(
        help="train partners by behaviour cloning and self-play PPO",
        add_arguments=_train_arguments,
        run=run_train,
    ),
    "export": Subcommand(
        help="ship a run's checkpoint (weights only) with its model card and curve",
        add_arguments=_export_arguments,
        run=run_export,
    ),
    "calibrate": Subcommand(
        help="find the stock size that gives a team a target win rate",
        add_arguments=_calibrate_arguments,
        run=run_calibrate,
    ),
    "play": Subcommand(
        help="play Common Cause in the terminal with an agent partner (every game recorded)",
        add_arguments=_play_arguments,
        run=run_play,
    ),
    "replay": Subcommand(
        help="step through a recorded game (both hands, or one seat's view)",
        add_arguments=_replay_arguments,
        run=run_replay,
    ),
    "analyze": Subcommand(
        help="measure a team's signalling and listening through discards (report + plots)",
        add_arguments=_analyze_arguments,
        run=run_analyze,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Common Cause tools")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, cmd in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        cmd.add_arguments(p)
        p.set_defaults(_run=cmd.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return int(exc.code or 0)
    try:
        return args._run(args)
    except (ValueError, OSError) as exc:  # bad input, or a file that cannot be written
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
