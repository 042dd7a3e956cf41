"""studies/distill_search.py: the labelling seat plays exactly the search agent's moves and
records what it searched; the soft targets move only the searched moves' share, towards the
better rollouts; generate and fit run end to end and write a policy that loads."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import load_bench

from commoncause.agents.arena import deal_seed, play_game
from commoncause.agents.registry import make_agent
from commoncause.agents.trained import PolicyAgent, load_checkpoint
from commoncause.envs.common_cause.rules import GameConfig

SPEC = "search:blueprint=checkpoints/adhoc/best.pt;rollouts=2"


def test_the_labeller_plays_the_search_agents_moves_and_records_them():
    script = load_bench("distill_search")
    search = make_agent(SPEC)
    labeller = script.Labeller(search.options, "common_cause", search.blueprint)
    labeller.rows = []
    config = GameConfig.make("normal")
    for g in range(2):
        partner = make_agent("baseline")
        played = play_game(config, (labeller, partner), deal_seed(5, g))
        assert played == play_game(config, (make_agent(SPEC), partner), deal_seed(5, g))
    assert labeller.rows
    for _obs, legal, move, blueprint_move, moves, rates in labeller.rows:
        assert len(legal) > 1 and move in legal and blueprint_move in legal
        searched = [m for m in moves if m >= 0]
        assert blueprint_move in searched and move in searched
        assert all(r in (0.0, 0.5, 1.0) for r in rates[: len(searched)])  # wins over 2 deals


def test_soft_targets_move_only_the_searched_share_towards_the_better_rollouts():
    script = load_bench("distill_search")
    ref = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    moves = np.array([[1, 3, -1, -1], [-1, -1, -1, -1]], dtype=np.int16)
    rates = np.array([[0.9, 0.1, -1, -1], [-1, -1, -1, -1]], dtype=np.float32)
    targets = script.soft_targets(ref, moves, rates, tau=0.1)
    assert torch.allclose(targets.sum(1), torch.ones(2))
    assert targets[0, 0] == ref[0, 0] and targets[0, 2] == ref[0, 2]  # not searched: kept
    assert targets[0, 1] + targets[0, 3] == pytest.approx(0.6)  # the searched share
    assert targets[0, 1] > ref[0, 1] and targets[0, 3] < ref[0, 3]  # towards the better rate
    assert torch.equal(targets[1], ref[1])  # nothing searched: the blueprint's own


def test_generate_and_fit_end_to_end(tmp_path, capfd):
    script = load_bench("distill_search")
    data, out = tmp_path / "records", tmp_path / "distilled.pt"
    args = ["generate", "--out", str(data), "--games", "2", "--workers", "1", "--rollouts", "2"]
    assert script.main(args) == 0
    assert [f.name for f in data.glob("*.npz")] == ["w0_g000000.npz"]
    assert "worker 0: games to 1" in capfd.readouterr().out
    assert script.main(args) == 0
    assert "worker 0" not in capfd.readouterr().out  # a file already there is skipped
    with pytest.raises(SystemExit, match="holds records of other settings"):
        script.main([*args, "--seed", "5"])
    assert script.main(["fit", "--data", str(data), "--out", str(out), "--epochs", "1"]) == 0
    card = load_checkpoint(out)["distilled"]
    assert card["decisions"] > 0 and 0 <= card["moves_changed"] <= 1
    assert PolicyAgent(out).name.endswith("distilled.pt")
    with pytest.raises(SystemExit, match="no records"):
        script.main(["fit", "--data", str(tmp_path / "none"), "--out", str(out)])
