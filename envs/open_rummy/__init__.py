"""Open Rummy (2-8 players, two decks and jokers, play to 300 points): rules engine
(``rules``, ``meld_plans``), seat view (``seat``, ``observer``), move notation
(``notation``), baseline (``baseline``), its house record (``game``) and the PettingZoo AEC
environment ``open_rummy_v0`` (``open_rummy``).

>>> from commoncause.envs.open_rummy import env
>>> e = env(num_players=4, rounds=1)

The engine imports no RL library; the PettingZoo adapter loads when ``env`` or ``raw_env``
is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.game import lazy_adapter
from .rules import GameConfig, GameState, OpenConfig

if TYPE_CHECKING:
    from .open_rummy import env, raw_env

_ADAPTER = ("env", "raw_env")


__getattr__ = lazy_adapter(__name__, ".open_rummy", _ADAPTER)


__all__ = ["GameConfig", "GameState", "OpenConfig", "env", "raw_env"]
