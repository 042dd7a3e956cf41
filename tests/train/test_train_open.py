"""Self-play training of Open Rummy: per-seat rewards that sum to each seat's points, the
shipped configs, and the real train command on configs/smoke_open.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from competitive import check_per_seat_rewards, smoke_train

from commoncause.train.config import load_config

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke_open.yaml"


@pytest.mark.parametrize("margin", [False, True])
def test_per_seat_rewards_sum_to_each_seats_points(margin):
    """Two rounds played by the baseline's choices: every seat's per-step rewards (placed
    points as earned, the hand's points at each round's end) sum to its total (with
    ``reward_margin`` its margin over the others' mean), scaled; points placed came before
    the end of the game."""
    check_per_seat_rewards("open_rummy", margin, num_players=3, rounds=2)


def test_open_configs_load():
    for name, seats in (("open_rummy_4p", 4), ("open_rummy_2p", 2), ("smoke_open", 4)):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        cfg.validate()
        assert cfg.game == "open_rummy" and cfg.trainer == "torch"
        assert cfg.reward_scale == 0.01 and cfg.game_options["rounds"] == 1
        assert cfg.game_options["num_players"] == seats
        assert cfg.game_config().rounds == 1
    assert load_config(ROOT / "configs" / "open_rummy_4p.yaml").baseline_seats == 3
    assert load_config(ROOT / "configs" / "open_rummy_2p.yaml").baseline_seats == 1


def test_smoke_training_run(tmp_path, monkeypatch):
    """The real train command on configs/smoke_open.yaml: run folder, checkpoints that
    record the game, TensorBoard events."""
    monkeypatch.chdir(tmp_path)
    run, data = smoke_train("open_rummy", SMOKE, "open", tmp_path)
    assert data["config"]["game_options"]["rounds"] == 1
    # the checkpoint plays Open Rummy: an agent from it makes legal moves
    from commoncause.agents.evaluate import make_agent
    from commoncause.envs.registry import get_game

    game = get_game("open_rummy")
    agent = make_agent(str(run / "checkpoints" / "best.pt"), "open_rummy")
    state = game.new_game(game.make_config(num_players=4, rounds=1), 7)
    view = game.seat_view(state, state.current)
    assert agent.act(view) in state.legal_actions()
