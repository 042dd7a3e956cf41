"""The journal of an evaluation: every finished deal kept in a file as it is played, so that
a run stopped part way continues from it (``eval --journal``), and a longer run of the same
table extends it. A deal is kept as its ``SeatResult`` rows: one per member and rotation.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class SeatResult:
    """One member's game: its return, its seat's figures, and its share of the win."""

    member: int
    seat: int
    value: float
    stats: dict[str, float]
    win_share: float


def read_journal(path: Path, text: str | None = None) -> tuple[dict, dict[int, list[SeatResult]]]:
    """The run a ``Journal`` names and the deals it holds, by deal number (``text``: the
    file's, if read already); a row cut short by a stop is skipped."""
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
            row = json.loads(line)
        except json.JSONDecodeError:  # a chunk cut short by the stop: played again
            continue
        try:
            for i, deal in enumerate(row["deals"], row["first"]):
                done[i] = [SeatResult(**r) for r in deal]
        except (KeyError, TypeError) as error:
            raise ValueError(
                f"journal {path} line {number} is not a row of deals ({error!r}): "
                "mend or remove that line"
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
