"""studies/decision_swap.py: with the baseline taking every move the seat plays as a baseline
(the same margins as a game of baselines), with none it is the policy, and the command runs
end to end."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from helpers import load_bench

from commoncause.agents.evaluate import deal_seed, play_game, team_agents
from commoncause.envs.registry import get_game

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "checkpoints" / "dummy_rummy_2p" / "best.pt"


def test_the_baseline_taking_every_move_plays_the_baselines_game():
    script = load_bench("decision_swap")
    game = get_game("dummy_rummy")
    config = game.make_config(num_players=2, hands=1)
    policy = script.make_agent(str(POLICY), game.name)
    margins, kinds = script.play(game, config, policy, 6, 3, script.EVERY)
    agents = team_agents(game.name, ("baseline", "baseline"))
    for d, margin in enumerate(margins):
        returns = play_game(config, agents, deal_seed(3, d), game.name).returns
        seat = d % 2
        assert margin == returns[seat] - statistics.fmean([returns[1 - seat]])
    assert {"draw", "discard"} <= kinds
    alone, _ = script.play(game, config, policy, 6, 3, None)
    assert alone != margins  # the policy is not the baseline on every deal


def test_command_writes_each_kind_and_refuses_a_team_game(tmp_path):
    script = load_bench("decision_swap")
    out = tmp_path / "swap.json"
    args = ["--game", "dummy_rummy", "--num-players", "2", "--hands", "1",
            "--policy", str(POLICY), "--deals", "4", "--json", str(out)]  # fmt: skip
    assert script.main(args) == 0
    results = json.loads(out.read_text())["results"]
    assert results["the policy"]["change"] == 0.0
    assert {"baseline: draw", "baseline: discard", "baseline: every move"} <= set(results)
    with pytest.raises(SystemExit, match="team game"):
        script.main(["--policy", str(ROOT / "checkpoints" / "normal" / "best.pt")])
