"""train/trainer.py: a new run never writes into a run folder that holds anything (a
finished run's checkpoints, its events): it is refused before anything is touched, and
``--resume`` goes on in it; a default name (a timestamp) taken already gets a suffix."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from commoncause.agents.trained import load_checkpoint
from commoncause.cli import main
from commoncause.train.config import load_config
from commoncause.train.trainer import Trainer

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
TINY = dict(trainer="torch", rollout_workers=1, bc_games=0, total_steps=128, n_envs=1,
            eval_interval=10_000, checkpoint_interval=10_000, eval_games=2,
            final_eval_games=2)  # fmt: skip


def smoke_config(tmp_path: Path, **overrides) -> Path:
    data = yaml.safe_load(SMOKE.read_text()) | {"out_dir": str(tmp_path / "runs")} | overrides
    path = tmp_path / "smoke.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_new_run_with_the_run_name_of_a_finished_one_is_refused(tmp_path: Path, capsys):
    config = smoke_config(tmp_path, **TINY)
    assert main(["train", "--config", str(config), "--run-name", "r1"]) == 0
    run = tmp_path / "runs" / "r1"
    before = _snapshot(run)
    capsys.readouterr()
    assert main(["train", "--config", str(config), "--run-name", "r1"]) == 2
    out, err = capsys.readouterr()
    last = run / "checkpoints" / "last.pt"
    assert err.strip() == (
        f"commoncause: error: run r1 already exists at {run}: --resume {last}, or choose "
        "another --run-name"
    )
    assert out == "" and _snapshot(run) == before  # nothing touched
    assert main(["train", "--resume", str(last), "--total-steps", "256"]) == 0
    assert load_checkpoint(last)["num_timesteps"] == 256
    before = _snapshot(run)
    capsys.readouterr()
    assert main(["train", "--resume", str(last), "--total-steps", "128"]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == (
        f"commoncause: error: {last} is at step 256: --total-steps 128 is behind it (give a "
        "larger one to train on)"
    )
    assert out == "" and _snapshot(run) == before  # a finished run is not evaluated again


def test_a_run_folder_without_checkpoints_is_refused_and_an_empty_one_used(tmp_path: Path):
    config = load_config(smoke_config(tmp_path, **TINY))
    events = tmp_path / "runs" / "r2" / "events.out.tfevents.1"
    events.parent.mkdir(parents=True)
    events.write_bytes(b"kept")
    with pytest.raises(ValueError, match=r"^run r2 already exists at .*r2: choose another "):
        Trainer(config, run_name="r2", say=lambda *_: None)
    assert events.read_bytes() == b"kept"
    (tmp_path / "runs" / "r3").mkdir()
    assert Trainer(config, run_name="r3", say=lambda *_: None).run_dir.name == "r3"


def test_a_default_run_name_taken_already_gets_a_suffix(tmp_path: Path, monkeypatch):
    config = load_config(smoke_config(tmp_path, **TINY))
    monkeypatch.setattr(time, "strftime", lambda *_: "20250101-000000")
    first = Trainer(config, say=lambda *_: None).run_dir
    assert first.name == "smoke__0__20250101-000000"
    (first / "checkpoints").mkdir(parents=True)
    (first / "checkpoints" / "last.pt").write_bytes(b"kept")
    second = Trainer(config, say=lambda *_: None).run_dir
    assert second.name == "smoke__0__20250101-000000-2"
