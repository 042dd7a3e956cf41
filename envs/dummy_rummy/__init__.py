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

import importlib
from typing import TYPE_CHECKING, Any

from .rules import DummyConfig, GameState

if TYPE_CHECKING:
    from .dummy_rummy import env, raw_env

_ADAPTER = ("env", "raw_env")


def __getattr__(name: str) -> Any:
    if name in _ADAPTER:
        return getattr(importlib.import_module(".dummy_rummy", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DummyConfig", "GameState", "env", "raw_env"]
