"""Every long command reports progress: piped, plain periodic lines on stderr (games done of
the total, rate, ETA) from commoncause/progress.py, and stdout exactly as without them."""

from __future__ import annotations

import functools
import json
import re
import sys

import pytest

import commoncause.progress
from commoncause.cli import main

LINE = re.compile(r"^(?P<what>.+): (?P<n>[\d,]+)/(?P<total>[\d,]+) \(\d+%\), [\d,.]+/s, ETA ")


def _every(monkeypatch, seconds: float) -> None:
    """Progress lines at most every ``seconds`` (commands leave it at 30)."""
    shown = functools.partial(commoncause.progress.progress, every=seconds)
    monkeypatch.setattr(commoncause.progress, "progress", shown)


@pytest.fixture(autouse=True)
def _keep_argv(monkeypatch):
    monkeypatch.setattr(sys, "argv", list(sys.argv))


@pytest.fixture
def every_call(monkeypatch):
    """A line at every update, not every 30 seconds."""
    _every(monkeypatch, 0)


def _lines(err: str) -> list[re.Match]:
    return [m for m in map(LINE.match, err.splitlines()) if m]


def _run(capsys, argv: list[str]) -> tuple[str, list[re.Match]]:
    sys.argv = ["commoncause", *argv]  # (game options read sys.argv; monkeypatch restores it)
    assert main(argv) == 0
    out, err = capsys.readouterr()
    return out, _lines(err)


def _quiet(capsys, monkeypatch, argv: list[str]) -> str:
    """stdout with one progress line at the end only (a long ``every``)."""
    _every(monkeypatch, 1e9)
    sys.argv = ["commoncause", *argv]
    assert main(argv) == 0
    return capsys.readouterr().out


def _totals(lines: list[re.Match]) -> list[tuple[int, int]]:
    return [(int(m["n"].replace(",", "")), int(m["total"].replace(",", ""))) for m in lines]


def test_eval_of_a_team_game_reports_games_done_on_stderr(capsys, every_call):
    argv = ["eval", "--team", "baseline,baseline", "--compare", "random,random", "--games", "40",
            "--workers", "1"]  # fmt: skip
    out, lines = _run(capsys, argv)
    counts = _totals(lines)
    assert counts and counts[-1] == (40, 40) and all(t == 40 for _, t in counts)
    assert len({m["what"] for m in lines}) == 2  # one per team
    assert "baseline+baseline" in out and "difference" in out
    assert not LINE.search(out)


def test_eval_of_a_competitive_table_reports_every_rotation(capsys, every_call):
    argv = ["eval", "--game", "dummy_rummy", "--num-players", "2", "--hands", "1",
            "--team", "baseline,random", "--games", "6", "--workers", "1"]  # fmt: skip
    out, lines = _run(capsys, argv)
    counts = _totals(lines)
    assert counts and counts[-1] == (12, 12)  # 6 deals x 2 seat rotations
    assert "minus the mean of the others" in out and not LINE.search(out)


def test_table_eval_json_is_the_same_with_and_without_progress_lines(
    capsys, monkeypatch, tmp_path
):
    argv = ["eval", "--game", "open_rummy", "--num-players", "2", "--rounds", "1",
            "--team", "baseline,random", "--games", "3", "--workers", "1"]  # fmt: skip
    _every(monkeypatch, 0)
    sys.argv = ["commoncause", *argv]
    assert main([*argv, "--json", str(tmp_path / "a.json")]) == 0
    assert _lines(capsys.readouterr().err)
    quiet = _quiet(capsys, monkeypatch, [*argv, "--json", str(tmp_path / "b.json")])
    assert not LINE.search(quiet)
    a, b = (json.loads((tmp_path / f"{x}.json").read_text()) for x in "ab")
    for report in (a, b):
        report.pop("seconds", None), report.pop("games_per_second", None)
    assert a == b


def test_calibrate_reports_games_over_every_stock_size(capsys, every_call):
    argv = ["calibrate", "--team", "baseline,baseline", "--target", "0.5", "--games", "10",
            "--min-stock", "20", "--max-stock", "21", "--workers", "1"]  # fmt: skip
    out, lines = _run(capsys, argv)
    assert _totals(lines)[-1] == (20, 20)
    assert "stock size closest to 50%" in out and not LINE.search(out)


def test_analyze_reports_its_games(capsys, every_call, tmp_path):
    argv = ["analyze", "--team", "baseline,baseline", "--games", "2", "--workers", "1",
            "--listen-games", "0", "--out", str(tmp_path / "report")]  # fmt: skip
    out, lines = _run(capsys, argv)
    n, total = _totals(lines)[-1]
    assert n == total > 0 and lines[-1]["what"] == "analyze"
    assert "wrote" in out and not LINE.search(out)
