"""Seconds per decision of the search agent (``agents/search.py``), not a timed test.

Plays ``--games`` games from seed ``--seed`` (deal ``i`` from ``deal_seed(seed, i)``, as
``commoncause eval``; Common Cause on Normal unless ``--game`` and the game's options say
otherwise) with each ``--team``, and times every decision of a search seat that has more
than one legal move: wall clock and CPU time of this process (other work on the machine
raises the first, barely the second), per decision and per turn (a turn is a run of the
seat's own moves: a draw and what follows it; a Dummy rummy cut-in splits one). Run:
``python bench/bench_search.py [--games 4] [--team "search:rollouts=16,trained" ...]
[--game dummy_rummy --num-players 2 --hands 1] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.arena import deal_seed, play_game  # noqa: E402
from commoncause.agents.registry import make_agent, parse_team  # noqa: E402
from commoncause.options import add_game_arguments, game_and_config, selected_game  # noqa: E402
from commoncause.progress import progress  # noqa: E402

TEAMS = (
    "search,trained",
    "search,search",
    "search:rollouts=32;rollout=baseline,trained",
    "search:rollouts=16;moves=0,trained",
)
"""The default teams of a team game (Common Cause)."""
COMPETITIVE_SEARCH = "search:blueprint=baseline;rollouts=32;threshold=0.2"
"""A competitive game's default team: this in the first seat, baselines in the others."""


class Timed:
    """An agent whose decisions with more than one legal move are timed."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.turns = 0

    def reset(self, seed: int) -> None:
        self.agent.reset(seed)

    def act(self, view) -> int:
        history = view.history
        self.turns += not history or history[-1][0] != view.player  # a run of own moves begins
        if len(view.legal_actions()) == 1:
            return self.agent.act(view)
        wall, cpu = time.perf_counter(), time.process_time()
        move = self.agent.act(view)
        self.wall.append(time.perf_counter() - wall)
        self.cpu.append(time.process_time() - cpu)
        return move


def measure(team: str, games: int, seed: int, game, config) -> dict:
    members = list(parse_team(team, game.num_seats(config), game.name, config))
    agents = tuple(Timed(make_agent(m, game.name)) for m in members)
    results = []
    with progress(team, games) as done:  # a bar, or lines on stderr when piped
        for i in range(games):
            results.append(play_game(config, agents, deal_seed(seed, i), game.name))
            done(i + 1)
    wins = sum(r.win for r in results)
    searched = [a for a, m in zip(agents, members, strict=True) if m.startswith("search")]
    wall = [t for a in searched for t in a.wall]
    cpu = [t for a in searched for t in a.cpu]
    turns = sum(a.turns for a in searched)
    return {
        "team": members,
        "games": games,
        "wins": wins,
        "decisions": len(wall),
        "mean_wall_s": round(statistics.mean(wall), 4),
        "mean_cpu_s": round(statistics.mean(cpu), 4),
        "p95_wall_s": round(sorted(wall)[int(0.95 * (len(wall) - 1))], 4),
        "turns": turns,
        "wall_s_per_turn": round(sum(wall) / turns, 4),
        "cpu_s_per_turn": round(sum(cpu) / turns, 4),
        "max_wall_s": round(max(wall), 4),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--team", action="append", help="a team (default: several)")
    p.add_argument("--json", type=Path)
    add_game_arguments(p, None if argv is None else selected_game(argv))
    args = p.parse_args(argv)
    game, config = game_and_config(args)
    out = {
        "game": game.name,
        "config": config.to_dict(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_before": round(os.getloadavg()[0], 2),
        "results": [],
    }
    print(f"load average before: {out['load_before']}")
    others = ["baseline"] * (game.num_seats(config) - 1)
    for team in args.team or (TEAMS if game.team else (",".join([COMPETITIVE_SEARCH, *others]),)):
        result = measure(team, args.games, args.seed, game, config)
        out["results"].append(result)
        print(
            f"{team}: {result['decisions']} decisions, {result['mean_wall_s']:.3f} s wall "
            f"({result['mean_cpu_s']:.3f} s CPU) per decision, p95 {result['p95_wall_s']:.3f} s; "
            f"{result['wall_s_per_turn']:.3f} s wall ({result['cpu_s_per_turn']:.3f} s CPU) "
            "per turn"
        )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
