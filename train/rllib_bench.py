"""Training speed of the RLlib trainer: env steps per second end to end, and where the time
of an iteration goes (RLlib's own timers: sampling on the env runners, the learner's update,
the weight sync), for a config's settings with chosen env runners and envs per runner.

Runs the real trainer (``train/rllib.py``: Ray, the algorithm, a fresh policy) without
evaluations or checkpoints; the first ``--warmup`` iterations (actors starting, first
episodes) are not timed. Compare with the own PPO on the same config in the same session:
``python bench/bench_train.py --config configs/rllib_normal.yaml --trainers torch``. Run:
``python -m commoncause.train.rllib_bench [--config configs/rllib_normal.yaml]
[--runners 1 2] [--envs 8] [--iterations 8] [--warmup 2]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace

from .config import load_config
from .rllib import RaySession, RLlibModel
from .rllib_config import RLlibConfig


def measure(config, runners: int, envs: int, iterations: int, warmup: int, out_dir: str) -> dict:
    """Steps/s and mean timers (seconds per iteration) with ``runners`` x ``envs`` games."""
    cfg = replace(config, rllib=config.rllib | {"num_env_runners": runners,
                                               "num_envs_per_env_runner": envs})  # fmt: skip
    session = RaySession(RLlibConfig.from_dict(cfg.rllib))
    try:
        model = RLlibModel(cfg, session, out_dir)
        model.start()
        for _ in range(warmup):
            model.iterate()
        load = os.getloadavg()[0]
        steps0, started = model.num_timesteps, time.perf_counter()
        timers: dict[str, list[float]] = {}
        for _ in range(iterations):
            result = model.iterate()
            for key, value in result.get("timers", {}).items():
                if isinstance(value, int | float):
                    timers.setdefault(key, []).append(float(value))
        seconds = time.perf_counter() - started
    finally:
        session.close()
    steps = model.num_timesteps - steps0
    return {"runners": runners, "envs": envs, "steps": steps, "seconds": seconds,
            "steps_per_s": steps / seconds, "load_before": load,
            "timers": {k: statistics.mean(v) for k, v in timers.items()}}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/rllib_normal.yaml")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--envs", type=int, default=8, help="envs per env runner")
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args(argv)
    config = load_config(args.config)
    print(f"config {args.config}: {config.n_envs * config.n_steps} env steps per iteration, "
          f"minibatch {config.batch_size}, {config.n_epochs} epochs")  # fmt: skip
    with tempfile.TemporaryDirectory() as out_dir:
        for runners in args.runners:
            r = measure(config, runners, args.envs, args.iterations, args.warmup, out_dir)
            timers = ", ".join(f"{k} {v:.2f} s" for k, v in sorted(r["timers"].items()))
            print(f"{runners} runner(s) x {args.envs} envs: {r['steps_per_s']:.0f} steps/s "
                  f"({r['steps']} steps in {r['seconds']:.1f} s; load before "
                  f"{r['load_before']:.2f}); per iteration: {timers}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
