"""The command line's bad-input contract, end to end through ``main()``: a wrong option, a
missing or misplaced file, a contradiction: one line on stderr naming the problem, exit 2,
nothing on stdout, no traceback, and no game played before an output path is refused."""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path

import pytest

from commoncause.cli import main
from commoncause.session import PlaySession


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Paths the bad inputs name: a folder, a plain file, a binary file, an empty JSON
    object, broken YAML, a missing path, an unfinished and a finished game record."""
    root = tmp_path_factory.mktemp("cli_errors")
    (root / "folder").mkdir()
    (root / "plain.txt").write_text("not a folder\n")
    (root / "binary.bin").write_bytes(b"\x00\x01\x02\xff")
    (root / "empty.json").write_text("{}")
    (root / "broken.yaml").write_text("x: [\n")
    unfinished = PlaySession.new(None, None, 2, root / "unfinished").path
    finished = PlaySession.new(None, ["baseline", "baseline"], 1, root / "finished")
    finished.step_agents()
    return {
        "DIR": root / "folder",
        "FILE": root / "plain.txt",
        "BIN": root / "binary.bin",
        "EMPTY": root / "empty.json",
        "YAML": root / "broken.yaml",
        "MISSING": root / "missing.json",
        "UNDER_FILE": root / "plain.txt" / "out.json",
        "UNFINISHED": unfinished,
        "FINISHED": finished.path,
    }


# (command line with placeholders, words the one line must hold)
BAD_INPUTS = [
    # the parser's own refusals: one line too, pointing at --help
    ("eval --games abc", "argument --games: invalid int value: 'abc'"),
    ("eval --seed -1", "a seed is a whole number 0 or more"),
    ("eval --game nope", "argument --game: invalid choice: 'nope'"),
    ("eval --no-such-flag", "unrecognized arguments: --no-such-flag"),
    ("play --seat x", "(see commoncause play --help)"),
    ("replay", "the following arguments are required: file"),
    ("train --total-steps many", "invalid int value: 'many'"),
    ("nosuchcommand", "invalid choice: 'nosuchcommand'"),
    # eval
    ("eval --team nobody --games 2", "unknown team member 'nobody'"),
    ("eval --team baseline,baseline,baseline --games 2", "two members"),
    ("eval --games 0", "--games must be at least 1"),
    ("eval --workers 0 --games 2", "--workers must be at least 1"),
    ("eval --level nope --games 2", "unknown level 'nope'"),
    ("eval --stock-size 99 --games 2", "stock_size must be 0-33"),
    ("eval --journal {MISSING} --games 2", "--journal is for the competitive games"),
    ("eval --game open_rummy --compare baseline --games 2", "--compare is for team games"),
    ("eval --games 2 --json {DIR}", "--json {DIR} is a directory"),
    ("eval --games 2 --json {UNDER_FILE}", "{FILE} is a file, not a folder"),
    # a folder no file can be made in, whatever its permissions say (root passes them)
    ("eval --games 2 --json /proc/x.json", "--json /proc/x.json: cannot write in /proc"),
    ("analyze --team baseline,baseline --games 2 --out /proc/an", "cannot write in /proc"),
    ("eval --game dummy_rummy --games 1 --json {DIR}", "--json {DIR} is a directory"),
    ("eval --game dummy_rummy --games 1 --journal {DIR}", "--journal {DIR} is a directory"),
    ("eval --game dummy_rummy --games 1 --journal {UNDER_FILE}", "is a file, not a folder"),
    ("eval --game dummy_rummy --games 1 --journal {BIN}", "is not an evaluation journal"),
    ("eval --game dummy_rummy --games 1 --so-far", "--so-far needs --journal"),
    ("eval --game dummy_rummy --games 1 --so-far --journal {MISSING}", "no journal {MISSING}"),
    ("calibrate --target 0.5 --games 2 --plot {DIR}", "--plot {DIR} is a directory"),
    ("calibrate --target 0.5 --games 2 --json {DIR}", "--json {DIR} is a directory"),
    ("analyze --team baseline,baseline --games 2 --out {FILE}", "--out {FILE} is a file"),
    # replay
    ("replay {DIR}", "record {DIR} is a directory"),
    ("replay {MISSING}", "record {MISSING} not found"),
    ("replay {BIN}", "not readable JSON"),
    ("replay {EMPTY}", "is not a game record"),
    ("replay {UNFINISHED} --seat 9", "--seat must be 0-1"),
    # play
    ("play --resume {DIR}", "--resume {DIR} is a directory"),
    ("play --resume {MISSING}", "record {MISSING} not found"),
    ("play --resume {BIN}", "not readable JSON"),
    ("play --resume {FINISHED}", "already over"),
    ("play --resume {UNFINISHED} --seat 1", "drop --seat"),
    ("play --resume {UNFINISHED} --game dummy_rummy", "is a game of Common Cause"),
    ("play --resume {UNFINISHED} --game open_rummy --num-players 3", "is a game of Common"),
    ("play --seat 5 --record-dir {DIR}", "--seat must be 0-1"),
    ("play --partner nobody --record-dir {DIR}", "unknown team member 'nobody'"),
    ("play --partner baseline:foo=bar --record-dir {DIR}", "baseline option 'foo=bar'"),
    ("eval --team baseline:jokers=eager;jokers=hold,baseline --games 2",
     "baseline option jokers is given twice"),
    ("eval --team search:rollouts=1;rollouts=2,baseline --games 2",
     "search option rollouts is given twice"),
    ("play --record-dir {FILE}", "--record-dir {FILE} is a file, not a folder"),
    # train
    ("train", "give --config"),
    ("train --game nope", "unknown game 'nope'"),
    ("train --config {DIR}", "--config {DIR} is a directory"),
    ("train --config {MISSING}", "not found"),
    ("train --config {YAML}", "not valid YAML"),
    ("train --resume {DIR}", "--resume {DIR} is a directory"),
    ("train --resume {MISSING}", "not found"),
    ("train --resume {BIN}", "not a checkpoint"),
    ("train --resume {BIN} --seed 1", "drop --seed"),
    ("train --game common_cause --total-steps -1", "--total-steps must not be negative"),
    # serve
    ("serve --port -1 --record-dir {DIR}", "argument --port: a port is 1-65535, got '-1'"),
    ("serve --port 99999 --record-dir {DIR}", "a port is 1-65535, got '99999'"),
    ("serve --host 256.1.1.1 --record-dir {DIR}", "cannot listen on 256.1.1.1:8000: "),
]


def test_serve_on_a_port_in_use_is_one_line_and_exit_2(files, capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--record-dir", str(files["DIR"])]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith(f"commoncause: error: cannot listen on 127.0.0.1:{port}: "), err
    assert "in use" in err


def filled(text: str, files: dict[str, Path]) -> str:
    return text.format(**{k: str(v) for k, v in files.items()})


@pytest.mark.parametrize("line,words", BAD_INPUTS, ids=[line for line, _ in BAD_INPUTS])
def test_bad_input_is_one_line_and_exit_2(line, words, files, monkeypatch, capsys):
    argv = filled(line, files).split()
    monkeypatch.setattr(sys, "argv", ["commoncause", *argv])  # (game options read sys.argv)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    # (the parser's refusals name the subcommand: "commoncause eval: error: ...")
    assert len(lines) == 1 and re.match(r"commoncause( [a-z]+)?: error: ", lines[0]), err
    assert "Traceback" not in err and "None" not in err
    assert filled(words, files) in lines[0]
    assert out == "", f"stdout before the error: {out!r}"


@pytest.fixture
def no_games(monkeypatch):
    """Every way a command plays games, replaced by a failure: a command that gets that far
    has not checked its output paths first."""

    def played(*args, **kwargs):
        raise AssertionError("games were played before a bad output path was refused")

    for target in (
        "commoncause.agents.evaluate.evaluate",
        "commoncause.envs.common_cause.study.calibrate_cli.calibrate",
        "commoncause.envs.common_cause.study.cli.analyze",
    ):
        monkeypatch.setattr(target, played)


@pytest.mark.parametrize(
    "line",
    [
        "eval --games 2 --json {DIR}",
        "eval --games 2 --json {UNDER_FILE}",
        "eval --games 2 --compare random --json {DIR}",
        "eval --game dummy_rummy --games 1 --json {DIR}",
        "eval --game open_rummy --games 1 --journal {DIR}",
        "calibrate --target 0.5 --games 2 --plot {DIR}",
        "calibrate --target 0.5 --games 2 --json {UNDER_FILE}",
        "analyze --team baseline,baseline --games 2 --out {FILE}",
    ],
)
def test_output_paths_are_checked_before_any_game(line, files, no_games, capsys):
    assert main(filled(line, files).split()) == 2
    assert "error:" in capsys.readouterr().err


def test_resume_accepts_the_records_own_game(files, monkeypatch, capsys):
    """``--game`` naming the record's own game is no contradiction: the game resumes."""
    import commoncause.play as play

    monkeypatch.setattr(play.Terminal, "run", lambda self, input_fn=input: 0)
    argv = ["play", "--resume", str(files["UNFINISHED"]), "--game", "common_cause"]
    assert main(argv) == 0
    assert "Resuming" in capsys.readouterr().out
