"""How long Dummy rummy hands run, contract by contract, and how many the safety net cuts.

For each contract (``--contracts``, default all twelve) one-hand games are played on
``--deals`` fresh deals with every player on that contract (deal ``i`` from
``deal_seed(seed, i)``): ``--member`` in seat ``i % seats`` and the baseline in the others
(``--member baseline``, the default: baselines only). A hand is *cut* when it reaches the
game's ``max_moves`` (5,000) unfinished. Per contract: the hands, the share cut, the share
of all moves that the cut hands took, and the moves of a finished hand (mean, longest)::

    python studies/hand_lengths.py --num-players 4 --deals 60 [--member trained] [--json F]

Once every seat has laid and nothing fits anywhere a hand can cycle through the stock
without end: the cut hands are what a training or evaluation run pays for nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.arena import deal_seed, play_game  # noqa: E402
from commoncause.agents.evaluate import one_against_baselines  # noqa: E402
from commoncause.agents.registry import make_agent, parse_team  # noqa: E402
from commoncause.options import add_game_arguments, game_and_config  # noqa: E402
from envs.dummy_rummy.actions import CONTRACTS  # noqa: E402


class LastState:
    """Keeps a game's state after its last move (``play_game``'s ``watch``)."""

    def __init__(self) -> None:
        self.state = None

    def __call__(self, state, player: int) -> None:
        self.state = state


def hand_lengths(game, config, member, deals: int, seed: int) -> list[tuple[int, bool]]:
    """(moves, cut) of each deal's one hand: ``member`` in seat ``deal % seats``."""
    seats = game.num_seats(config)
    out = []
    for d in range(deals):
        last = LastState()
        play_game(config, one_against_baselines(member, game.name, seats, d),
                  deal_seed(seed, d), game.name, last)  # fmt: skip
        out.append((len(last.state.history), not last.state.is_terminal))
    return out


def summary(hands: list[tuple[int, bool]]) -> dict[str, float]:
    """The figures of one contract's hands (module docstring)."""
    finished = [moves for moves, cut in hands if not cut]
    moves = sum(m for m, _ in hands)
    return {
        "hands": len(hands),
        "cut": sum(cut for _, cut in hands) / len(hands),
        "moves in cut hands": sum(m for m, cut in hands if cut) / moves if moves else 0.0,
        "finished mean": statistics.fmean(finished) if finished else float("nan"),
        "finished longest": max(finished, default=0),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--member", default="baseline", help="who plays one seat (rotated)")
    p.add_argument("--deals", type=int, default=60, help="one-hand games per contract")
    p.add_argument("--contracts", default="1-12", help="e.g. 1-12, 11 or 1,7,12")
    p.add_argument("--seed", type=int, default=202)
    p.add_argument("--json", type=Path)
    add_game_arguments(p, "dummy_rummy")
    p.set_defaults(game="dummy_rummy")
    args = p.parse_args(argv)
    game, config = game_and_config(args)
    if game.name != "dummy_rummy":
        raise SystemExit("hand_lengths.py measures Dummy rummy's contracts: --game dummy_rummy")
    if args.deals < 1:
        raise SystemExit(f"--deals must be 1 or more, got {args.deals}")
    contracts = parse_contracts(args.contracts)
    seats = game.num_seats(config)
    rows = {}
    print(f"{game.title}, {seats} players, {args.member} in one seat: {args.deals} deals a "
          f"contract (seed {args.seed}); a hand is cut at {game.max_moves} moves")  # fmt: skip
    print(f"{'contract':>8}{'hands':>7}{'cut':>8}{'moves in cut':>14}"
          f"{'finished: mean':>16}{'longest':>9}")  # fmt: skip
    everything: list[tuple[int, bool]] = []
    for k in contracts:
        hands_config = replace(config, first_contract=k, hands=1)
        spec = parse_team(args.member, seats, game.name, hands_config)[0]
        hands = hand_lengths(game, hands_config, make_agent(spec, game.name), args.deals,
                             args.seed)  # fmt: skip
        everything += hands
        rows[k] = summary(hands)
        print_row(str(k), rows[k])
    total = summary(everything)
    print_row("all", total)
    if args.json:
        record = {"game": game.name, "num_players": seats, "member": args.member,
                  "deals": args.deals, "seed": args.seed, "max_moves": game.max_moves,
                  "contracts": rows, "all": total}  # fmt: skip
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


def parse_contracts(text: str) -> list[int]:
    """``"1-12"``, ``"11"`` or ``"1,7,12"`` -> contract numbers; SystemExit names a bad one."""
    numbers: list[int] = []
    try:
        for part in text.split(","):
            low, _, high = part.partition("-")
            numbers += range(int(low), int(high or low) + 1)
    except ValueError:
        raise SystemExit(f"--contracts {text!r}: numbers or ranges such as 1-12") from None
    if not numbers or not all(1 <= k <= len(CONTRACTS) for k in numbers):
        raise SystemExit(f"--contracts {text!r}: contracts are 1-{len(CONTRACTS)}")
    return numbers


def print_row(label: str, row: dict[str, float]) -> None:
    print(f"{label:>8}{row['hands']:>7}{row['cut']:>8.1%}{row['moves in cut hands']:>14.1%}"
          f"{row['finished mean']:>16.1f}{row['finished longest']:>9}")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
