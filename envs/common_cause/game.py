"""Common Cause's record in the house: what the registry, the adapter and every tool above
``envs/`` know of the game."""

from __future__ import annotations

from ..core.game import Game
from .actions import N_ACTIONS
from .cards import DECK
from .notation import move_text, parse_move
from .observer import HIDDEN_SIZE, OBS_SIZE, STATE_SIZE, Observer, encode_hidden, encode_state
from .render import render_table
from .rules import GameConfig, GameState
from .seat import SeatView


def _baseline(options: str = ""):
    from .baseline import BaselineAgent, BaselineOptions

    return BaselineAgent(BaselineOptions.parse(options))


GAME = Game(
    name="common_cause",
    title="Common Cause",
    version=0,
    team=True,
    config_type=GameConfig,
    make_config=GameConfig.make,
    deck=lambda config: DECK,
    new_state=GameState,
    num_seats=lambda config: 2,
    num_actions=N_ACTIONS,
    observation_size=OBS_SIZE,
    state_size=STATE_SIZE,
    observer=Observer,
    encode_state=encode_state,
    hidden_size=HIDDEN_SIZE,
    encode_hidden=encode_hidden,
    seat_view=SeatView,
    move_text=move_text,
    parse_move=parse_move,
    render=render_table,
    baseline=_baseline,
    env_module="commoncause.envs.common_cause.common_cause",
    max_moves=2000,
    checkpoint=lambda config: "checkpoints/normal/best.pt",
)
