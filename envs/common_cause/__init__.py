"""Common Cause: rules engine (``rules``), seat view (``observer``), move notation
(``notation``) and the PettingZoo AEC environment ``common_cause_v0``.

>>> from envs.common_cause import env
>>> e = env(level="normal", render_mode="ansi")

Also registered with PettingZoo's registry once this package is imported:
``pettingzoo.make("aec", "commoncause/common_cause-v0", level="hard")``.
"""

from .common_cause import env, raw_env
from .rules import LEVELS, GameConfig, GameState, IllegalMoveError

ENV_ID = "commoncause/common_cause-v0"


def _register() -> None:
    import pettingzoo

    if ENV_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", ENV_ID, entry_point="envs.common_cause:env")


_register()

__all__ = ["ENV_ID", "LEVELS", "GameConfig", "GameState", "IllegalMoveError", "env", "raw_env"]
