"""Game records are checked whole before anything reads them (``records.check_record``):
a malformed one is one line naming the problem, exit 2 on the command line
(``commoncause replay``, ``commoncause play --resume``)."""

from __future__ import annotations

import json

import pytest

from commoncause import cli, records
from commoncause.session import PlaySession


@pytest.fixture
def record_file(tmp_path):
    """An unfinished Common Cause record (a person and the baseline, a few moves in)."""
    session = PlaySession.new(None, None, 5, tmp_path)
    for _ in range(3):
        session.play(session.hint())
    return session.path


BROKEN = [
    ({"seats": "xx"}, "seats: Input should be a valid list"),
    ({"seats": [1, 2]}, "seats.0: Input should be an object"),
    ({"seats": [{"player": "human"}]}, "has 2 seats, the record describes 1"),
    ({"seats": [{"player": "human"}] * 3}, "has 2 seats, the record describes 3"),
    ({"seats": [{"player": "human"}, {"player": "robot"}]}, "seats.1.player"),
    ({"seats": [{"player": "human"}, {"player": "agent"}]}, "seats.1: an agent's seat names"),
    ({"seed": -3}, "seed: Input should be greater than or equal to 0"),
    ({"seed": "7"}, "seed: Input should be a valid integer"),
    ({"deck": "AS"}, "deck: Input should be a valid list"),
    ({"deck": ["AS"] * 54}, "duplicate card AS"),
    ({"moves": {}}, "moves: Input should be a valid list"),
    ({"moves": [{"player": 0}]}, "moves.0.action: Field required"),
    ({"moves": [{"player": 0, "action": "1", "move": "draw stock"}]}, "moves.0.action"),
    ({"moves": [{"player": 0, "action": 1, "move": "x", "probabilities": [1]}]}, "probabil"),
    ({"config": {"stock_size": 99}}, "stock_size must be 0-33"),
    ({"config": {"num_players": 3}}, "unknown game option"),
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"format": "other"}, "not a game record of this project"),
    ({"deck": None}, "deck"),
    ({"config": None}, "config: Input should be a valid dictionary"),
]


@pytest.mark.parametrize("change, words", BROKEN, ids=[str(c) for c, _ in BROKEN])
def test_check_record_names_the_problem(record_file, change, words):
    record = json.loads(record_file.read_text())
    records.check_record(record)  # the record as written is whole
    record.update(change)
    with pytest.raises(ValueError) as e:
        records.check_record(record)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_config_contradicting_the_seats(tmp_path):
    session = PlaySession.new(
        records.game_of({"game": "dummy_rummy"}).make_config(num_players=3),
        None,
        1,
        tmp_path,
        "dummy_rummy",
    )
    record = json.loads(session.path.read_text())
    record["config"]["num_players"] = 4
    with pytest.raises(ValueError, match="has 4 seats, the record describes 3"):
        records.check_record(record)


@pytest.mark.parametrize("change, words", BROKEN[:8], ids=[str(c) for c, _ in BROKEN[:8]])
@pytest.mark.parametrize("command", ["replay", "play --resume"])
def test_the_cli_refuses_a_broken_record_in_one_line(record_file, capsys, command, change, words):
    record = json.loads(record_file.read_text())
    record.update(change)
    record_file.write_text(json.dumps(record))
    assert cli.main([*command.split(), str(record_file)]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and str(record_file) in err and len(err.splitlines()) == 1
