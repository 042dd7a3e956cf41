"""Self-play training of Open Rummy: per-seat rewards that sum to each seat's points, the
shipped configs, and the real train command on configs/smoke_open.yaml."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from commoncause.train.config import load_config
from commoncause.train.selfplay import SelfPlayEnv

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "smoke_open.yaml"


def test_per_seat_rewards_sum_to_each_seats_points():
    """Two rounds played by the baseline's choices: every seat's per-step rewards (placed
    points as earned, the hand's points at each round's end) sum to its total, scaled."""
    env = SelfPlayEnv(1.0, game="open_rummy", num_players=3, rounds=2, reward_scale=0.01)
    agent = env.game.baseline("")
    for seed in range(3):
        env.reset(seed=seed)
        agent.reset(seed)
        earned = np.zeros(env.num_seats)
        intermediate = False
        done = False
        while not done:
            state = env.state
            action = agent.act(env.game.seat_view(state, state.current))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            earned += info["rewards"]
            intermediate |= not done and any(info["rewards"])
        assert terminated and info["result"] == "over"
        assert earned == pytest.approx(np.array(info["returns"]) * 0.01)
        assert intermediate  # points placed came before the end of the game


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
    from commoncause.agents.trained import load_checkpoint
    from commoncause.cli import main

    monkeypatch.chdir(tmp_path)
    args = ["train", "--config", str(SMOKE), "--total-steps", "384", "--run-name", "open"]
    assert main(args) == 0
    run = tmp_path / "runs" / "open"
    for name in ("last", "best"):
        data = load_checkpoint(run / "checkpoints" / f"{name}.pt")
        assert data["game"] == "open_rummy"
        assert data["num_timesteps"] >= (384 if name == "last" else 0)
        assert (run / "checkpoints" / f"{name}.json").is_file()
    assert data["config"]["game_options"]["num_players"] == 4
    assert data["config"]["game_options"]["rounds"] == 1
    events = list(run.glob("events.out.tfevents.*"))
    assert events
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags = EventAccumulator(str(events[0])).Reload().Tags()["scalars"]
    assert {"train/value_loss", "time/steps_per_s"} <= set(tags)
    assert torch.isfinite(data["policy"]["value_net.weight"]).all()
    # the checkpoint plays Open Rummy: an agent from it makes legal moves
    from commoncause.agents.evaluate import make_agent
    from commoncause.envs.registry import get_game

    game = get_game("open_rummy")
    agent = make_agent(str(run / "checkpoints" / "best.pt"), "open_rummy")
    state = game.new_game(game.make_config(num_players=4, rounds=1), 7)
    view = game.seat_view(state, state.current)
    assert agent.act(view) in state.legal_actions()
