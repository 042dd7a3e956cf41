"""Dummy rummy as a PettingZoo AEC environment (``dummy_rummy_v0``).

Contract rummy for 2-4 players with two decks and four jokers; 2s and jokers are wild.
Rules: ``docs/rules/dummy_rummy.md``; readings of what the sheet leaves open:
``envs/dummy_rummy/readings.md``. This module is the spec: the generic adapter
(``envs/aec.py``) translates the engine (``rules.py``) and the seat view (``observer.py``).
Registered as ``commoncause/dummy_rummy-v0``.

Agents
======
``player_0`` ... ``player_{n-1}`` clockwise; ``player_0`` sits left of the first dealer and
begins the first hand; each later hand begins one seat further on (reading 9). A turn is
several steps of one agent: a draw, the steps laying the contract (``meld ...``), lay-offs,
one discard. With cut-ins on, other agents may be asked ``cutin take`` / ``cutin pass``
between a player's ``draw stock`` and the card it draws.

Actions
=======
One ``Discrete(1866)`` space with fixed ids (``actions.py``): 0 draw stock, 1 draw
discard, 2-54 discard a card type (54 = a joker), 55 / 56 cut in / pass, 57-215 lay a card
in a set of one's contract, 216-593 lay a card at a run position of one's contract (the
four natural suits or one of the five wild types), 594-1865 lay off on a meld named by its
owner counted from the acting seat and its contract group, at a run's low or high end. A
``meld`` step is legal only if the contract can still be completed this turn from the hand
(keeping a card to discard), so laying never reaches a dead end. ``legal_moves()``,
``move_to_action(text)``, ``action_to_move(id)`` speak the notation of ``notation.py``.

Observations
============
``{"observation": Box(0, 1, (1471,), float32), "action_mask": Box(0, 1, (1866,), int8)}``,
fields tabled in ``observer.py``: own hand (counts per card type), every meld on the table
with its owner, group and wild cards' places, each player's contract and whether it is
laid, points, hand sizes, cut-ins used, this hand's discard history (who discarded and who
took each card), the pile, stock size, phase and the config, seats counted from the
observer. Other hands, the stock order and later deals never reach it. The mask is all
zeros for an agent whose turn it is not. ``state()`` adds every hand and the stock
(training only).

Rewards
=======
Per seat. ``reward="points"`` (default): when a hand ends, each seat receives minus its
penalty points for the hand (3-9: 5, 10-K: 10, Ace: 15, 2 and joker: 50 each; the player
who went out 0). ``reward="win"``: +1 to the winners and -1 to the others on the step that
ends the game (reading 8). ``hands=1`` makes one hand an episode, the natural unit for
training.

Arguments
=========
``num_players`` (2-4, default 4), ``first_contract`` (1-12, default 1), ``hands`` (hands
before the game stops; default 0: the whole game), ``cut_ins`` (default False), ``reward``
("points" or "win"), ``max_moves`` (truncation, default 5,000 per episode), ``render_mode``
("ansi", "human"). ``reset(seed=...)`` shuffles reproducibly; ``reset(options={"deck":
[...]})`` deals the first hand from 108 card codes top first (each code twice, ``JK`` four
times): 13 cards one at a time from player_0 round the table, the next card turned up to
start the pile (reading 14), the rest the stock drawn in list order; later hands shuffle
from the state's own RNG, seeded by that deck.

Truncation: a hand has no natural end when nobody can finish it (late contracts, or every
contract laid and nothing fits): it goes on drawing and discarding, the pile turning into
the stock. ``max_moves`` truncates the episode (rewards 0 for the cut hand). How often random and
baseline hands hit it (``commoncause eval --game dummy_rummy --hands 1 --team random``):
see docs/results/dummy_rummy.md, "Truncation".

An illegal action raises ``IllegalMoveError`` naming the legal moves and changes nothing.

Version history
===============
* ``dummy_rummy_v0``: first version.
"""

from __future__ import annotations

from ..aec import RummyEnv, wrap
from .game import GAME


class raw_env(RummyEnv):
    """Dummy rummy; keyword options as in *Arguments* above."""

    GAME = GAME
    metadata = {**RummyEnv.metadata, "name": GAME.env_name}


def env(**kwargs) -> RummyEnv:
    """The environment with PettingZoo's order checks (``aec.wrap``)."""
    return wrap(raw_env(**kwargs))
