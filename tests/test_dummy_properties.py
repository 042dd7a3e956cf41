"""Dummy rummy under random play (hypothesis): 108 cards conserved, the env's mask equals the
legal moves, every meld on the table valid against the core's independent validator, no
dead end while laying a contract, notation round trips, observations blind to hidden cards;
and PettingZoo's api, seed and render tests for 2, 3 and 4 players."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from commoncause.envs.dummy_rummy import env
from commoncause.envs.dummy_rummy.actions import DECK, LAYOFF_BASE, SET_MELD_BASE
from commoncause.envs.dummy_rummy.notation import move_text, parse_move
from commoncause.envs.dummy_rummy.observer import encode
from commoncause.envs.dummy_rummy.rules import MELD_RULES, DummyConfig, GameState

SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
MAX_MOVES = 600


@st.composite
def configs(draw) -> DummyConfig:
    return DummyConfig(
        num_players=draw(st.integers(2, 4)),
        first_contract=draw(st.integers(1, 12)),
        hands=draw(st.integers(1, 2)),
        cut_ins=draw(st.booleans()),
    )


seeds = st.integers(0, 2**31 - 1)
eagerness = st.sampled_from([0.0, 0.7, 1.0])  # how often a meld or lay-off step is taken


def play(config: DummyConfig, seed: int, eager: float):
    """Random legal play; yields the state before each move and the move (None at the end)."""
    rng = random.Random(seed)
    deck = list(range(DECK.size))
    rng.shuffle(deck)
    state = GameState(config, deck)
    for _ in range(MAX_MOVES):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        placing = [a for a in legal if a >= SET_MELD_BASE]
        action = rng.choice(placing if placing and rng.random() < eager else legal)
        yield state, action
        state.apply(action)
    yield state, None


def check_melds(state: GameState) -> None:
    for m in state.melds:
        if len(m) < m.size:  # still being laid this turn
            assert state.building and m.owner == state.current
            continue
        cards = [DECK.type_of(c) for c in m.physical()]
        if m.is_set:
            reading = MELD_RULES.read_set(cards)
            assert reading is not None and reading.rank == m.rank, cards
        else:
            assert sorted(m.slots) == list(range(m.lo, m.hi + 1)), m.slots
            reading = MELD_RULES.read_run(cards)
            assert reading is not None, cards
            assert not (m.lo == 1 and m.hi == 14)


@SETTINGS
@given(configs(), seeds, eagerness)
def test_conservation_melds_and_no_dead_ends(config, seed, eager):
    for state, action in play(config, seed, eager):
        assert sorted(state.locations()) == list(range(DECK.size))
        check_melds(state)
        if state.is_terminal:
            assert state.legal_actions() == []
            continue
        legal = state.legal_actions()
        assert legal, "a player without a legal move"
        if state.building:
            assert all(SET_MELD_BASE <= a < LAYOFF_BASE for a in legal), "dead end"
        if action is not None:
            assert parse_move(state, move_text(state, action)) == action


@SETTINGS
@given(configs(), seeds, eagerness)
def test_observation_ignores_hidden_cards(config, seed, eager):
    """Permuting the cards a seat cannot see (other hands, the stock) changes nothing in its
    observation."""
    rng = random.Random(seed)
    for step, (state, _) in enumerate(play(config, seed, eager)):
        if step % 17:
            continue
        me = state.current
        twin = state.clone()
        slots = [(s, i) for s in range(twin.n) if s != me for i in range(len(twin.hands[s]))]
        hidden = [twin.hands[s][i] for s, i in slots] + twin.stock
        rng.shuffle(hidden)
        for (s, i), card in zip(slots, hidden, strict=False):
            twin.hands[s][i] = card
        twin.stock = hidden[len(slots) :]
        assert np.array_equal(encode(state, me), encode(twin, me))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mask_equals_legal_moves_through_the_env(players):
    e = env(num_players=players, hands=1, cut_ins=players == 3)
    e.reset(seed=players)
    rng = random.Random(players)
    for agent in e.agent_iter(max_iter=800):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = e.unwrapped.game.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(rng.choice(legal))


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
    assert e.unwrapped.moves == 50 and not e.unwrapped.game.is_terminal
