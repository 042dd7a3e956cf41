"""agents/journal.py: a damaged journal (a result row missing a field, with one too many or
of the wrong type; a garbage line before its last) is a one-line error naming the file, the
line and the field, and is left as it was; only a last line cut short by a stop is skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commoncause.agents.journal import read_journal
from commoncause.cli import main

EVAL = ["eval", "--game", "dummy_rummy", "--num-players", "2", "--games", "3"]


def journal_of_three(tmp_path: Path) -> Path:
    """A journal of ``EVAL``'s three deals: a header, then one row per deal."""
    path = tmp_path / "jm.jsonl"
    assert main([*EVAL, "--journal", str(path)]) == 0
    assert len(path.read_text().splitlines()) == 4
    return path


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda r: r | {"value": "x"}, "value"),
        (lambda r: r | {"member": 0.5}, "member"),
        (lambda r: r | {"seat": True}, "seat"),
        (lambda r: r | {"stats": {"points": "80"}}, "stats"),
        (lambda r: r | {"win_share": None}, "win_share"),
        (lambda r: {k: v for k, v in r.items() if k != "win_share"}, "win_share"),
        (lambda r: r | {"colour": "red"}, "colour"),
    ],
)
def test_a_result_row_of_the_wrong_shape_names_the_file_line_and_field(
    tmp_path: Path, capsys, change, field
):
    path = journal_of_three(tmp_path)
    lines = path.read_text().splitlines()
    row = json.loads(lines[2])
    row["deals"][0][1] = change(row["deals"][0][1])
    lines[2] = json.dumps(row)
    damaged = "\n".join(lines) + "\n"
    path.write_text(damaged)
    capsys.readouterr()
    for so_far in ([], ["--so-far"]):
        assert main([*EVAL, "--journal", str(path), *so_far]) == 2
        err = one_line_error(capsys)
        assert f"journal {path} line 3 " in err and f"field {field}" in err, err
        assert path.read_text() == damaged  # nothing rewritten, nothing lost


def test_a_garbage_line_before_the_last_is_an_error_naming_it(tmp_path: Path, capsys):
    path = journal_of_three(tmp_path)
    lines = path.read_text().splitlines()
    damaged = "\n".join([*lines[:2], "garbage", *lines[2:]]) + "\n"
    path.write_text(damaged)
    capsys.readouterr()
    for so_far in ([], ["--so-far"]):
        assert main([*EVAL, "--journal", str(path), *so_far]) == 2
        err = one_line_error(capsys)
        assert f"journal {path} line 3 " in err and "not JSON" in err, err
        assert path.read_text() == damaged
    with pytest.raises(ValueError, match="line 3 .*not JSON"):
        read_journal(path)


def test_only_a_last_line_cut_short_is_skipped(tmp_path: Path):
    path = journal_of_three(tmp_path)
    lines = path.read_text().splitlines()
    header, done = read_journal(path, "\n".join([*lines, lines[3][:40]]))
    assert sorted(done) == [0, 1, 2] and header == json.loads(lines[0])
    header, done = read_journal(path, "\n".join([*lines[:3], lines[3][:40]]))
    assert sorted(done) == [0, 1]
