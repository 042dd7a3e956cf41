"""Ctrl-C and ``kill`` (SIGTERM) stop a training run at its next safe point.

A signal handler that raised ``KeyboardInterrupt`` at once could raise it anywhere: inside
``os.fork``'s at-fork handlers (``logging`` holds its module lock across a fork) or a
thread's lock, leaving the process hung instead of saving. So a first signal only records
itself; the run calls ``stop_if_requested`` between steps and between evaluation chunks,
which raises ``KeyboardInterrupt`` there (the trainer then saves ``last.pt``). A second
signal raises at once, for a run that does not reach a safe point. Processes forked while
the handlers are installed (rollout and env workers) inherit them: a Ctrl-C that reaches
the whole process group does not kill them, and the run closes them as it stops.
"""

from __future__ import annotations

import signal
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_requested: int | None = None
"""The first stop signal received since ``install`` (forget=True), or None."""


def _request_stop(signum: int, frame) -> None:
    global _requested
    if _requested is not None:
        raise KeyboardInterrupt(f"signal {signum} (twice)")
    _requested = signum


def install(forget: bool = True) -> dict:
    """Handle SIGINT and SIGTERM (also when started in the background, where SIGINT starts
    ignored) and return the handlers they had. ``forget``: drop an earlier request (a new
    run); False installs again after a library replaced them (``ray.init`` sets its own
    SIGTERM handler). Only the main thread can install handlers: elsewhere, nothing."""
    global _requested
    if forget:
        _requested = None
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, _request_stop) for signum in STOP_SIGNALS}


def restore(handlers: dict) -> None:
    """Put back the handlers ``install`` returned, and forget a request (the run it was for
    is over: later evaluations in this process must not stop for it)."""
    global _requested
    _requested = None
    for signum, handler in handlers.items():
        signal.signal(signum, handler)


def stop_if_requested(*_) -> None:
    """Raise ``KeyboardInterrupt`` if a stop signal came since ``install``. (Any arguments
    are ignored, so it serves as an evaluation's ``progress`` callback.)"""
    if _requested is not None:
        raise KeyboardInterrupt(f"signal {_requested}")
