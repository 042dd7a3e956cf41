"""Which of a policy's decisions cost it points: the baseline takes over one kind at a time.

A competitive game's policy plays one seat (``deal % seats``) against the game's baselines
on ``--deals`` fresh deals (deal ``i`` from ``deal_seed(seed, i)``). It is played once as it
is, then once per kind of move (the first word of a move's notation: ``draw``, ``discard``,
``meld``...): at each of its decisions where the baseline, in its place, would make a move
of that kind, the baseline's move is played instead; then with the baseline making every
move (the baseline's own margin on these deals, a check: about 0). Each variant reports the
seat's margin (its return minus the other seats' mean), and its change from the policy as it
is on the same deals (a paired 95% interval). A kind whose takeover raises the margin is
where the policy loses to the baseline. Run::

    python studies/decision_swap.py --game open_rummy --num-players 4 --rounds 1 \\
        --policy checkpoints/open_rummy_4p_margin/best.pt --deals 400 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.arena import deal_seed  # noqa: E402
from commoncause.agents.registry import make_agent  # noqa: E402
from commoncause.agents.stats import paired_difference  # noqa: E402
from commoncause.options import add_game_arguments, game_and_config, selected_game  # noqa: E402

EVERY = "every move"
"""The variant where the baseline makes every move."""


def play(game, config, policy, deals: int, seed: int, takeover: str | None) -> tuple:
    """The policy seat's margins on the deals, with the baseline making the moves of kind
    ``takeover`` (``EVERY``: all; None: none), and the kinds of the baseline's moves at the
    policy's decisions."""
    seats = game.num_seats(config)
    margins: list[float] = []
    kinds: set[str] = set()
    for d in range(deals):
        seed_d = deal_seed(seed, d)
        state = game.new_game(config, seed_d)
        views = [game.seat_view(state, s) for s in range(seats)]
        baselines = [make_agent("baseline", game.name) for _ in range(seats)]
        for s, agent in enumerate(baselines):
            agent.reset(seed_d * seats + s)
        policy.reset(seed_d)
        seat = d % seats
        moves = 0
        while not state.is_terminal and moves < game.max_moves:
            p = state.current
            move = baselines[p].act(views[p])
            if p == seat and len(state.legal_actions()) > 1:
                kind = game.move_text(state, move).split()[0]
                kinds.add(kind)
                if takeover not in (kind, EVERY):
                    move = policy.act(views[p])
            state.apply(move)
            moves += 1
        returns = state.returns()
        others = [r for s, r in enumerate(returns) if s != seat]
        margins.append(returns[seat] - statistics.fmean(others))
    return margins, kinds


def summary(margins: list[float], alone: list[float]) -> dict:
    mean = statistics.fmean(margins)
    half = 1.959964 * statistics.stdev(margins) / len(margins) ** 0.5
    change = paired_difference(margins, alone)
    return {"margin": mean, "ci95": [mean - half, mean + half],
            "change": change["value"], "change_ci95": change["ci95"]}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", required=True, help="a checkpoint of the game")
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--seed", type=int, default=9)
    p.add_argument("--json", type=Path)
    add_game_arguments(p, None if argv is None else selected_game(argv))
    args = p.parse_args(argv)
    game, config = game_and_config(args)
    if game.team:
        raise SystemExit(f"{game.title} is a team game: this compares a seat with its rivals")
    if args.deals < 2:
        raise SystemExit("--deals must be at least 2 (an interval needs two deals)")
    policy = make_agent(args.policy, game.name)
    alone, kinds = play(game, config, policy, args.deals, args.seed, None)
    results = {"the policy": summary(alone, alone)}
    for takeover in [*sorted(kinds), EVERY]:
        margins, _ = play(game, config, policy, args.deals, args.seed, takeover)
        results[f"baseline: {takeover}"] = summary(margins, alone)
    print(f"{game.title}, {config.label()}, {args.policy}: {args.deals} deals (seed {args.seed})")
    for name, r in results.items():
        low, high = r["change_ci95"]
        print(f"{name:>22}: margin {r['margin']:+6.2f} [{r['ci95'][0]:+.2f}, {r['ci95'][1]:+.2f}]"
              f", change {r['change']:+6.2f} [{low:+.2f}, {high:+.2f}]")  # fmt: skip
    if args.json:
        record = {"game": game.name, "config": config.to_dict(), "policy": args.policy,
                  "deals": args.deals, "seed": args.seed, "results": results}  # fmt: skip
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
