"""Dummy rummy under random play (hypothesis): 108 cards conserved, the env's mask equals the
legal moves, every meld on the table valid against the core's independent validator, no
dead end while laying a contract, notation round trips, observations blind to hidden cards;
and PettingZoo's api, seed and render tests for 2, 3 and 4 players."""

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

from commoncause.envs.dummy_rummy import env
from commoncause.envs.dummy_rummy.actions import DECK, LAYOFF_BASE, SET_MELD_BASE
from commoncause.envs.dummy_rummy.observer import encode
from commoncause.envs.dummy_rummy.rules import MELD_RULES, DummyConfig, GameState

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_MOVES = 600


@st.composite
def configs(draw) -> DummyConfig:
    return DummyConfig(
        num_players=draw(st.integers(2, 4)),
        first_contract=draw(st.integers(1, 12)),
        hands=draw(st.integers(1, 2)),
        cut_ins=draw(st.booleans()),
    )


def play(config: DummyConfig, seed: int, eager: float):
    """Random legal play; yields the state before each move and the move (None at the end)."""
    return random_play("dummy_rummy", config, seed, eager, SET_MELD_BASE, MAX_MOVES)


def check_melds(state: GameState) -> None:
    for m in state.melds:
        if len(m) < m.size:  # still being laid this turn
            assert state.building and m.owner == state.current
            continue
        check_meld_reading(MELD_RULES, m, [DECK.type_of(c) for c in m.physical()])
        if not m.is_set:
            assert not (m.lo == 1 and m.hi == 14)


@SETTINGS
@given(configs(), SEEDS, EAGERNESS)
def test_conservation_melds_and_no_dead_ends(config, seed, eager):
    plays = play(config, seed, eager)
    steps = range(SET_MELD_BASE, LAYOFF_BASE)
    check_random_play("dummy_rummy", plays, check_melds, lambda s: s.building, steps)


@SETTINGS
@given(configs(), SEEDS, EAGERNESS)
def test_observation_ignores_hidden_cards(config, seed, eager):
    """Permuting the cards a seat cannot see (other hands, the stock) changes nothing in its
    observation."""
    check_observation_ignores_hidden_cards(play(config, seed, eager), seed, 17, encode)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mask_equals_legal_moves_through_the_env(players):
    e = env(num_players=players, hands=1, cut_ins=players == 3)
    check_mask_equals_legal_moves(e, seed=players, max_iter=800)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_seed_and_render(players):
    api_test(env(num_players=players, hands=2, cut_ins=True), num_cycles=300)
    seed_test(lambda: env(num_players=players, hands=1), num_cycles=300)
    render_test(lambda render_mode=None: env(num_players=players, render_mode=render_mode))


def test_truncation_is_a_safety_net():
    e = env(num_players=2, first_contract=12, max_moves=50)
    e.reset(seed=3)
    for _ in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    assert e.unwrapped.moves == 50 and not e.unwrapped.game_state.is_terminal


@given(
    counts=st.lists(st.integers(0, 4), min_size=12, max_size=12),
    wilds=st.integers(0, 4),
    extra=st.integers(0, 3),
)
@settings(max_examples=300, deadline=None)
def test_sets_shortcut_agrees_with_the_full_contract_search(counts, wilds, extra):
    """``sets_possible`` (rank labels dropped, cached by the shape of the hand) says yes
    exactly when the full search finds a first step, for every sets-only contract."""
    from commoncause.envs.dummy_rummy.contract_plans import legal_steps, sets_possible
    from commoncause.envs.dummy_rummy.rules import _FRESH_GROUPS, _SETS_ONLY

    by_rank = (counts[0], 0, *counts[1:])  # the 2s are wild: no natural rank 2
    hand_size = sum(counts) + wilds + extra  # (cards the contract cannot use: none here)
    shape = tuple(sorted(counts))
    for contract, sets_only in enumerate(_SETS_ONLY):
        if sets_only:
            groups = _FRESH_GROUPS[contract]
            full = bool(legal_steps(by_rank, wilds, hand_size, groups))
            assert sets_possible(shape, wilds, hand_size, groups) == full, contract
