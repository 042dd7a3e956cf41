"""The competitive table's per-hand figures (agents/evaluate.py): whole games weighted by
their hands, with intervals by the ratio estimate."""

from __future__ import annotations

import json

import pytest

from commoncause.agents.evaluate import evaluate
from commoncause.agents.stats import normal_interval, ratio_interval
from commoncause.envs.registry import get_game

DUMMY = "dummy_rummy"


def test_ratio_interval_is_the_mean_interval_when_every_deal_has_one_hand():
    values = [3.0, -1.0, 4.0, 1.5, -5.0]
    plain = normal_interval(values)
    for ratio in (ratio_interval(values, [1.0] * 5),
                  ratio_interval([2 * v for v in values], [2.0] * 5)):  # fmt: skip
        assert ratio["mean"] == pytest.approx(plain["mean"]) and ratio["n"] == 5
        assert ratio["ci95"] == pytest.approx(plain["ci95"])
    uneven = ratio_interval([10.0, 2.0], [4.0, 1.0])
    assert uneven["mean"] == 12.0 / 5.0  # hands weigh, deals do not


def test_per_hand_figures_of_whole_games():
    """Two-hand games at two seats: every figure per hand is its total over the hands
    played; the margin per hand is the difference of the members' returns per hand; the
    hands gone out share the hands that ended."""
    config = get_game("dummy_rummy").make_config(num_players=2, hands=2)
    report = evaluate(("baseline", "random"), config, 6, seed=4, workers=1, game=DUMMY)
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
        evaluate(("baseline", "baseline"), config, 0, game="common_cause")
    report = evaluate(("baseline", "baseline"), config, 2, game="common_cause")
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


def test_a_journal_continues_and_extends_a_run(tmp_path):
    """A run stopped part way (its last line cut short) and continued from its journal, then
    extended to more deals, gives the figures of one straight run of as many deals."""
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    team = ("baseline", "random")
    straight = evaluate(team, config, 6, seed=4, workers=1, game=DUMMY)
    journal = tmp_path / "run.jsonl"
    evaluate(team, config, 3, seed=4, workers=1, journal=journal, game=DUMMY)
    with journal.open("a") as f:
        f.write('{"first": 3, "deals": [[{"member"')  # a stop in the middle of a write
    played = []
    part = evaluate(team, config, 6, seed=4, workers=1, journal=journal,
                          progress=played.append, game=DUMMY)  # fmt: skip
    assert part.per_deal == straight.per_deal and part.members == straight.members
    assert part.vs_field == straight.vs_field and part.games == straight.games
    assert played[0] == 3 * 2  # the journal's deals count as done at once
    again = evaluate(team, config, 6, seed=4, workers=2, journal=journal, game=DUMMY)
    assert again.per_deal == straight.per_deal  # all in the journal: nothing played
    assert len(journal.read_text().splitlines()) == 1 + 6  # the header, then one per deal


def test_so_far_reports_the_deals_a_journal_holds_and_plays_none(tmp_path):
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    team = ("baseline", "random")
    first_three = evaluate(team, config, 3, seed=4, workers=1, game=DUMMY)
    journal = tmp_path / "run.jsonl"
    evaluate(team, config, 3, seed=4, workers=1, journal=journal, game=DUMMY)
    journal.write_text(journal.read_text() + '{"first": 3, "dea')  # a row cut by a stop
    kept = journal.read_text()
    so_far = evaluate(team, config, 10, seed=4, journal=journal, so_far=True, game=DUMMY)
    assert so_far.deals == 3 and so_far.games == 6 and journal.read_text() == kept
    assert so_far.per_deal == first_three.per_deal and so_far.members == first_three.members
    with pytest.raises(ValueError, match="no journal None"):
        evaluate(team, config, 3, seed=4, so_far=True, game=DUMMY)
    typo = tmp_path / "rum.jsonl"
    with pytest.raises(ValueError, match="no journal .*rum.jsonl"):
        evaluate(team, config, 3, seed=4, journal=typo, so_far=True, game=DUMMY)
    assert not typo.exists()  # not made by asking
    header_only = tmp_path / "header.jsonl"
    header_only.write_text(kept.splitlines()[0] + "\n")
    with pytest.raises(ValueError, match="holds none of the first 3 deals"):
        evaluate(team, config, 3, seed=4, journal=header_only, so_far=True, game=DUMMY)


def test_a_journal_of_another_run_is_refused(tmp_path):
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    journal = tmp_path / "run.jsonl"
    evaluate(("baseline", "random"), config, 1, seed=4, workers=1, journal=journal, game=DUMMY)
    with pytest.raises(ValueError, match="of another run"):
        evaluate(("baseline", "random"), config, 2, seed=5, workers=1, journal=journal, game=DUMMY)
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    with pytest.raises(ValueError, match="not an evaluation journal"):
        evaluate(("baseline", "random"), config, 1, seed=4, workers=1, journal=junk, game=DUMMY)
    assert junk.read_text() == "not json\n"  # left as it was


def test_a_journal_with_a_row_of_another_shape_names_the_line(tmp_path):
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    journal = tmp_path / "run.jsonl"
    evaluate(("baseline", "random"), config, 1, seed=4, workers=1, journal=journal, game=DUMMY)
    kept = journal.read_text()
    journal.write_text(kept + '{"first": 1}\n')
    with pytest.raises(ValueError, match="line 3 is not a row of deals"):
        evaluate(("baseline", "random"), config, 2, seed=4, workers=1, journal=journal, game=DUMMY)
    assert journal.read_text() == kept + '{"first": 1}\n'  # nothing rewritten


def test_a_journal_stopped_while_writing_its_header_starts_again(tmp_path):
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    whole = tmp_path / "whole.jsonl"
    straight = evaluate(("baseline", "random"), config, 2, seed=4, journal=whole, game=DUMMY)
    cut = tmp_path / "cut.jsonl"
    cut.write_text(whole.read_text().splitlines()[0][:40])
    again = evaluate(("baseline", "random"), config, 2, seed=4, journal=cut, game=DUMMY)
    assert again.per_deal == straight.per_deal
    assert cut.read_text() == whole.read_text()


def test_eval_journal_from_the_command_line(tmp_path):
    from terminal import run_cli

    journal = tmp_path / "eval.jsonl"
    args = ["--game", "dummy_rummy", "--num-players", "2", "--hands", "1", "--team",
            "baseline,random", "--seed", "4", "--workers", "1",
            "--journal", str(journal)]  # fmt: skip
    first = run_cli("eval", *args, "--games", "2", "--json", str(tmp_path / "a.json"))
    assert first.returncode == 0, first.stderr
    so_far = run_cli("eval", *args, "--games", "4", "--so-far")
    assert so_far.returncode == 0, so_far.stderr
    assert "2 deals (so far, of 4) x 2 seat rotations = 4 games" in so_far.stdout
    more = run_cli("eval", *args, "--games", "4", "--json", str(tmp_path / "b.json"))
    straight = run_cli("eval", *args[:-2], "--games", "4", "--json", str(tmp_path / "c.json"))
    assert more.returncode == straight.returncode == 0, more.stderr + straight.stderr
    b, c = (json.loads((tmp_path / f).read_text()) for f in ("b.json", "c.json"))
    assert b["members"] == c["members"] and b["vs_field"] == c["vs_field"]
    refused = run_cli("eval", "--team", "baseline", "--games", "2", "--journal", str(journal))
    assert refused.returncode != 0 and "--journal is for the competitive games" in refused.stderr


def test_players_is_a_short_flag_for_num_players(tmp_path):
    """The issue's spelling: ``eval --game dummy_rummy --players 3``."""
    from terminal import run_cli

    out = tmp_path / "e.json"
    done = run_cli("eval", "--game", "dummy_rummy", "--players", "3", "--hands", "1",
                   "--team", "baseline,random,random", "--games", "1", "--workers", "1",
                   "--json", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["config"]["num_players"] == 3 and len(data["members"]) == 3
