"""studies/lay_down.py: its records agree with the games eval plays on the same deals (who
went out, every turn counted once), hold what a laid contract 1 leaves, and the command runs
end to end."""

from __future__ import annotations

import json

import pytest
from helpers import load_bench

from commoncause.agents.evaluate import deal_seed, play_game, team_agents
from commoncause.envs.registry import get_game


@pytest.mark.parametrize("players", [2, 4])
def test_records_match_the_games_and_contract_one(players):
    script = load_bench("lay_down")
    game = get_game("dummy_rummy")
    config = game.make_config(num_players=players, hands=1)
    deals = 12
    records = script.seat_hands(game, config, script.make_agent("baseline", game.name), deals, 5)
    assert len(records) == deals * players
    agents = team_agents(game.name, ("baseline",) * players)
    for d in range(deals):
        rows = records[d * players : (d + 1) * players]
        assert [mine for mine, _ in rows] == [s == d % players for s in range(players)]
        outcome = play_game(config, agents, deal_seed(5, d), game.name)
        assert [r["out"] for _, r in rows] == [ret == 0 for ret in outcome.returns]
        assert sum(r["turns"] for _, r in rows) == outcome.turns  # each turn counted once
        assert sum(r["out"] for _, r in rows) <= 1
        for _, r in rows:
            if r["laid"]:  # 13 cards, one drawn, two sets of 3 laid, one discarded
                assert 1 <= r["lay turn"] <= r["turns"] and r["held"] == 7
                assert 0 <= r["wild"] <= r["fitting"] <= r["held"]
            if r["out"]:
                assert r["laid"] and r["turns to out"] >= 1


def test_the_command_runs_and_refuses_another_game(tmp_path, capsys):
    script = load_bench("lay_down")
    out = tmp_path / "lay.json"
    args = ["--num-players", "2", "--hands", "1", "--deals", "6", "--json", str(out)]
    assert script.main(args) == 0
    record = json.loads(out.read_text())
    assert record["member"] == "trained" and record["deals"] == 6
    assert record["means"]["trained"]["hands"] == 6 == record["means"]["baseline"]["hands"]
    assert "trained" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="dummy_rummy"):
        script.main(["--game", "common_cause", "--deals", "2"])
