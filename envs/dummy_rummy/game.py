"""Dummy rummy's record in the house: what the registry, the adapter and every tool above
``envs/`` know of the game."""

from __future__ import annotations

from ..core.game import CardMoves, Game
from .actions import CUTIN_TAKE, DECK, DISCARD_BASE, DRAW_DISCARD, N_ACTIONS
from .notation import move_text, parse_move
from .observer import HIDDEN, OBS_SIZE, OFFSET, STATE_SIZE, Observer, encode_state
from .render import render_table
from .rules import GameConfig, GameState
from .seat import SeatView


def _baseline(options: str = ""):
    from .baseline import BaselineAgent, BaselineOptions

    return BaselineAgent(BaselineOptions.parse(options))


def _checkpoint(config: GameConfig) -> str:
    """The shipped policy for a config: one-hand games of contract 1 get the policy trained
    on them alone; whole games and the later contracts the one trained on all twelve."""
    every = "" if config.hands == 1 and config.first_contract == 1 else "_all"
    return f"checkpoints/dummy_rummy_{config.num_players}p{every}/best.pt"


GAME = Game(
    name="dummy_rummy",
    title="Dummy rummy",
    version=0,
    team=False,
    config_type=GameConfig,
    make_config=GameConfig.make,
    deck=lambda config: DECK,
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
    env_module="commoncause.envs.dummy_rummy.dummy_rummy",
    max_moves=5000,
    checkpoint=_checkpoint,
    policies=("dummy_rummy_2p", "dummy_rummy_2p_all", "dummy_rummy_4p", "dummy_rummy_4p_all"),
    card_moves=CardMoves(
        hand_at=OFFSET["hand"],
        bases=(DISCARD_BASE,),
        shown=((DRAW_DISCARD, OFFSET["top_discard"]), (CUTIN_TAKE, OFFSET["top_discard"])),
    ),
)
