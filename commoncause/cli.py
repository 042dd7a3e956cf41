"""The ``commoncause`` command line.

Each subcommand is registered in ``SUBCOMMANDS`` as a pair of functions:
``add_arguments(parser)`` declares its options and ``run(args) -> int`` does the
work and returns the exit code. Add later subcommands (eval, calibrate, train,
play, replay, analyze, bench) the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    from commoncause.options import add_game_arguments, add_seed_argument

    add_seed_argument(p, default=0, help="game and agent seed")
    add_game_arguments(p)


def run_demo(args: argparse.Namespace) -> int:
    """Play and render one full game between random legal agents."""
    import importlib

    import numpy as np

    from commoncause.options import game_and_config, game_options

    game, _config = game_and_config(args)  # checks the options before any work
    make_env = importlib.import_module(game.env_module).env
    rng = np.random.default_rng(args.seed)
    e = make_env(render_mode="ansi", **game_options(args))
    e.reset(seed=args.seed)
    print(e.render())

    current = e.agent_selection
    team_reward: dict[str, float] = {}
    moves, cut = 0, False
    for agent in e.agent_iter():
        obs, rew, term, trunc, _info = e.last()
        team_reward[agent] = team_reward.get(agent, 0.0) + float(rew)
        if term or trunc:
            cut = cut or (trunc and not term)
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        print(f"{agent}: {e.unwrapped.action_to_move(action)}")
        e.step(action)
        moves += 1
        nxt = e.agent_selection
        game_over = e.terminations.get(nxt, True) or e.truncations.get(nxt, True)
        if nxt != current and not game_over:
            current = nxt
            print(e.render())

    print(e.render())
    result = e.unwrapped.result
    if cut and result is None:  # random players may never finish (Dummy rummy above all)
        print(f"result: cut short after {moves:,} moves (the game's max_moves): no winner")
    else:
        print(f"result: {result if result is not None else 'none'}")
    if game.team:
        print(f"team reward (player_0): {team_reward.get('player_0', 0.0):g}")
    else:
        rewards = ", ".join(f"{a} {r:g}" for a, r in team_reward.items())
        print(f"rewards: {rewards}")
    e.close()
    return 0


# -------------------------------------------------------------------- games


def _games_arguments(p: argparse.ArgumentParser) -> None:
    pass


def run_games(args: argparse.Namespace) -> int:
    """List the registered games with their PettingZoo ids and titles (and the shipped
    policies a team member may name beside ``trained``)."""
    from commoncause.envs.registry import DEFAULT_GAME, game_names, get_game

    for name in game_names():
        game = get_game(name)
        default = "  (default)" if name == DEFAULT_GAME else ""
        print(f"{name:<16} {game.env_id:<32} {game.title}{default}")
        if game.members:
            print(f"{'':<16} team members beside trained: {', '.join(game.members)}")
    return 0


# ----------------------------------------------------------- eval, calibrate


def _team_arguments(p: argparse.ArgumentParser, default_games: int) -> None:
    from commoncause.agents.registry import AGENT_CHOICES
    from commoncause.options import add_seed_argument

    p.add_argument(
        "--team",
        default="baseline",
        help="one member per seat, comma separated (two for Common Cause), or one member for "
        f"every seat; a member is {AGENT_CHOICES} (default baseline in every seat)",
    )
    p.add_argument(
        "--games", type=int, default=default_games,
        help="games to play (a competitive game: deals, each played in every seat rotation)",
    )  # fmt: skip
    add_seed_argument(p, 0, "deal seed (same seed, same deals)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--json", type=Path, help="write the figures to this JSON file")


@contextmanager
def _progress(what: str, total: int) -> Iterator[Callable[[int], None]]:
    """``commoncause.progress``'s bar (plain lines on stderr when piped), fed the games each
    finished job played: ``with _progress(what, total) as advance: ... advance(n)``."""
    from commoncause import progress

    with progress.progress(what, total) as done:
        count = 0

        def advance(games: int) -> None:
            nonlocal count
            count += games
            done(count)

        yield advance


def _interrupted() -> int:
    """Ctrl-C: one line and the conventional status (the worker pools are shut down)."""
    print(f"{PROG}: interrupted", file=sys.stderr)
    return 130


def _eval_arguments(p: argparse.ArgumentParser) -> None:
    from commoncause.options import add_game_arguments

    _team_arguments(p, default_games=2000)
    p.add_argument(
        "--compare", help="a second team played on the same deals; prints the paired difference"
    )
    p.add_argument(
        "--journal", type=Path,
        help="a competitive game: keep every finished deal in this file; the same command "
        "again continues from it after a stop (or with more --games, extends it)",
    )  # fmt: skip
    p.add_argument(
        "--so-far", action="store_true",
        help="with --journal: play nothing, report the deals it holds of the first --games",
    )  # fmt: skip
    add_game_arguments(p)


def _check_eval_paths(args: argparse.Namespace) -> None:
    """eval's files, before any game: ``--json`` to write, the ``--journal`` to keep (or,
    with ``--so-far``, to read)."""
    from commoncause.options import check_input_file, check_output_file

    check_output_file(args.json, "--json")
    if args.so_far:
        if args.journal is None:
            raise ValueError("--so-far needs --journal FILE: it reports the deals a journal holds")
        check_input_file(args.journal, "--journal")
    else:
        check_output_file(args.journal, "--journal")


def run_eval(args: argparse.Namespace) -> int:
    """Play a team over many seeded deals (each once in a team game, in every seat rotation
    in a competitive one: ``agents/evaluate.py``); print a table, optionally write JSON."""
    import json

    from commoncause.agents.evaluate import evaluate
    from commoncause.agents.registry import parse_team
    from commoncause.options import game_and_config

    game, config = game_and_config(args)
    seats = game.num_seats(config)
    if game.team and (args.journal or args.so_far):
        raise ValueError(f"--journal is for the competitive games; {game.title} runs in minutes")
    _check_eval_paths(args)
    if args.compare and not game.team:
        raise ValueError(f"--compare is for team games; {game.title} rotates one table")
    teams = [parse_team(args.team, seats, game.name, config)]
    if args.compare:
        teams.append(parse_team(args.compare, seats, game.name, config))
    stock_size = getattr(args, "stock_size", None)
    level = config.label() if stock_size is None else f"stock {stock_size}"
    rotations = 1 if game.team else seats
    reports = []
    try:
        for team in teams:
            what = f"{'+'.join(team)} on {level}" if game.team else f"{','.join(team)}: {level}"
            with _progress(what, args.games * rotations) as advance:
                reports.append(evaluate(
                    team, config, args.games, args.seed, args.workers, level, advance,
                    game=game.name, journal=args.journal, so_far=args.so_far,
                ))  # fmt: skip
    except KeyboardInterrupt:
        if args.journal:
            print(f"the deals played are in {args.journal}: the same command continues")
        return _interrupted()
    data = _print_teams(reports, args, game, level) if game.team else _print_table(
        reports[0], args, game, config
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def _percent_with_interval(value: float, ci95: list[float]) -> str:
    """``"55.0 [50.1, 59.8]"``: a rate and its 95% interval in percent."""
    low, high = ci95
    return f"{100 * value:.1f} [{100 * low:.1f}, {100 * high:.1f}]"


def _console():
    """A console for tables: piped or redirected, no terminal width to fit, so never cut a
    member's name."""
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 10_000)


def _print_teams(reports: list, args: argparse.Namespace, game, level: str) -> dict:
    """A team game's reports (a second: ``--compare``, with the paired difference) as a table;
    their JSON figures."""
    from rich.table import Table

    from commoncause.agents.stats import paired_difference

    size = reports[0].stock_size
    title = f"{game.title} - {level}" + (f" (stock {size})" if size is not None else "")
    table = Table(title=f"{title}, seed {args.seed}")
    columns = ("team", "games", "wins", "win rate", "95% interval", "turns", "pickups", "games/s")
    for column in columns:
        table.add_column(column, justify="right", overflow="fold")
    for report in reports:
        low, high = report.ci95
        table.add_row(
            "+".join(report.team), f"{report.games:,}", f"{report.wins:,}",
            f"{report.win_rate:.1%}", f"{low:.1%} - {high:.1%}", f"{report.mean_turns:.2f}",
            f"{report.mean_discard_pickups:.2f}", f"{report.games_per_second:,.0f}",
        )  # fmt: skip
    _console().print(table)
    print("turns: one player's draw-place-discard; pickups: turns that took the top discard")
    data = reports[0].to_json()
    if len(reports) == 2:
        first, second = reports
        diff = paired_difference(first.wins_by_game, second.wins_by_game)
        low, high = diff["ci95"]
        print(
            f"difference {'+'.join(first.team)} - {'+'.join(second.team)}: "
            f"{100 * diff['value']:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}] "
            f"(95%, paired over the same {diff['n']:,} deals)"
        )
        data["compare"] = second.to_json()
        data["difference"] = diff
    return data


def _print_table(report, args: argparse.Namespace, game, config) -> dict:
    """A competitive game's report: a row per member, and member 0 against the field (per
    game, and per hand where the game scores hands); its JSON figures."""
    from rich.table import Table

    seats = len(report.team)
    held = f" (so far, of {args.games:,})" if args.so_far else ""
    table = Table(
        title=f"{game.title} - {config.label()}, seed {args.seed}: {report.deals:,} deals{held} "
        f"x {seats} seat rotations = {report.games:,} games"
    )
    stat_keys = [k for k in report.members[0] if k.startswith("mean_") and k != "mean_hands"]
    # one rate (won, in %); the rest are means per game, labelled so (went_out 0.25 a game)
    stats = [f"{k.removeprefix('mean_')} / game" for k in stat_keys]
    for column in ("member", "return / game", "95% interval", "won % [95%]", *stats):
        table.add_column(column, justify="right", overflow="fold")
    for m in report.members:
        low, high = m["return"]["ci95"]
        table.add_row(
            m["member"], f"{m['return']['mean']:.2f}", f"{low:.2f} - {high:.2f}",
            _percent_with_interval(m["win_rate"], m["win_rate_ci95"]),
            *(f"{m[k]:.3f}" for k in stat_keys),
        )  # fmt: skip
    _console().print(table)
    first = report.team[0]
    diff = report.vs_field
    low, high = diff["ci95"]
    print(
        f"{first} minus the mean of the others: {diff['mean']:+.2f} per game "
        f"[{low:+.2f}, {high:+.2f}] (95%, paired over {diff['n']:,} deals); "
        f"truncated games: {report.truncated}"
        + ("" if args.so_far else f"; {report.games_per_second:,.1f} games/s")
    )
    if report.vs_field_per_hand is not None:
        hands = report.members[0]["mean_hands"] * report.games  # every member plays them all
        diff = report.vs_field_per_hand
        low, high = diff["ci95"]
        line = (f"per hand ({hands:,.0f} hands a seat): {first} minus the mean of the others "
                f"{diff['mean']:+.2f} [{low:+.2f}, {high:+.2f}]")  # fmt: skip
        if all("went_out" in m["per_hand"] for m in report.members):
            line += "; went out: " + ", ".join(
                f"{m['member']} {m['per_hand']['went_out']['mean']:.1%}" for m in report.members
            )
        print(line)
    return report.to_json()


# ------------------------------------------------------------------- train


def _train_arguments(p: argparse.ArgumentParser) -> None:
    from commoncause.options import seed_type

    p.add_argument("--config", type=Path, help="YAML config (configs/normal.yaml)")
    p.add_argument("--total-steps", type=int, help="override the config's total_steps")
    p.add_argument("--seed", type=seed_type, help="override the config's seed (0 or more)")
    p.add_argument(
        "--resume",
        type=Path,
        help="continue a run from its checkpoint (runs/NAME/checkpoints/last.pt) with its own "
        "config, seed and name; takes only --total-steps (an exported policy starts a new "
        "run through init_from in a config instead)",
    )
    p.add_argument("--run-name", help="name of the run directory (default name__seed__time)")
    p.add_argument(
        "--game",
        help="the game to train; with --config it must be the config's own game (a check), "
        "without it the config is the recipe of the game's shipped policy (configs/normal.yaml, "
        "configs/dummy_rummy_4p_all.yaml, configs/open_rummy_4p.yaml)",
    )


def _default_config(game: str) -> Path:
    """The recipe of the game's shipped policy at its default table: ``configs/<folder>.yaml``,
    named for the ``checkpoints/<folder>/`` it makes (``normal.yaml`` for Common Cause)."""
    from commoncause import ROOT
    from commoncause.envs.registry import get_game

    record = get_game(game)  # an unknown game is an error naming the choices
    shipped = record.checkpoint(record.make_config())
    path = ROOT / "configs" / f"{Path(shipped).parent.name}.yaml" if shipped else None
    if path is None or not path.is_file():
        where = path or "it ships no policy"
        raise ValueError(f"no default config for {game} ({where}): give --config")
    return path


def run_train(args: argparse.Namespace) -> int:
    """Behaviour cloning then self-play PPO; ends with a comparison to the baseline team."""
    from dataclasses import replace

    from rich.console import Console
    from rich.table import Table

    from commoncause.options import check_input_file
    from commoncause.train.config import load_config
    from commoncause.train.trainer import Trainer

    check_input_file(args.config, "--config")
    check_input_file(args.resume, "--resume")
    if args.config is None and args.resume is None:
        if args.game is None:
            raise ValueError("give --config (a YAML file in configs/), --game or --resume")
        args.config = _default_config(args.game)
    if args.total_steps is not None and args.total_steps < 0:
        raise ValueError(f"--total-steps must not be negative, got {args.total_steps}")
    if args.resume is not None:
        ignored = [flag for flag, value in (("--config", args.config), ("--seed", args.seed),
                   ("--run-name", args.run_name), ("--game", args.game))
                   if value is not None]  # fmt: skip
        if ignored:
            raise ValueError(
                f"--resume continues a run with its own config, seed and name, so it takes "
                f"only --total-steps; drop {', '.join(ignored)}"
            )
        trainer = Trainer(None, resume=args.resume, total_steps=args.total_steps)
    else:
        config = load_config(args.config)
        if args.game is not None and args.game != config.game:
            raise ValueError(f"{args.config} trains {config.game}, not {args.game}")
        if args.seed is not None:
            config = replace(config, seed=args.seed)
        trainer = Trainer(config, args.run_name, total_steps=args.total_steps)
    print(f"run {trainer.state.run_name}: {trainer.run_dir}")
    try:
        final = trainer.run()
    except KeyboardInterrupt:
        return 130
    games = trainer.config.final_eval_games  # the checkpoint's config when resuming
    if not trainer.game.team:
        r = final["trained_vs_baselines"]
        low, high = r["ci95"]
        print(
            f"best policy in one seat, baselines in the others ({r['games']:,} games, seats "
            f"rotated): return {r['return']:.2f} per game vs the baselines' "
            f"{r['baseline_return']:.2f}; difference {r['win_rate']:+.2f} [{low:+.2f}, {high:+.2f}]"
        )
        print(f"best checkpoint: {trainer.checkpoints / 'best.pt'} (model card beside it)")
        return 0
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
    """Play one seat of a game with agent partners in the terminal (recorded)."""
    from commoncause import play, records
    from commoncause.options import check_input_file, check_output_folder

    if args.resume is None:
        check_output_folder(args.record_dir, "--record-dir")
    else:
        check_input_file(args.resume, "--resume")
        if args.game_given:  # the record names the game: --game may only agree
            game = records.game_of(records.load(args.resume))
            if args.game != game.name:
                raise ValueError(
                    f"--resume continues the game as recorded: {args.resume} is a game of "
                    f"{game.title} ({game.name}), not {args.game}; drop --game"
                )
    try:
        return play.run(args)
    except KeyboardInterrupt:  # (play saves the game itself; this is only a safety net)
        print("\ninterrupted", file=sys.stderr)
        return 130


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    from commoncause import replay

    replay.add_arguments(p)


def run_replay(args: argparse.Namespace) -> int:
    """Step through a game record."""
    from commoncause import replay
    from commoncause.options import check_input_file

    check_input_file(args.file, "record")
    try:
        return replay.run(args)
    except KeyboardInterrupt:  # (replay stops quietly itself; this is only a safety net)
        print("\ninterrupted", file=sys.stderr)
        return 130


# ------------------------------------------------------ a game's own studies


def _study_arguments(command: str) -> Callable[[argparse.ArgumentParser], None]:
    """``--game`` and the options of ``command``'s study for the game named on the command
    line (its record's ``studies[command]``)."""

    def add_arguments(p: argparse.ArgumentParser) -> None:
        import importlib

        from commoncause.envs.registry import game_names, get_game
        from commoncause.options import add_game_argument, command_line, selected_game

        add_game_argument(p)
        name = selected_game(command_line())
        study = get_game(name).studies.get(command) if name in game_names() else None
        if study is not None:
            importlib.import_module(study).add_arguments(p)
        p.set_defaults(study=study)  # whose options were declared

    return add_arguments


def _run_study(command: str) -> Callable[[argparse.Namespace], int]:
    """Run the game's own ``command`` study; a game without one is refused in one line."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        from commoncause.envs.registry import game_names, get_game

        game = get_game(args.game)
        study = game.studies.get(command)
        if study is None:
            having = [get_game(n).title for n in game_names() if command in get_game(n).studies]
            raise ValueError(f"{game.title} has no study for `commoncause {command}` (the games "
                             f"with one: {', '.join(having)})")  # fmt: skip
        if args.study != study:  # the options were declared for another --game
            raise ValueError("give --game once")
        try:
            return importlib.import_module(study).run(args)
        except KeyboardInterrupt:
            return _interrupted()

    return run


def _export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", type=Path, help="a run's checkpoint (runs/NAME/checkpoints/best.pt)")
    p.add_argument("--out", type=Path, default=Path("checkpoints/normal"), help="folder")
    p.add_argument("--lineage", action="append", default=[], help="a line of provenance")


def run_export(args: argparse.Namespace) -> int:
    """Ship a checkpoint: weights without optimizer state, model card and training curve."""
    from commoncause.options import check_input_file, check_output_folder
    from commoncause.train.export import export_checkpoint

    check_input_file(args.source, "checkpoint")
    check_output_folder(args.out, "--out")
    target = export_checkpoint(args.source, args.out, args.lineage)
    print(f"wrote {target} ({target.stat().st_size / 2**20:.1f} MB), best.json, curve.png")
    return 0


# -------------------------------------------------------------------- serve


def _serve_arguments(p: argparse.ArgumentParser) -> None:
    from commoncause.web import app

    app.add_arguments(p)


def run_serve(args: argparse.Namespace) -> int:
    """Serve the browser front and its HTTP API (FastAPI on uvicorn)."""
    from commoncause.options import check_output_folder
    from commoncause.web import app

    check_output_folder(args.record_dir, "--record-dir")
    return app.run(args)


# ----------------------------------------------------------------- registry

SUBCOMMANDS: dict[str, Subcommand] = {
    "demo": Subcommand(
        help="play and render one game between two random legal agents",
        add_arguments=_demo_arguments,
        run=run_demo,
    ),
    "games": Subcommand(
        help="list the registered games with their PettingZoo ids",
        add_arguments=_games_arguments,
        run=run_games,
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
        add_arguments=_study_arguments("calibrate"),
        run=_run_study("calibrate"),
    ),
    "play": Subcommand(
        help="play a game in the terminal with agent partners (every game recorded)",
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
        add_arguments=_study_arguments("analyze"),
        run=_run_study("analyze"),
    ),
    "benchmark": Subcommand(
        help="score an agent with held-out partners: Common Cause's ad-hoc teamplay benchmark",
        add_arguments=_study_arguments("benchmark"),
        run=_run_study("benchmark"),
    ),
    "serve": Subcommand(
        help="play in the browser: a web page and an HTTP API (every game recorded)",
        add_arguments=_serve_arguments,
        run=run_serve,
    ),
}


class _Parser(argparse.ArgumentParser):
    """argparse with its refusals on one line (no usage block), like every other bad input;
    the subcommands' parsers are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv`` (default ``sys.argv[1:]``): every command is listed, but only
    the one ``argv`` names gets its arguments, since adding them imports its modules (the
    web server's, the trainer's ...), which other commands need not pay for at start."""
    words = sys.argv[1:] if argv is None else argv
    chosen = next((w for w in words if not w.startswith("-")), None)
    parser = _Parser(prog=PROG, description="Common Cause tools")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, cmd in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        if name == chosen:
            cmd.add_arguments(p)
        p.set_defaults(_run=cmd.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    from commoncause.options import PARSING

    token = PARSING.set(None if argv is None else list(argv))  # whose --game declares options
    try:
        parser = build_parser(argv)
        args, extra = parser.parse_known_args(argv)
        # a game without the study declared none of its options: say that, not "unrecognized"
        if extra and not (hasattr(args, "study") and args.study is None):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return int(exc.code or 0)
    finally:
        PARSING.reset(token)
    try:
        return args._run(args)
    except (ValueError, OSError) as exc:  # bad input, or a file that cannot be written
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
