"""Evaluation and calibration: the real CLI on a few dozen games, paired deals, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agents.evaluate as evaluate_module
from agents.evaluate import deal_seed, evaluate, wilson_interval
from commoncause.cli import main
from envs.common_cause.rules import GameConfig, GameState

FIELDS = {
    "games",
    "wins",
    "win_rate",
    "ci95",
    "mean_turns",
    "mean_discard_pickups",
    "games_per_second",
    "level",
    "stock_size",
    "variants",
    "team",
    "seed",
}


def run_eval(tmp_path: Path, name: str, *args: str) -> dict:
    out = tmp_path / f"{name}.json"
    assert main(["eval", "--games", "40", "--seed", "3", *args, "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_eval_json_fields(tmp_path):
    data = run_eval(tmp_path, "eval", "--level", "hard", "--ace-low", "--workers", "1")
    assert data.keys() >= FIELDS
    assert data["games"] == 40 and 0 <= data["wins"] <= 40
    assert data["win_rate"] == data["wins"] / 40
    low, high = data["ci95"]
    assert low <= data["win_rate"] <= high
    assert data["level"] == "hard" and data["team"] == ["baseline", "baseline"]
    assert data["stock_size"] == GameConfig.make("hard").stock_size
    assert data["variants"]["ace_low"] is True and data["seed"] == 3
    assert data["mean_turns"] > 0 and data["games_per_second"] > 0
    assert len(data["wins_by_game"]) == 40


def test_same_seed_same_result_whatever_the_workers(tmp_path):
    one = run_eval(tmp_path, "one", "--workers", "1")
    two = run_eval(tmp_path, "two", "--workers", "2")
    assert one["wins"] == two["wins"] and one["wins_by_game"] == two["wins_by_game"]
    assert one["mean_turns"] == two["mean_turns"]
    assert one["mean_discard_pickups"] == two["mean_discard_pickups"]


def test_same_seed_deals_the_same_games_to_every_team(monkeypatch):
    """Record the decks evaluate() deals: they depend on the seed only, not on the team."""
    config = GameConfig()
    dealt: list[list[int]] = []

    class Recording(GameState):
        @classmethod
        def new_game(cls, config, seed=None):
            state = GameState.new_game(config, seed)
            dealt.append(list(state.deck))
            return state

    monkeypatch.setattr(evaluate_module, "GameState", Recording)
    decks = {}
    for team in (("baseline", "baseline"), ("random", "random"), ("baseline", "random")):
        dealt.clear()
        evaluate(team, config, 12, seed=5, workers=1)
        decks[team] = list(dealt)
    expected = [GameState.new_game(config, deal_seed(5, i)).deck for i in range(12)]
    assert all(d == expected for d in decks.values())
    assert len({tuple(d) for d in expected}) == 12  # different games, not one deal repeated


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--team", "baseline,wizard"], "wizard"),
        (["--team", "baseline:jokers=maybe,baseline"], "jokers='maybe'"),
        (["--team", "baseline:colour=red,baseline"], "colour=red"),
        (["--team", "baseline"], "'baseline'"),
        (["--team", "missing/checkpoint.pt,baseline"], "missing/checkpoint.pt"),
        (["--level", "nightmare"], "nightmare"),
        (["--stock-size", "40"], "40"),
        (["--stock-size", "-1"], "-1"),
        (["--games", "0"], "--games"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, named):
    assert main(["eval", "--games", "2", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("commoncause: error:") and named in err
    assert len(err.strip().splitlines()) == 1


def test_calibrate_bad_range_exits_2(capsys):
    assert main(["calibrate", "--target", "0.5", "--min-stock", "30", "--max-stock", "40"]) == 2
    assert "--max-stock" in capsys.readouterr().err


def test_wilson_interval_known_values():
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson_interval(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert wilson_interval(50, 100) == pytest.approx((0.40383, 0.59617), abs=1e-5)
    assert wilson_interval(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-5)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_calibrate_writes_plot_and_json(tmp_path, capsys):
    plot, out = tmp_path / "cal.png", tmp_path / "cal.json"
    args = ["calibrate", "--target", "0.5", "--games", "6", "--seed", "1", "--workers", "1"]
    args += ["--min-stock", "20", "--max-stock", "23", "--plot", str(plot), "--json", str(out)]
    assert main(args) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads(out.read_text())
    assert [p["stock_size"] for p in data["curve"]] == [20, 21, 22, 23]
    assert 20 <= data["best_stock_size"] <= 23 and data["target"] == 0.5
    closest = min(data["curve"], key=lambda p: (abs(p["win_rate"] - 0.5), p["stock_size"]))
    assert data["best_stock_size"] == closest["stock_size"]
    assert "closest to 50%" in capsys.readouterr().out


def test_random_team_wins_far_less_than_the_baseline():
    config = GameConfig()
    baseline = evaluate(("baseline", "baseline"), config, 200, seed=1, workers=1)
    rand = evaluate(("random", "random"), config, 200, seed=1, workers=1)
    assert baseline.win_rate > 0.35 and rand.win_rate < 0.05
    assert baseline.wins - rand.wins > 60


def test_compare_reports_the_paired_difference(tmp_path, capsys):
    data = run_eval(tmp_path, "cmp", "--team", "random,random", "--compare", "baseline,baseline")
    assert data["compare"]["team"] == ["baseline", "baseline"]
    diff = data["difference"]
    expected = (data["wins"] - data["compare"]["wins"]) / data["games"]
    assert diff["n"] == 40 and abs(diff["value"] - expected) < 1e-12
    assert diff["ci95"][0] <= diff["value"] <= diff["ci95"][1]
    assert "paired over the same 40 deals" in capsys.readouterr().out
