"""Common Cause's record in the house: what the registry, the adapter and every tool above
``envs/`` know of the game."""

from __future__ import annotations

from typing import Any

from ..core.game import Game
from .actions import DRAW_DISCARD, N_ACTIONS
from .cards import DECK
from .notation import move_text, parse_move
from .observer import HIDDEN_SIZE, OBS_SIZE, STATE_SIZE, Observer, encode_hidden, encode_state
from .render import render_table
from .rules import LEVELS, GameConfig, GameState
from .seat import SeatView


def _baseline(options: str = ""):
    from .baseline import BaselineAgent, BaselineOptions

    return BaselineAgent(BaselineOptions.parse(options))


def _compiled_state(config: GameConfig, deck: list[int]):
    from .engine import new_state

    return new_state(config, deck)


def pickups(state: GameState) -> dict[str, int]:
    """How often each player took each player's discard: ``{"0_from_1": n, ...}``
    (the turned-up card counts as ``from_deal``)."""
    counts = {f"{t}_from_{d}": 0 for t in (0, 1) for d in (0, 1, "deal")}
    entries = iter(state.taken_entries)
    for player, action in state.history:
        if action == DRAW_DISCARD:
            who = state.discard_log[next(entries)][1]
            counts[f"{player}_from_{'deal' if who < 0 else who}"] += 1
    return counts


def summary(state: GameState) -> dict[str, Any]:
    """Why the game was lost, the stock left of the stock dealt and who took whose
    discards."""
    return {
        "loss_reason": state.loss_reason,
        "stock_left": len(state.stock),
        "stock_dealt": state.config.stock_size,
        "pickups": pickups(state),
    }


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
    compiled_state=_compiled_state,
    seat_view=SeatView,
    move_text=move_text,
    parse_move=parse_move,
    render=render_table,
    baseline=_baseline,
    env_module="commoncause.envs.common_cause.common_cause",
    max_moves=2000,
    checkpoint=lambda config: "checkpoints/normal/best.pt",
    levels={level: {"stock_size": size} for level, size in LEVELS.items()},
    summary=summary,
    # the shipped partner, the benchmark's ad-hoc partner, the zoo's trained partners
    policies=("normal", "adhoc", "normal_seed11", "normal_seed12", "normal_scratch13",
              "rllib_normal"),  # fmt: skip
    members={"adhoc": "checkpoints/adhoc/best.pt"},
    studies={
        "analyze": "commoncause.envs.common_cause.study.cli",
        "benchmark": "commoncause.envs.common_cause.study.benchmark_cli",
        "calibrate": "commoncause.envs.common_cause.study.calibrate_cli",
    },
    others="partner",
)
