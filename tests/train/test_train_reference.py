"""The torch trainer learns exactly as before a refactor: tiny seeded runs (one process and two,
a team game and a competitive one, a centralised critic) give the same losses and weights.

The reference comes from the code before the change: ``python -m tests.train.test_train_reference
OUT.json`` (with that code on ``PYTHONPATH``) writes it, and
``COMMONCAUSE_TRAIN_REFERENCE=OUT.json pytest tests/train/test_train_reference.py`` compares the
code now. Without a reference the runs are compared with themselves (same seed, same numbers).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUNS = {
    "team_1": ("configs/smoke.yaml", {"rollout_workers": 1}),
    "team_2": ("configs/smoke.yaml", {"rollout_workers": 2}),
    "seats_2": ("configs/smoke_dummy.yaml", {"rollout_workers": 2}),
    "critic_1": ("configs/smoke.yaml", {"rollout_workers": 1, "critic": "state"}),
}


def tiny_run(config_path: str, overrides: dict, out_dir: str) -> dict:
    """Train a seeded config for 512 steps (no cloning, evaluations or checkpoints); the
    logged losses of every update and the final weights' digest."""
    import torch

    from commoncause.agents.trained import weights_digest
    from commoncause.train.callbacks import TrainingMonitor
    from commoncause.train.config import load_config
    from commoncause.train.trainer import Trainer

    cfg = replace(load_config(ROOT / config_path), trainer="torch", bc_games=0, total_steps=512,
                  eval_interval=10**12, checkpoint_interval=10**12, out_dir=out_dir,
                  **overrides)  # fmt: skip
    trainer = Trainer(cfg, run_name="reference", say=lambda *_: None)
    trainer.env = trainer._make_env()
    model = trainer.model = trainer._make_model()
    logged: list[list[float]] = []
    record = model.logger.record

    def keep(key, value, *args, **kwargs):
        if key.startswith("train/") and key != "train/n_updates":
            logged.append([key, float(value)])
        return record(key, value, *args, **kwargs)

    model.logger.record = keep
    monitor = TrainingMonitor(trainer)
    monitor.bar.stop()
    try:
        model.learn(cfg.total_steps, monitor)
    finally:
        trainer._close_env()
    weights = {"policy": model.policy.state_dict()}
    if getattr(model, "critic", None) is not None:
        weights["critic"] = model.critic.state_dict()
    torch.set_num_threads(1)
    return {"logged": logged, "digest": weights_digest(weights), "steps": model.num_timesteps}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_tiny_run_learns_as_the_reference(name, tmp_path):
    now = tiny_run(*RUNS[name], str(tmp_path))
    reference = os.environ.get("COMMONCAUSE_TRAIN_REFERENCE")
    if reference:
        expected = json.loads(Path(reference).read_text())[name]
    else:  # the same seed repeats itself
        expected = tiny_run(*RUNS[name], str(tmp_path / "again"))
    assert now["steps"] == expected["steps"]
    assert now["logged"] == expected["logged"]
    assert now["digest"] == expected["digest"]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        result = {name: tiny_run(*run, out) for name, run in RUNS.items()}
    Path(sys.argv[1]).write_text(json.dumps(result, indent=1))
