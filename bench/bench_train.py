"""Training speed: env steps per second of self-play PPO, SB3 against the PyTorch trainer.

Runs the real ``Trainer`` objects of each trainer (``trainer: sb3`` and ``trainer: torch``)
with a config's settings (``--config``, default configs/normal.yaml) for ``--steps`` env
steps, without behaviour cloning, evaluations or checkpoints, from an untrained policy or
``--checkpoint``'s, and times the whole PPO loop (rollouts and updates together) and its
parts: per rollout (of it, inside the envs) and per update. ``--rounds`` alternates the
trainers so both meet the same machine load; the load average before each run is printed
(other work on the machine lowers the figures). Run:
``python bench/bench_train.py [--steps 50000] [--rounds 2] [--trainers sb3 torch]
[--checkpoint best.pt] [--rollout-workers 2] [--torch-threads 2] [--json out.json]``

``--profile`` instead says where the torch trainer's time goes, in CPU seconds per rollout
(timers on CPU time, one process: ``rollout_workers`` 1): the envs (their observations,
their masks and the baseline's and forced moves), the policy's forward in the rollout, the
rest of the rollout (sampling, buffer copies, the loop), and the update's forward, backward,
optimizer and the rest (losses, minibatch gathers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.train.callbacks import TrainingCallback, TrainingMonitor  # noqa: E402
from commoncause.train.config import load_config  # noqa: E402
from commoncause.train.trainer import Trainer  # noqa: E402


def _timed(fn, totals: dict, key, clock=time.perf_counter):
    """``fn`` adding its seconds (by ``clock``) and calls to ``totals[key]`` (``key`` may
    be a function naming the entry at each call)."""

    def wrapper(*args, **kwargs):
        started = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            name = key() if callable(key) else key
            totals[name] = totals.get(name, 0.0) + clock() - started
            totals[name + "_calls"] = totals.get(name + "_calls", 0) + 1

    return wrapper


def measure(config, trainer_name: str, steps: int, out_dir: str, weights=None) -> dict:
    cfg = replace(config, trainer=trainer_name, bc_games=0, total_steps=steps,
                  eval_interval=10**12, checkpoint_interval=10**12, out_dir=out_dir)  # fmt: skip
    trainer = Trainer(cfg, run_name=f"bench_{trainer_name}_{time.time_ns()}", say=lambda *_: None)
    trainer.env = trainer._make_env()
    model = trainer.model = trainer._make_model()
    if weights is not None:
        model.policy.load_state_dict(weights)
    totals = {k: 0.0 for k in ("rollout", "rollout_calls", "update", "update_calls", "env",
                               "env_calls")}  # fmt: skip
    if trainer_name == "torch":
        model.collect_rollout = _timed(model.collect_rollout, totals, "rollout")
        model.update = _timed(model.update, totals, "update")
    else:
        model.collect_rollouts = _timed(model.collect_rollouts, totals, "rollout")
        model.train = _timed(model.train, totals, "update")
        model.env.step = _timed(model.env.step, totals, "env")
    monitor = TrainingMonitor(trainer)
    monitor.bar.stop()  # no progress display while timing
    load = os.getloadavg()[0]
    started = time.perf_counter()
    if trainer_name == "torch":
        model.learn(cfg.total_steps, monitor)
    else:
        model.learn(cfg.total_steps, callback=TrainingCallback(monitor), progress_bar=False)
    seconds = time.perf_counter() - started
    monitor.close()
    trainer._close_env()
    if trainer_name == "torch":
        totals["env"] = model.timing["env_s"]
    rollouts = max(1, int(totals["rollout_calls"]))
    updates = max(1, int(totals["update_calls"]))
    done = int(model.num_timesteps)
    return {
        "trainer": trainer_name,
        "steps": done,
        "seconds": round(seconds, 2),
        "steps_per_s": done / seconds,
        "rollout_steps": cfg.n_envs * cfg.n_steps,
        "per_rollout_s": totals["rollout"] / rollouts,
        "per_rollout_env_s": totals["env"] / rollouts,
        "per_update_s": totals["update"] / updates,
        "load_before": load,
    }


def profile(config, steps: int, out_dir: str, weights=None) -> list[tuple[str, float]]:
    """Where one process's time goes in the torch trainer: (part, CPU seconds per rollout),
    from timers wrapped around the envs' methods, the policy's forward, ``backward`` and
    Adam's step (a microsecond per call; cProfile's overhead would distort the Python-heavy
    envs)."""
    import torch

    from commoncause.train import ppo
    from commoncause.train.selfplay import SelfPlayEnv

    totals: dict[str, float] = {}
    phase = ["rollout"]

    def timed(fn, key):
        return _timed(fn, totals, key, time.process_time)

    def in_phase(fn, name):
        timed_fn = timed(fn, name)

        def wrapper(*args, **kwargs):
            phase[0] = name
            try:
                return timed_fn(*args, **kwargs)
            finally:
                phase[0] = "rollout"

        return wrapper

    patches = [(SelfPlayEnv, name, timed(getattr(SelfPlayEnv, name), name))
               for name in ("step", "reset", "action_masks", "_observe", "_advance")]  # fmt: skip
    patches += [
        (ppo, "legal_logits_and_values", timed(ppo.legal_logits_and_values,
                                               lambda: f"{phase[0]}_forward")),  # fmt: skip
        (torch.Tensor, "backward", timed(torch.Tensor.backward, "backward")),
        (torch.optim.Adam, "step", timed(torch.optim.Adam.step, "adam")),
        (ppo.PPO, "update", in_phase(ppo.PPO.update, "update")),
        (ppo.PPO, "_collect_slice", timed(ppo.PPO._collect_slice, "collect")),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, wrapper in patches:
        setattr(owner, name, wrapper)
    try:
        cfg = replace(config, rollout_workers=1)
        measured = measure(cfg, "torch", steps, out_dir, weights)
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
    rollouts = measured["steps"] / measured["rollout_steps"]
    get = totals.get
    env = get("step", 0.0) + get("reset", 0.0)  # (_observe and _advance run inside them)
    env_rest = env - get("_observe", 0.0) - get("_advance", 0.0)
    parts = [
        ("envs: observations", get("_observe", 0.0)),
        ("envs: masks, forced and baseline moves", get("_advance", 0.0)),
        ("envs: the rest (rules, rewards, resets)", env_rest),
        ("rollout: masks copied out of the envs", get("action_masks", 0.0)),
        ("rollout: policy forward (no grad)", get("rollout_forward", 0.0)),
        ("rollout: sampling, buffer copies, loop", get("collect", 0.0) - env
         - get("action_masks", 0.0) - get("rollout_forward", 0.0)),
        ("update: forward", get("update_forward", 0.0)),
        ("update: backward", get("backward", 0.0)),
        ("update: Adam", get("adam", 0.0)),
        ("update: losses, minibatch gathers, rest", get("update", 0.0) - get("update_forward", 0.0)
         - get("backward", 0.0) - get("adam", 0.0)),
    ]  # fmt: skip
    return [(name, seconds / rollouts) for name, seconds in parts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/normal.yaml")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--trainers", nargs="+", default=["sb3", "torch"])
    parser.add_argument("--checkpoint", help="start from this policy (e.g. a cloned one)")
    parser.add_argument("--rollout-workers", type=int, help="override the config's")
    parser.add_argument("--torch-threads", type=int, help="override the config's")
    parser.add_argument("--profile", action="store_true", help="where the time goes")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    config = load_config(args.config)
    for name in ("rollout_workers", "torch_threads"):
        if getattr(args, name) is not None:
            config = replace(config, **{name: getattr(args, name)})
    weights = None
    if args.checkpoint:
        from commoncause.agents.trained import load_checkpoint

        data = load_checkpoint(args.checkpoint)
        weights = data["policy"]
        config = replace(config, features_dim=data["features_dim"], net_arch=data["net_arch"],
                         activation=data["activation"],
                         card_head=bool(data.get("card_head")))  # fmt: skip
    if args.profile:
        with tempfile.TemporaryDirectory() as out_dir:
            parts = profile(config, args.steps, out_dir, weights)
        total = sum(seconds for _, seconds in parts)
        rollout = config.n_envs * config.n_steps
        print(f"CPU seconds per rollout of {rollout} steps and its update ({args.config}):")
        for name, seconds in parts:
            print(f"  {name:<42} {seconds:6.3f} s {seconds / total:6.1%}")
        print(f"  {'total':<42} {total:6.3f} s = {rollout / total:,.0f} steps per CPU second")
        return 0
    results = []
    with tempfile.TemporaryDirectory() as out_dir:
        for _ in range(args.rounds):
            for name in args.trainers:
                r = measure(config, name, args.steps, out_dir, weights)
                results.append(r)
                print(f"{name:>5}: {r['steps_per_s']:7.0f} steps/s ({r['steps']} steps in "
                      f"{r['seconds']:.1f} s); per rollout of {r['rollout_steps']} steps "
                      f"{r['per_rollout_s']:.3f} s (in the envs, all workers: "
                      f"{r['per_rollout_env_s']:.3f} s), "
                      f"per update {r['per_update_s']:.3f} s; load before {r['load_before']:.2f}",
                      flush=True)  # fmt: skip
    start = args.checkpoint or "an untrained policy"
    print(f"config {args.config}, torch threads {config.torch_threads} in updates, rollout "
          f"workers {config.rollout_workers}, from {start}")  # fmt: skip
    for name in args.trainers:
        speeds = [r["steps_per_s"] for r in results if r["trainer"] == name]
        print(f"{name:>5}: mean {statistics.mean(speeds):.0f} steps/s over {len(speeds)} run(s)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
