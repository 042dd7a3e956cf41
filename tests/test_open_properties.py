"""Open Rummy under random play (hypothesis): every card conserved, the env's mask equals
the legal moves, every meld on the table valid against the core's independent validator, no
dead end while laying a meld, notation round trips, observations blind to hidden cards; and
PettingZoo's api, seed and render tests for 2, 4 and 8 players."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from commoncause.envs.core.cards import JOKER
from commoncause.envs.open_rummy import env
from commoncause.envs.open_rummy.actions import LAYOFF_BASE, SET_STEP_BASE, TYPE_OF
from commoncause.envs.open_rummy.notation import move_text, parse_move
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


seeds = st.integers(0, 2**31 - 1)
eagerness = st.sampled_from([0.0, 0.7, 1.0])  # how often a meld, lay-off or steal is taken


def play(config: OpenConfig, seed: int, eager: float):
    """Random legal play; yields the state before each move and the move (None at the end)."""
    rng = random.Random(seed)
    deck = list(range(config.deck.size))
    rng.shuffle(deck)
    state = GameState(config, deck)
    for _ in range(MAX_MOVES):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        placing = [a for a in legal if a >= SET_STEP_BASE]
        action = rng.choice(placing if placing and rng.random() < eager else legal)
        yield state, action
        state.apply(action)
    yield state, None


def check_melds(state: GameState) -> None:
    for m in state.melds:
        if m is state.pending:
            assert m.owner == state.current and len(m) < 3
            continue
        cards = m.types()
        assert sum(t != JOKER for t in cards) >= 2
        if m.is_set:
            reading = MELD_RULES.read_set(cards)
            assert reading is not None and reading.rank == m.rank, cards
            assert m.closed == (len(m.natural_suits()) == 4)
        else:
            assert sorted(m.slots) == list(range(m.lo, m.hi + 1)), m.slots
            reading = MELD_RULES.read_run(cards)
            assert reading is not None and reading.suit == m.suit and reading.lo == m.lo, cards
            for pos, c in m.slots.items():
                assert (TYPE_OF[c] == JOKER) == (pos - m.lo in reading.stands_for)


@SETTINGS
@given(configs(), seeds, eagerness)
def test_conservation_melds_and_no_dead_ends(config, seed, eager):
    size = config.deck.size
    for state, action in play(config, seed, eager):
        assert sorted(state.locations()) == list(range(size))
        check_melds(state)
        if state.is_terminal:
            assert state.legal_actions() == []
            continue
        legal = state.legal_actions()
        assert legal, "a player without a legal move"
        if state.pending is not None:
            assert all(SET_STEP_BASE <= a < LAYOFF_BASE for a in legal), "dead end"
        if action is not None:
            assert parse_move(state, move_text(state, action)) == action


@SETTINGS
@given(configs(), seeds, eagerness)
def test_observation_ignores_hidden_cards(config, seed, eager):
    """Permuting the cards a seat cannot see (other hands, the stock) changes nothing in its
    observation."""
    rng = random.Random(seed)
    for step, (state, _) in enumerate(play(config, seed, eager)):
        if step % 23:
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


@pytest.mark.parametrize("players", [2, 4, 8])
def test_mask_equals_legal_moves_through_the_env(players):
    e = env(num_players=players, rounds=1)
    e.reset(seed=players)
    rng = random.Random(players)
    for agent in e.agent_iter(max_iter=600):
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
