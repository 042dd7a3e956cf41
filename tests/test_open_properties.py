"""Open Rummy under random play (hypothesis): every card conserved, the env's mask equals
the legal moves, every meld on the table valid against the core's independent validator, no
dead end while laying a meld, notation round trips, observations blind to hidden cards; and
PettingZoo's api, seed and render tests for 2, 4 and 8 players."""

from __future__ import annotations

import numpy as np
import pytest
from competitive import (
    EAGERNESS,
    SEEDS,
    check_mask_equals_legal_moves,
    check_meld_reading,
    check_observation_ignores_hidden_cards,
    check_random_play,
    random_play,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from commoncause.envs.core.cards import JOKER
from commoncause.envs.open_rummy import env
from commoncause.envs.open_rummy.actions import LAYOFF_BASE, SET_STEP_BASE, TYPE_OF
from commoncause.envs.open_rummy.observer import encode
from commoncause.envs.open_rummy.rules import MELD_RULES, GameState, OpenConfig

SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_MOVES = 500


@st.composite
def configs(draw) -> OpenConfig:
    return OpenConfig(
        num_players=draw(st.integers(2, 8)),
        rounds=draw(st.integers(1, 2)),
        jokers=draw(st.integers(0, 4)),
        card_swap=draw(st.booleans()),
    )


def play(config: OpenConfig, seed: int, eager: float):
    """Random legal play; yields the state before each move and the move (None at the end)."""
    return random_play("open_rummy", config, seed, eager, SET_STEP_BASE, MAX_MOVES)


def check_melds(state: GameState) -> None:
    for m in state.melds:
        if m is state.pending:
            assert m.owner == state.current and len(m) < 3
            continue
        cards = m.types()
        assert sum(t != JOKER for t in cards) >= 2
        reading = check_meld_reading(MELD_RULES, m, cards)
        if m.is_set:
            assert m.closed == (len(m.natural_suits()) == 4)
        else:
            assert reading.suit == m.suit and reading.lo == m.lo, cards
            for pos, c in m.slots.items():
                assert (TYPE_OF[c] == JOKER) == (pos - m.lo in reading.stands_for)


@SETTINGS
@given(configs(), SEEDS, EAGERNESS)
def test_conservation_melds_and_no_dead_ends(config, seed, eager):
    plays = play(config, seed, eager)
    steps = range(SET_STEP_BASE, LAYOFF_BASE)
    check_random_play("open_rummy", plays, check_melds, lambda s: s.pending is not None, steps)


@SETTINGS
@given(configs(), SEEDS, EAGERNESS)
def test_observation_ignores_hidden_cards(config, seed, eager):
    """Permuting the cards a seat cannot see (other hands, the stock) changes nothing in its
    observation."""
    check_observation_ignores_hidden_cards(play(config, seed, eager), seed, 23, encode)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_mask_equals_legal_moves_through_the_env(players):
    check_mask_equals_legal_moves(env(num_players=players, rounds=1), seed=players, max_iter=600)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_pettingzoo_api_seed_and_render(players):
    api_test(env(num_players=players, rounds=1), num_cycles=150)
    seed_test(lambda: env(num_players=players, rounds=1), num_cycles=150)
    render_test(lambda render_mode=None: env(num_players=players, render_mode=render_mode))


def test_truncation_is_a_safety_net():
    e = env(num_players=2, max_moves=40)
    e.reset(seed=3)
    for _ in e.agent_iter():
        _, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        mask = e.last()[0]["action_mask"]
        legal = np.flatnonzero(mask)
        draws = [a for a in legal if a < 2]  # draw and discard only: the round never ends
        e.step(int(draws[0]) if draws else int(max(a for a in legal if 2 <= a < 55)))
    assert e.unwrapped.moves == 40 and not e.unwrapped.game.is_terminal
    assert e.unwrapped.GAME.max_moves == env().unwrapped.max_moves == 5000  # the default
