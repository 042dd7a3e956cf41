"""Common Cause: rules engine (``rules``), seat view (``observer``), move notation
(``notation``) and the PettingZoo AEC environment ``common_cause_v0``.

>>> from envs.common_cause import env
>>> e = env(level="normal", render_mode="ansi")

The engine modules import no RL library; the PettingZoo adapter (``common_cause.py``, which
brings gymnasium and pettingzoo) loads only when ``env`` or ``raw_env`` is first used, and
then registers itself with PettingZoo's registry:
``pettingzoo.make("aec", "commoncause/common_cause-v0", level="hard")``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .rules import LEVELS, GameConfig, GameState, IllegalMoveError

ENV_ID = "commoncause/common_cause-v0"
_ADAPTER = ("env", "raw_env")


def __getattr__(name: str) -> Any:
    if name in _ADAPTER:
        adapter = importlib.import_module(".common_cause", __name__)
        return getattr(adapter, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ENV_ID", "LEVELS", "GameConfig", "GameState", "IllegalMoveError", "env", "raw_env"]
