"""Training: the real CLI for a few hundred steps, resume, checkpoints, masks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.trained import PolicyAgent, load_checkpoint, masked_logits, policy_from_checkpoint
from commoncause.cli import main
from envs.common_cause.actions import N_ACTIONS
from envs.common_cause.rules import GameConfig, GameState
from envs.common_cause.seat import SeatView

SMOKE = Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml"


def smoke_config(tmp_path: Path, **overrides) -> Path:
    data = yaml.safe_load(SMOKE.read_text()) | {"out_dir": str(tmp_path / "runs")} | overrides
    path = tmp_path / "smoke.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory) -> Path:
    """One smoke run of the real train command (module-wide: it takes a few seconds)."""
    tmp = tmp_path_factory.mktemp("train")
    assert main(["train", "--config", str(smoke_config(tmp)), "--run-name", "smoke"]) == 0
    return tmp / "runs" / "smoke"


def test_train_writes_checkpoints_card_curve_and_logs(trained_run: Path):
    ckpt = trained_run / "checkpoints"
    for name in ("best.pt", "best.json", "last.pt", "last.json", "step_256.pt"):
        assert (ckpt / name).is_file(), name
    assert (trained_run / "curve.png").stat().st_size > 1000
    assert list(trained_run.glob("events.out.tfevents.*"))
    card = json.loads((ckpt / "best.json").read_text())
    assert card["env_version"] == "common_cause_v0"
    assert card["config"]["total_steps"] == 512
    assert set(card["final_comparison"]) == {"trained", "baseline", "trained+baseline"}
    assert card["versions"]["torch"] and card["evaluations"]
    assert load_checkpoint(ckpt / "last.pt")["num_timesteps"] == 512


def test_eval_reads_the_trained_checkpoint(trained_run: Path, tmp_path: Path):
    best = trained_run / "checkpoints" / "best.pt"
    out = tmp_path / "eval.json"
    args = ["eval", "--team", f"{best},baseline", "--games", "10", "--workers", "1"]
    assert main([*args, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["games"] == 10 and report["team"] == [str(best), "baseline"]


def test_resume_continues_the_step_count(tmp_path: Path):
    config = smoke_config(tmp_path, total_steps=256, checkpoint_interval=10_000)
    assert main(["train", "--config", str(config), "--run-name", "r"]) == 0
    last = tmp_path / "runs" / "r" / "checkpoints" / "last.pt"
    first = load_checkpoint(last)
    assert first["num_timesteps"] == 256
    assert main(["train", "--resume", str(last), "--total-steps", "512"]) == 0
    resumed = load_checkpoint(last)
    assert resumed["num_timesteps"] == 512
    assert resumed["run_name"] == "r" and resumed["config"]["total_steps"] == 512
    steps = [e["step"] for e in resumed["evaluations"]]
    assert steps[: len(first["evaluations"])] == [e["step"] for e in first["evaluations"]]
    assert steps[-1] == 512  # evaluations carried over and continued


def random_views(count: int, seed: int = 0) -> list[SeatView]:
    rng = random.Random(seed)
    views = []
    while len(views) < count:
        state = GameState.new_game(GameConfig(), rng.randrange(10**6))
        for _ in range(rng.randrange(1, 60)):
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal and len(state.legal_actions()) > 1:
            views.append(SeatView(state, state.current))
    return views


def test_reloaded_policy_chooses_the_same_actions(trained_run: Path):
    path = trained_run / "checkpoints" / "best.pt"
    agent = PolicyAgent(path)
    again = policy_from_checkpoint(load_checkpoint(path))
    for view in random_views(30):
        mask = torch.zeros((1, N_ACTIONS), dtype=torch.bool)
        mask[0, view.legal_actions()] = True
        with torch.no_grad():
            logits = masked_logits(again, torch.as_tensor(view.observation())[None], mask)
        probs = torch.softmax(logits, 1)[0].numpy()
        assert np.allclose(agent.probabilities(view), probs, atol=1e-6)
        assert agent.act(view) == int(np.argmax(probs))


def test_masks_are_honoured_at_prediction(trained_run: Path):
    path = trained_run / "checkpoints" / "best.pt"
    greedy, sampling = PolicyAgent(path), PolicyAgent(path, deterministic=False)
    for view in random_views(60, seed=1):
        legal = view.legal_actions()
        probs = greedy.probabilities(view)
        assert probs[[a for a in range(len(probs)) if a not in set(legal)]].sum() == 0
        assert greedy.act(view) in legal
        assert all(sampling.act(view) in legal for _ in range(5))


def test_corrupted_or_missing_checkpoint_is_a_clear_error(tmp_path: Path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    assert main(["eval", "--team", f"{bad},baseline", "--games", "2"]) == 2
    assert "corrupted" in capsys.readouterr().err
    assert main(["eval", "--team", f"{tmp_path / 'none.pt'},baseline", "--games", "2"]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["train", "--resume", str(bad)]) == 2


def test_bad_config_is_rejected_before_training(tmp_path: Path, capsys):
    config = smoke_config(tmp_path, totl_steps=5)
    assert main(["train", "--config", str(config)]) == 2
    assert "unknown config key(s) totl_steps" in capsys.readouterr().err
    config = smoke_config(tmp_path, learning_rate="fast")
    assert main(["train", "--config", str(config)]) == 2
    assert "learning_rate" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
