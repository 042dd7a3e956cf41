"""The Game record says what the floors above envs/ would otherwise sniff (issue 37): its
levels, its own summary figures, its shipped policies (the one list packaging reads), its
study, and the rules modules import no torch."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from commoncause.envs.registry import game_names, get_game

ROOT = Path(__file__).resolve().parents[2]


def test_packaging_ships_exactly_the_policies_the_records_name(monkeypatch):
    """setup.py reads the records' ``policies`` (without importing the games); each game's
    ``checkpoint`` names a folder in its own list, and each folder is there."""
    import setuptools

    given: dict = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: given.update(kwargs))
    runpy.run_path(str(ROOT / "setup.py"))
    shipped = [p for name in game_names() for p in get_game(name).policies]
    data = [p for p in given["package_data"] if p.startswith("commoncause.checkpoints.")]
    assert data == [f"commoncause.checkpoints.{p}" for p in shipped]
    assert len(set(shipped)) == len(shipped)
    for name in game_names():
        game = get_game(name)
        configs = [game.make_config()]
        if "num_players" in game.config_type.__dataclass_fields__:
            configs += [game.make_config(num_players=n) for n in (2, 4)]
        for config in configs:
            folder = Path(game.checkpoint(config)).parent
            assert folder.parent.name == "checkpoints" and folder.name in game.policies
        for policy in game.policies:
            assert (ROOT / "checkpoints" / policy / "best.pt").is_file(), policy


def test_levels_are_presets_of_fields():
    cc = get_game("common_cause")
    assert cc.level_fields == ("stock_size",)
    hard = cc.make_config(level="hard")
    assert cc.level_of(hard) == "hard" and cc.long_label(hard) == "hard (stock size 18)"
    odd = cc.make_config(stock_size=5)
    assert cc.level_of(odd) is None and cc.long_label(odd) == "stock 5"
    for name in ("dummy_rummy", "open_rummy"):
        game = get_game(name)
        config = game.make_config()
        assert game.levels == {} and game.level_of(config) is None
        assert game.long_label(config) == config.label()


def test_common_cause_summary_counts_whose_discards_were_taken():
    game = get_game("common_cause")
    state = game.new_game(game.make_config(), seed=3)
    out = game.summary(state)
    assert out["stock_left"] == out["stock_dealt"] == 22 and out["loss_reason"] == ""
    assert set(out["pickups"].values()) == {0}
    taken = 0
    while not state.is_terminal and taken == 0:
        legal = state.legal_actions()
        state.apply(1 if 1 in legal else legal[-1])  # 1: take the top discard
        taken = sum(game.summary(state)["pickups"].values())
    assert taken == 1 and state.seat_stats(0)["pickups"] == 1
    for name in ("dummy_rummy", "open_rummy"):
        other = get_game(name)
        assert other.summary(other.new_game(other.make_config(), seed=1)) == {}


def test_only_common_cause_has_studies():
    assert set(get_game("common_cause").studies) == {"analyze", "benchmark", "calibrate"}
    assert [n for n in game_names() if not get_game(n).studies] == ["dummy_rummy", "open_rummy"]


@pytest.mark.parametrize("name", game_names())
def test_a_games_rules_import_no_torch(name):
    """The engine, its record and its observer load without torch (a fresh interpreter)."""
    modules = ", ".join(f"commoncause.envs.{name}.{m}" for m in ("rules", "game", "observer"))
    code = f"import sys, {modules}; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_analyze_a_game_without_a_study_says_so_in_one_line():
    """``commoncause analyze --game dummy_rummy``: exit 2, one line naming the games that
    have one (its record's ``studies`` lacks it); Common Cause's studies are its modules."""
    import importlib

    for module in get_game("common_cause").studies.values():
        study = importlib.import_module(module)
        assert callable(study.add_arguments) and callable(study.run)
    cli = [sys.executable, "-m", "commoncause.cli", "analyze", "--game"]
    for name in ("dummy_rummy", "open_rummy"):
        out = subprocess.run([*cli, name], capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 2 and out.stdout == ""
        title = get_game(name).title
        assert out.stderr == (
            f"commoncause: error: {title} has no study for `commoncause analyze` (the games "
            "with one: Common Cause)\n"
        )


def test_the_screens_name_the_other_seats_in_the_games_words(tmp_path):
    """A two-seat team game's screen says its record's word (Common Cause: ``partner``);
    the start line of a table of others says theirs."""
    from commoncause.screen import seat_names
    from commoncause.session import PlaySession

    assert get_game("common_cause").others == "partner"
    s = PlaySession.new(seats=["human", "baseline"], seed=3, record_dir=tmp_path)
    assert seat_names(s.screen(1)) == {1: "you", 0: "partner"}
    assert get_game("dummy_rummy").others == "the other players"


def test_every_member_a_record_names_is_a_shipped_policy_that_loads():
    """``Game.members``: each path exists, its folder is in the record's ``policies`` (so
    the wheel carries it), and ``make_agent(name, game)`` loads it."""
    from commoncause import ROOT
    from commoncause.agents.registry import make_agent

    named = 0
    for name in game_names():
        game = get_game(name)
        for member, path in game.members.items():
            assert (ROOT / path).is_file(), (name, member)
            assert Path(path).parent.name in game.policies, (name, member)
            assert make_agent(member, name).path == ROOT / path
            named += 1
    assert named >= 1  # (Common Cause's adhoc)
