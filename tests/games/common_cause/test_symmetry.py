"""Common Cause's suit symmetry (envs/common_cause/symmetry.py): renaming the suits maps a
legal game to a legal game, move by move, and an agent played in a renamed world plays its
own game when the renaming is the identity."""

from __future__ import annotations

import random

import pytest

from commoncause.agents.evaluate import make_agent, play_game
from commoncause.envs.common_cause.rules import GameConfig, GameState
from commoncause.envs.common_cause.symmetry import (
    PERMUTATIONS,
    SuitPermutedAgent,
    action_map,
    inverse,
    parse_permutation,
    permute_card,
    permuted_game,
)

CONFIG = GameConfig.make("normal")


def test_action_maps_are_bijections_and_invert():
    for perm in PERMUTATIONS:
        forward, back = action_map(perm), action_map(inverse(perm))
        assert sorted(forward) == list(range(len(forward)))
        assert all(back[forward[a]] == a for a in range(len(forward)))
    assert action_map(PERMUTATIONS[0]) == tuple(range(len(action_map(PERMUTATIONS[0]))))


@pytest.mark.parametrize("seed", range(40))
def test_renamed_game_has_the_renamed_legal_moves_at_every_step(seed):
    rng = random.Random(seed)
    perm = PERMUTATIONS[seed % len(PERMUTATIONS)]
    moves = action_map(perm)
    real = GameState.new_game(CONFIG, seed)
    renamed = GameState(CONFIG, [permute_card(c, perm) for c in real.deck])
    while real.result is None:
        legal = real.legal_actions()
        assert sorted(moves[a] for a in legal) == renamed.legal_actions()
        assert sorted(permute_card(c, perm) for c in real.hands[0]) == sorted(renamed.hands[0])
        action = rng.choice(legal)
        real.apply(action)
        renamed.apply(moves[action])
    assert renamed.result == real.result and renamed.turns == real.turns
    assert permuted_game(real, perm).history == renamed.history


def test_identity_renaming_plays_the_agent_itself_and_others_differ_in_moves():
    def moves_of(partner):
        seen = []
        base = make_agent("baseline")

        class Watch:
            name = "watch"

            def reset(self, seed):
                partner.reset(seed)

            def act(self, view):
                action = partner.act(view)
                seen.append(action)
                return action

        for seed in range(20):
            play_game(CONFIG, (base, Watch()), seed)
        return seen

    plain = moves_of(make_agent("baseline"))
    assert moves_of(SuitPermutedAgent(make_agent("baseline"), PERMUTATIONS[0])) == plain
    renamed = moves_of(SuitPermutedAgent(make_agent("baseline"), parse_permutation("DCSH")))
    assert renamed != plain  # the baseline's card-id tie-breaks are not suit-free


def test_parse_permutation_refuses_a_word_that_is_not_the_four_suits():
    assert parse_permutation("cdhs") == (0, 1, 2, 3)
    for bad in ("CDH", "CCHS", "CDHX"):
        with pytest.raises(ValueError, match="names each of CDHS once"):
            parse_permutation(bad)
