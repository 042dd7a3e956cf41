"""A golden recorded game: one full game replayed move by move through the env.

``tests/golden/common_cause_game.json`` records the env arguments, the seed, the dealt deck
(54 codes, top first) and, per step, the player, the move in notation and the ``ansi``
render after the move, plus the result. The test resets the env with the recorded deck,
checks that each recorded move is legal, applies it (``move_to_action``) and compares the
render with the record; at the end it compares the result.

The game was played by the deterministic policy ``policy`` below (take the top discard
when legal; else complete, lay off, swap, start - the first legal move of that kind; else
draw from the stock; discard a card that completes one's own open start if any, else the
first legal discard). When the render format or the rules change on purpose, regenerate
the file (and review the diff) with::

    .venv/bin/python -m tests.games.common_cause.test_golden --regen
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from competitive import replay_golden

from commoncause.envs.common_cause import env
from commoncause.envs.common_cause.actions import (
    ACTIONS,
    COMPLETE,
    COMPLETIONS,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    START,
    SWAP,
)
from commoncause.envs.common_cause.cards import deck_codes

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "common_cause_game.json"
AGENTS = ["player_0", "player_1"]
ENV_KWARGS = {"level": "normal"}


def policy(e) -> int:
    game = e.unwrapped.game_state
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
    if DRAW_DISCARD in legal:
        return DRAW_DISCARD
    for kind in (COMPLETE, LAYOFF, SWAP, START):
        moves = [a for a in legal if ACTIONS[a].kind == kind]
        if moves:
            return moves[0]
    if DRAW_STOCK in legal:
        return DRAW_STOCK
    discards = [a for a in legal if ACTIONS[a].kind == DISCARD]
    own = {c for sid in game.starts[game.current] for _, c, _, _ in COMPLETIONS[sid]}
    signals = [a for a in discards if ACTIONS[a].card in own]
    return (signals or discards)[0]


def record(seed: int, kwargs: dict) -> dict:
    e = env(render_mode="ansi", **kwargs)
    e.reset(seed=seed)
    deck = deck_codes(e.unwrapped.game_state.deck)
    steps = []
    while not any(e.terminations.values()) and not any(e.truncations.values()):
        player = e.unwrapped.game_state.current
        action = policy(e)
        move = e.action_to_move(action)
        e.step(action)
        steps.append({"player": AGENTS[player], "move": move, "render": e.render()})
    return {
        "env_kwargs": kwargs,
        "seed": seed,
        "deck": deck,
        "initial_render": None,
        "steps": steps,
        "result": e.unwrapped.result,
        "turns": e.unwrapped.game_state.turns,
    }


def interesting(game: dict) -> bool:
    """A won game with several completions, a lay-off, a swap, a taken discard, and a run
    among its melds."""
    verbs = [s["move"].split()[0] for s in game["steps"]]
    moves = [s["move"] for s in game["steps"]]
    runs = [m for m in moves if m.startswith("complete") and _is_run_start(m.split()[1:3])]
    return (
        game["result"] == "win"
        and verbs.count("complete") >= 4
        and "layoff" in verbs
        and "swap" in verbs
        and "draw discard" in moves
        and bool(runs)
    )


def _is_run_start(codes: list[str]) -> bool:
    return codes[0][-1] == codes[1][-1]  # two cards of one suit


def regenerate() -> None:
    for seed in range(2000):
        game = record(seed, ENV_KWARGS)
        if interesting(game):
            break
    else:
        raise SystemExit("no seed gives an interesting game")
    e = env(render_mode="ansi", **ENV_KWARGS)
    e.reset(options={"deck": game["deck"]})
    game["initial_render"] = e.render()
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(game, indent=1) + "\n")
    print(f"seed {seed}: {len(game['steps'])} steps, {game['result']} -> {GOLDEN}")


def test_golden_game_pays_the_team_its_result():
    """The replay itself (moves, renders, result, turns) is the conformance suite's
    (tests/games/test_conformance.py); a team game pays both seats +1 for a win."""
    game = json.loads(GOLDEN.read_text())
    e, _ = replay_golden("common_cause", game)
    reward = 1.0 if game["result"] == "win" else -1.0
    assert all(e.rewards[a] == reward for a in AGENTS)


def test_golden_game_is_what_the_policy_plays():
    """The record is the policy's game from its seed (the env's seeding is stable)."""
    game = json.loads(GOLDEN.read_text())
    again = record(game["seed"], game["env_kwargs"])
    assert again["deck"] == game["deck"]
    assert [s["move"] for s in again["steps"]] == [s["move"] for s in game["steps"]]


def test_golden_game_shows_every_kind_of_move():
    assert interesting(json.loads(GOLDEN.read_text()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--regen"]:
        regenerate()
    else:
        raise SystemExit(__doc__)
