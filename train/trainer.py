"""Self-play training: behaviour cloning of the baseline, then self-play PPO.

The PPO is sb3-contrib's MaskablePPO (``trainer: sb3``) or the lean masked PPO of
``train/ppo.py`` (``trainer: torch``); both train the same network and write the same
checkpoints, logs and model cards.

A run lives in ``{out_dir}/{run_name}/``: TensorBoard events (metric groups ``team/``,
``game/``, ``bc/``, ``time/`` and SB3's ``train/`` and ``rollout/``), ``checkpoints/``
(``last.pt``, ``best.pt`` by evaluated win rate, ``step_N.pt``) each with a model card
(``.json``), and ``curve.png``. ``--resume`` restores weights, optimizer, step count and
the evaluation history, so schedules continue where they stopped; Ctrl-C saves
``last.pt`` first.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import time
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path

from agents.evaluate import EvalReport, evaluate
from agents.trained import ENV_VERSION, FORMAT, load_checkpoint
from envs.common_cause.actions import N_ACTIONS
from envs.common_cause.observer import OBS_SIZE

from .config import TrainConfig, config_from_dict

BASELINE_TEAM = ("baseline", "baseline")


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _stop_on_signals() -> None:
    """Ctrl-C and ``kill`` (SIGTERM) both stop a run through KeyboardInterrupt, so it saves
    ``last.pt`` first, also when started in the background (where SIGINT starts ignored)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _interrupt)
        signal.signal(signal.SIGTERM, _interrupt)


TRAINERS = {"sb3": "sb3-contrib MaskablePPO", "torch": "masked PPO in PyTorch, train/ppo.py"}


def package_versions() -> dict:
    names = ("torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "numpy")
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def report_summary(report: EvalReport) -> dict:
    return {
        "team": list(report.team),
        "games": report.games,
        "wins": report.wins,
        "win_rate": report.win_rate,
        "ci95": list(report.ci95),
        "mean_turns": report.mean_turns,
        "mean_discard_pickups": report.mean_discard_pickups,
        "seed": report.seed,
        "level": report.level,
    }


@dataclass
class RunState:
    """What a run carries across checkpoints besides the network."""

    run_name: str
    evaluations: list[dict] = field(default_factory=list)
    best_win_rate: float = -1.0
    final: dict = field(default_factory=dict)
    seconds: float = 0.0


class Trainer:
    def __init__(
        self,
        config: TrainConfig,
        run_name: str | None = None,
        resume: str | Path | None = None,
        total_steps: int | None = None,
        say=print,
    ) -> None:
        self.say = say
        self.resume_data = load_checkpoint(resume) if resume else None
        if self.resume_data is not None:
            saved = config_from_dict(self.resume_data["config"])
            config = replace(saved, total_steps=total_steps or saved.total_steps)
            self.state = RunState(
                run_name=self.resume_data["run_name"],
                evaluations=list(self.resume_data["evaluations"]),
                best_win_rate=self.resume_data["best_win_rate"],
                seconds=self.resume_data.get("seconds", 0.0),
            )
        else:
            if total_steps is not None:
                config = replace(config, total_steps=total_steps)
            name = run_name or f"{config.name}__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
            self.state = RunState(run_name=name)
        config.validate()
        self.config = config
        self.run_dir = Path(config.out_dir) / self.state.run_name
        self.checkpoints = self.run_dir / "checkpoints"
        self.model = None
        self.env = None
        self._baseline_eval: EvalReport | None = None
        self._clock: tuple[float, float] | None = None  # (perf_counter at start, seconds then)

    # ------------------------------------------------------------------------------
    def _make_env(self):
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

        from .selfplay import SelfPlayEnv

        cfg = self.config

        def factory(rank: int):
            def make():
                env = SelfPlayEnv(cfg.baseline_partner_prob, **cfg.env_kwargs())
                resumed_at = self.resume_data["num_timesteps"] if self.resume_data else 0
                env.reset(seed=cfg.seed * 1000 + rank + resumed_at)  # new deals per resume
                return env

            return make

        fns = [factory(i) for i in range(cfg.n_envs)]
        if cfg.trainer == "torch":  # a plain list, stepped in-process by train/ppo.py
            return [make() for make in fns]
        if cfg.vec_env == "subproc" and cfg.n_envs > 1:
            return SubprocVecEnv(fns, start_method="fork")
        return DummyVecEnv(fns)

    def _make_model(self):
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.logger import configure

        from agents.networks import policy_kwargs

        cfg = self.config
        if cfg.trainer == "torch":
            from .ppo import TorchPPO

            return TorchPPO(cfg, self.env, self.run_dir)
        torch.set_num_threads(cfg.torch_threads)

        def learning_rate(progress_remaining: float) -> float:
            return cfg.learning_rate * (progress_remaining if cfg.lr_decay else 1.0)

        model = MaskablePPO(
            "MlpPolicy",
            self.env,
            learning_rate=learning_rate,
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda,
            clip_range=cfg.clip_range,
            ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef,
            max_grad_norm=cfg.max_grad_norm,
            target_kl=cfg.target_kl,
            policy_kwargs=policy_kwargs(cfg.features_dim, cfg.net_arch, cfg.activation),
            seed=cfg.seed,
            device="cpu",
        )
        model.set_logger(configure(str(self.run_dir), ["tensorboard"]))
        return model

    # ------------------------------------------------------------------------------
    def _tick(self) -> None:
        """Bring ``state.seconds`` (training time, summed over resumes) up to now."""
        if self._clock is not None:
            started, before = self._clock
            self.state.seconds = before + time.perf_counter() - started

    def save(self, path: Path) -> Path:
        """Write a checkpoint and its model card atomically."""
        import torch

        self._tick()
        model, cfg = self.model, self.config
        data = {
            "format": FORMAT,
            "env_version": ENV_VERSION,
            "obs_size": OBS_SIZE,
            "n_actions": N_ACTIONS,
            "features_dim": cfg.features_dim,
            "net_arch": list(cfg.net_arch),
            "activation": cfg.activation,
            "policy": model.policy.state_dict(),
            "optimizer": model.policy.optimizer.state_dict(),
            "num_timesteps": int(model.num_timesteps),
            "config": cfg.to_dict(),
            "run_name": self.state.run_name,
            "evaluations": self.state.evaluations,
            "best_win_rate": self.state.best_win_rate,
            "seconds": self.state.seconds,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save(data, tmp)
        os.replace(tmp, path)
        card = self.model_card(int(model.num_timesteps))
        card_tmp = path.with_suffix(".json.tmp")
        card_tmp.write_text(json.dumps(card, indent=2) + "\n")
        os.replace(card_tmp, path.with_suffix(".json"))
        return path

    def model_card(self, steps: int) -> dict:
        cfg = self.config
        return {
            "model": f"Common Cause self-play policy ({TRAINERS[cfg.trainer]}, one for both seats)",
            "run_name": self.state.run_name,
            "env_version": ENV_VERSION,
            "observation_size": OBS_SIZE,
            "actions": N_ACTIONS,
            "level": cfg.level,
            "stock_size": cfg.game_config().stock_size,
            "seed": cfg.seed,
            "steps": steps,
            "training_seconds": round(self.state.seconds, 1),
            "config": cfg.to_dict(),
            "evaluations": self.state.evaluations,
            "best_eval_win_rate": self.state.best_win_rate,
            "final_comparison": self.state.final,
            "versions": package_versions(),
            "intended_use": "research on cooperative play and signalling; an AI partner",
            "evaluation_protocol": "paired deals: every team plays the same deal seeds",
        }

    # ------------------------------------------------------------------------------
    def evaluate_now(self, games: int, workers: int = 2) -> dict:
        """Evaluate the current policy (saved as last.pt) against the baseline team."""
        cfg = self.config
        last = self.save(self.checkpoints / "last.pt")
        team = (str(last), str(last))
        report = evaluate(team, cfg.game_config(), games, cfg.eval_seed, workers, cfg.level)
        if self._baseline_eval is None or self._baseline_eval.games != games:
            self._baseline_eval = evaluate(
                BASELINE_TEAM, cfg.game_config(), games, cfg.eval_seed, workers, cfg.level
            )
        entry = {
            "step": int(self.model.num_timesteps),
            "win_rate": report.win_rate,
            "ci95": list(report.ci95),
            "games": games,
            "baseline_win_rate": self._baseline_eval.win_rate,
            "mean_turns": report.mean_turns,
            "mean_discard_pickups": report.mean_discard_pickups,
        }
        self.state.evaluations.append(entry)
        logger = self.model.logger
        logger.record("team/eval_win_rate", report.win_rate)
        logger.record("team/eval_minus_baseline", report.win_rate - self._baseline_eval.win_rate)
        logger.record("game/eval_turns", report.mean_turns)
        logger.record("game/eval_pickups", report.mean_discard_pickups)
        logger.dump(int(self.model.num_timesteps))
        low, high = report.ci95
        self.say(
            f"step {entry['step']:,}: eval win rate {report.win_rate:.1%} [{low:.1%}, {high:.1%}]"
            f" over {games} games; baseline team {self._baseline_eval.win_rate:.1%}"
        )
        if report.win_rate > self.state.best_win_rate:
            self.state.best_win_rate = report.win_rate
            self.save(self.checkpoints / "best.pt")
        else:
            self.save(self.checkpoints / "last.pt")
        return entry

    def final_comparison(self) -> dict:
        """The best policy's team, the baseline team and the mixed team on the same deals."""
        cfg = self.config
        best = self.checkpoints / "best.pt"
        games = cfg.final_eval_games
        seed = cfg.eval_seed + 1
        teams = {
            "trained": (str(best), str(best)),
            "baseline": BASELINE_TEAM,
            "trained+baseline": (str(best), "baseline"),
        }
        results = {
            name: report_summary(evaluate(team, cfg.game_config(), games, seed, 2, cfg.level))
            for name, team in teams.items()
        }
        self.state.final = results
        return results

    # ------------------------------------------------------------------------------
    def run(self) -> dict:
        from .callbacks import TrainingCallback, TrainingMonitor

        cfg = self.config
        self.env = self._make_env()
        self.model = self._make_model()
        self._clock = (time.perf_counter(), self.state.seconds)
        monitor = TrainingMonitor(self)
        _stop_on_signals()
        try:
            if self.resume_data is not None:
                self.model.policy.load_state_dict(self.resume_data["policy"])
                self.model.policy.optimizer.load_state_dict(self.resume_data["optimizer"])
                self.model.num_timesteps = int(self.resume_data["num_timesteps"])
                self.say(f"resuming {self.state.run_name} at step {self.model.num_timesteps:,}")
            else:
                if cfg.init_from:
                    start = load_checkpoint(cfg.init_from)
                    self.model.policy.load_state_dict(start["policy"])
                    self.say(f"starting from the policy of {cfg.init_from}")
                elif cfg.bc_games:
                    monitor.clone_baseline()
                self.evaluate_now(cfg.eval_games)
            remaining = cfg.total_steps - int(self.model.num_timesteps)
            if remaining > 0:
                if cfg.trainer == "torch":
                    self.model.learn(cfg.total_steps, monitor)
                else:
                    self.model.learn(
                        total_timesteps=remaining,
                        callback=TrainingCallback(monitor),
                        reset_num_timesteps=False,
                        progress_bar=False,
                    )
                monitor.close()
                self._tick()
                self.evaluate_now(cfg.eval_games)
        except KeyboardInterrupt:
            monitor.close()
            path = self.save(self.checkpoints / "last.pt")
            self.say(f"interrupted at step {self.model.num_timesteps:,}; saved {path}")
            self.say(f"resume with: commoncause train --resume {path}")
            raise
        finally:
            monitor.close()
            self._close_env()
        self._tick()
        self._clock = None  # training is over: the final comparison is not training time
        if not (self.checkpoints / "best.pt").exists():
            shutil.copy(self.checkpoints / "last.pt", self.checkpoints / "best.pt")
        final = self.final_comparison()
        self.save(self.checkpoints / "last.pt")
        best = self.checkpoints / "best.pt"
        best_data = load_checkpoint(best)
        card = self.model_card(best_data["num_timesteps"]) | {
            "checkpoint": "best",
            "training_seconds": round(best_data.get("seconds", 0.0), 1),
            "run_training_seconds": round(self.state.seconds, 1),
        }
        best.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
        from .curve import plot_training_curve

        plot_training_curve(self.state.evaluations, self.run_dir / "curve.png", self.state.run_name)
        return final

    def _close_env(self) -> None:
        # the workers may already be gone (Ctrl-C reaches them too)
        envs = self.env if isinstance(self.env, list) else [self.env]
        with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):
            for env in envs:
                env.close()
