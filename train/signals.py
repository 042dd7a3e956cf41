"""Ctrl-C and ``kill`` (SIGTERM) stop a training run at its next safe point.

A signal handler that raised ``KeyboardInterrupt`` at once could raise it anywhere: inside
``os.fork``'s at-fork handlers (``logging`` holds its module lock across a fork) or a
thread's lock, leaving the process hung instead of saving. So a first signal only records
itself; the training loop calls ``stop_if_requested`` between steps, which raises
``KeyboardInterrupt`` there (the trainer then saves ``last.pt``). A second signal raises at
once, for a run that does not reach a safe point.
"""

from __future__ import annotations

import signal
import threading

_requested: int | None = None
"""The first stop signal received since ``install``, or None."""


def _request_stop(signum: int, frame) -> None:
    global _requested
    if _requested is not None:
        raise KeyboardInterrupt(f"signal {signum} (twice)")
    _requested = signum


def install() -> None:
    """Handle SIGINT and SIGTERM (also when started in the background, where SIGINT starts
    ignored); forget any earlier request. Only the main thread can install handlers."""
    global _requested
    _requested = None
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _request_stop)
        signal.signal(signal.SIGTERM, _request_stop)


def stop_if_requested() -> None:
    """Raise ``KeyboardInterrupt`` if a stop signal came since ``install``."""
    if _requested is not None:
        raise KeyboardInterrupt(f"signal {_requested}")
