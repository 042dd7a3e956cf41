"""Pieces of the text table every game's render shares."""

from __future__ import annotations

PILE_SHOWN = 8
"""Discard-pile cards a table shows (the newest; older ones as ``...``)."""


def table_top(head: str, turns: int, status: str, stock: int, pile: list[str]) -> list[str]:
    """The first lines of a table: the title, the turn and who is to do what, the stock's
    size and the discard pile (card codes, top last)."""
    shown = " ".join(pile[-PILE_SHOWN:]) if pile else "(empty)"
    if len(pile) > PILE_SHOWN:
        shown = f"... {shown}"
    return [
        head,
        f"Turn {turns}, {status}",
        f"Stock: {stock} cards    Discard pile ({len(pile)}, top last): {shown}",
    ]


def last_moves(recent_moves: list[tuple[int, str]]) -> list[str]:
    """The table's last line: recent (seat, move text) pairs, oldest first (none if empty)."""
    if not recent_moves:
        return []
    return ["Last moves: " + " | ".join(f"player_{p}: {t}" for p, t in recent_moves)]
