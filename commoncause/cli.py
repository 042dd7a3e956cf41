"""The ``commoncause`` command line.

Each subcommand is registered in ``SUBCOMMANDS`` as a pair of functions:
``add_arguments(parser)`` declares its options and ``run(args) -> int`` does the
work and returns the exit code. Add later subcommands (eval, calibrate, train,
play, replay, analyze, bench) the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

PROG = "commoncause"


@dataclass(frozen=True)
class Subcommand:
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------- demo


def _demo_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="game and agent seed (default 0)")
    p.add_argument("--level", default="normal", help="difficulty level (default normal)")


def run_demo(args: argparse.Namespace) -> int:
    """Play and render one full game between two random legal agents."""
    import numpy as np

    from envs.common_cause import env as make_env

    rng = np.random.default_rng(args.seed)
    e = make_env(level=args.level, render_mode="ansi")
    e.reset(seed=args.seed)
    print(e.render())

    current = e.agent_selection
    team_reward: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, _info = e.last()
        team_reward[agent] = team_reward.get(agent, 0.0) + float(rew)
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        print(f"{agent}: {e.unwrapped.action_to_move(action)}")
        e.step(action)
        nxt = e.agent_selection
        game_over = e.terminations.get(nxt, True) or e.truncations.get(nxt, True)
        if nxt != current and not game_over:
            current = nxt
            print(e.render())

    print(e.render())
    result = e.unwrapped.result
    print(f"result: {result if result is not None else 'none'}")
    print(f"team reward (player_0): {team_reward.get('player_0', 0.0):g}")
    e.close()
    return 0


# ----------------------------------------------------------------- registry

SUBCOMMANDS: dict[str, Subcommand] = {
    "demo": Subcommand(
        help="play and render one game between two random legal agents",
        add_arguments=_demo_arguments,
        run=run_demo,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Common Cause tools")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, cmd in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        cmd.add_arguments(p)
        p.set_defaults(_run=cmd.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return int(exc.code or 0)
    try:
        return args._run(args)
    except ValueError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
