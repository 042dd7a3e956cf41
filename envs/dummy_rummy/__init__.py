"""Dummy rummy (contract rummy for 2-4 players, wild 2s and jokers): rules engine
(``rules``, ``contract_plans``), seat view (``seat``, ``observer``), move notation
(``notation``), baseline (``baseline``), its house record (``game``) and the PettingZoo AEC
environment ``dummy_rummy_v0`` (``dummy_rummy``).

>>> from commoncause.envs.dummy_rummy import env
>>> e = env(num_players=4, hands=1)

The engine imports no RL library; the PettingZoo adapter loads when ``env`` or ``raw_env``
is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.game import lazy_adapter
from .rules import DummyConfig, GameConfig, GameState

if TYPE_CHECKING:
    from .dummy_rummy import env, raw_env

_ADAPTER = ("env", "raw_env")


__getattr__ = lazy_adapter(__name__, ".dummy_rummy", _ADAPTER)


__all__ = ["DummyConfig", "GameConfig", "GameState", "env", "raw_env"]
