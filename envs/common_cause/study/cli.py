"""``commoncause analyze``: its options, checks, progress bar and output folder."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from commoncause import progress as bar
from commoncause.agents.registry import AGENT_CHOICES, make_agent, parse_team
from commoncause.envs.common_cause.rules import LEVELS, GameConfig
from commoncause.options import add_seed_argument, check_output_folder

from .figures import analyze
from .report import write_report

DEFAULT_GAMES = 1000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--team", required=True, help=f"two members, comma separated (A,B): each {AGENT_CHOICES}"
    )
    p.add_argument("--level", default="normal", help=f"one of {', '.join(LEVELS)}")
    p.add_argument("--games", type=int, default=DEFAULT_GAMES, help="deals per condition")
    add_seed_argument(p, 0, "deal seed (same seed, same deals)")
    p.add_argument("--out", type=Path, help="output folder (default reports/<team>/)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--open-team", help="a team trained on open hands (C,D), played open")
    p.add_argument(
        "--cross-play", help="independently trained members (ckpt1,ckpt2,...) to pair up"
    )
    p.add_argument(
        "--ceiling-games",
        type=int,
        default=0,
        help="also play the team's search ceiling (the search knowing the true deal; a "
        "measurement, never a partner) on the first N deals (default 0: not played)",
    )
    p.add_argument(
        "--listen-games",
        type=int,
        help="measure listening on the first N games only (default: all; it costs about "
        "one more run of the team)",
    )


def default_out(team: tuple[str, str]) -> Path:
    def slug(member: str) -> str:
        path = Path(member)
        if member.endswith(".pt"):
            member = f"{path.parent.name}-{path.stem}" if path.parent.name else path.stem
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", member).strip("_") or "member"

    return Path("reports") / "+".join(slug(m) for m in team)


def run(args: argparse.Namespace) -> int:
    check_output_folder(args.out, "--out")
    team = parse_team(args.team)
    open_team = parse_team(args.open_team) if args.open_team else None
    cross = [m.strip() for m in args.cross_play.split(",")] if args.cross_play else []
    if args.cross_play and (len(cross) < 2 or not all(cross)):
        raise ValueError("--cross-play needs at least two members, comma separated")
    for member in cross:
        make_agent(member)
    if args.games < 2:
        raise ValueError(f"--games must be at least 2, got {args.games}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.ceiling_games < 0:
        raise ValueError(f"--ceiling-games must not be negative, got {args.ceiling_games}")
    if args.ceiling_games:
        from .ceiling import ceiling_team

        ceiling_team(team)
    if args.listen_games is not None and args.listen_games < 0:
        raise ValueError(f"--listen-games must not be negative, got {args.listen_games}")
    config = GameConfig.make(args.level)
    out = args.out or default_out(team)
    with bar.progress("analyze", 1) as done:  # the total comes with the first games
        figures = analyze(
            team,
            config,
            args.games,
            args.seed,
            args.workers,
            level=args.level,
            open_team=open_team,
            cross_play=cross,
            listen_games=args.listen_games,
            progress=done,
            ceiling_games=args.ceiling_games,
        )
    write_report(figures, out)
    print(f"wrote {out / 'report.md'}, {out / 'figures.json'} and the plots")
    for row in figures["headline"][:4]:
        print(f"  {row['measure']}: {row['text']}")
    return 0
