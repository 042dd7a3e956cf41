"""The journal of an evaluation: every finished deal kept in a file as it is played, so that
a run stopped part way continues from it (``eval --journal``), and a longer run of the same
table extends it. A deal is kept as its ``SeatResult`` rows: one per member and rotation.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path


@dataclass(frozen=True)
class SeatResult:
    """One member's game: its return, its seat's figures, and its share of the win."""

    member: int
    seat: int
    value: float
    stats: dict[str, float]
    win_share: float


def _is_number(value: object, whole: bool = False) -> bool:
    """Whether ``value`` (read from JSON) is a number (``whole``: an integer), not a bool."""
    return not isinstance(value, bool) and isinstance(value, int if whole else (int, float))


def _seat_result(row: object) -> SeatResult:
    """A journal's result row as a ``SeatResult``; a ValueError naming the field missing,
    extra or of the wrong type."""
    if not isinstance(row, dict):
        raise ValueError(f"a result is {row!r:.40}, not an object of fields")
    names = [f.name for f in fields(SeatResult)]
    for name in names:
        if name not in row:
            raise ValueError(f"field {name} is missing")
    for name in row:
        if name not in names:
            raise ValueError(f"field {name} is not one of {', '.join(names)}")
    for name, whole in (("member", True), ("seat", True), ("value", False), ("win_share", False)):
        if not _is_number(row[name], whole):
            kind = "an integer" if whole else "a number"
            raise ValueError(f"field {name} is {row[name]!r:.40}, not {kind}")
    stats = row["stats"]
    if not isinstance(stats, dict) or not all(map(_is_number, stats.values())):
        raise ValueError(f"field stats is {stats!r:.40}, not an object of numbers")
    return SeatResult(**row)


def _deals(row: object) -> dict[int, list[SeatResult]]:
    """The deals of a journal row (``{"first": N, "deals": [[result, ...], ...]}``) by deal
    number; a ValueError naming what is wrong."""
    if not isinstance(row, dict) or "first" not in row or "deals" not in row:
        raise ValueError('not {"first": N, "deals": [...]}')
    first, deals = row["first"], row["deals"]
    if not _is_number(first, whole=True):
        raise ValueError(f"field first is {first!r:.40}, not an integer")
    if not isinstance(deals, list) or not all(isinstance(d, list) for d in deals):
        raise ValueError(f"field deals is {deals!r:.40}, not a list of deals")
    return {i: [_seat_result(r) for r in deal] for i, deal in enumerate(deals, first)}


def read_journal(path: Path, text: str | None = None) -> tuple[dict, dict[int, list[SeatResult]]]:
    """The run a ``Journal`` names and the deals it holds, by deal number (``text``: the
    file's, if read already). A last row cut short by a stop is skipped; any other row that
    is not one of deals is a one-line ValueError naming the file, its line and its field."""
    lines = (path.read_text() if text is None else text).splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict):
        raise ValueError(f"journal {path} is not an evaluation journal")
    done: dict[int, list[SeatResult]] = {}
    for number, line in enumerate(lines[1:], 2):
        try:
            done.update(_deals(json.loads(line)))
        except ValueError as error:
            cut = isinstance(error, json.JSONDecodeError)
            if cut and number == len(lines):  # the last chunk, cut short by a stop: played again
                continue
            raise ValueError(
                f"journal {path} line {number} is not a row of deals "
                f"({'not JSON' if cut else error}): mend or remove that line"
            ) from None
    return header, done


class Journal:
    """The deals of a table evaluation played so far, one JSON line per finished chunk
    after a first line naming the run (game, team, config, seed): a run stopped part way
    continues from it, and a longer run of the same table extends it. The header names the
    members as given (a checkpoint by its path, not its contents): retrained weights at the
    same path need a new journal."""

    def __init__(self, path: Path, run: dict, read_only: bool = False) -> None:
        """Open ``path`` for ``run`` (``read_only``: read what it holds, change nothing)."""
        self.path = path
        self.done: dict[int, list[SeatResult]] = {}
        try:
            text = path.read_text() if path.exists() else ""
        except UnicodeDecodeError:
            raise ValueError(f"journal {path} is not an evaluation journal (not text)") from None
        if read_only:
            if text:
                self._read(text, run)
        elif text and not json.dumps(run).startswith(text):  # not this run's header cut short
            self._read(text, run)
            kept = path.with_name(path.name + ".tmp")  # rewritten whole, a cut line dropped
            kept.write_text("".join(json.dumps(x) + "\n" for x in [run, *self._rows()]))
            os.replace(kept, path)  # at once: a stop here loses nothing
        else:  # new, or only a header cut short by a stop
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(run) + "\n")

    def _read(self, text: str, run: dict) -> None:
        header, self.done = read_journal(self.path, text)
        if header != run:
            raise ValueError(
                f"journal {self.path} is of another run ({header}), not of this one ({run}): "
                "give another file"
            )

    def _rows(self) -> list[dict]:
        return [{"first": i, "deals": [[asdict(r) for r in d]]} for i, d in self.done.items()]

    def add(self, first: int, chunk: list[list[SeatResult]]) -> None:
        """Keep deals ``first`` .. ``first + len(chunk) - 1`` (written at once)."""
        for i, deal in enumerate(chunk, first):
            self.done[i] = deal
        row = {"first": first, "deals": [[asdict(r) for r in d] for d in chunk]}
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")
