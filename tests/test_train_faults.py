"""Training under faults (issue 36): a killed trainer's workers, damaged checkpoints, resuming
copied or older checkpoints, a full disk, and configs that say too little or too much."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "smoke.yaml"


def smoke_config(tmp_path: Path, **overrides) -> Path:
    data = yaml.safe_load(SMOKE.read_text()) | {"out_dir": str(tmp_path / "runs")} | overrides
    path = tmp_path / "smoke.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


# --- 14: a killed trainer takes its rollout workers with it -------------------------------
def _children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return set()
    return {int(word) for word in text.split()}


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie (a zombie holds no memory)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _shm_of(pid: int) -> list[str]:
    return [name for name in os.listdir("/dev/shm") if f"_{pid}_" in name]


def test_a_sigkilled_trainer_leaves_no_rollout_worker_behind(tmp_path: Path):
    config = smoke_config(tmp_path, trainer="torch", rollout_workers=2, bc_games=0,
                          total_steps=10**8, eval_interval=10**8, checkpoint_interval=10**8,
                          eval_games=4)  # fmt: skip
    log = (tmp_path / "out.txt").open("w")
    trainer = subprocess.Popen(
        [sys.executable, "-u", "-m", "commoncause.cli", "train", "--config", str(config),
         "--run-name", "k"],  # fmt: skip
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
    )
    try:
        workers: set[int] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and trainer.poll() is None:
            # the rollout worker is forked after the first evaluation (its pool is gone then)
            if "eval win rate" in (tmp_path / "out.txt").read_text():
                workers = {p for p in _children(trainer.pid) if _alive(p)}
                if workers:
                    break
            time.sleep(0.2)
        assert workers, (tmp_path / "out.txt").read_text()
        time.sleep(1.0)  # into the rollouts
        trainer.send_signal(signal.SIGKILL)
        trainer.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.1)
        left = [p for p in workers if _alive(p)]
        for p in left:  # (not to leave them to the machine while the test fails)
            os.kill(p, signal.SIGKILL)
        assert not left, f"rollout workers {left} outlived their trainer"
        assert not _shm_of(trainer.pid)
    finally:
        if trainer.poll() is None:
            trainer.kill()
            trainer.wait()
        log.close()
