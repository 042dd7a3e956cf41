"""A golden recorded game of Dummy rummy, replayed move by move through the env.

``tests/golden/dummy_rummy_game.json`` records the env arguments, the seed, the dealt deck
(108 codes, top first) and, per step, the player, the move in notation and the ``ansi``
render after it, plus the hand's points. Three baseline players (``baseline.py``, seeded
from the game seed) play one hand on contract 2 (a set of 3 and a run of 4). When the
render format or the rules change on purpose, regenerate the file (and review the diff)::

    .venv/bin/python tests/test_dummy_golden.py --regen
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from commoncause.envs.dummy_rummy import env
from commoncause.envs.dummy_rummy.actions import DECK
from commoncause.envs.dummy_rummy.baseline import BaselineAgent

GOLDEN = Path(__file__).parent / "golden" / "dummy_rummy_game.json"
ENV_KWARGS = {"num_players": 3, "hands": 1, "first_contract": 2}


def record(seed: int) -> dict:
    e = env(render_mode="ansi", **ENV_KWARGS)
    e.reset(seed=seed)
    game = e.unwrapped.game
    agents = [BaselineAgent() for _ in range(3)]
    for i, agent in enumerate(agents):
        agent.reset(seed * 3 + i)
    views = [e.unwrapped.GAME.seat_view(game, i) for i in range(3)]
    deck = DECK.codes(game.deck)
    steps = []
    for agent in e.agent_iter():
        _, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = int(agent.split("_")[1])
        action = agents[seat].act(views[seat])
        move = e.unwrapped.action_to_move(action)
        e.step(action)
        steps.append({"player": agent, "move": move, "render": e.render()})
    return {
        "env_kwargs": ENV_KWARGS,
        "seed": seed,
        "deck": deck,
        "steps": steps,
        "hand_points": game.hand_points,
        "returns": list(game.returns()),
    }


def interesting(game: dict) -> bool:
    moves = " | ".join(s["move"] for s in game["steps"])
    return all(
        word in moves
        for word in ("in run 1", "in set 1", "layoff", "draw discard", " as ")
    )


def regenerate() -> None:
    for seed in range(500):
        game = record(seed)
        if interesting(game):
            break
    else:
        raise SystemExit("no seed gives an interesting game")
    e = env(render_mode="ansi", **ENV_KWARGS)
    e.reset(options={"deck": game["deck"]})
    game["initial_render"] = e.render()
    GOLDEN.write_text(json.dumps(game, indent=1) + "\n")
    print(f"seed {seed}: {len(game['steps'])} steps -> {GOLDEN}")


def test_golden_game_replays():
    game = json.loads(GOLDEN.read_text())
    e = env(render_mode="ansi", **game["env_kwargs"])
    e.reset(options={"deck": game["deck"]})
    assert e.render() == game["initial_render"]
    for i, step in enumerate(game["steps"]):
        assert not any(e.terminations.values()), f"step {i}: the game ended early"
        assert e.agent_selection == step["player"], f"step {i}"
        assert step["move"] in e.legal_moves(), f"step {i}: {step['move']!r} is not legal"
        action = e.move_to_action(step["move"])
        assert e.observe(step["player"])["action_mask"][action] == 1
        e.step(action)
        assert e.render() == step["render"], f"step {i} ({step['move']}): render differs"
    assert all(e.terminations.values())
    assert e.unwrapped.game.hand_points == game["hand_points"]
    assert [e.rewards[a] for a in e.possible_agents] == game["returns"]


def test_golden_game_is_what_the_baseline_plays():
    game = json.loads(GOLDEN.read_text())
    again = record(game["seed"])
    assert again["deck"] == game["deck"]
    assert [s["move"] for s in again["steps"]] == [s["move"] for s in game["steps"]]


def test_golden_game_shows_every_kind_of_move():
    assert interesting(json.loads(GOLDEN.read_text()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--regen"]:
        regenerate()
    else:
        raise SystemExit(__doc__)
