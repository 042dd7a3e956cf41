"""Common Cause's incremental ``Observer`` (public planes kept in one buffer, updated from
what changed) gives, bit for bit, the observation a fresh observer builds from the state
alone: on every step of random games in every variant, whether a seat is observed every
step or only now and then (its buffer must catch up over several moves), with the partner
revealed or not, and the observation it returns is a fresh array (no cache leaks out)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from commoncause.envs.common_cause.observer import Observer
from commoncause.envs.common_cause.rules import GameConfig, GameState

CONFIGS = [
    GameConfig(),
    GameConfig(stock_size=33, open_hands=True, ace_low=True),
    GameConfig(stock_size=10, max_open_starts=3, early_loss=True, signal_rule=True),
    GameConfig(stock_size=0),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.label())
@pytest.mark.parametrize("every", [1, 3])
def test_kept_observer_equals_a_fresh_one(config: GameConfig, every: int) -> None:
    rng = random.Random(7)
    steps = 0
    while steps < 3000:
        state = GameState.new_game(config, rng.randrange(2**31))
        kept = [Observer(p, reveal) for p in (0, 1) for reveal in (False, True)]
        while not state.is_terminal:
            if steps % every == 0 or rng.random() < 0.3:
                for observer in kept:
                    obs = observer.encode(state)
                    fresh = Observer(observer.player, observer.reveal_partner).encode(state)
                    assert np.array_equal(obs, fresh), f"step {steps}, {observer.player}"
                    obs[:] = 0.5  # the caller may write into what it got
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
