"""Open Rummy as a PettingZoo AEC environment (``open_rummy_v0``).

Rummy for 2-8 players with two decks and jokers (wild), played to 300 points: points are
earned by placing cards on the table and lost for the cards left in hand when a player goes
out. Rules: ``docs/rules/open_rummy.md``; readings of what the sheet leaves open:
``envs/open_rummy/readings.md``. This module is the spec: the generic adapter
(``envs/aec.py``) translates the engine (``rules.py``) and the seat view (``observer.py``).
Registered as ``commoncause/open_rummy-v0``.

Agents
======
``player_0`` ... ``player_{n-1}`` clockwise; ``player_0`` sits left of the first dealer and
begins the first round; each later round begins one seat further on (reading 10). A turn is
several steps of one agent: a draw (or, at a round's start, a card swap that is the whole
turn), the steps laying new melds (``meld ...``, three cards each), lay-offs and joker
steals, one discard.

Actions
=======
One ``Discrete(5777)`` space with fixed ids (``actions.py``): 0 draw stock, 1 draw discard,
2-54 discard a card type (54 = a joker), 55-107 card swap (give that card type, take the
top discard), 108-160 lay a card in a new set, 161-212 lay a natural card in a new run,
213-264 lay a joker in a new run standing for a named card, 265-3072 lay off on a meld slot
(a natural card, or a joker at a run's low or high end), 3073-5776 steal the joker from a
meld slot with a named natural card. A meld slot is the order in which melds were begun
this round (at most 52). A ``meld`` step is legal only if the meld can still be completed
from the hand (keeping a card to discard), so laying never reaches a dead end.
``legal_moves()``, ``move_to_action(text)``, ``action_to_move(id)`` speak the notation of
``notation.py``.

Observations
============
``{"observation": Box(0, 1, (4498,), float32), "action_mask": Box(0, 1, (5777,), int8)}``,
fields tabled in ``observer.py``: own hand (counts per card type), every meld on the table
with its owner and jokers' stand-ins, closed sets, each player's points, points placed this
round, whether they have laid a meld this round, hand sizes, this round's discard history
(who discarded and who took each card), the pile, stock size, phase, the card-swap chain,
whether the top discard is blocked, and the config; seats counted from the observer. Other
hands, the stock order and later deals never reach it. The mask is all zeros for an agent
whose turn it is not. ``state()`` adds every hand and the stock (training only).

Rewards
=======
Per seat. ``reward="points"`` (default): the points a move places go to the mover on that
step (2-9: 5, 10-K: 10, Ace: 15; a joker as the card it stands for; a card put in a joker's
place nothing); when a round ends each seat receives minus the points left in its hand
(a joker: 30). Over a round a seat's rewards sum to its point change for the round, and
over a game to its total (``returns()``). ``reward="win"``: +1 to the winners and -1 to the
others on the step that ends the game (reading 12). ``rounds=1`` makes one round an
episode, the natural unit for training.

Arguments
=========
``num_players`` (2-8, default 4), ``target`` (points that win, default 300), ``rounds``
(rounds before the game stops; default 0: play to the target), ``jokers`` (0-4, default 4),
``card_swap`` (default True), ``reward`` ("points" or "win"), ``max_moves`` (truncation,
default 5,000 per episode), ``render_mode`` ("ansi", "human"). ``reset(seed=...)`` shuffles
reproducibly; ``reset(options={"deck": [...]})`` deals the first round from 104 + ``jokers``
card codes top first (each code twice, ``JK`` ``jokers`` times): 13 cards (12 at eight
players) one at a time from player_0 round the table, the next card turned up, the rest the
stock drawn in list order; later rounds shuffle from the state's own RNG, seeded by that
deck.

Truncation: a round ends when a player discards their last card, or, with nobody out
(reading 13), when no card is left to draw (the stock and the pile under its top card are
empty) or when a discard leaves a dead round (no hand holds more than two cards and no meld
on the table can take another card). A round nobody went out of is scored but wins nothing:
the game goes on (reading 12). Nothing else forces a round to end: once everyone has laid
and nothing fits, a hand can cycle through the stock for ever. ``max_moves`` truncates the
episode, counting the moves of every round (the cut round is not scored). Measured with
``rounds=1``, 4 players: neither random play (1,000 rounds) nor the baseline (400 rounds)
reached 5,000 moves; whole games: see ``readings.md``.

An illegal action raises ``IllegalMoveError`` naming the legal moves and changes nothing.

Version history
===============
* ``open_rummy_v0``: first version.
"""

from __future__ import annotations

from ..aec import RummyEnv, wrap
from .game import GAME


class raw_env(RummyEnv):
    """Open Rummy; keyword options as in *Arguments* above."""

    GAME = GAME
    metadata = {**RummyEnv.metadata, "name": GAME.env_name}


def env(**kwargs) -> RummyEnv:
    """The environment with PettingZoo's order checks (``aec.wrap``)."""
    return wrap(raw_env(**kwargs))
