"""Open Rummy's record in the house: what the registry, the adapter and every tool above
``envs/`` know of the game."""

from __future__ import annotations

from ..core.game import CardMoves, Game
from .actions import CARDSWAP_BASE, DISCARD_BASE, DRAW_DISCARD, N_ACTIONS
from .notation import move_text, parse_move
from .observer import HIDDEN, OBS_SIZE, OFFSET, STATE_SIZE, Observer, encode_state
from .render import render_table
from .rules import GameConfig, GameState
from .seat import SeatView


def _baseline(options: str = ""):
    from .baseline import BaselineAgent, BaselineOptions

    return BaselineAgent(BaselineOptions.parse(options))


GAME = Game(
    name="open_rummy",
    title="Open Rummy",
    version=0,
    team=False,
    config_type=GameConfig,
    make_config=GameConfig.make,
    deck=lambda config: config.deck,
    new_state=GameState,
    num_seats=lambda config: config.num_players,
    num_actions=N_ACTIONS,
    observation_size=OBS_SIZE,
    state_size=STATE_SIZE,
    observer=Observer,
    encode_state=encode_state,
    hidden_size=HIDDEN.size,
    encode_hidden=HIDDEN.encode,
    seat_view=SeatView,
    move_text=move_text,
    parse_move=parse_move,
    render=render_table,
    baseline=_baseline,
    env_module="commoncause.envs.open_rummy.open_rummy",
    max_moves=5000,
    checkpoint=lambda config: f"checkpoints/open_rummy_{config.num_players}p/best.pt",
    policies=("open_rummy_2p", "open_rummy_4p"),
    card_moves=CardMoves(
        hand_at=OFFSET["hand"],
        bases=(DISCARD_BASE, CARDSWAP_BASE),
        shown=((DRAW_DISCARD, OFFSET["top_discard"]),),
    ),
)
