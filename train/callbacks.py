"""What the training loop does besides learning: progress bar, game statistics, evaluations,
checkpoints.

``TrainingMonitor`` holds that logic and is driven by either trainer: the lean PyTorch PPO
(``train/ppo.py``) calls ``start``, ``on_step(infos, dones)`` after every vectorised env step
and ``on_rollout_end`` after every rollout; for sb3-contrib's MaskablePPO (``train/sb3.py``)
the ``TrainingCallback`` forwards SB3's hooks to the same methods. A game counts as won for
the statistics when the learner won it (``info["learner_won"]``: a team game, a positive
return; a competitive game, a learner seat with the best return, so only the games with
baseline seats tell something). Competitive games also log ``game/mean_return`` (every
seat's return, unscaled, averaged) and ``game/truncated`` (the share cut at ``max_moves``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from stable_baselines3.common.callbacks import BaseCallback

from .bc import behaviour_clone
from .signals import stop_if_requested


class TrainingMonitor:
    """Progress bar, episode statistics, periodic evaluation and checkpoints of a run.

    Reads ``trainer.model`` (``.policy``, ``.logger``, ``.num_timesteps``), whichever trainer
    built it."""

    def __init__(self, trainer) -> None:
        self.trainer = trainer
        self.cfg = trainer.config
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[speed]}"),
            TextColumn("{task.fields[status]}"),
            TimeRemainingColumn(),
        )
        self.bar.start()
        self.task = None
        self.games: list[tuple[bool, int, int, bool]] = []  # win, turns, pickups, baseline seat
        self.team = trainer.game.team
        self.seat_returns: list[float] = []  # competitive games: mean return of every game
        self.truncated = 0
        self.next_eval = 0
        self.next_checkpoint = 0
        self.window_start = (time.perf_counter(), 0)

    @property
    def model(self):
        return self.trainer.model

    # --- behaviour cloning, before the PPO loop ----------------------------------------
    def clone_baseline(self) -> None:
        cfg, model = self.cfg, self.model
        task = self.bar.add_task("cloning the baseline", total=cfg.bc_games, speed="", status="")

        def progress(done: int, metrics: dict) -> None:
            stop_if_requested()
            self.bar.update(task, completed=done, status=f"agreement {metrics['bc/accuracy']:.1%}")

        metrics = behaviour_clone(
            model.policy,
            cfg.game_record(),
            cfg.game_config(),
            cfg.bc_games,
            cfg.bc_epochs,
            cfg.bc_batch_size,
            cfg.bc_learning_rate,
            cfg.seed,
            reward_scale=cfg.reward_scale,
            reward_margin=cfg.reward_margin,
            progress=progress,
        )
        for key, value in metrics.items():
            model.logger.record(key, value)
        unseen = ""
        if "bc/agreement_unseen" in metrics:  # two chunks or more
            kinds = ", ".join(
                f"{key.rsplit('/', 1)[1]} {value:.1%}"
                for key, value in metrics.items()
                if key.startswith("bc/agreement_unseen/")
            )
            share = metrics["bc/agreement_unseen"]
            unseen = f"; on decisions before training on them {share:.1%} ({kinds})"
        self.trainer.say(
            f"cloned the baseline on {cfg.bc_games:,} games: agreement {metrics['bc/accuracy']:.1%}"
            + unseen
        )
        self.bar.remove_task(task)

    # --- the PPO loop ----------------------------------------------------------------
    def start(self) -> None:
        """Before the first rollout (fresh or resumed)."""
        cfg, steps = self.cfg, int(self.model.num_timesteps)
        self.next_eval = (steps // cfg.eval_interval + 1) * cfg.eval_interval
        self.next_checkpoint = (steps // cfg.checkpoint_interval + 1) * cfg.checkpoint_interval
        self.window_start = (time.perf_counter(), steps)
        best = self.trainer.state.best_win_rate
        self.task = self.bar.add_task(
            "self-play",
            total=cfg.total_steps,
            completed=steps,
            speed="",
            status=f"best eval {best:.1%}" if best >= 0 else "",
        )

    def on_step(self, infos: Sequence[dict], dones: Sequence[bool]) -> None:
        """After one step of every env (``num_timesteps`` already counts it)."""
        stop_if_requested()
        for info, done in zip(infos, dones, strict=True):
            if done and "result" in info:
                self.games.append(
                    (
                        info.get("learner_won", info["return"] > 0),
                        info["turns"],
                        info["pickups"],
                        info["baseline_partner"],
                    )
                )
                if not self.team:
                    returns = info["returns"]
                    self.seat_returns.append(sum(returns) / len(returns))
                    self.truncated += info["result"] == "truncated"
        steps = int(self.model.num_timesteps)
        self.bar.update(self.task, completed=steps)
        # (none once total_steps is reached: the trainer evaluates after the last update)
        if self.cfg.total_steps > steps >= self.next_eval:
            self.next_eval += self.cfg.eval_interval
            entry = self.trainer.evaluate_now(self.cfg.eval_games)
            if entry is not None:  # (None: a competitive game, not evaluated yet)
                self._status(entry)
        if steps >= self.next_checkpoint:
            self.next_checkpoint += self.cfg.checkpoint_interval
            self.trainer.save(self.trainer.checkpoints / f"step_{steps}.pt")

    def on_rollout_end(self) -> None:
        """After each rollout, before its update: speed and game statistics (recorded)."""
        stop_if_requested()
        logger = self.model.logger
        now, steps = time.perf_counter(), int(self.model.num_timesteps)
        start, start_steps = self.window_start
        speed = (steps - start_steps) / max(now - start, 1e-9)
        self.window_start = (now, steps)
        logger.record("time/steps_per_s", speed)
        self.bar.update(self.task, speed=f"{speed:,.0f} steps/s")
        selfplay = [g for g in self.games if not g[3]]
        mixed = [g for g in self.games if g[3]]
        if selfplay:
            logger.record("team/train_win_rate", sum(g[0] for g in selfplay) / len(selfplay))
        if mixed:
            logger.record(
                "team/train_win_rate_with_baseline", sum(g[0] for g in mixed) / len(mixed)
            )
        if self.games:
            logger.record("game/turns", sum(g[1] for g in self.games) / len(self.games))
            logger.record("game/pickups", sum(g[2] for g in self.games) / len(self.games))
            logger.record("game/games", len(self.games))
            if not self.team:
                logger.record("game/mean_return", sum(self.seat_returns) / len(self.games))
                logger.record("game/truncated", self.truncated / len(self.games))
        self.games = []
        self.seat_returns = []
        self.truncated = 0

    def _status(self, entry: dict) -> None:
        best = self.trainer.state.best_win_rate
        if self.team:
            status = (
                f"eval {entry['win_rate']:.1%} (baseline {entry['baseline_win_rate']:.1%}), "
                f"best {best:.1%}"
            )
        else:  # one trained seat against baselines: its return minus theirs, per game
            status = f"eval {entry['win_rate']:+.2f} vs baselines, best {best:+.2f}"
        self.bar.update(self.task, status=status)

    def close(self) -> None:
        self.bar.stop()


class TrainingCallback(BaseCallback):
    """SB3's hooks, forwarded to a ``TrainingMonitor``."""

    def __init__(self, monitor: TrainingMonitor) -> None:
        super().__init__()
        self.monitor = monitor

    def _on_training_start(self) -> None:
        self.monitor.start()

    def _on_step(self) -> bool:
        self.monitor.on_step(self.locals["infos"], self.locals["dones"])
        return True

    def _on_rollout_end(self) -> None:
        self.monitor.on_rollout_end()
