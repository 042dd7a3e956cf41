"""Speed and memory of a registered game under random legal play, beside peer environments.

Measures, in one run on one machine, for ``--game NAME`` (default ``common_cause``):

- ``NAME/env``: the PettingZoo AEC loop through the game's ``env()`` (the wrapped env users
  get): ``last()`` builds the observation and the action mask every step, a random legal
  action is drawn from the mask.
- ``NAME/raw_env``: the same loop on ``raw_env()`` (no PettingZoo wrappers).
- ``NAME/engine``: the rules engine alone (``legal_actions`` + ``apply``, no observation),
  for reference; a game is cut at the game's ``max_moves`` as the env truncates it.
- the peers of ``bench/peers.py`` where installed (``make peers``).

The runs go round-robin (each repeat measures every environment once, ours and the peers)
so that a busy machine slows them alike; the ratios to the peers use medians.

Env keywords: ``--num-players N`` and ``--option key=value`` (repeatable, values read as
JSON where they parse, e.g. ``--option cut_ins=true --option hands=1``). Each measurement
runs ``--repeats`` times for ``--seconds`` (wall-clock seconds, or CPU seconds of this
process with ``--cpu-time``, for a machine shared with other work); mean and median are
reported. ``--memory-steps N`` then plays N random env steps of the same env and samples
the resident memory every N/10 steps (it must stay flat). Run: ``python
bench/bench_env.py [--game dummy_rummy --num-players 4] [--cpu-time] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from peers import format_table, now, result, run_peers, use_cpu_time  # noqa: E402

from commoncause.envs.registry import DEFAULT_GAME, game_names, get_game  # noqa: E402


def random_game(e, rng: random.Random):
    """Play one game through the AEC API, a random legal action from the mask each step;
    yields once per step that chose an action."""
    e.reset(seed=rng.randrange(2**31))
    for _agent in e.agent_iter():
        obs, _rew, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        # the int8 mask read as booleans: numpy's nonzero is ~8x faster on bool
        legal = obs["action_mask"].view(np.bool_).nonzero()[0]
        e.step(int(legal[rng.randrange(len(legal))]))
        yield


def timed(name: str, seconds: float, play_game) -> dict:
    """Play games (``play_game()`` returns its step count) until ``seconds`` have passed."""
    steps = games = 0
    start = now()
    deadline = start + seconds
    while now() < deadline:
        steps += play_game()
        games += 1
    return result(name, steps, games, now() - start)


def bench_aec(make, name: str, seconds: float, seed: int = 0) -> dict:
    """The standard AEC loop with random legal actions drawn from the mask."""
    e = make()
    rng = random.Random(seed)
    return timed(name, seconds, lambda: sum(1 for _ in random_game(e, rng)))


def bench_engine(seconds: float, seed: int = 0) -> dict:
    """Common Cause's engine alone: random legal moves, no observation."""
    from commoncause.envs.common_cause import GameConfig, GameState

    config = GameConfig()
    rng = random.Random(seed)

    def play_game() -> int:
        state = GameState.new_game(config, rng.randrange(2**31))
        steps = 0
        while not state.is_terminal:
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return timed("common_cause/engine", seconds, play_game)


def bench_game_engine(game_name: str, options: dict, seconds: float, seed: int = 0) -> dict:
    """Any registered game's engine alone (its ``Game`` record): a random deal, random legal
    moves, no observation; a game stops at the game's ``max_moves`` (the env's truncation)."""
    game = get_game(game_name)
    config = game.make_config(**options)
    size = game.deck(config).size
    limit = game.max_moves
    rng = random.Random(seed)

    def play_game() -> int:
        deck = list(range(size))
        rng.shuffle(deck)
        state = game.new_state(config, deck)
        steps = 0
        while not state.is_terminal and steps < limit:
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return timed(f"{game_name}/engine", seconds, play_game)


def env_makers(game_name: str, options: dict):
    """(env, raw_env) constructors of a registered game with ``options``."""
    import importlib

    module = importlib.import_module(get_game(game_name).env_module)
    return (lambda: module.env(**options)), (lambda: module.raw_env(**options))


def _memory_mib() -> tuple[float, float]:
    """(resident memory now, its peak so far) in MiB (2**20 bytes), both read from
    ``/proc/self/status`` (VmRSS, VmHWM; kernel kB are KiB), so they share one source and
    one unit: the peak can never be below a sample taken before it."""
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def memory_profile(total_steps: int, seed: int = 0, make=None) -> dict:
    """Resident memory in MiB, sampled every total_steps/10 random env steps, and its peak."""
    e = (make or env_makers(DEFAULT_GAME, {})[0])()
    rng = random.Random(seed)
    samples = [round(_memory_mib()[0], 1)]
    every = max(1, total_steps // 10)
    steps = 0
    while steps < total_steps:
        for _ in random_game(e, rng):
            steps += 1
            if steps % every == 0:
                samples.append(round(_memory_mib()[0], 1))
    peak = max(_memory_mib()[1], *samples)
    return {"steps": steps, "rss_mib_samples": samples, "peak_rss_mib": round(peak, 1)}


def _summary(runs: list[dict]) -> dict:
    steps = [r["steps_per_s"] for r in runs]
    games = [r["games_per_s"] for r in runs]
    return {
        "name": runs[0]["name"],
        "steps_per_s": statistics.mean(steps),
        "steps_per_s_median": statistics.median(steps),
        "games_per_s": statistics.mean(games),
        "games_per_s_median": statistics.median(games),
        "steps": sum(r["steps"] for r in runs),
        "games": sum(r["games"] for r in runs),
        "runs": len(runs),
    }


def _options(pairs: list[str]) -> dict:
    """``key=value`` env keywords; values parse as JSON where they can (``true``, ``1``)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--option takes key=value, got {pair!r}")
        try:
            options[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            options[key.replace("-", "_")] = value
    return options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, choices=game_names())
    parser.add_argument("--num-players", type=int, help="the env's num_players keyword")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="an env keyword"
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per environment")
    parser.add_argument("--memory-steps", type=int, default=1_000_000)
    parser.add_argument("--no-peers", action="store_true", help="skip the peer environments")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="steps per CPU second of this process (for a shared machine), not per wall second",
    )
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    use_cpu_time(args.cpu_time)
    options = _options(args.option)
    if args.num_players is not None:
        options["num_players"] = args.num_players
    name = args.game
    make_env, make_raw = env_makers(name, options)
    if name == "common_cause" and not options:
        engine = lambda s, i: bench_engine(s, seed=i)  # noqa: E731
    else:
        engine = lambda s, i: bench_game_engine(name, options, s, seed=i)  # noqa: E731

    ours = [
        lambda s, i: bench_aec(make_env, f"{name}/env", s, seed=i),
        lambda s, i: bench_aec(make_raw, f"{name}/raw_env", s, seed=i),
        engine,
    ]
    rounds = []  # per repeat: ours, then the peers
    for i in range(args.repeats):
        runs = [bench(args.seconds, i) for bench in ours]
        rounds.append(runs + ([] if args.no_peers else run_peers(args.seconds)))
    results = []
    for runs in zip(*rounds, strict=True):
        skipped = [r for r in runs if "skipped" in r]
        results.append(skipped[0] if skipped else _summary(list(runs)))
    print(format_table(results))
    ours_env = results[0]["steps_per_s_median"]
    ratios = {
        r["name"]: round(ours_env / r["steps_per_s_median"], 2)
        for r in results[3:]
        if "skipped" not in r
    }
    for peer, ratio in ratios.items():
        print(f"{results[0]['name']} median steps/s vs {peer}: {ratio}x")
    report = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "game": name,
        "options": options,
        "seconds_per_run": args.seconds,
        "clock": "cpu" if args.cpu_time else "wall",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "results": results,
        "ratios_env_vs_peer": ratios,
    }
    if args.memory_steps:
        report["memory"] = memory_profile(args.memory_steps, make=make_env)
        mem = report["memory"]
        print(
            f"memory over {mem['steps']:,} env steps: RSS MiB {mem['rss_mib_samples']} "
            f"(peak {mem['peak_rss_mib']} MiB)"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
