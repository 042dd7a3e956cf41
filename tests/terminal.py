"""The real ``commoncause`` command in tests: run to completion (``run_cli``) or driven
through a pseudo-terminal (``spawn``, ``play_to_end``, ``play_through``; pexpect, imported
only there), and
checks shared by every game's terminal tests (``only_record``, ``check_only_own_hand``,
``check_replay_shows_every_hand``, ``check_quit_and_resume``)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
ENV = {**os.environ, "COLUMNS": "200", "LINES": "50", "TERM": "dumb", "NO_COLOR": "1"}
PROMPT = r"Your move \(1-(\d+), a move, help\): "


def run_cli(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    """``python -m commoncause.cli ARGS`` in the repository root, output captured."""
    return subprocess.run(
        [PYTHON, "-m", "commoncause.cli", *args],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def spawn(*args: str, timeout: int = 60) -> Any:
    """``python -m commoncause.cli ARGS`` in a 50x200 pseudo-terminal (a pexpect child), with
    Ctrl-C's default meaning: a suite started in the background (``make test &``) inherits
    SIGINT ignored, and Python then never raises KeyboardInterrupt."""
    import pexpect

    return pexpect.spawn(
        PYTHON, ["-m", "commoncause.cli", *args], cwd=str(ROOT), env=ENV, encoding="utf-8",
        timeout=timeout, dimensions=(50, 200),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def only_record(folder: Path) -> Path:
    files = sorted(folder.glob("*.json"))
    assert len(files) == 1, files
    return files[0]


def play_to_end(
    child: Any, choice: str = "1", stop_after: int | None = None
) -> tuple[int, list[str], bool]:
    """Answer every prompt with ``choice``; returns (prompts answered, screens seen, done)."""
    import pexpect

    screens: list[str] = []
    answered = 0
    while True:
        i = child.expect([PROMPT, "Game over"])
        if i == 1:
            child.expect(pexpect.EOF)
            screens.append(child.before)
            return answered, screens, True
        screens.append(child.before)
        if stop_after is not None and answered == stop_after:
            return answered, screens, False
        child.sendline(choice)
        answered += 1


def play_through(args: list[str], *expected: str) -> tuple[int, list[str]]:
    """``ARGS`` in a terminal: wait for each of ``expected`` (regexes) in turn, then type 1
    at every prompt to the end of the game. Returns (prompts answered, screens seen)."""
    child = spawn(*args)
    for pattern in expected:
        child.expect(pattern)
    answered, screens, done = play_to_end(child)
    child.close()
    assert done and child.exitstatus == 0
    return answered, screens


def check_only_own_hand(screens: list[str]) -> None:
    """No screen shows any hand but the player's own (``Your hand (...``)."""
    for screen in screens:
        for line in screen.splitlines():
            if re.search(r"hand \(\d", line) and not line.startswith("Your hand ("):
                raise AssertionError(f"another hand on screen: {line}")


def check_replay_shows_every_hand(path: Path, seats: int, result: str) -> str:
    """``replay`` of a finished record: the god view shows every seat's hand and the
    result (``result``, words of it). Returns the output."""
    out = run_cli("replay", str(path))
    assert out.returncode == 0, out.stderr
    for p in range(seats):  # the god view: every hand
        assert re.search(rf"player_{p} \((human|baseline|trained)\) hand \(\d+\):", out.stdout), p
    assert "Result: " in out.stdout and result in out.stdout
    return out.stdout


def check_quit_and_resume(args: list[str], folder: Path) -> list[dict]:
    """``play ARGS`` typing 1, quit after 5 moves (an unfinished record in ``folder``), then
    ``play --resume`` to the end: the resumed record keeps the saved moves. Returns the
    final record's moves."""
    import pexpect

    child = spawn(*args)
    _, _, done = play_to_end(child, stop_after=5)
    assert not done
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    saved = json.loads(only_record(folder).read_text())
    assert not saved["finished"]
    child = spawn("play", "--resume", str(only_record(folder)))
    child.expect("Resuming")
    _, _, done = play_to_end(child)
    child.close()
    assert done and child.exitstatus == 0
    final = json.loads(only_record(folder).read_text())
    assert final["moves"][: len(saved["moves"])] == saved["moves"]
    return final["moves"]
