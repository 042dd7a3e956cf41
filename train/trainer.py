"""Self-play training of any registered game: behaviour cloning of the game's baseline,
then self-play PPO.

The PPO is the lean masked PPO of ``train/ppo.py`` (``trainer: torch``) or sb3-contrib's
MaskablePPO (``train/sb3.py``, ``trainer: sb3``), one file each with the same face
(``make_envs``, ``make_model``, ``learn``, ``close_envs``); both train the same network and
write the same checkpoints, logs and model cards. Sizes come from the game's record and the
envs' spaces; checkpoints record the game's name. ``evaluate_now`` measures the policy with
``agents.evaluate`` (a team game: beside the baseline team; a competitive game: one trained
seat against baselines, every seat in turn) and keeps ``best.pt``.

A run lives in ``{out_dir}/{run_name}/`` (a new run's folder new or empty: a run there is
never overwritten): TensorBoard events (metric groups ``team/``, ``game/``, ``bc/``,
``time/`` and SB3's ``train/`` and ``rollout/``), ``checkpoints/`` (``last.pt``,
``best.pt`` by evaluated win rate, ``step_N.pt``) each with a model card (``.json``), and
``curve.png``. ``--resume`` restores weights, optimizer, step count and
the evaluation history, so schedules continue where they stopped; Ctrl-C or
``kill`` stops a run at its next step and saves ``last.pt`` (a second one stops at once).
Resuming takes only the checkpoint and ``--total-steps``: config and seed are the
checkpoint's, the run goes on in the run folder the checkpoint is in (a copied run in the
copy, named after its folder) from its newest checkpoint only (a run is never rewound), and
an exported policy (no optimizer state) cannot be resumed (start a new run from it with
``init_from``).
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import platform
import shutil
import threading
import time
from dataclasses import dataclass, field, replace
from functools import partial
from importlib import metadata
from pathlib import Path

from commoncause.agents.evaluate import Report, evaluate
from commoncause.agents.trained import FORMAT, load_checkpoint, weights_digest

from . import signals
from .config import TrainConfig, config_from_dict

BASELINE_TEAM = ("baseline", "baseline")

TRAINERS = {"torch": "commoncause.train.ppo_parallel", "sb3": "commoncause.train.sb3",
            "rllib": "commoncause.train.rllib"}  # fmt: skip
"""Config ``trainer`` -> its module (``DESCRIPTION``, ``make_envs``, ``make_model``,
``learn``, ``close_envs``)."""


def trainer_module(name: str):
    if name not in TRAINERS:
        raise ValueError(f"config trainer must be one of {', '.join(TRAINERS)}, got {name!r}")
    return importlib.import_module(TRAINERS[name])


def partner_cards(config: TrainConfig) -> list[dict]:
    """What each of the config's ``partners`` plays, for the model card: the member for the
    run's config and, for a policy, its checkpoint (relative to the project where it lies
    inside) and weights digest, so that the same name holding other weights later shows."""
    from commoncause import ROOT
    from commoncause.agents.registry import for_config, make_agent
    from commoncause.agents.trained import PolicyAgent

    rules = config.game_config()
    cards = []
    for spec in config.partners:
        try:
            member = for_config(spec, config.game, rules)
            agent = make_agent(member, config.game)
        except ValueError as e:  # (a resumed run's partner gone, say)
            raise ValueError(f"config partners {spec!r}: {e}") from None
        card = {"partner": spec, "member": member}
        if isinstance(agent, PolicyAgent):
            path = agent.path.resolve()
            card["checkpoint"] = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
            card["digest"] = weights_digest(agent.checkpoint)
        cards.append(card)
    return cards


def check_partners_unchanged(saved: list[dict], current: list[dict]) -> None:
    """A one-line ValueError where a resumed run's partner would now play another member or
    other weights than the run trained with (``saved``, ``partner_cards`` of its
    checkpoint; checkpoints from before partners were pinned have none)."""
    for was, now in zip(saved, current, strict=True):
        if was["member"] != now["member"]:
            raise ValueError(
                f"config partners {was['partner']!r} now plays {now['member']}, the run's "
                f"{was['member']}; resume with the version that wrote it, or start a new run "
                f"with init_from"
            )
        if was.get("digest") != now.get("digest"):
            raise ValueError(
                f"config partners {was['partner']!r}: {now['checkpoint']} is not the policy "
                f"this run trained with (weights digest {now['digest'][:12]}, the run's "
                f"{was['digest'][:12]}); put the run's partner back, or start a new run with "
                f"init_from"
            )


def start_card(path: str) -> dict:
    """The model card's ``init_from``: the checkpoint a new run started from and its
    weights digest (older checkpoints have none recorded: it is computed)."""
    data = load_checkpoint(path)
    return {"checkpoint": str(path), "digest": data.get("digest") or weights_digest(data)}


def package_versions() -> dict:
    names = ("torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "numpy",
             "ray")  # fmt: skip
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def intended_use(game) -> str:
    """The model card's intended use, by the kind of game."""
    if game.team:
        return "research on cooperative play and signalling; an AI partner"
    return "research on competitive self-play; an AI opponent"


def report_summary(report: Report) -> dict:
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


def _per_hand_entry(report) -> dict:
    """A table evaluation's per-hand figures of the trained seat (member 0), where the game
    scores hands."""
    if report.vs_field_per_hand is None:
        return {}
    entry = {"minus_baselines_per_hand": report.vs_field_per_hand["mean"]}
    figures = report.members[0]["per_hand"]
    if "went_out" in figures:
        entry["went_out_per_hand"] = figures["went_out"]["mean"]
    return entry


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
        config: TrainConfig | None,
        run_name: str | None = None,
        resume: str | Path | None = None,
        total_steps: int | None = None,
        say=print,
    ) -> None:
        """A new run of ``config``, or (``resume``) the run of a checkpoint, continued to
        ``total_steps`` if given (else its config's). Resuming takes no config and no run
        name: the checkpoint's are used."""
        self.say = say
        if total_steps is not None and total_steps < 0:
            raise ValueError(f"total_steps must not be negative, got {total_steps}")
        self.resume_data = load_resumable(resume) if resume else None
        if self.resume_data is not None:
            if config is not None or run_name is not None:
                raise ValueError(
                    "a resumed run keeps its own config, seed and run name: give --resume "
                    "with --total-steps only"
                )
            saved = config_from_dict(self.resume_data["config"], check_files=False)
            done = int(self.resume_data["num_timesteps"])
            if total_steps is not None and total_steps < done:
                raise ValueError(
                    f"{resume} is at step {done:,}: --total-steps {total_steps:,} is behind "
                    "it (give a larger one to train on)"
                )
            if total_steps is not None:
                saved = replace(saved, total_steps=total_steps)
            run_dir = run_folder(Path(resume))  # (a copied run goes on in the copy)
            check_newest(Path(resume), int(self.resume_data["num_timesteps"]))
            config = replace(saved, out_dir=str(run_dir.parent))
            self.state = RunState(
                run_name=run_dir.name,
                evaluations=list(self.resume_data["evaluations"]),
                best_win_rate=self.resume_data["best_win_rate"],
                seconds=self.resume_data.get("seconds", 0.0),
            )
        else:
            if config is None:
                raise ValueError("a new run needs a config")
            if total_steps is not None:
                config = replace(config, total_steps=total_steps)
            config.validate()
            self.state = RunState(run_name=new_run_name(config, run_name))
        self.config = config
        self.partners = partner_cards(config) if config.partners else []
        if self.resume_data is not None and "partners" in self.resume_data:
            check_partners_unchanged(self.resume_data["partners"], self.partners)
        if self.resume_data is not None:
            self.start = self.resume_data.get("init_from")
        else:
            self.start = start_card(config.init_from) if config.init_from else None
        self.game = config.game_record()
        self.backend = trainer_module(config.trainer)
        self.run_dir = Path(config.out_dir) / self.state.run_name
        self.checkpoints = self.run_dir / "checkpoints"
        self.model = None
        self.env = None
        self._baseline_eval: Report | None = None
        self._clock: tuple[float, float] | None = None  # (perf_counter at start, seconds then)

    # ------------------------------------------------------------------------------
    def _make_env(self):
        from .selfplay import SelfPlayEnv

        cfg = self.config

        def factory(rank: int):
            def make():
                env = SelfPlayEnv(**cfg.selfplay_kwargs())
                resumed_at = self.resume_data["num_timesteps"] if self.resume_data else 0
                env.reset(seed=cfg.seed * 1000 + rank + resumed_at)  # new deals per resume
                return env

            return make

        return self.backend.make_envs(cfg, [factory(i) for i in range(cfg.n_envs)])

    def _make_model(self):
        return self.backend.make_model(self.config, self.env, self.run_dir)

    # ------------------------------------------------------------------------------
    def _tick(self) -> None:
        """Bring ``state.seconds`` (training time, summed over resumes) up to now."""
        if self._clock is not None:
            started, before = self._clock
            self.state.seconds = before + time.perf_counter() - started

    def save(self, path: Path) -> Path:
        """Write a checkpoint and its model card atomically."""

        self._tick()
        model, cfg = self.model, self.config
        data = {
            "format": FORMAT,
            "game": self.game.name,
            "env_version": self.game.env_name,
            "obs_size": self.game.observation_size,
            "n_actions": self.game.num_actions,
            "features_dim": cfg.features_dim,
            "net_arch": list(cfg.net_arch),
            "activation": cfg.activation,
            "card_head": cfg.card_head,
            "policy": model.policy.state_dict(),
            "optimizer": model.policy.optimizer.state_dict(),
            **critic_weights(model),
            "num_timesteps": int(model.num_timesteps),
            "config": cfg.to_dict(),
            "run_name": self.state.run_name,
            "evaluations": self.state.evaluations,
            "best_win_rate": self.state.best_win_rate,
            "seconds": self.state.seconds,
            **({"partners": self.partners} if self.partners else {}),
            **({"init_from": self.start} if self.start else {}),
        }
        data["digest"] = weights_digest(data)
        save_atomically(data, path)
        write_card(path.with_suffix(".json"), self.model_card(int(model.num_timesteps)))
        return path

    def model_card(self, steps: int) -> dict:
        cfg, game = self.config, self.game
        rules = cfg.game_config()
        return {
            "model": f"{game.title} self-play policy ({self.backend.DESCRIPTION}, one for "
            "every seat)",
            "run_name": self.state.run_name,
            "game": game.name,
            "env_version": game.env_name,
            "observation_size": game.observation_size,
            "actions": game.num_actions,
            "level": rules.label(),
            "game_config": rules.to_dict(),
            "episode_options": cfg.episode_options,
            "eval_game_config": cfg.eval_config().to_dict(),
            "seed": cfg.seed,
            "steps": steps,
            "training_seconds": round(self.state.seconds, 1),
            "config": cfg.to_dict(),
            "evaluations": self.state.evaluations,
            "best_eval_win_rate": self.state.best_win_rate,
            "best_eval_metric": (
                "win rate of the trained team"
                if self.game.team
                else "return per game minus the baselines' mean, one trained seat"
            ),
            "final_comparison": self.state.final,
            **({"partners": self.partners} if self.partners else {}),
            **({"init_from": self.start} if self.start else {}),
            "versions": package_versions(),
            "intended_use": intended_use(self.game),
            "evaluation_protocol": "paired deals: every team plays the same deal seeds",
        }

    # ------------------------------------------------------------------------------
    def evaluate_now(self, games: int, workers: int = 2) -> dict:
        """Evaluate the current policy (saved as last.pt; ``_measure``), then record, log and
        say it, and save best.pt when it is the best so far."""
        last = self.save(self.checkpoints / "last.pt")
        entry, logs, line = self._measure(last, games, workers, self.config.eval_seed)
        self.state.evaluations.append(entry)
        logger = self.model.logger
        for key, value in logs.items():
            logger.record(key, value)
        logger.dump(int(self.model.num_timesteps))
        self.say(line)
        # (the first is the best so far: a table's margin may be below any start value)
        if len(self.state.evaluations) == 1 or entry["win_rate"] > self.state.best_win_rate:
            self.state.best_win_rate = entry["win_rate"]
            self.save(self.checkpoints / "best.pt")
        self.save(last)  # (with this evaluation: a run killed now resumes with it)
        return entry

    def _measure(
        self, checkpoint: Path, games: int, workers: int, seed: int
    ) -> tuple[dict, dict[str, float], str]:
        """The policy of ``checkpoint`` measured on ``games`` games (``agents.evaluate``):
        its entry, the figures to log and the line to say. A team game: the policy in every
        seat, beside the baseline team on the same deals; a competitive game: one trained
        seat and baselines in the others, every seat in turn (deals x seat rotations), its
        ``win_rate`` the trained seat's return minus the baselines' mean, per game. Measures
        only: records, logs and saves nothing."""
        rules = self.config.eval_config()
        seats = self.game.num_seats(rules)
        stop = signals.stop_if_requested  # (as progress: a stop ends it at the next chunk)
        step = int(self.model.num_timesteps)
        if not self.game.team:
            team = (str(checkpoint), *["baseline"] * (seats - 1))
            report = evaluate(team, rules, max(1, games // seats), seed, workers, "", stop,
                              game=self.game.name)  # fmt: skip
            trained = report.members[0]
            entry = {
                "step": step,
                "win_rate": report.vs_field["mean"],
                "metric": "return per game minus the baselines' mean (seats rotated, paired deals)",
                "ci95": report.vs_field["ci95"],
                "games": report.games,
                "return": trained["return"]["mean"],
                "return_ci95": trained["return"]["ci95"],
                "outright_win_rate": trained["win_rate"],
                "baseline_return": sum(m["return"]["mean"] for m in report.members[1:])
                / (seats - 1),
                **_per_hand_entry(report),
            }
            logs = {"table/eval_return": entry["return"],
                    "table/eval_minus_baselines": entry["win_rate"],
                    "table/eval_won": entry["outright_win_rate"]}  # fmt: skip
            for key in ("minus_baselines_per_hand", "went_out_per_hand"):
                if key in entry:
                    logs[f"table/eval_{key}"] = entry[key]
            low, high = entry["ci95"]
            line = (
                f"step {step:,}: return {entry['return']:.2f} per game, baselines "
                f"{entry['baseline_return']:.2f}; difference {entry['win_rate']:+.2f} "
                f"[{low:+.2f}, {high:+.2f}] over {entry['games']} games"
            )
            return entry, logs, line
        report = evaluate((str(checkpoint),) * seats, rules, games, seed, workers, rules.label(),
                          stop)  # fmt: skip
        base = self._baseline_eval
        if base is None or (base.games, base.seed) != (games, seed):
            base = self._baseline_eval = evaluate(
                BASELINE_TEAM, rules, games, seed, workers, rules.label(), stop
            )
        entry = {
            "step": step,
            "win_rate": report.win_rate,
            "ci95": list(report.ci95),
            "games": games,
            "baseline_win_rate": base.win_rate,
            "mean_turns": report.mean_turns,
            "mean_discard_pickups": report.mean_discard_pickups,
        }
        logs = {"team/eval_win_rate": report.win_rate,
                "team/eval_minus_baseline": report.win_rate - base.win_rate,
                "game/eval_turns": report.mean_turns,
                "game/eval_pickups": report.mean_discard_pickups}  # fmt: skip
        low, high = report.ci95
        line = (
            f"step {step:,}: eval win rate {report.win_rate:.1%} [{low:.1%}, {high:.1%}]"
            f" over {games} games; baseline team {base.win_rate:.1%}"
        )
        return entry, logs, line

    def final_comparison(self) -> dict:
        """The best policy's team, the baseline team and the mixed team on the same deals
        (a competitive game: the best policy in one seat, baselines in the others)."""
        cfg = self.config
        if not self.game.team:
            entry, _, _ = self._measure(
                self.checkpoints / "best.pt", cfg.final_eval_games, 2, cfg.eval_seed + 1
            )
            self.state.final = {"trained_vs_baselines": entry}
            return self.state.final
        best = self.checkpoints / "best.pt"
        games = cfg.final_eval_games
        seed = cfg.eval_seed + 1
        teams = {
            "trained": (str(best), str(best)),
            "baseline": BASELINE_TEAM,
            "trained+baseline": (str(best), "baseline"),
        }
        rules = cfg.eval_config()
        results = {
            name: report_summary(
                evaluate(team, rules, games, seed, 2, rules.label(), signals.stop_if_requested)
            )
            for name, team in teams.items()
        }
        self.state.final = results
        return results

    # ------------------------------------------------------------------------------
    def run(self) -> dict:
        """Train, then compare (``final_comparison``), model card and curve. Ctrl-C or
        SIGTERM stops it at the next step or evaluation chunk, saving ``last.pt`` to
        ``--resume`` from (``train/signals.py``); its signal handlers are put back after."""
        previous = signals.install()  # (before the envs: forked env workers inherit them)
        fresh = not self.run_dir.exists()
        hook = threading.excepthook
        threading.excepthook = partial(_quiet_writer_thread, hook)
        try:
            return self._run()
        except OSError as e:  # a full disk, a folder that cannot be written: one line
            if fresh and not any(self.checkpoints.glob("*.pt")):
                shutil.rmtree(self.run_dir, ignore_errors=True)  # (nothing in it to keep)
            if e.errno is None:  # (save's own, naming its file)
                raise
            where = f" ({e.filename})" if e.filename else ""
            raise OSError(f"run {self.run_dir}: {e.strerror}{where}") from None
        finally:
            threading.excepthook = hook
            signals.restore(previous)

    def _run(self) -> dict:
        from .callbacks import TrainingMonitor

        cfg = self.config
        self.env = self._make_env()
        self.model = self._make_model()
        signals.install(forget=False)  # again: ray.init replaces SIGTERM's handler
        self._clock = (time.perf_counter(), self.state.seconds)
        monitor = TrainingMonitor(self)
        try:
            if self.resume_data is not None:
                self.model.policy.load_state_dict(self.resume_data["policy"])
                if "critic" in self.resume_data:
                    self._load_critic(self.resume_data["critic"])
                self.model.policy.optimizer.load_state_dict(self.resume_data["optimizer"])
                self.model.num_timesteps = int(self.resume_data["num_timesteps"])
                self.say(f"resuming {self.state.run_name} at step {self.model.num_timesteps:,}")
            else:
                if cfg.init_from:
                    start = load_checkpoint(cfg.init_from, game=cfg.game)
                    self.model.policy.load_state_dict(start["policy"])
                    self.say(f"starting from the policy of {cfg.init_from}")
                elif cfg.bc_games:
                    monitor.clone_baseline()
                self.evaluate_now(cfg.eval_games)
            if cfg.total_steps > int(self.model.num_timesteps):
                self.backend.learn(self.model, cfg.total_steps, monitor)
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
        last = self.save(self.checkpoints / "last.pt")  # (every evaluation in it)
        if not (self.checkpoints / "best.pt").exists():
            self.save(self.checkpoints / "best.pt")  # (the same as last.pt)
        try:
            final = self.final_comparison()
        except KeyboardInterrupt:
            self.say(f"interrupted in the final comparison; resume with: commoncause train "
                     f"--resume {last}")  # fmt: skip
            raise
        self.save(last)
        best = self.checkpoints / "best.pt"
        best_data = load_checkpoint(best)
        card = self.model_card(best_data["num_timesteps"]) | {
            "checkpoint": "best",
            "training_seconds": round(best_data.get("seconds", 0.0), 1),
            "run_training_seconds": round(self.state.seconds, 1),
        }
        write_card(best.with_suffix(".json"), card)
        from .curve import plot_training_curve

        plot_training_curve(self.state.evaluations, self.run_dir / "curve.png", self.state.run_name)
        return final

    def _load_critic(self, weights: dict) -> None:
        try:
            self.model.critic.load_state_dict(weights)
        except RuntimeError:  # (torch's message: many lines of sizes)
            sizes = [tuple(w.shape) for k, w in weights.items() if k.endswith("weight")]
            raise ValueError(
                f"the checkpoint's centralised critic (layers {sizes}) does not fit this "
                f"version's critic: state (critic_net_arch {self.config.critic_net_arch} on "
                f"the observation and hidden cards): resume it with the version that wrote "
                f"it, or start a new run from its policy with init_from"
            ) from None

    def _close_env(self) -> None:
        if self.env is not None:
            self.backend.close_envs(self.env)


def write_failure(error: Exception, path: Path) -> str:
    """Why a write of ``path`` failed, in words: the system's reason, or (torch's
    RuntimeError names none) the space left on its disk."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    free = shutil.disk_usage(path.parent).free
    return f"the write failed with {free / 2**20:.1f} MiB free on its disk"


def save_atomically(data: dict, path: Path) -> None:
    """``torch.save`` to ``path`` through a ``.tmp`` beside it: a failed write (a full disk)
    leaves the old file and no ``.tmp``, and is a one-line OSError naming the file."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    try:
        torch.save(data, tmp)
        os.replace(tmp, path)
    except (OSError, RuntimeError) as e:  # (a full disk: torch raises a RuntimeError)
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot save checkpoint {path}: {write_failure(e, path)}") from None


def write_card(path: Path, card: dict) -> None:
    """Write a model card atomically (no half-written card, no stray ``.tmp``)."""
    tmp = path.with_suffix(".json.tmp")
    try:
        tmp.write_text(json.dumps(card, indent=2) + "\n")
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot save model card {path}: {write_failure(e, path)}") from None


def _quiet_writer_thread(hook, args) -> None:
    """``threading.excepthook`` during a run: TensorBoard's writer thread, failing to write
    (a full disk), hands its error to the trainer, which reports it in one line, then dies
    printing a traceback; that traceback is left out (other threads' go to ``hook``)."""
    if type(args.thread).__name__ != "_AsyncWriterThread" or not issubclass(
        args.exc_type, OSError
    ):
        hook(args)


def critic_weights(model) -> dict:
    """``{"critic": weights}`` of a model with a centralised critic (critic: state), else
    nothing: the critic is saved for --resume only (play reads ``policy``)."""
    critic = getattr(model, "critic", None)
    return {} if critic is None else {"critic": critic.state_dict()}


def new_run_name(config: TrainConfig, run_name: str | None) -> str:
    """The name of a new run of ``config`` in ``config.out_dir``: ``run_name``, or by default
    ``NAME__SEED__TIMESTAMP`` (``-2``, ``-3``, ... after it where a run of that second is
    there). A one-line ValueError where the folder of ``run_name`` holds anything (a run's
    checkpoints, events): a new run would overwrite it."""
    out = Path(config.out_dir)
    if run_name is None:
        stamp = f"{config.name}__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        names = (stamp if n == 1 else f"{stamp}-{n}" for n in itertools.count(1))
        return next(n for n in names if not _holds_anything(out / n))
    folder = out / run_name
    if _holds_anything(folder):
        last = folder / "checkpoints" / "last.pt"
        resume = f"--resume {last}, or choose" if last.exists() else "choose"
        raise ValueError(f"run {run_name} already exists at {folder}: {resume} another --run-name")
    return run_name


def _holds_anything(folder: Path) -> bool:
    """Whether ``folder`` is a folder with something in it."""
    return folder.is_dir() and any(folder.iterdir())


def run_folder(checkpoint: Path) -> Path:
    """The run folder a checkpoint is in (``RUN/checkpoints/last.pt``: ``RUN``), which a
    resumed run goes on writing in; a one-line ValueError for one outside a run's
    ``checkpoints/`` folder, whose run could be any."""
    if checkpoint.parent.name != "checkpoints":
        raise ValueError(
            f"checkpoint {checkpoint} is not in a run's checkpoints/ folder, so there is no "
            f"run folder to go on in: resume it from RUN/checkpoints/ (mkdir -p "
            f"runs/NAME/checkpoints and copy it there)"
        )
    return checkpoint.resolve().parent.parent


def check_newest(checkpoint: Path, steps: int) -> None:
    """A one-line ValueError if another checkpoint beside ``checkpoint`` (at ``steps``) is
    further on: resuming would rewind its run, overwriting the later checkpoints and logging
    TensorBoard steps twice. (A checkpoint's steps are its model card's; one without a
    readable card is loaded; an unreadable one is passed over.)"""
    newest, later = checkpoint, steps
    for other in sorted(checkpoint.parent.glob("*.pt")):
        if other.name == checkpoint.name:
            continue
        try:
            at = int(json.loads(other.with_suffix(".json").read_text())["steps"])
        except (OSError, ValueError, KeyError, TypeError):
            try:
                at = int(load_checkpoint(other)["num_timesteps"])
            except (ValueError, KeyError):
                continue
        if at > later:
            newest, later = other, at
    if newest != checkpoint:
        raise ValueError(
            f"checkpoint {checkpoint} is at step {steps:,} but its run has gone on to step "
            f"{later:,} ({newest.name}): resuming it would rewind the run and overwrite what "
            f"came after; resume {newest}, or copy {checkpoint.name} alone into a new run "
            f"folder (runs/NAME/checkpoints/) to branch from it"
        )


def load_resumable(path: str | Path) -> dict:
    """A run's checkpoint to resume; a one-line ValueError for an exported policy (weights
    only), which starts new runs through ``init_from`` instead."""
    data = load_checkpoint(path)
    missing = [k for k in ("optimizer", "config", "run_name", "evaluations") if k not in data]
    if missing:
        raise ValueError(
            f"checkpoint {path} has no optimizer state (an exported policy), so there is no "
            f"run to resume: start a new run from it with init_from: {path} in a config"
        )
    return data
