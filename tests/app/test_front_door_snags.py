"""Snags a new user hit (issue 38 item 8): the help names the other games' options, piped
output keeps long lines whole, a cut-off demo says so."""

from __future__ import annotations

import json
import re
import sys

import pytest

from commoncause.cli import main


@pytest.fixture(autouse=True)
def _keep_argv(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["commoncause"])


@pytest.mark.parametrize("command", ["eval", "play", "calibrate"])
def test_help_says_the_other_games_options_follow_game(command, capsys):
    assert main([command, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    before = out.split("show with")[0]  # Common Cause's options only
    assert "--hands" not in before and "--rounds" not in before
    assert "show with --game NAME" in out
    for flag in ("--num-players", "--hands", "--rounds"):
        assert flag in out.split("show with")[1], flag


def test_a_demo_cut_short_says_so(capsys):
    """Random players rarely finish a whole Dummy rummy game: the demo names the cut."""
    sys.argv = ["commoncause", "demo", "--game", "dummy_rummy"]
    assert main(sys.argv[1:]) == 0
    last = capsys.readouterr().out.splitlines()[-2:]
    assert last[0].startswith("result: cut short after 5,000 moves (the game's max_moves)"), last


def test_piped_replay_keeps_long_lines_whole(tmp_path, capsys, monkeypatch):
    """``replay FILE > f``: no terminal width to fit, so no line is cut or wrapped at 80."""
    monkeypatch.delenv("COLUMNS", raising=False)
    game = ["--game", "dummy_rummy", "--num-players", "4", "--hands", "1"]
    play = ["play", *game, "--player", "baseline", "--partner", "baseline", "--seed", "1",
            "--record-dir", str(tmp_path)]  # fmt: skip
    sys.argv = ["commoncause", *play]
    assert main(play) == 0
    (record,) = tmp_path.glob("*.json")
    capsys.readouterr()
    sys.argv = ["commoncause", "replay", str(record)]

    def replay() -> list[str]:  # every line but the rules, which fill the width
        assert main(sys.argv[1:]) == 0
        return [line for line in capsys.readouterr().out.splitlines() if "────" not in line]

    piped = replay()
    monkeypatch.setenv("COLUMNS", "5000")  # as wide as any line could be
    assert piped == replay()


def test_the_table_eval_says_which_columns_are_per_game_means(capsys):
    """Percentages where a column is a rate (won), and the other statistics labelled as the
    means per game that they are (went out 0.25 a game, not 0.25%)."""
    argv = ["eval", "--game", "dummy_rummy", "--num-players", "2", "--hands", "1",
            "--team", "baseline,random", "--games", "2", "--workers", "1"]  # fmt: skip
    sys.argv = ["commoncause", *argv]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "won % [95%]" in out and "went_out / game" in out and "points / game" in out


def test_a_competitive_eval_gives_each_members_win_rate_an_interval(tmp_path, capsys):
    """The won column and the JSON's ``win_rate`` carry a 95% interval over the deals and
    their number, as every win rate the project reports."""
    out = tmp_path / "eval.json"
    argv = ["eval", "--game", "dummy_rummy", "--num-players", "2", "--hands", "1",
            "--team", "baseline,random", "--games", "6", "--workers", "1",
            "--json", str(out)]  # fmt: skip
    sys.argv = ["commoncause", *argv]
    assert main(argv) == 0
    for member in json.loads(out.read_text())["members"]:
        low, high = member["win_rate_ci95"]
        assert low <= member["win_rate"] <= high and member["win_rate_deals"] == 6
    assert re.search(r"\d+\.\d \[\d+\.\d, \d+\.\d\]", capsys.readouterr().out)


def test_main_reads_the_game_from_its_own_arguments(capsys):
    """``main([...])`` (a script, a test) declares the rules options of the --game in its
    arguments, not of the one in ``sys.argv``."""
    argv = ["eval", "--game", "open_rummy", "--num-players", "2", "--rounds", "1",
            "--team", "baseline,random", "--games", "1", "--workers", "1"]  # fmt: skip
    assert sys.argv == ["commoncause"]
    assert main(argv) == 0, capsys.readouterr().err
    assert "Open Rummy" in capsys.readouterr().out
