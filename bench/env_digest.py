"""A digest of everything the PettingZoo env shows under random legal play, to compare two
source trees (a speed-up must not change one byte): every step's observation, action mask,
rewards, terminations and truncations of ``--games`` seeded games. Run in each tree:
``PYTHONPATH=<tree> python bench/env_digest.py [--game NAME] [--num-players N] [--option k=v]``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import random

import numpy as np

from commoncause.envs.registry import get_game


def digest(game: str, options: dict, games: int, seed: int = 0) -> tuple[str, int]:
    """(sha256 of the games' observations, masks and rewards, the steps played)."""
    e = importlib.import_module(get_game(game).env_module).env(**options)
    rng = random.Random(seed)
    h = hashlib.sha256()
    steps = 0
    for _ in range(games):
        e.reset(seed=rng.randrange(2**31))
        for agent in e.agent_iter():
            obs, rew, term, trunc, _info = e.last()
            h.update(obs["observation"].tobytes())
            h.update(obs["action_mask"].tobytes())
            h.update(repr((agent, rew, term, trunc, sorted(e.rewards.items()))).encode())
            if term or trunc:
                e.step(None)
                continue
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            e.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return h.hexdigest(), steps


def selfplay_digest(game: str, options: dict, games: int, seed: int = 0) -> tuple[str, int]:
    """The same for the training view (``train/selfplay.py``) with the game's baseline in a
    seat of every other game: each step's observation, mask, hidden cards, reward, flags
    and info, under seeded random legal actions."""
    from commoncause.train.selfplay import SelfPlayEnv

    e = SelfPlayEnv(0.5, game, **options)
    rng = random.Random(seed)
    h = hashlib.sha256()
    steps = 0
    for _ in range(games):
        obs, info = e.reset(seed=rng.randrange(2**31))
        done = False
        while not done:
            mask = e.action_masks()
            h.update(obs.tobytes())
            h.update(mask.tobytes())
            h.update(e.hidden_cards().tobytes())
            h.update(repr(sorted(info.items())).encode())
            legal = mask.nonzero()[0]
            obs, reward, term, trunc, info = e.step(int(legal[rng.randrange(len(legal))]))
            h.update(repr((reward, term, trunc)).encode())
            done = term or trunc
            steps += 1
        h.update(repr(sorted(info.items())).encode())
    return h.hexdigest(), steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="common_cause")
    parser.add_argument("--num-players", type=int)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    options = {k: json.loads(v) for k, _, v in (o.partition("=") for o in args.option)}
    if args.num_players is not None:
        options["num_players"] = args.num_players
    sha, steps = digest(args.game, options, args.games)
    print(f"{args.game} {options}: {steps} steps {sha}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
