"""How much the search's candidate moves differ: the room a SPARTA search has to leave its
blueprint.

A search member (``search:...``, agents/search.py) plays one seat (``deal % seats``) against
the game's baseline in the others on ``--deals`` fresh deals (deal ``i`` from
``deal_seed(seed, i)``), but always plays its blueprint's move. At each of its decisions
with several legal moves it also runs the search's rollouts (``rollout_rates``: the moves
it would search, each played out on the same sampled deals) and records the gap: the best
candidate's rollout win rate minus the blueprint move's. A search deviates only where the
gap passes its ``threshold``, so the shares of decisions past 0.05, 0.1 and 0.2 say how
often it could act at all; a gap is an estimate from ``rollouts`` deals, so part of it is
noise (its maximum over several moves is biased up)::

    python studies/search_gaps.py --game dummy_rummy --num-players 4 --hands 1 --deals 20 \\
        --member "search:blueprint=trained;rollouts=32;moves=4" [--json F]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.arena import deal_seed, play_game  # noqa: E402
from commoncause.agents.evaluate import one_against_baselines  # noqa: E402
from commoncause.agents.registry import parse_team, search_members  # noqa: E402
from commoncause.agents.search import (  # noqa: E402
    SearchAgent,
    SearchOptions,
    rollout_rates,
    search_moves,
)
from commoncause.options import add_game_arguments, game_and_config  # noqa: E402

THRESHOLDS = (0.05, 0.1, 0.2)
"""Gaps counted: the search's threshold for Common Cause (0.05) and the competitive games'."""


class GapWatch(SearchAgent):
    """The blueprint, recording at each decision the gap the search would see."""

    def __init__(self, options: SearchOptions, game: str) -> None:
        super().__init__(options, game, *search_members(options, game))
        self.gaps: list[tuple[float, float, int]] = []
        """(best rate minus the blueprint's, the blueprint move's rate, moves searched)."""

    def act(self, view) -> int:
        legal = view.legal_actions()
        move = self.blueprint.act(view)
        if len(legal) > 1:
            moves = search_moves(self.blueprint, view, legal, self.options.moves)
            deals = self.deals(view)
            seat = view.player
            rates = rollout_rates(moves, deals, self.rollouts, self.options, self.stats, seat)
            if rates is not None:
                mine = float(rates[moves.index(move)])
                self.gaps.append((float(rates.max()) - mine, mine, len(moves)))
        return move


def summary(gaps: list[tuple[float, float, int]]) -> dict:
    """Quantiles of the gaps, the shares past each threshold and the mean rates."""
    if not gaps:
        raise SystemExit("no decision with several legal moves was searched: play more deals")
    table = np.asarray(gaps, dtype=float)
    gap = table[:, 0]
    quantiles = np.quantile(gap, [0.5, 0.9, 0.95, 0.99, 1.0]).round(4).tolist()
    return {
        "decisions": len(table),
        "gap_quantiles": dict(zip(("50%", "90%", "95%", "99%", "max"), quantiles, strict=True)),
        "share_past": {str(t): float((gap > t).mean()) for t in THRESHOLDS},
        "blueprint_rate": float(table[:, 1].mean()),
        "moves_searched": float(table[:, 2].mean()),
    }


def play_deals(game, config, watch: GapWatch, deals: int, seed: int) -> list:
    """The games of ``deals`` fresh deals, ``watch`` against the baselines
    (``one_against_baselines``; ``play_game``'s outcomes)."""
    seats = game.num_seats(config)
    return [play_game(config, one_against_baselines(watch, game.name, seats, d),
                      deal_seed(seed, d), game.name) for d in range(deals)]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--member", default="search:blueprint=trained;rollouts=32;moves=4",
                   help="the search member whose gaps are measured (search:...)")  # fmt: skip
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--seed", type=int, default=404)
    p.add_argument("--json", type=Path)
    add_game_arguments(p, "dummy_rummy")
    p.set_defaults(game="dummy_rummy")
    args = p.parse_args(argv)
    game, config = game_and_config(args)
    if game.team:
        raise SystemExit(f"{game.title} is a team game: this bench seats one searching player "
                         "against the baseline (docs/search.md measures Common Cause)")  # fmt: skip
    seats = game.num_seats(config)
    try:  # ``trained`` becomes the config's shipped policy
        name, _, text = parse_team(args.member, seats, game.name, config)[0].partition(":")
        if name != "search":
            raise ValueError(f"it must be a search member (search:...), got {args.member!r}")
        watch = GapWatch(SearchOptions.parse(text), game.name)
    except ValueError as e:
        raise SystemExit(f"--member: {e}") from None
    play_deals(game, config, watch, args.deals, args.seed)
    figures = summary(watch.gaps)
    print(f"{game.title}, {config.label()}: {args.deals} deals (seed {args.seed}), {watch.name}")
    print(f"decisions searched: {figures['decisions']}; gap quantiles {figures['gap_quantiles']}")
    print("share of decisions past a threshold: "
          + ", ".join(f"{t}: {v:.1%}" for t, v in figures["share_past"].items())
          + f"; the blueprint move's rollout win rate {figures['blueprint_rate']:.3f}, "
          f"{figures['moves_searched']:.2f} moves searched")  # fmt: skip
    if args.json:
        record = {"game": game.name, "config": config.to_dict(), "member": watch.name,
                  "deals": args.deals, "seed": args.seed, **figures}  # fmt: skip
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
