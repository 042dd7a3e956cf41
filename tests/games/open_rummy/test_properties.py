"""Open Rummy under random play (hypothesis): every card conserved, the env's mask equals
the legal moves, every meld on the table valid against the core's independent validator, no
dead end while laying a meld, notation round trips, observations blind to hidden cards; the
fast legal moves (first meld steps by bit arithmetic, what the table offers kept until a card
is placed, per meld and per state, clones included) equal a plain reading of the state; a
game played to the target ends only after a round someone went out of, or is truncated; and
PettingZoo's api, seed and render tests for 2, 4 and 8 players."""

from __future__ import annotations

import random

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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from commoncause.envs.core.cards import JOKER, N_STANDARD
from commoncause.envs.open_rummy import env
from commoncause.envs.open_rummy.actions import (
    CARDSWAP_BASE,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF_BASE,
    SET_STEP_BASE,
    TYPE_OF,
    layoff_action,
    steal_action,
)
from commoncause.envs.open_rummy.meld_plans import first_steps, legal_steps
from commoncause.envs.open_rummy.observer import encode
from commoncause.envs.open_rummy.rules import (
    DRAW_PHASE,
    MELD_RULES,
    GameState,
    OpenConfig,
    TableMeld,
)

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


def plain_legal(state: GameState) -> list[int]:
    """The legal moves read afresh from the state, with no cache (as the engine found them
    before its fast paths): the plan search for meld steps, every live meld's lay-off places
    and stand-ins."""
    if state.result is not None:
        return []
    p, live = state.current, state.live_melds()
    types = state.hand_types(p)
    held = set(types)
    stand = set().union(*(m.stand_ins() for m in live))
    if state.phase == DRAW_PHASE:
        legal = [DRAW_STOCK]
        if state.discard and TYPE_OF[state.discard[-1]] not in stand:
            legal.append(DRAW_DISCARD)
        if state.swap_open and state.discard:
            legal += [CARDSWAP_BASE + t for t in held if t != TYPE_OF[state.discard[-1]]]
        return sorted(legal)
    naturals = frozenset(t for t in types if t != JOKER)
    pending, laid, kind = state.pending, frozenset(), ""
    if pending is not None:
        cards = [(0, c) for c in pending.cards] if pending.is_set else pending.slots.items()
        laid = frozenset(GameState._step_of(pending, c, pos) for pos, c in cards)
        kind = "set" if pending.is_set else "run"
    legal = list(legal_steps.__wrapped__(naturals, types.count(JOKER), len(types), laid, kind))
    if pending is not None:
        return sorted(legal)
    if state.laid[p]:
        if len(types) > 1:
            places = [(m, t, k) for m in live for t, k in m.layoff_places()]
            legal += [layoff_action(m.slot, k) for m, t, k in places if t in held]
        legal += [steal_action(m.slot, t) for m in live for t in m.stand_ins() & held]
    return sorted(legal + [DISCARD_BASE + t for t in held])


def plain_offers(m: TableMeld) -> tuple:
    stand = frozenset(m.stand_ins())
    layoffs = tuple((t, layoff_action(m.slot, k)) for t, k in m.layoff_places())
    return stand, layoffs, tuple((t, steal_action(m.slot, t)) for t in sorted(stand))


def check_cached_legal(state: GameState) -> None:
    assert state.legal_actions() == plain_legal(state)
    live = state.live_melds()
    assert state.stand_ins() == set().union(*(m.stand_ins() for m in live))
    for m in live:
        assert m.offers() == plain_offers(m), m.slot


@SETTINGS
@given(configs(), SEEDS, EAGERNESS)
def test_legal_moves_equal_a_plain_reading_clones_included(config, seed, eager):
    """Every step's legal moves equal ``plain_legal``, and what the table offers (per meld
    and per state, kept until a card is placed) equals a fresh reading; every 37th state is
    also cloned and played on for a few random moves (clones share the kept readings)."""
    rng = random.Random(seed)
    for i, (state, _) in enumerate(play(config, seed, eager)):
        check_cached_legal(state)
        if i % 37 == 5:
            clone = state.clone()
            for _ in range(8):
                check_cached_legal(clone)
                if clone.is_terminal:
                    break
                legal = clone.legal_actions()
                placing = [a for a in legal if a >= SET_STEP_BASE]
                clone.apply(rng.choice(placing if placing and rng.random() < eager else legal))
            check_cached_legal(state)


@given(
    held=st.integers(0, 2**N_STANDARD - 1),
    jokers=st.integers(0, 3),
    extra=st.integers(-3, 3),
)
@settings(max_examples=2000, deadline=None)
def test_first_steps_equal_the_plan_search(held, jokers, extra):
    """``first_steps`` (bit arithmetic on the held card types) equals ``legal_steps`` with
    nothing laid yet, hand sizes near the cards held included."""
    naturals = frozenset(t for t in range(N_STANDARD) if held >> t & 1)
    hand_size = max(len(naturals) + jokers + extra, 0)
    expected = legal_steps.__wrapped__(naturals, jokers, hand_size, frozenset(), "")
    assert first_steps(held, jokers, hand_size) == list(expected)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_mask_equals_legal_moves_through_the_env(players):
    check_mask_equals_legal_moves(env(num_players=players, rounds=1), seed=players, max_iter=600)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_pettingzoo_api_seed_and_render(players):
    api_test(env(num_players=players, rounds=1), num_cycles=150)
    seed_test(lambda: env(num_players=players, rounds=1), num_cycles=150)
    render_test(lambda render_mode=None: env(num_players=players, render_mode=render_mode))


WHOLE_GAME_MOVES = 5000
"""Random play to the target: long enough for the rare rounds nobody goes out of."""
DEAD_FIRST_ROUND = OpenConfig(num_players=2, jokers=0, target=100), 6, 0.0
"""A random game (config, seed, eagerness) whose first round ends dead at 110 / 90 points
(move 667)."""


@settings(SETTINGS, max_examples=50)  # a game takes milliseconds
@given(st.integers(2, 4), st.integers(0, 4), st.integers(1, 150), SEEDS, EAGERNESS)
@example(2, 0, 100, 6, 0.0)  # DEAD_FIRST_ROUND
def test_a_finished_game_ends_with_a_round_someone_went_out_of(
    players, jokers, target, seed, eager
):
    """Reading 12: played to the target, a game ends only after a round won by going out
    (and at the target), or is cut by the move limit."""
    config = OpenConfig(num_players=players, jokers=jokers, target=target)
    plays = list(random_play("open_rummy", config, seed, eager, SET_STEP_BASE, WHOLE_GAME_MOVES))
    state = plays[-1][0]
    if state.is_terminal:
        assert state.round_out[-1] >= 0 and max(state.totals) >= target
    else:
        assert len(plays) == WHOLE_GAME_MOVES + 1  # truncated


def test_truncation_still_cuts_a_game_that_goes_on_after_a_dead_round():
    """The dead first round replayed through the env (its deck as codes), then the first
    legal move each step: the game goes on, and ``max_moves`` still ends the episode."""
    config, seed, eager = DEAD_FIRST_ROUND
    deck = list(range(config.deck.size))
    random.Random(seed).shuffle(deck)
    e = env(num_players=2, jokers=0, target=100, max_moves=800)
    e.reset(options={"deck": config.deck.codes(deck)})
    game = e.unwrapped.game_state
    for _, action in random_play("open_rummy", config, seed, eager, SET_STEP_BASE, 700):
        e.step(action)
        if game.round_no:
            break
    assert game.round_out == [-1] and max(game.totals) >= 100 and not game.is_terminal
    assert e.unwrapped.moves == 667
    while not any(e.truncations.values()) and not game.is_terminal:
        e.step(game.legal_actions()[0])  # draw stock, then discard: nobody goes out
    assert e.unwrapped.moves == 800 and all(e.truncations.values()) and not game.is_terminal


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
    assert e.unwrapped.moves == 40 and not e.unwrapped.game_state.is_terminal
    assert e.unwrapped.GAME.max_moves == env().unwrapped.max_moves == 5000  # the default
