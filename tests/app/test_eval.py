"""Evaluation and calibration: the real CLI on a few dozen games, paired deals, bad input."""

from __future__ import annotations

import importlib.util
import json
import math
import multiprocessing
import random
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from commoncause.agents.arena import deal_seed, play_game
from commoncause.agents.evaluate import evaluate
from commoncause.agents.registry import make_agent
from commoncause.agents.stats import paired_difference, wilson_interval
from commoncause.cli import main
from commoncause.envs.common_cause.rules import GameConfig, GameState
from commoncause.envs.core.game import Game

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
    new_game = Game.new_game

    def recording(self, config, seed=None):
        state = new_game(self, config, seed)
        dealt.append(list(state.deck))
        return state

    monkeypatch.setattr(Game, "new_game", recording)
    decks = {}
    for team in (("baseline", "baseline"), ("random", "random"), ("baseline", "random")):
        dealt.clear()
        evaluate(team, config, 12, seed=5, workers=1)
        decks[team] = list(dealt)
    # exactly the deals GameState.new_game made before the game registry existed
    expected = [GameState.new_game(config, deal_seed(5, i)).deck for i in range(12)]
    assert all(d == expected for d in decks.values())
    assert len({tuple(d) for d in expected}) == 12  # different games, not one deal repeated


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--team", "baseline,wizard"], "wizard"),
        (["--team", "baseline:jokers=maybe,baseline"], "jokers='maybe'"),
        (["--team", "baseline:colour=red,baseline"], "colour=red"),
        (["--team", "baseline,baseline,random"], "'baseline,baseline,random'"),
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


# ------------------------------------------------------------ issue 10 defects


def test_paired_difference_interval_stays_within_the_bounds():
    """It used to be a plain normal interval: past +100 points with few games, nan with one."""
    few = paired_difference([1, 1, 1, 0], [0, 0, 0, 0])
    assert -1.0 <= few["ci95"][0] <= few["value"] <= few["ci95"][1] <= 1.0
    one = paired_difference([1], [0])
    assert all(math.isfinite(x) for x in one["ci95"]) and one["n"] == 1
    assert -1.0 <= one["ci95"][0] < one["value"] == one["ci95"][1] == 1.0
    for a, b in (([0] * 5, [1] * 5), ([1] * 5, [1] * 5), ([0, 1], [1, 0])):
        d = paired_difference(a, b)
        assert -1.0 <= d["ci95"][0] <= d["value"] <= d["ci95"][1] <= 1.0
        assert d["ci95"][0] < d["ci95"][1]  # never a zero-width claim of certainty
    # many games: close to the normal interval of the paired differences
    rng = random.Random(0)
    a = [int(rng.random() < 0.6) for _ in range(4000)]
    b = [x if rng.random() < 0.7 else int(rng.random() < 0.5) for x in a]
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(d) / len(d)
    half = 1.959964 * math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1) / len(d))
    got = paired_difference(a, b)
    assert got["value"] == pytest.approx(mean)
    assert got["ci95"] == pytest.approx([mean - half, mean + half], abs=0.002)
    # other per-game figures: a normal interval clipped to what the data allow
    clipped = paired_difference([0.5, 0.5, 0.25], [0.0, 0.0, 0.25])
    assert clipped["ci95"][0] >= -0.25 and clipped["ci95"][1] <= 0.5


def test_bench_memory_line_uses_one_unit():
    """MiB throughout, the peak from the same source as the samples (it was ru_maxrss in
    one unit beside statm in another, and came out below the samples)."""
    bench = Path(__file__).resolve().parents[2] / "bench" / "bench_env.py"
    spec = importlib.util.spec_from_file_location("bench_env_under_test", bench)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    mem = module.memory_profile(300)
    assert set(mem) == {"steps", "rss_mib_samples", "peak_rss_mib"}
    assert mem["peak_rss_mib"] >= max(mem["rss_mib_samples"])
    assert "MB" not in bench.read_text().split("def memory_profile")[1]


def test_team_help_names_every_kind_of_member(capsys):
    for command in ("eval", "calibrate"):
        assert main([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        for kind in ("baseline:<option>=<value>", "random", "trained", "checkpoint path"):
            assert kind in text, (command, kind)


@pytest.mark.parametrize("flag", [["--level", "hard"], ["--stock-size", "20"]])
def test_calibrate_refuses_the_options_it_sets_itself(capsys, flag):
    assert main(["calibrate", "--target", "0.5", "--games", "2", *flag]) == 2
    err = capsys.readouterr().err
    assert err.startswith("commoncause: error:") and flag[0] in err
    assert len(err.strip().splitlines()) == 1


def test_piped_eval_table_prints_full_team_names(capsys):
    long = "baseline:jokers=hold;take_discard=direct;start_choice=best;discard=links"
    assert main(["eval", "--games", "2", "--workers", "1", "--team", f"{long},random"]) == 0
    assert f"{long}+random" in capsys.readouterr().out


def test_unknown_member_error_lists_the_choices():
    with pytest.raises(ValueError) as err:
        make_agent("foo")
    text = str(err.value)
    assert "'foo'" in text and "\n" not in text
    for kind in ("baseline", "baseline:<option>=<value>[;...]", "random", "trained"):
        assert kind in text
    assert "checkpoint path" in text


def test_ctrl_c_in_eval_exits_quietly_with_the_pool_shut_down(monkeypatch, capsys):
    import commoncause.cli as cli

    @contextmanager
    def interrupting(what, total):
        def advance(n):
            raise KeyboardInterrupt

        yield advance

    monkeypatch.setattr(cli, "_progress", interrupting)
    assert main(["eval", "--games", "400", "--workers", "2"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "commoncause: interrupted"
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()


def test_seed_rule_and_game_option(tmp_path, capsys):
    assert main(["eval", "--games", "2", "--seed", "-1"]) == 2
    assert "0 or more" in capsys.readouterr().err
    data = run_eval(tmp_path, "game", "--game", "common_cause", "--workers", "1")
    assert data["game"] == "common_cause" and len(data["mean_returns"]) == 2
    assert main(["eval", "--games", "2", "--game", "no_such_game"]) == 2


def test_play_game_gives_every_seat_its_return():
    outcome = play_game(GameConfig(), (make_agent("baseline"), make_agent("baseline")), 7)
    assert len(outcome.returns) == 2 and outcome.returns[0] == outcome.returns[1]
    assert outcome.win == (outcome.returns[0] > 0)
    with pytest.raises(ValueError, match="2 seats"):
        play_game(GameConfig(), (make_agent("random"),), 7)
