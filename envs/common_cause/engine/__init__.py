"""Common Cause's compiled engine: the rules, one seat's observation and the default
baseline in C (``engine.c``), for the training view's hot path.

A second implementation, not the reference: ``rules.py``, ``observer.py`` and
``baseline.py`` are. The tables the C code reads (action ids, open starts, completions,
lay-offs, swaps, the observation's field offsets) come from them (:func:`tables`); the
scalars' layout and scales are written in engine.c as observer.py writes them.
``tests/games/common_cause/test_engine_differential.py`` plays thousands of random games
through both and demands the same legal moves, observations of both seats, baseline moves
and results at every step. :func:`new_state` gives a
:class:`~.state.CompiledState` where the extension was built (``make install``) and the
config is one it plays (every level and variant but ``early_loss``), else None: always with
``COMMONCAUSE_PURE_PYTHON`` set (the extension does not import then,
``commoncause/compiled.py``), and where the build is older than its C sources or than the
Python modules it follows (it warns: ``make install`` builds it again).
"""

from __future__ import annotations

from pathlib import Path

from ...core.builds import fresh
from .. import actions, baseline, observer
from ..rules import GameConfig

try:
    from . import state
except ImportError:  # not built, or pure Python: the Python engine runs
    state = None

SOURCES = ("state.pyx", "engine.c", "engine.h")
"""The extension's own files, in this folder (setup.py reads this literal to build it)."""
FOLLOWS = ("actions", "baseline", "observer", "rules")
"""The modules of ``envs/common_cause/`` the C engine is a second implementation of (the
extension is rebuilt, and a stale one set aside, when one of them changes)."""


def _fresh(built: str) -> bool:
    """Whether the extension ``built`` is at least as new as everything it was made from."""
    here = Path(__file__).parent
    sources = [here / name for name in SOURCES]
    return fresh(built, sources + [here.parent / f"{module}.py" for module in FOLLOWS])


def tables() -> dict:
    """Everything engine.c reads, from the Python modules that define it."""
    starts, completions = actions.STARTS, actions.COMPLETIONS
    return {
        "kind": [a.kind for a in actions.ACTIONS],
        "card": [a.card for a in actions.ACTIONS],
        "origin": [a.origin for a in actions.ACTIONS],
        "stands_for": [a.stands_for for a in actions.ACTIONS],
        "position": [a.position for a in actions.ACTIONS],
        "start_cards": [s.cards for s in starts],
        "start_kind": [s.kind for s in starts],
        "start_suit": [s.suit for s in starts],
        "start_rank": [s.rank for s in starts],
        "start_positions": [s.positions for s in starts],
        "kind_bonus": baseline._KIND_BONUS,
        "completions": [[(aid, card, pos) for aid, card, _, pos in c] for c in completions],
        "start_lookup": actions.START_LOOKUP,
        "layoff_real": [[t.get((c, -1), -1) for c in range(52)] for t in actions.LAYOFFS],
        "layoff_joker": [
            [t.get((actions.JOKER, c), -1) for c in (*range(52), -1)] for t in actions.LAYOFFS
        ],
        "swap": [[t.get(c, -1) for c in range(52)] for t in actions.SWAPS],
        "discard_base": actions.DISCARD_BASE,
        "start_base": actions.START_BASE,
        "complete_base": actions.COMPLETE_BASE,
        "offsets": observer.OFFSET,
        "obs_size": observer.OBS_SIZE,
        "recent": observer.RECENT,
        "recent_width": observer.RECENT_WIDTH,
    }


ENABLED = state is not None and _fresh(state.__file__)
"""Whether :func:`new_state` plays games in C."""
if ENABLED:
    state.load_tables(tables())


def new_state(config: GameConfig, deck: list[int]) -> state.CompiledState | None:
    """The deal ``deck`` in the compiled engine, or None (not built, pure Python, or
    ``early_loss``, which it does not play)."""
    if not ENABLED or config.early_loss:
        return None
    return state.CompiledState(config, deck)
