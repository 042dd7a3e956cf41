"""Progress of a long command: a rich bar with games done of the total, rate and ETA on a
terminal; plain periodic lines (about every ``every`` seconds) when the output is piped."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress(
    what: str, total: int, every: float = 30.0
) -> Iterator[Callable[[int, int | None], None]]:
    """``with progress("eval", 2000) as done: ... done(n)``: ``done(n)`` sets the count of
    finished items to ``n`` (``done(n, total)`` also sets the total, where it is known
    only once the work starts)."""
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        bar = Progress(
            TextColumn(what),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),  # stdout keeps only the command's own output
            transient=True,
        )
        task = bar.add_task(what, total=total)
        with bar:
            yield lambda n, new_total=None: bar.update(task, completed=n, total=new_total)
        return
    start = last = time.monotonic()

    def done(n: int, new_total: int | None = None) -> None:
        nonlocal last, total
        total = new_total or total
        now = time.monotonic()
        if now - last < every and n < total:
            return
        last = now
        rate = n / (now - start) if now > start else 0.0
        eta = (total - n) / rate if rate > 0 else float("nan")
        print(f"{what}: {n:,}/{total:,} ({n / total:.0%}), {rate:,.0f}/s, ETA {eta:,.0f} s",
              file=sys.stderr, flush=True)  # fmt: skip

    yield done
