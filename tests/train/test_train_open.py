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


def test_the_points_placed_before_the_first_decision_are_paid_at_reset():
    """A baseline in the first seat lays melds in its first turn, inside ``reset`` (seed 8,
    two players, one round): ``reset``'s info pays them, so every seat's rewards still sum
    to its points."""
    from commoncause.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv(1.0, game="open_rummy", num_players=2, rounds=1)
    _, info = env.reset(seed=8)
    earned = list(info["rewards"])
    assert any(earned)
    done = False
    while not done:
        legal = [int(a) for a in env.action_masks().nonzero()[0]]
        _, _, terminated, truncated, info = env.step(legal[0])
        done = terminated or truncated
        earned = [a + b for a, b in zip(earned, info["rewards"], strict=True)]
    assert earned == list(info["returns"])


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
