"""The compiled engine (envs/common_cause/engine/) plays exactly as the Python engine:
thousands of seeded games, on every level and variant it plays, through both at once, with
the same legal moves, both seats' observations, the hidden cards, the default baseline's
move, and at the end the same result, turns and pickups; the moves are the baseline's and
random legal ones (every move is checked before either engine plays it).

Skipped where the engine was not built, unless ``COMMONCAUSE_EXPECT_COMPILED`` is set (CI):
there a missing build fails; always skipped under ``COMMONCAUSE_PURE_PYTHON``."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from commoncause.compiled import PURE_PYTHON
from commoncause.envs.common_cause import engine
from commoncause.envs.common_cause.baseline import BaselineAgent
from commoncause.envs.common_cause.observer import Observer, encode_hidden
from commoncause.envs.common_cause.rules import GameConfig, GameState, IllegalMoveError
from commoncause.envs.common_cause.seat import SeatView
from commoncause.envs.registry import get_game

CONFIGS = [
    {},
    {"level": "full"},
    {"level": "hard"},
    {"stock_size": 4},
    {"ace_low": True},
    {"max_open_starts": 3},
    {"open_hands": True},
    {"signal_rule": True},
    {"ace_low": True, "max_open_starts": 3, "signal_rule": True, "open_hands": True},
]


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    if os.environ.get(PURE_PYTHON):
        pytest.skip(f"{PURE_PYTHON} is set: the Python engine runs")
    if not engine.ENABLED:
        if os.environ.get("COMMONCAUSE_EXPECT_COMPILED"):
            pytest.fail("COMMONCAUSE_EXPECT_COMPILED is set but the C engine was not built")
        pytest.skip("the C engine is not built here (the Python engine runs)")


def _play_both(seed: int, options: dict) -> int:
    """One game through both engines; returns the moves played."""
    rng = random.Random(seed)
    config = GameConfig.make(**options)
    deck = list(range(54))
    rng.shuffle(deck)
    reference, compiled = GameState(config, deck), engine.new_state(config, deck)
    observers = [Observer(0), Observer(1)]
    baseline = BaselineAgent()
    moves = 0
    while not reference.is_terminal:
        where = f"seed {seed}, {options}, move {moves}"
        legal = reference.legal_actions()
        assert compiled.legal_actions() == legal, where
        assert compiled.hand(0) == reference.hands[0] and compiled.hand(1) == reference.hands[1]
        for seat in (0, 1):
            assert np.array_equal(compiled.encode(seat), observers[seat].encode(reference)), where
            assert np.array_equal(compiled.encode_hidden(seat), encode_hidden(reference, seat))
        move = baseline.act(SeatView(reference, reference.current))
        assert compiled.baseline_action() == move, where
        if rng.random() < 0.5:
            move = rng.choice(legal)
        reference.apply(move)
        compiled.apply(move)
        moves += 1
        assert compiled.is_terminal == reference.is_terminal
    assert compiled.legal_actions() == []
    assert (compiled.result, compiled.turns, compiled.pickups) == (
        reference.result, reference.turns, reference.pickups
    )  # fmt: skip
    assert compiled.returns() == reference.returns()
    assert compiled.history == reference.history
    assert compiled.outcome() == reference.outcome()
    return moves


def test_compiled_engine_plays_every_move_as_the_python_engine():
    moves = sum(_play_both(seed, CONFIGS[seed % len(CONFIGS)]) for seed in range(3000))
    assert moves > 100_000


def test_compiled_engine_refuses_an_illegal_move_and_keeps_its_state():
    config = GameConfig.make()
    state = engine.new_state(config, list(range(54)))
    before = (state.legal_actions(), state.encode(0).tobytes(), state.hand(0))
    with pytest.raises(IllegalMoveError):
        state.apply(60)  # an open start in the draw phase
    assert (state.legal_actions(), state.encode(0).tobytes(), state.hand(0)) == before


def test_a_compiled_clone_plays_on_alone():
    state = engine.new_state(GameConfig.make(), list(range(54)))
    state.apply(0)
    copy = state.clone()
    before = (copy.legal_actions(), copy.encode(0).tobytes(), copy.history)
    state.apply(state.legal_actions()[-1])
    assert (copy.legal_actions(), copy.encode(0).tobytes(), copy.history) == before
    copy.apply(before[0][-1])
    assert copy.history == state.history and copy.encode(1).tobytes() == state.encode(1).tobytes()


def test_compiled_engine_refuses_a_malformed_deck():
    with pytest.raises(ValueError, match="each of the 54 physical cards exactly once"):
        engine.new_state(GameConfig.make(), [0] * 54)


def test_early_loss_games_stay_in_python():
    assert engine.new_state(GameConfig.make(early_loss=True), list(range(54))) is None
    with pytest.raises(ValueError, match="does not play early_loss"):
        engine.state.CompiledState(GameConfig.make(early_loss=True), list(range(54)))
    assert get_game("common_cause").compiled_state(GameConfig.make(), list(range(54)))


def test_compiled_engine_refuses_bad_arguments_in_one_line():
    state = engine.new_state(GameConfig.make(), list(range(54)))
    for seat in (2, -1):
        for method in (state.hand, state.encode, state.encode_hidden, state.seat_stats):
            with pytest.raises(ValueError, match="a seat is 0 or 1"):
                method(seat)
    for move in (0.7, "0", 10**20):
        with pytest.raises(IllegalMoveError):
            state.apply(move)
    with pytest.raises(ValueError, match="4,445 entries"):
        state.write_mask(np.zeros(10, dtype=bool))
    assert state.history == []


def test_a_build_older_than_a_source_it_follows_does_not_run(tmp_path):
    built = tmp_path / "state.so"
    built.write_bytes(b"")
    os.utime(built, (1_000_000_000, 1_000_000_000))
    with pytest.warns(UserWarning, match="older than its sources"):
        assert not engine._fresh(str(built))
    os.utime(built, (4_000_000_000, 4_000_000_000))
    assert engine._fresh(str(built))


def test_selfplay_decides_per_game_which_engine_plays():
    from commoncause.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv(0.0, baseline_options=["jokers=eager"])
    env.reset(seed=0)
    assert env._in_c  # no baseline seat is drawn
    env.baseline_partner_prob = 1.0  # now an eager baseline sits in every game
    env.reset(seed=0)
    assert not env._in_c and env.baseline_seats
