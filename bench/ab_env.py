"""Env steps per CPU second of two source trees, back to back and interleaved.

Each round runs, in a fresh subprocess per tree (so each imports its own tree's code), the
PettingZoo AEC loop of ``bench/bench_env.py`` (random legal actions from the mask) for
``--seconds`` CPU seconds; the ratio of the medians is printed. Run: ``python bench/ab_env.py
--base /tmp/base3a [--game dummy_rummy --num-players 4] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import json, random, sys, time
import numpy as np
from commoncause.envs.registry import get_game
import importlib
game, options, seconds = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
e = importlib.import_module(get_game(game).env_module).env(**options)
rng = random.Random(0)
steps = 0
start = time.process_time()
while time.process_time() - start < seconds:
    e.reset(seed=rng.randrange(2**31))
    for _agent in e.agent_iter():
        obs, _rew, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = obs["action_mask"].view(np.bool_).nonzero()[0]
        e.step(int(legal[rng.randrange(len(legal))]))
        steps += 1
print(steps / (time.process_time() - start))
"""


def rate(tree: Path, game: str, options: dict, seconds: float) -> float:
    """Env steps per CPU second of the tree at ``tree``."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, game, json.dumps(options), str(seconds)],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the baseline tree")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--game", default="common_cause")
    parser.add_argument("--num-players", type=int)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    options = {} if args.num_players is None else {"num_players": args.num_players}
    base, new = [], []
    for _ in range(args.rounds):
        base.append(rate(args.base, args.game, options, args.seconds))
        new.append(rate(args.new, args.game, options, args.seconds))
        print(f"base {base[-1]:,.0f}  new {new[-1]:,.0f} steps/CPU-s", flush=True)
    ratio = statistics.median(new) / statistics.median(base)
    print(f"{args.game} {options}: median {statistics.median(new):,.0f} vs "
          f"{statistics.median(base):,.0f} steps/CPU-s: {ratio:.2f}x ({args.rounds} rounds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
