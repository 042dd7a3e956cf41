"""The competitive table's per-hand figures (agents/tournament.py): whole games weighted by
their hands, with intervals by the ratio estimate."""

from __future__ import annotations

import pytest

from commoncause.agents.tournament import _mean_interval, _ratio_interval, evaluate_table
from commoncause.envs.registry import get_game


def test_ratio_interval_is_the_mean_interval_when_every_deal_has_one_hand():
    values = [3.0, -1.0, 4.0, 1.5, -5.0]
    plain = _mean_interval(values)
    for ratio in (_ratio_interval(values, [1.0] * 5),
                  _ratio_interval([2 * v for v in values], [2.0] * 5)):  # fmt: skip
        assert ratio["mean"] == pytest.approx(plain["mean"]) and ratio["n"] == 5
        assert ratio["ci95"] == pytest.approx(plain["ci95"])
    uneven = _ratio_interval([10.0, 2.0], [4.0, 1.0])
    assert uneven["mean"] == 12.0 / 5.0  # hands weigh, deals do not


def test_per_hand_figures_of_whole_games():
    """Two-hand games at two seats: every figure per hand is its total over the hands
    played; the margin per hand is the difference of the members' returns per hand; the
    hands gone out share the hands that ended."""
    config = get_game("dummy_rummy").make_config(num_players=2, hands=2)
    report = evaluate_table(("baseline", "random"), config, 6, seed=4, workers=1)
    base, rand = report.members
    for member in report.members:
        per_hand = member["per_hand"]
        assert per_hand["points"]["mean"] == pytest.approx(
            member["mean_points"] / member["mean_hands"]
        )
        assert per_hand["return"]["mean"] == pytest.approx(-per_hand["points"]["mean"])
        low, high = per_hand["went_out"]["ci95"]
        assert low <= per_hand["went_out"]["mean"] <= high
        assert "hands" not in per_hand and "truncated" not in per_hand
    margin = report.vs_field_per_hand
    assert margin["mean"] == pytest.approx(base["per_hand"]["return"]["mean"]
                                           - rand["per_hand"]["return"]["mean"])  # fmt: skip
    assert margin["ci95"][0] < margin["mean"] < margin["ci95"][1] and margin["n"] == 6
    outs = base["per_hand"]["went_out"]["mean"] + rand["per_hand"]["went_out"]["mean"]
    assert outs == pytest.approx(1.0)  # (no hand of these is cut short)
    assert report.truncated == 0


def test_games_without_hands_have_no_per_hand_figures():
    config = get_game("common_cause").make_config()
    with pytest.raises(ValueError, match="at least 1"):
        evaluate_table(("baseline", "baseline"), config, 0, game="common_cause")
    report = evaluate_table(("baseline", "baseline"), config, 2, game="common_cause")
    assert report.vs_field_per_hand is None and "per_hand" not in report.members[0]


def test_eval_prints_the_per_hand_line():
    from terminal import run_cli

    args = ["--game", "dummy_rummy", "--num-players", "2", "--hands", "2", "--team",
            "baseline,random", "--games", "3", "--seed", "4", "--workers", "1"]  # fmt: skip
    done = run_cli("eval", *args)
    assert done.returncode == 0, done.stderr
    line = [x for x in done.stdout.splitlines() if x.startswith("per hand (")]
    assert len(line) == 1 and "(12 hands a seat): baseline minus the mean of the others" in line[0]
    assert "; went out: baseline " in line[0] and ", random " in line[0]
