"""Golden recorded games of the competitive games, replayed move by move through the env.

``tests/golden/<game>_game.json`` records the env arguments, the seed, the dealt deck (108
codes, top first) and, per step, the player, the move in notation and the ``ansi`` render
after it, plus the points at the end. Three baseline players (``baseline.py``, seeded from
the game seed) play one hand of Dummy rummy on contract 2 (a set of 3 and a run of 4), and
one round of Open Rummy. When the render format or the rules change on purpose, regenerate
a game's file (and review the diff)::

    .venv/bin/python -m tests.games.test_competitive_golden --regen dummy_rummy
    .venv/bin/python -m tests.games.test_competitive_golden --regen open_rummy
"""

from __future__ import annotations

import sys

import pytest
from competitive import Golden, replay_golden

GOLDEN = {
    "dummy_rummy": Golden(
        name="dummy_rummy",
        env_kwargs={"num_players": 3, "hands": 1, "first_contract": 2},
        kinds=("in run 1", "in set 1", "layoff", "draw discard", " as "),
        seeds=500,
        score="hand_points",
    ),
    "open_rummy": Golden(
        name="open_rummy",
        env_kwargs={"num_players": 3, "rounds": 1},
        kinds=("meld set", "meld run", " as ", "layoff", "draw discard", "cardswap", "steal"),
        seeds=2000,
        score="round_scores",
    ),
}
REWARDS_AT_THE_END = {"dummy_rummy"}
"""Games whose returns all come with the last move (Open Rummy's placed points come as
they are laid)."""

games = pytest.mark.parametrize("name", list(GOLDEN))


@pytest.mark.parametrize("name", sorted(REWARDS_AT_THE_END))
def test_golden_game_pays_everything_with_the_last_move(name):
    """The replay itself (moves, renders, points, returns) is the conformance suite's
    (tests/games/test_conformance.py)."""
    game = GOLDEN[name].load()
    e, _ = replay_golden(name, game)
    assert [e.rewards[a] for a in e.possible_agents] == game["returns"]


@games
def test_golden_game_is_what_the_baseline_plays(name):
    GOLDEN[name].check_is_what_the_baseline_plays()


@games
def test_golden_game_shows_every_kind_of_move(name):
    golden = GOLDEN[name]
    assert golden.interesting(golden.load())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--regen"] and sys.argv[2:] and set(sys.argv[2:]) <= set(GOLDEN):
        for name in sys.argv[2:]:
            GOLDEN[name].regenerate()
    else:
        raise SystemExit(__doc__)
