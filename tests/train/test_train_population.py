"""Training with a population of hand-written partners (``baseline_options``): each game
with a baseline seat draws one of the listed baselines; the default draws nothing."""

from __future__ import annotations

import pytest

from commoncause.train.config import TrainConfig
from commoncause.train.selfplay import SelfPlayEnv


def test_each_game_draws_one_of_the_listed_baselines():
    env = SelfPlayEnv(1.0, "common_cause", baseline_options=["", "start_choice=first"])
    drawn = set()
    for seed in range(30):
        env.reset(seed=seed)
        (agent,) = env.baseline_seats.values()
        drawn.add(agent.options.start_choice)
    assert drawn == {"best", "first"}


def test_one_baseline_plays_as_before():
    plain = SelfPlayEnv(0.5, "common_cause")
    listed = SelfPlayEnv(0.5, "common_cause", baseline_options=[""])
    for seed in range(10):
        a, _ = plain.reset(seed=seed)
        b, _ = listed.reset(seed=seed)
        assert (a == b).all() and plain.baseline_seat == listed.baseline_seat


@pytest.mark.parametrize(
    ("options", "message"),
    [([], "list of option texts"), ("jokers=eager", "list of option texts"),
     (["", "jokers=sometimes"], "baseline_options 'jokers=sometimes'")],
)  # fmt: skip
def test_config_refuses_bad_baseline_options(options, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(baseline_options=options).validate()
    TrainConfig(baseline_options=["", "jokers=eager"]).validate()
