"""Common Cause as a PettingZoo AEC environment (``common_cause_v0``).

A cooperative rummy for two: the partners win or lose together against the stock, every
meld needs cards from both of them, and a discard is the only message. Rules:
``docs/rules/common_cause.md``; readings of what the sheet leaves open:
``envs/common_cause/readings.md``. This module is the spec: the generic adapter (``envs/aec.py``)
translates the engine (``rules.py``) and the seat view (``observer.py``) to the PettingZoo
API. Registered as ``commoncause/common_cause-v0``.

Agents
======
==========  =====================================================================
agent       role
==========  =====================================================================
player_0    begins
player_1    partner
==========  =====================================================================

A turn is several steps by the same agent: one draw, any number of placements, one discard
(none if the hand is empty); ``agent_selection`` changes only when the turn passes.

Actions
=======
One ``Discrete(4445)`` space with fixed ids (``actions.py``): 0 draw stock, 1 draw discard,
2-54 discard a card type (54 = a joker), 55-232 lay an open start, 233-754 complete the
partner's start, 755-3188 lay off on a complete meld, 3189-4444 swap a joker. A meld is
named by the start it grew from. ``legal_moves()``, ``move_to_action(text)`` and
``action_to_move(id)`` speak the move notation (``notation.py``).

Observations
============
``{"observation": Box(0, 1, (1202,), float32), "action_mask": Box(0, 1, (4445,), int8)}``.
The fields of ``observation`` are tabled in ``observer.py``: own hand, both players' open
starts, complete melds with joker stand-ins, the whole discard history in order (who
discarded each card, whether it was taken), stock size, partner's hand size, phase, level
and variant flags. The partner's hand (except in the open-hands variant), the stock order
and the put-aside cards never reach it. The mask is all zeros for an agent whose turn it is
not. ``state()`` returns every card (training only, e.g. for a centralised critic).

Rewards
=======
Identical for both agents, given on the step that ends the game: +1 for a win, -1 for a
loss, 0 otherwise (also 0 when the ``max_moves`` safety net truncates a game).

Arguments
=========
``level`` ("full" 33, "easy", "normal" 22 (default), "hard": stock sizes in
``rules.LEVELS``), ``stock_size`` (0-33, overrides level), ``open_hands``, ``ace_low``,
``max_open_starts`` (2, or 3 for the variant), ``early_loss`` (end the game as soon as an
open start is publicly dead), ``signal_rule`` (a player holding a card that completes their
own open start must discard one), ``max_moves`` (truncation), ``render_mode`` ("ansi",
"human"). ``reset(seed=...)`` shuffles reproducibly; ``reset(options={"deck": [...]})``
deals 54 card codes top first: cards 1-20 alternately from player_0, card 21 turned up,
the next 33 - stock size put aside, the rest is the stock in order.

An illegal action raises ``IllegalMoveError`` (a ValueError) naming the move and the legal
ones, and changes nothing; wrap with PettingZoo's ``TerminateIllegalWrapper`` to end the
game with a penalty instead (it gives the offender ``illegal_reward`` and the partner 0).

Version history
===============
* ``common_cause_v0``: first version. (The move to the shared adapter changed no space,
  observation or reward; ``infos`` at the end also carry ``outcome``, the result in words.)
"""

from __future__ import annotations

from ..aec import RummyEnv, wrap
from .game import GAME


class raw_env(RummyEnv):
    """Common Cause; keyword options as in *Arguments* above."""

    GAME = GAME
    metadata = {**RummyEnv.metadata, "name": GAME.env_name}


def env(**kwargs) -> RummyEnv:
    """The environment with PettingZoo's order checks (``aec.wrap``)."""
    return wrap(raw_env(**kwargs))
