"""Training under faults (issue 36): a killed trainer's workers, damaged checkpoints, resuming
copied or older checkpoints, a full disk, and configs that say too little or too much."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from commoncause.agents import trained
from commoncause.agents.trained import (
    DEFAULT_CHECKPOINT,
    load_checkpoint,
    policy_from_checkpoint,
)
from commoncause.cli import main
from commoncause.envs.registry import game_names, get_game
from commoncause.train.config import TrainConfig, load_config

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.mark.parametrize("phase", ["rollout", "evaluation"])
def test_a_sigkilled_trainer_leaves_no_worker_behind(tmp_path: Path, phase: str):
    """``kill -9`` of a trainer in its rollouts (its forked rollout worker) or in an
    evaluation (its pool's workers): every worker is gone within seconds, and no shared
    memory of it is left."""
    rollout = phase == "rollout"
    config = smoke_config(tmp_path, trainer="torch", rollout_workers=2, bc_games=0,
                          total_steps=10**8, eval_interval=10**8, checkpoint_interval=10**8,
                          eval_games=4 if rollout else 100_000)  # fmt: skip
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
            evaluated = "eval win rate" in (tmp_path / "out.txt").read_text()
            if evaluated == rollout:
                workers = {p for p in _children(trainer.pid) if _alive(p)}
                if len(workers) == (1 if rollout else 2):
                    break
            time.sleep(0.2)
        assert workers, (tmp_path / "out.txt").read_text()
        time.sleep(1.0)  # into the rollouts, or the evaluation's games
        trainer.send_signal(signal.SIGKILL)
        trainer.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.1)
        left = [p for p in workers if _alive(p)]
        for p in left:  # (not to leave them to the machine while the test fails)
            os.kill(p, signal.SIGKILL)
        assert not left, f"workers {left} outlived their trainer"
        assert not _shm_of(trainer.pid)
    finally:
        if trainer.poll() is None:
            trainer.kill()
            trainer.wait()
        log.close()


# --- 15: damaged weights are refused, by every command that loads them --------------------
def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def _scribbled(tmp_path: Path) -> Path:
    """A copy of the shipped Common Cause policy with 4 KiB of random bytes written into
    its middle (the file keeps its size, as a disk or copy error leaves it)."""
    bad = tmp_path / "scribbled.pt"
    shutil.copy(DEFAULT_CHECKPOINT, bad)
    with bad.open("r+b") as f:
        f.seek(bad.stat().st_size // 2)
        f.write(np.random.default_rng(0).bytes(4096))
    return bad


def test_a_scribbled_checkpoint_is_refused_by_eval_export_play_and_resume(
    tmp_path: Path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    bad = _scribbled(tmp_path)
    with pytest.raises(ValueError, match="damaged") as info:
        load_checkpoint(bad)
    assert "\n" not in str(info.value) and str(bad) in str(info.value)
    for argv in (["eval", "--team", f"{bad},baseline", "--games", "2"],
                 ["export", str(bad), "--out", str(tmp_path / "out")],
                 ["play", "--partner", str(bad), "--player", "random", "--seed", "1",
                  "--record-dir", str(tmp_path / "records")],
                 ["train", "--resume", str(bad)]):  # fmt: skip
        assert main(argv) == 2, argv
        assert "damaged" in _one_line(capsys), argv
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()


def test_non_finite_weights_are_refused(tmp_path: Path, capsys):
    data = load_checkpoint(DEFAULT_CHECKPOINT)
    key = next(iter(data["policy"]))
    nan = tmp_path / "nan.pt"
    torch.save(data | {"policy": data["policy"] | {key: data["policy"][key] * float("nan")}}, nan)
    with pytest.raises(ValueError, match=f"{re.escape(key)} are not finite") as info:
        load_checkpoint(nan)
    assert "\n" not in str(info.value)
    assert main(["eval", "--team", f"{nan},baseline", "--games", "2"]) == 2
    assert "not finite" in _one_line(capsys)


def test_saved_weights_carry_a_digest_that_is_checked(tmp_path: Path):
    """New checkpoints record a digest of their weights; weights that no longer match it are
    refused (even finite ones), and the shipped checkpoints, which have none, load as
    before."""
    config = smoke_config(tmp_path, trainer="torch", rollout_workers=1, bc_games=0,
                          total_steps=0, eval_games=2, final_eval_games=2)  # fmt: skip
    assert main(["train", "--config", str(config), "--run-name", "d"]) == 0
    last = tmp_path / "runs" / "d" / "checkpoints" / "last.pt"
    data = load_checkpoint(last)
    assert data["digest"] == trained.weights_digest(data)
    assert main(["export", str(last), "--out", str(tmp_path / "out")]) == 0
    assert load_checkpoint(tmp_path / "out" / "best.pt")["digest"] == data["digest"]
    key = next(iter(data["policy"]))
    changed = tmp_path / "changed.pt"
    torch.save(data | {"policy": data["policy"] | {key: data["policy"][key] + 1.0}}, changed)
    with pytest.raises(ValueError, match="digest"):
        load_checkpoint(changed)
    shipped = load_checkpoint(DEFAULT_CHECKPOINT)
    assert "digest" not in shipped
    assert torch.equal(policy_from_checkpoint(shipped).state_dict()[key], shipped["policy"][key])


# --- 18, 19: resuming writes into the checkpoint's own run, and never rewinds it ----------
def tiny_run(tmp_path: Path, name: str, **overrides) -> Path:
    """A run of 128 steps (one rollout, no periodic evaluation); its checkpoints folder."""
    settings = dict(trainer="torch", rollout_workers=1, bc_games=0, total_steps=128, n_envs=1,
                    eval_interval=10_000, checkpoint_interval=10_000, eval_games=2,
                    final_eval_games=2) | overrides  # fmt: skip
    config = smoke_config(tmp_path, **settings)
    assert main(["train", "--config", str(config), "--run-name", name]) == 0
    return tmp_path / "runs" / name / "checkpoints"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_resuming_a_copied_run_writes_into_the_copy(tmp_path: Path, capsys):
    base = tiny_run(tmp_path, "base").parent
    copy = tmp_path / "runs" / "try"
    shutil.copytree(base, copy)
    before = _snapshot(base)
    assert main(["train", "--resume", str(copy / "checkpoints" / "last.pt"),
                 "--total-steps", "256"]) == 0  # fmt: skip
    assert _snapshot(base) == before  # the original run is untouched
    resumed = load_checkpoint(copy / "checkpoints" / "last.pt")
    assert resumed["num_timesteps"] == 256 and resumed["run_name"] == "try"
    assert f"run try: {copy}" in capsys.readouterr().out


def test_a_checkpoint_outside_a_run_folder_is_not_resumed(tmp_path: Path, capsys, monkeypatch):
    loose = tmp_path / "loose.pt"
    shutil.copy(tiny_run(tmp_path, "base") / "last.pt", loose)
    before = _snapshot(tmp_path / "runs")
    capsys.readouterr()
    assert main(["train", "--resume", str(loose)]) == 2
    assert "checkpoints/" in _one_line(capsys)
    assert _snapshot(tmp_path / "runs") == before


def test_resuming_an_older_checkpoint_of_a_run_is_refused(tmp_path: Path, capsys):
    """``step_64.pt`` of a run that went on to step 128: resuming it would rewind the run
    (overwriting last.pt and adding TensorBoard steps twice), so it is refused, naming the
    newest; copied alone into a run folder of its own it branches a new run."""
    checkpoints = tiny_run(tmp_path, "base", checkpoint_interval=64)
    older = checkpoints / "step_64.pt"
    before = _snapshot(checkpoints.parent)
    capsys.readouterr()
    assert main(["train", "--resume", str(older), "--total-steps", "256"]) == 2
    err = _one_line(capsys)
    assert "step 64" in err and "step 128" in err and "last.pt" in err, err
    assert _snapshot(checkpoints.parent) == before
    branch = tmp_path / "runs" / "branch" / "checkpoints"
    branch.mkdir(parents=True)
    shutil.copy(older, branch / "step_64.pt")
    assert main(["train", "--resume", str(branch / "step_64.pt"), "--total-steps", "192"]) == 0
    assert load_checkpoint(branch / "last.pt")["num_timesteps"] == 192
    assert _snapshot(checkpoints.parent) == before


# --- 20: a full disk is one line, exit 2, and leaves no half-written files -----------------
FULL_DISK = {
    # torch.save on a full disk: part of the file written, then torch's own RuntimeError
    "save": """
import torch
real_save = torch.save
def save(obj, f, *args, **kwargs):
    if str(f).endswith("best.tmp"):
        open(f, "wb").write(b"PK" * 100)
        raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 4544")
    return real_save(obj, f, *args, **kwargs)
torch.save = save
""",
    # the TensorBoard events file cannot be written (its writer thread raises, then the
    # trainer's thread when it flushes)
    "start": """
import errno
from tensorboard.summary.writer import record_writer
def write(self, data):
    raise OSError(errno.ENOSPC, "No space left on device")
record_writer.RecordWriter.write = write
""",
}


def _train_on_a_full_disk(tmp_path: Path, where: str) -> tuple[int, str, Path]:
    """The real train command in a process of its own whose writes fail at ``where``."""
    settings = dict(trainer="torch", rollout_workers=1, bc_games=0, total_steps=128, n_envs=1,
                    eval_interval=10_000, checkpoint_interval=10_000, eval_games=2,
                    final_eval_games=2)  # fmt: skip
    config = smoke_config(tmp_path, **settings)
    code = FULL_DISK[where] + (
        "import sys\nfrom commoncause.cli import main\n"
        f"sys.exit(main(['train', '--config', {str(config)!r}, '--run-name', 'r']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)  # fmt: skip
    return done.returncode, done.stderr.strip(), tmp_path / "runs" / "r"


def test_a_full_disk_during_a_save_is_one_line_and_leaves_no_tmp(tmp_path: Path):
    rc, err, run = _train_on_a_full_disk(tmp_path, "save")
    assert rc == 2 and len(err.splitlines()) == 1, err
    assert "cannot save checkpoint" in err and "best.pt" in err, err
    assert not list(run.rglob("*.tmp"))
    assert load_checkpoint(run / "checkpoints" / "last.pt")["num_timesteps"] == 0


def test_a_full_disk_at_the_start_is_one_line_and_leaves_no_run(tmp_path: Path):
    rc, err, run = _train_on_a_full_disk(tmp_path, "start")
    assert rc == 2 and len(err.splitlines()) == 1, err
    assert "No space left on device" in err and str(run) in err, err
    assert not run.exists()


# --- 21: a config naming only its game plays that game's default rules --------------------
@pytest.mark.parametrize("game", game_names())
def test_a_config_of_only_a_game_takes_that_games_default_options(game: str, tmp_path: Path):
    path = tmp_path / "only.yaml"
    path.write_text(f"game: {game}\n")
    config = load_config(path)
    assert config.game == game
    assert config.game_config() == get_game(game).make_config()
    assert TrainConfig(game=game).game_config() == get_game(game).make_config()


# --- 25: configs that say nothing, are not text, or contradict themselves -----------------
def test_an_empty_config_is_refused(tmp_path: Path, capsys, monkeypatch):
    """An empty file (or comments only) is a config not written yet, not "train Common
    Cause for ten million steps"."""
    monkeypatch.chdir(tmp_path)
    for text in ("", "# only a comment\n"):
        empty = tmp_path / "empty.yaml"
        empty.write_text(text)
        with pytest.raises(ValueError, match=f"config file {re.escape(str(empty))} is empty"):
            load_config(empty)
        assert main(["train", "--config", str(empty)]) == 2
        assert "is empty" in _one_line(capsys)
    assert not (tmp_path / "runs").exists()


def test_a_binary_config_is_named(tmp_path: Path, capsys):
    binary = tmp_path / "weights.yaml"
    shutil.copy(DEFAULT_CHECKPOINT, binary)
    assert main(["train", "--config", str(binary)]) == 2
    err = _one_line(capsys)
    assert str(binary) in err and "not a text" in err, err


def test_contradicting_rules_flags_are_refused_naming_both(capsys):
    argv = ["eval", "--team", "baseline,baseline", "--games", "2"]
    for flags in (["--three-starts", "--max-open-starts", "2"],
                  ["--max-open-starts", "2", "--three-starts"]):  # fmt: skip
        assert main(argv + flags) == 2
        err = _one_line(capsys)
        assert "--three-starts" in err and "--max-open-starts 2" in err, err
    assert main(argv + ["--three-starts", "--max-open-starts", "3"]) == 0  # (the same rule)


# --- 23: last.pt holds every evaluation as soon as it is made -----------------------------
@pytest.mark.parametrize("base", ["smoke.yaml", "smoke_dummy.yaml"])
def test_last_pt_holds_each_evaluation_once_it_is_made(base: str, tmp_path: Path, monkeypatch):
    """A run killed (kill -9) right after an evaluation resumes with it in its history and
    curve: last.pt is saved after the evaluation is recorded, best or not, team game or
    competitive."""
    from commoncause.train.trainer import Trainer

    seen: list[tuple[list, list]] = []
    evaluate_now = Trainer.evaluate_now

    def evaluate_and_look(self, games: int, workers: int = 2):
        entry = evaluate_now(self, games, workers)
        saved = load_checkpoint(self.checkpoints / "last.pt")["evaluations"]
        seen.append((saved, list(self.state.evaluations)))
        return entry

    monkeypatch.setattr(Trainer, "evaluate_now", evaluate_and_look)
    data = yaml.safe_load((ROOT / "configs" / base).read_text()) | dict(
        out_dir=str(tmp_path / "runs"), trainer="torch", rollout_workers=1, bc_games=0,
        total_steps=256, n_envs=1, eval_interval=128, checkpoint_interval=10_000,
        eval_games=4, final_eval_games=4)  # fmt: skip
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(data))
    assert main(["train", "--config", str(config), "--run-name", "e"]) == 0
    assert len(seen) == 3  # steps 0, 128 and 256
    for saved, recorded in seen:
        assert saved == recorded


def test_a_full_disk_during_an_export_is_one_line_and_leaves_no_tmp(
    tmp_path: Path, capsys, monkeypatch
):
    def save(obj, f, *args, **kwargs):
        Path(f).write_bytes(b"PK" * 100)  # part of it, then torch's own error
        raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 4544")

    monkeypatch.setattr(torch, "save", save)
    out = tmp_path / "out"
    assert main(["export", str(DEFAULT_CHECKPOINT), "--out", str(out)]) == 2
    assert "cannot save checkpoint" in _one_line(capsys)
    assert not list(out.glob("*"))
