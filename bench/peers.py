"""Speed of peer card-game environments under random legal play.

Each peer plays random legal moves for a fixed number of seconds and reports
``{"name", "steps", "games", "seconds", "steps_per_s", "games_per_s"}``. A peer
whose package is missing is reported as ``{"name": ..., "skipped": reason}``.

Peers (install them with ``make peers``):

- ``open_spiel/gin_rummy`` and ``open_spiel/hanabi``: OpenSpiel's C++ games via
  pyspiel, no observations built (only legal actions), chance steps not counted.
- ``rlcard/gin-rummy``: RLCard's Python gin rummy; builds observations every step.
- ``pettingzoo/hanabi_v5``: PettingZoo's Hanabi AEC env (needs
  ``hanabi_learning_environment``), standard AEC loop with the action mask.

Run: ``python bench/peers.py [--seconds 10] [--cpu-time] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import numpy as np

DEFAULT_SECONDS = 10.0
_clock = time.perf_counter


def use_cpu_time(cpu: bool) -> None:
    """Time every benchmark by this process's CPU time (``time.process_time``) instead of
    the wall clock: on a machine shared with other work, the wall clock counts the time
    the process waited for a core; the CPU time counts only the time it ran (the peers run
    in this process too: OpenSpiel's C++ included)."""
    global _clock
    _clock = time.process_time if cpu else time.perf_counter


def now() -> float:
    """The benchmarks' clock, in seconds (``use_cpu_time``)."""
    return _clock()


def result(name: str, steps: int, games: int, seconds: float) -> dict:
    return {
        "name": name,
        "steps": steps,
        "games": games,
        "seconds": round(seconds, 3),
        "steps_per_s": steps / seconds if seconds > 0 else 0.0,
        "games_per_s": games / seconds if seconds > 0 else 0.0,
    }


def _bench_pyspiel(name: str, load: Callable, seconds: float, seed: int) -> dict:
    try:
        import pyspiel  # noqa: F401
    except Exception as exc:  # ImportError or a broken native library
        return {"name": name, "skipped": f"pyspiel import failed: {exc}"}
    game = load()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = now()
    deadline = start + seconds
    while now() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                actions = [a for a, _ in outcomes]
                probs = np.array([p for _, p in outcomes], dtype=np.float64)
                probs /= probs.sum()
                state.apply_action(int(actions[rng.choice(len(actions), p=probs)]))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                steps += 1
        games += 1
    return result(name, steps, games, now() - start)


def bench_openspiel_gin_rummy(seconds: float, seed: int = 0) -> dict:
    def load():
        import pyspiel

        return pyspiel.load_game("gin_rummy")

    return _bench_pyspiel("open_spiel/gin_rummy", load, seconds, seed)


def bench_openspiel_hanabi(seconds: float, seed: int = 0) -> dict:
    def load():
        import pyspiel

        return pyspiel.load_game("hanabi", {"players": 2})

    return _bench_pyspiel("open_spiel/hanabi", load, seconds, seed)


def bench_rlcard_gin_rummy(seconds: float, seed: int = 0) -> dict:
    name = "rlcard/gin-rummy"
    try:
        import rlcard
    except Exception as exc:
        return {"name": name, "skipped": f"rlcard import failed: {exc}"}
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = now()
    deadline = start + seconds
    while now() < deadline:
        state, _player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _player = env.step(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    return result(name, steps, games, now() - start)


def bench_pettingzoo_hanabi(seconds: float, seed: int = 0) -> dict:
    name = "pettingzoo/hanabi_v5"
    try:
        from pettingzoo.classic import hanabi_v5

        env = hanabi_v5.env(players=2)
    except Exception as exc:  # pettingzoo or hanabi_learning_environment missing
        return {"name": name, "skipped": f"import failed: {exc}"}
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = now()
    deadline = start + seconds
    while now() < deadline:
        env.reset(seed=int(rng.integers(2**31)))
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                legal = obs["action_mask"].astype(np.bool_).nonzero()[0]  # as for ours
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
        games += 1
    env.close()
    return result(name, steps, games, now() - start)


PEERS: list[Callable[[float], dict]] = [
    bench_openspiel_gin_rummy,
    bench_openspiel_hanabi,
    bench_rlcard_gin_rummy,
    bench_pettingzoo_hanabi,
]


def run_peers(seconds: float = DEFAULT_SECONDS) -> list[dict]:
    """Benchmark every peer for ``seconds`` each; skipped peers say why."""
    return [bench(seconds) for bench in PEERS]


def format_table(results: list[dict]) -> str:
    """Results as a table; summaries of several runs (``bench_env.py``) add the median."""
    lines = [
        f"{'peer':<24} {'steps/s':>12} {'median':>12} {'games/s':>10} {'steps':>10} {'games':>8}"
    ]
    for r in results:
        if "skipped" in r:
            lines.append(f"{r['name']:<24} skipped: {r['skipped']}")
        else:
            median = r.get("steps_per_s_median", r["steps_per_s"])
            lines.append(
                f"{r['name']:<24} {r['steps_per_s']:>12,.0f} {median:>12,.0f}"
                f" {r['games_per_s']:>10,.1f} {r['steps']:>10,} {r['games']:>8,}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--cpu-time", action="store_true", help="time by CPU time (use_cpu_time)")
    args = parser.parse_args(argv)
    use_cpu_time(args.cpu_time)
    results = run_peers(args.seconds)
    print(json.dumps(results, indent=2) if args.json else format_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
