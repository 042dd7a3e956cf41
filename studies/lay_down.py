"""Where a Dummy rummy hand is won: when each seat lays its contract and what it keeps.

A member (a policy checkpoint, ``trained``, ``search:...``) plays one seat (``deal % seats``)
against the baseline in the others on ``--deals`` fresh deals (deal ``i`` from
``deal_seed(seed, i)``). For each seat it records the turn (its own turns, counted from 1)
on which it laid its contract and, at the end of that turn (after its discard), the cards
it holds: how many, how many fit a meld on the table (it may lay them off from its next
turn) and how many of those are wild; then whether it went out and how many of its turns
that took after laying. The member's and the baselines' means are printed side by side::

    python studies/lay_down.py --num-players 2 --hands 1 --member trained --deals 600 [--json F]

A hand of contract 1 is laid within a turn or two by every player; the race is then to
shed the rest, and a card that fits the table when laid is a draw saved.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.arena import deal_seed, play_game  # noqa: E402
from commoncause.agents.evaluate import one_against_baselines  # noqa: E402
from commoncause.agents.registry import make_agent, parse_team  # noqa: E402
from commoncause.options import add_game_arguments, game_and_config  # noqa: E402
from envs.dummy_rummy.actions import IS_WILD, TYPE_OF  # noqa: E402

FIELDS = ("laid", "lay turn", "held", "fitting", "wild", "out", "turns to out")
"""The columns: share of hands in which the contract was laid, the mean own turn it was
laid on, then at the end of that turn the cards held, those fitting the table and the wild
ones among them; the share of hands gone out, and the mean own turns from laying to out."""


class LayDownWatch:
    """One game's figures per seat (keyed by FIELDS, plus ``turns``: own turns begun), read
    from the state after each move (``play_game``'s ``watch``)."""

    def __init__(self, seats: int) -> None:
        self.seats = [{"laid": False, "turns": 0} for _ in range(seats)]
        self.drawn = 0  # the state's turns seen so far (a turn begins with its draw)
        self.laying: set[int] = set()  # laid this turn, turn not yet over
        self.state = None

    def __call__(self, state, player: int) -> None:
        self.state = state
        if state.turns != self.drawn:
            self.drawn = state.turns
            self.seats[state.turn_owner]["turns"] += 1
        mine = self.seats[player]
        if state.laid[player] and not mine["laid"]:
            self.laying.add(player)
            mine.update({"laid": True, "lay turn": mine["turns"]})
        for s in [s for s in self.laying if state.is_terminal or state.current != s]:
            self.laying.discard(s)
            fitting = [c for c in state.hands[s] if state.fits_table(TYPE_OF[c])]
            self.seats[s].update({"held": len(state.hands[s]), "fitting": len(fitting),
                                  "wild": sum(IS_WILD[TYPE_OF[c]] for c in fitting)})  # fmt: skip

    def figures(self) -> list[dict]:
        """Every seat's figures once the game is over."""
        points = self.state.hand_points[-1] if self.state.hand_points else []
        for s, seat in enumerate(self.seats):
            seat["out"] = s < len(points) and points[s] == 0
            if seat["out"]:
                seat["turns to out"] = seat["turns"] - seat["lay turn"]
        return self.seats


def seat_hands(game, config, member, deals: int, seed: int) -> list[tuple[bool, dict]]:
    """One record per seat and deal: (whether the member played it, its figures)."""
    seats = game.num_seats(config)
    records: list[tuple[bool, dict]] = []
    for d in range(deals):
        member_seat = d % seats
        agents = one_against_baselines(member, game.name, seats, d)
        watch = LayDownWatch(seats)
        play_game(config, agents, deal_seed(seed, d), game.name, watch)
        records.extend((s == member_seat, r) for s, r in enumerate(watch.figures()))
    return records


def means(rows: list[dict]) -> dict[str, float]:
    """The FIELDS of some seats' records (each mean over the records that have it)."""

    def mean(key: str) -> float:
        values = [float(r[key]) for r in rows if key in r]
        return statistics.fmean(values) if values else float("nan")

    return {"hands": len(rows), **{f: mean(f) for f in FIELDS}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--member", default="trained", help="who plays the member's seat")
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--seed", type=int, default=303)
    p.add_argument("--json", type=Path)
    add_game_arguments(p, "dummy_rummy")
    p.set_defaults(game="dummy_rummy")
    args = p.parse_args(argv)
    game, config = game_and_config(args)
    if game.name != "dummy_rummy":
        raise SystemExit("lay_down.py measures Dummy rummy's contracts: --game dummy_rummy")
    spec = parse_team(args.member, game.num_seats(config), game.name, config)[0]
    member = make_agent(spec, game.name)
    records = seat_hands(game, config, member, args.deals, args.seed)
    table = {
        args.member: means([r for mine, r in records if mine]),
        "baseline": means([r for mine, r in records if not mine]),
    }
    print(f"{game.title}, {config.label()}: {args.deals} deals (seed {args.seed})")
    print(f"{'':>24}" + "".join(f"{f:>13}" for f in ("hands", *FIELDS)))
    for name, row in table.items():
        print(f"{name[-24:]:>24}{row['hands']:>13}"
              + "".join(f"{row[f]:>13.3f}" for f in FIELDS))  # fmt: skip
    if args.json:
        record = {"game": game.name, "config": config.to_dict(), "member": args.member,
                  "deals": args.deals, "seed": args.seed, "means": table}  # fmt: skip
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
