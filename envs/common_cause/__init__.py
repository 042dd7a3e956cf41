"""Common Cause: rules engine (``rules``), seat view (``seat``, ``observer``), move notation
(``notation``), baseline (``baseline``), its house record (``game``) and the PettingZoo AEC
environment ``common_cause_v0`` (``common_cause``).

>>> from commoncause.envs.common_cause import env
>>> e = env(level="normal", render_mode="ansi")

The engine modules import no RL library; the PettingZoo adapter (which brings gymnasium and
pettingzoo) loads only when ``env`` or ``raw_env`` is first used.
``pettingzoo.make("aec", "commoncause/common_cause-v0", level="hard")`` works whichever of
pettingzoo and this package is imported first (``envs/registry.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.game import lazy_adapter
from .rules import LEVELS, GameConfig, GameState, IllegalMoveError

if TYPE_CHECKING:
    from .common_cause import env, raw_env

ENV_ID = "commoncause/common_cause-v0"
_ADAPTER = ("env", "raw_env")


__getattr__ = lazy_adapter(__name__, ".common_cause", _ADAPTER)


def __dir__() -> list[str]:
    return sorted([*globals(), *_ADAPTER])


__all__ = ["ENV_ID", "LEVELS", "GameConfig", "GameState", "IllegalMoveError", "env", "raw_env"]
