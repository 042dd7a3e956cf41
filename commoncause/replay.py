"""``commoncause replay FILE``: step through a game record.

Without ``--seat`` the table is shown with both hands; with ``--seat 0|1`` as that seat saw
it (its own hand, the partner's hand size). Without ``--step`` the whole game is printed:
every move, and the table after each turn; with ``--step`` the table after every move,
waiting for Enter in between (``q`` stops).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from envs.common_cause.rules import DRAW_PHASE, GameState
from envs.common_cause.seat import SeatView

from . import records
from .screen import PLAYERS, god_screen, seat_screen, shown_text, title


def add_arguments(p) -> None:
    p.add_argument("file", type=Path, help="a game record (JSON, from commoncause play)")
    p.add_argument("--seat", type=int, choices=(0, 1), help="show only what this seat saw")
    p.add_argument("--step", action="store_true", help="wait for Enter between moves")


def _who(record: dict, p: int) -> str:
    seat = record["seats"][p]
    return "human" if seat.get("player") == "human" else str(seat.get("agent", "agent"))


def _move_line(record: dict, entry: dict, shown: str) -> str:
    notes = [f"{entry.get('seconds', 0):.1f} s"]
    probs = entry.get("probabilities")
    if probs and entry["move"] in probs and len(probs) > 1:
        notes.append(f"p={probs[entry['move']]:.2f}")
    if entry.get("forced"):
        notes.append("only move")
    if entry.get("hint"):
        notes.append(f"hint asked: {entry['hint']}")
    p = entry["player"]
    who = f"{PLAYERS[p]} ({_who(record, p)})"
    return f"{entry.get('n', '?'):>3}. {who}: {shown}  [{', '.join(notes)}]"


def _board(console: Console, state: GameState, record: dict, seat: int | None, moves) -> None:
    if seat is None:
        names = tuple(f"{PLAYERS[p]} ({_who(record, p)})" for p in (0, 1))
        lines = god_screen(state, names)
    else:
        own = moves[seat] if state.current == seat else []
        lines = seat_screen(SeatView(state, seat), record.get("level", ""), moves[1 - seat], own)
    for line in lines:
        console.print(line, highlight=False)


def run(args, input_fn=input) -> int:
    console = Console(highlight=False)
    record = records.load(args.file)
    state = records.initial_state(record)
    records.replay_moves(record)  # check the whole record before showing anything
    seat = args.seat
    level = record.get("level", "")
    console.print(
        f"Replay of {args.file}: {title(state, level)}, seed {record.get('seed')}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    for p in (0, 1):
        info = record["seats"][p]
        extra = (
            f", checkpoint {info['checkpoint']} (sha256 {info['sha256']})"
            if info.get("checkpoint")
            else ""
        )
        console.print(
            f"{PLAYERS[p]}: {_who(record, p)}{extra}", highlight=False, markup=False, soft_wrap=True
        )
    console.rule("Deal")
    _board(console, state, record, seat, {0: [], 1: []})
    moves: dict[int, list[str]] = {0: [], 1: []}
    stopped = False
    for entry in record["moves"]:
        p = entry["player"]
        shown = shown_text(state, entry["action"], seat)
        line = _move_line(record, entry, shown)
        if state.phase == DRAW_PHASE:
            moves[p] = []
        moves[p].append(shown)
        state.apply(entry["action"])
        console.print(line, highlight=False, markup=False)
        if args.step:
            _board(console, state, record, seat, moves)
            try:
                answer = input_fn("Enter: next move, q: stop ")
            except EOFError:
                answer = "q"
            if answer.strip().lower() in ("q", "quit"):
                stopped = True
                break
        elif state.is_terminal or state.current != p:
            console.rule(f"after turn {state.turns}")
            _board(console, state, record, seat, moves)
    console.rule("End")
    if stopped:
        console.print(
            f"Stopped after move {entry.get('n', '?')} of {len(record['moves'])}.",
            highlight=False,
            markup=False,
        )
    elif state.is_terminal:
        result = "WON" if state.result == "win" else f"LOST: {state.loss_reason}"
        console.print(f"Result: {result}", highlight=False, markup=False)
    else:
        console.print(
            f"Unfinished after {len(record['moves'])} moves (resume it with "
            f"commoncause play --resume {args.file})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    console.print(f"Turns used: {state.turns}    Stock left: {len(state.stock)}", highlight=False)
    counts = records.pickups(state)
    console.print(
        f"player_0 picked up {counts['0_from_1']} of player_1's discards; player_1 "
        f"picked up {counts['1_from_0']} of player_0's.",
        highlight=False,
    )
    return 0
