"""Why Open Rummy's clone misreads the baseline's discards: a measurement.

Cloning the baseline (``train/bc.py``) reaches 84-94% agreement on draws, melds and lay-offs
but about 57% on discards. The baseline discards by a per-card key: its ``usefulness`` in
the hand (cards of its rank, cards of its suit within two run places), then the costliest.
This script clones the baseline's decisions at four seats (one round) three ways, the same
epochs on the same decisions, and reports agreement on held-out games by kind of move:

- ``plain``: the training network (``features_dim`` 256, one hidden layer of 128);
- ``plain + card features``: the same, with each held card's key (usefulness / 10, points /
  15; 106 inputs) appended to the observation: can the network *read* the key?
- ``card head``: those inputs, plus a head that scores each card type's discard from its two
  key features and the policy latent (one small MLP shared by the 53 card types, added to
  the discard logits): can it *use* the key per card?

The key features come from the baseline's own ``usefulness``: the question is the network's
shape, not what the features know. Usage::

    .venv/bin/python studies/bc_discard_head.py --games 2000 --epochs 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np
import torch

from commoncause.agents.arena import deal_seed
from commoncause.agents.registry import make_agent
from commoncause.agents.trained import build_policy
from commoncause.envs.open_rummy.actions import CARDSWAP_BASE, DISCARD_BASE, N_ACTIONS, points
from commoncause.envs.open_rummy.baseline import usefulness
from commoncause.envs.open_rummy.observer import OFFSET
from commoncause.envs.registry import get_game
from commoncause.train.bc import Decisions, agreement, baseline_decisions

N_TYPES = 53  # card types: 52 standard, 52 = joker
JOKER = 52


def discard_key(card: int, hand: list[int]) -> tuple[float, int]:
    """The baseline's discard key of a card: its usefulness, then its points."""
    return usefulness(card, hand), points(card) if card != JOKER else 0


def card_features(obs: np.ndarray) -> np.ndarray:
    """Per card type held: usefulness / 10 and points / 15 (zero where not held)."""
    hand = obs[:, OFFSET["hand"] : OFFSET["hand"] + N_TYPES]
    out = np.zeros((len(obs), 2 * N_TYPES), np.float32)
    for row, counts in enumerate(hand):
        held = np.flatnonzero(counts > 0).tolist()
        for t in held:
            use, pts = discard_key(t, held)
            out[row, t], out[row, N_TYPES + t] = use / 10, pts / 15
    return out


class Clone(torch.nn.Module):
    """The training network, optionally with a per-card discard head."""

    def __init__(self, obs_size: int, card_head: bool) -> None:
        super().__init__()
        self.policy = build_policy(256, [128], "tanh", obs_size, N_ACTIONS)
        layers = (torch.nn.Linear(2 + 128, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
        self.card_head = torch.nn.Sequential(*layers) if card_head else None

    def forward(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        latent, _ = self.policy.mlp_extractor(self.policy.extract_features(obs))
        logits = self.policy.action_net(latent)
        if self.card_head is not None:
            keys = torch.stack([obs[:, -2 * N_TYPES : -N_TYPES], obs[:, -N_TYPES:]], dim=2)
            per_card = torch.cat([keys, latent.unsqueeze(1).expand(-1, N_TYPES, -1)], dim=2)
            discards = slice(DISCARD_BASE, DISCARD_BASE + N_TYPES)
            logits = torch.cat(
                [logits[:, : discards.start],
                 logits[:, discards] + self.card_head(per_card).squeeze(2),
                 logits[:, discards.stop :]], dim=1,
            )  # fmt: skip
        return logits.masked_fill(~masks, -1e8)


def held_out_agreement(model: Clone, data: Decisions) -> dict[str, float]:
    """Held-out agreement with the baseline, overall and by kind of move."""
    overall, by_kind = agreement(model, data, lambda m, obs, masks: m(obs, masks))
    return {"all": overall} | by_kind


def clone(train: Decisions, test: Decisions, card_head: bool, epochs: int, seed: int) -> list:
    torch.manual_seed(seed)
    model = Clone(train.obs.shape[1], card_head)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    curve = []
    for _ in range(epochs):
        batches = max(1, len(train.actions) // 512)
        for idx in np.array_split(rng.permutation(len(train.actions)), batches):
            logits = model(torch.as_tensor(train.obs[idx]), torch.as_tensor(train.masks[idx]))
            loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(train.actions[idx]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        curve.append(held_out_agreement(model, test))
    return curve


def policy_discards(path: str, players: int, rounds: int, seed: int) -> dict[str, float]:
    """How a policy's discards differ from the baseline's key, one round at a time."""
    game = get_game("open_rummy")
    config = game.make_config(num_players=players, rounds=1)
    policy, judge = make_agent(path, "open_rummy"), make_agent("baseline", "open_rummy")
    baselines = [make_agent("baseline", "open_rummy") for _ in range(players)]
    counts: Counter = Counter()
    for r in range(rounds):
        state = game.new_game(config, deal_seed(seed, r))
        views = [game.seat_view(state, s) for s in range(players)]
        seat = r % players
        while not state.is_terminal:
            p = state.current
            action = (policy if p == seat else baselines[p]).act(views[p])
            if p == seat and DISCARD_BASE <= action < CARDSWAP_BASE:
                hand = list(views[p].hand)
                mine = action - DISCARD_BASE
                theirs = judge.act(views[p]) - DISCARD_BASE
                (use, pts), (their_use, their_pts) = (
                    discard_key(mine, hand),
                    discard_key(theirs, hand),
                )
                counts["discards"] += 1
                counts["points given"] += pts
                counts["points the baseline gives"] += their_pts
                if mine == theirs:
                    counts["same card"] += 1
                elif (use, pts) == (their_use, their_pts):
                    counts["same key"] += 1
                elif use > their_use:
                    counts["more useful"] += 1
                elif use == their_use and pts < their_pts:
                    counts["as useful, cheaper"] += 1
                else:
                    counts["other"] += 1
            state.apply(action)
    n = counts.pop("discards")
    return {"discards": n} | {k: v / n for k, v in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="baseline games to clone")
    parser.add_argument("--test-games", type=int, default=200, help="held-out baseline games")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the agreement curves here")
    parser.add_argument("--policy", help="measure this checkpoint's discards instead")
    parser.add_argument("--players", type=int, default=4, help="with --policy")
    parser.add_argument("--rounds", type=int, default=300, help="with --policy")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.policy:
        shares = policy_discards(args.policy, args.players, args.rounds, args.seed)
        shown = [f"{k} {v:g}" if k == "discards" else f"{k} {v:.2f}" if "points" in k
                 else f"{k} {v:.1%}" for k, v in shares.items()]  # fmt: skip
        print(", ".join(shown))
        return
    game = get_game("open_rummy")
    config = game.make_config(num_players=4, rounds=1)
    train = baseline_decisions(game, config, args.games, 2 * args.seed + 1)
    test = baseline_decisions(game, config, args.test_games, 2 * args.seed + 2)
    print(f"{len(train.actions):,} decisions to clone, {len(test.actions):,} held out")
    plain = clone(train, test, False, args.epochs, args.seed)
    for data in (train, test):
        data.obs = np.concatenate([data.obs, card_features(data.obs)], axis=1)
    results = {"plain": plain}
    for name, head in (("plain + card features", False), ("card head", True)):
        start = time.perf_counter()
        results[name] = clone(train, test, head, args.epochs, args.seed)
        print(f"  ({name}: {time.perf_counter() - start:.0f} s)")
    for name, curve in results.items():
        last = curve[-1]
        kinds = ", ".join(f"{k} {v:.1%}" for k, v in last.items() if k != "all")
        print(f"{name:>22}: {last['all']:.1%} after {args.epochs} epochs ({kinds})")
    if args.json:
        with open(args.json, "w") as out:
            record = {"games": args.games, "epochs": args.epochs, "curves": results}
            json.dump(record, out, indent=1)


if __name__ == "__main__":
    main()
