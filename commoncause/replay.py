"""``commoncause replay FILE``: step through a game record.

Without ``--seat`` the table is shown with every hand; with ``--seat N`` as that seat saw it
(its own hand, the other hands' sizes). Without ``--step`` the whole game is printed: every
move, and the table after each turn; with ``--step`` the table after every move, waiting
for Enter in between (``q`` stops, Ctrl-C stops quietly with status 130). Any registered
game replays (the record names it). Old records
(before the game registry) replay as Common Cause.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from . import records
from .screen import god_screen, seat_screen, title
from .session import Move, PlaySession

QUIET = {"highlight": False, "markup": False, "soft_wrap": True}


def add_arguments(p) -> None:
    p.add_argument("file", type=Path, help="a game record (JSON, from commoncause play)")
    p.add_argument("--seat", type=int, help="show only what this seat saw (0, 1, ...)")
    p.add_argument("--step", action="store_true", help="wait for Enter between moves")


def _move_line(session: PlaySession, entry: dict, move: Move, seat: int | None) -> str:
    notes = [f"{entry.get('seconds', 0):.1f} s"]
    probs = entry.get("probabilities")
    if probs and entry["move"] in probs and len(probs) > 1:
        notes.append(f"p={probs[entry['move']]:.2f}")
    if entry.get("forced"):
        notes.append("only move")
    if entry.get("hint"):
        notes.append(f"hint asked: {entry['hint']}")
    p = move.seat
    who = f"player_{p} ({session.player_name(p)})"
    return f"{entry.get('n', '?'):>3}. {who}: {move.seen_by(seat)}  [{', '.join(notes)}]"


def _board(console: Console, session: PlaySession, seat: int | None) -> None:
    data = session.screen(seat)
    if seat is None:
        n = session.num_seats
        names = tuple(f"{data['seats'][p]} ({data['players'][p]})" for p in range(n))
        lines = god_screen(data, names)
    else:
        lines = seat_screen(data)
    for line in lines:
        console.print(line, highlight=False)


def run(args, input_fn=input) -> int:
    # piped or redirected: no terminal width to fit, so long lines stay whole (not cut at 80)
    console = Console(highlight=False, soft_wrap=not sys.stdout.isatty())
    try:
        return _run(args, console, input_fn)
    except KeyboardInterrupt:
        console.print("\nInterrupted.", **QUIET)
        return 130


def _run(args, console: Console, input_fn) -> int:
    record = records.load(args.file)
    PlaySession.from_record(record)  # check the whole record before showing anything
    session = PlaySession.from_record(record, moves=0)
    seat = args.seat
    if seat is not None and not 0 <= seat < session.num_seats:
        raise ValueError(f"--seat must be 0-{session.num_seats - 1} for this game, got {seat}")
    console.print(
        f"Replay of {args.file}: {title(session.screen(None))}, seed {record.get('seed')}",
        **QUIET,
    )
    for p in range(session.num_seats):
        info = record["seats"][p]
        extra = (
            f", checkpoint {info['checkpoint']} (sha256 {info['sha256']})"
            if info.get("checkpoint")
            else ""
        )
        console.print(f"player_{p}: {session.player_name(p)}{extra}", **QUIET)
    console.rule("Deal")
    _board(console, session, seat)
    stopped = False
    entry: dict = {}
    for entry in record["moves"]:
        move = session.replay_move(entry)
        console.print(_move_line(session, entry, move, seat), highlight=False, markup=False)
        if args.step:
            _board(console, session, seat)
            try:
                answer = input_fn("Enter: next move, q: stop ")
            except EOFError:
                answer = "q"
            if answer.strip().lower() in ("q", "quit"):
                stopped = True
                break
        elif session.is_over or session.current != move.seat:
            console.rule(f"after turn {move.turn}")
            _board(console, session, seat)
    console.rule("End")
    summary = session.summary()
    if stopped:
        console.print(
            f"Stopped after move {entry.get('n', '?')} of {len(record['moves'])}.", **QUIET
        )
    elif session.is_over and summary["team"]:
        word, _, rest = summary["result"].partition(": ")
        result = "WON" if summary["won"] else f"{word.upper()}: {rest}"
        console.print(f"Result: {result}", **QUIET)
    elif session.is_over:
        console.print(f"Result: {summary['result']}", **QUIET)
        returns = ", ".join(f"player_{p} {r or 0.0:g}" for p, r in enumerate(summary["returns"]))
        console.print(f"Returns: {returns}", **QUIET)
    else:
        console.print(
            f"Unfinished after {len(record['moves'])} moves (resume it with "
            f"commoncause play --resume {args.file})",
            **QUIET,
        )
    line = f"Turns used: {summary['turns']}"
    if "stock_left" in summary:
        line += f"    Stock left: {summary['stock_left']}"
    console.print(line, highlight=False)
    counts = summary.get("pickups")
    if counts:
        console.print(
            f"player_0 picked up {counts['0_from_1']} of player_1's discards; player_1 "
            f"picked up {counts['1_from_0']} of player_0's.",
            highlight=False,
        )
    return 0
