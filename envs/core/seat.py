"""SeatView: the only door through which an agent, a screen or a web response sees a game.

A game's seat view subclasses :class:`SeatView` and adds what its player may read (own hand,
the table, the discard history, sizes of hidden hands); it never exposes hidden cards.

Screens (the terminal, a browser) draw a game only from its seat view: ``table()`` gives the
table as plain data every screen can draw (the generic keys plus the game's own ``sections``
of labelled lines), ``menu_order(legal)`` the order of the move menu, ``rules_text()`` and
``move_examples()`` the words of ``play``'s ``rules`` and ``help``. A game overrides them in its
own ``seat.py``; nothing above ``envs/`` keeps a table per game.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np


class SeatView:
    """One seat's view of a game in progress."""

    __slots__ = ("_state", "player", "_observer")

    searchable: ClassVar[bool] = False
    """Whether ``sample_deals`` re-deals what this seat cannot see (the search agent plays
    only such games)."""

    def __init__(self, state: Any, player: int, observer: Any = None) -> None:
        self._state = state
        self.player = player
        self._observer = observer

    @property
    def seat(self) -> int:
        return self.player

    @property
    def config(self) -> Any:
        return self._state.config

    @property
    def num_seats(self) -> int:
        return self._state.num_seats

    @property
    def current(self) -> int:
        """The seat to act."""
        return self._state.current

    @property
    def is_my_turn(self) -> bool:
        return self._state.current == self.player and not self._state.is_terminal

    @property
    def is_over(self) -> bool:
        return self._state.is_terminal

    @property
    def turns(self) -> int:
        return self._state.turns

    @property
    def history(self) -> list[tuple[int, int]]:
        """(seat, action) of every move so far (all public)."""
        return self._state.history

    def outcome(self) -> str:
        return self._state.outcome()

    def returns(self) -> tuple[float, ...]:
        return self._state.returns()

    def legal_actions(self) -> list[int]:
        """Own legal action ids (empty when it is not this seat's turn)."""
        return self._state.legal_actions() if self.is_my_turn else []

    # --- what screens draw ------------------------------------------------------
    def table(self) -> dict[str, Any]:
        """The table as this seat sees it, as JSON-ready data every screen can draw:

        * ``hand``: own card codes in hand order; ``hand_sizes``: cards held per seat;
          ``open_hands``: per seat the codes of another hand this seat may see, else None;
        * ``stock``: cards in the stock (None: no stock);
        * ``discards``: the discard history, oldest first, ``{"card", "by" (seat, -1 the
          deal), "taken" (taken from the pile), "reshuffled" (turned into the stock)}``;
          ``discard_top``: the code of the top discard or None;
        * ``sections``: the game's own lines, each ``{"label": str, "seat": int | None,
          "items": [str]}`` (drawn as bracketed groups, ``none`` when empty) or with
          ``"text": str`` instead of items; a seat's sections are drawn under its name
          (``Your open starts``), the others (``seat`` None) first as they come.

        This default knows no cards: a game's seat view overrides it."""
        n = self.num_seats
        return {
            "hand": [],
            "hand_sizes": [0] * n,
            "open_hands": [None] * n,
            "stock": None,
            "discards": [],
            "discard_top": None,
            "sections": [],
        }

    def menu_order(self, legal: list[int]) -> list[int]:
        """Legal action ids in the order a move menu lists them (default: by id)."""
        return sorted(legal)

    def hand_ends(self) -> list[dict[str, Any]]:
        """Every finished hand (round) of a game played over several, as public data once
        that hand is over (rummy scoring shows every hand's cards left then): ``{"title":
        "Hand 1 of 3", "out": the seat that went out (None: nobody), "left": per seat the
        codes of the cards left in its hand, "points": per seat what the hand scored,
        "points_label": what those points are}``, taken from the engine's own scoring.
        Default: none (a game of one hand says its result in ``outcome``)."""
        return []

    def rules_text(self) -> str:
        """A short summary of the rules for people (``play``'s ``rules`` command)."""
        return ""

    def move_examples(self) -> str:
        """Examples of typed moves for ``play``'s help, e.g. ``discard kd, draw stock``."""
        return ""

    def sample_deals(self, rng: random.Random, *belief: Any) -> Iterator[Any]:
        """Games this seat may think possible, the hidden cards re-dealt (for search); a
        game whose view is ``searchable`` implements it."""
        raise NotImplementedError(f"{type(self).__name__} cannot sample deals")

    def observation(self) -> np.ndarray:
        """The numeric observation of this seat (the game's observer)."""
        if self._observer is None:
            self._observer = self._make_observer()
        return self._observer.encode(self._state)

    def _make_observer(self) -> Any:
        raise NotImplementedError("a game's seat view says which observer it uses")


def hand_end(
    title: str, out: int, left: Any, points: Any, label: str, type_of: Any
) -> dict[str, Any]:
    """One ``SeatView.hand_ends`` entry from an engine's record of a finished hand: ``out``
    the seat that went out (-1: nobody), ``left`` per seat the physical cards left in its
    hand, ``type_of`` a physical id's card type (the codes sorted by suit and rank)."""
    from .cards import card_code, sort_key

    return {
        "title": title,
        "out": None if out < 0 else out,
        "left": [[card_code(t) for t in sorted(map(type_of, hand), key=sort_key)] for hand in left],
        "points": list(points),
        "points_label": label,
    }


class PileSeatView(SeatView):
    """A seat view of a game played from a stock and a discard pile (``state.stock``,
    ``state.discard``, ``state.discard_log``, ``state.phase``)."""

    __slots__ = ()

    @property
    def discard_pile(self) -> list[int]:
        """Physical ids of the pile, top last (read-only)."""
        return self._state.discard

    @property
    def discard_log(self) -> list[list[int]]:
        """The discards in order: [card, who (-1 turned up at the deal), taken] (a game
        says what ``taken`` holds: a flag, or the seat that took it, -1 none, -2 turned
        into the stock)."""
        return self._state.discard_log

    @property
    def stock_size(self) -> int:
        return len(self._state.stock)

    @property
    def phase(self) -> int:
        return self._state.phase

    def _discard_entry(self, code: str, who: int, took: int) -> dict[str, Any]:
        """One ``table()["discards"]`` entry from a discard-log row: ``took`` is the seat
        that took the card from the pile, -1 none, -2 turned into the stock."""
        return {"card": code, "by": who, "taken": took >= 0, "reshuffled": took == -2}

    def _pile_table(self, code: Any) -> dict[str, Any]:
        """``table()``'s ``stock``, ``discards`` and ``discard_top``; ``code`` names a
        physical card."""
        return {
            "stock": self.stock_size,
            "discards": [
                self._discard_entry(code(c), who, took) for c, who, took in self.discard_log
            ],
            "discard_top": code(self.discard_pile[-1]) if self.discard_pile else None,
        }


class HandsAndStockSeatView(PileSeatView):
    """A seat view of a pile game whose hidden cards are the other hands and the stock
    (``state.hands``, ``state.stock``, melds on ``state.melds`` with ``physical()`` cards,
    the discard log's ``taken`` a seat), and which search may re-deal (``sample_deals``)."""

    __slots__ = ()
    searchable = True

    def known_cards(self) -> dict[int, list[int]]:
        """Per other seat, the physical cards publicly known to be in its hand (the state's
        ``shown``: taken from the pile, drawn from a stock turned over from the pile, or
        taken back from the table, and not laid or discarded since), in the order they came
        (public too, as each came in sight of all)."""
        state = self._state
        return {
            s: [c for c in state.hands[s] if c in state.shown[s]]
            for s in range(self.num_seats)
            if s != self.player
        }

    def _visible(self) -> set[int]:
        """Physical cards this seat sees: its hand, the pile and the table."""
        visible = set(self._state.hands[self.player])
        visible.update(self.discard_pile)
        visible.update(c for m in self._state.melds for c in m.physical())
        return visible

    def sample_deals(
        self, rng: random.Random, barred: dict[int, set[int]] | None = None
    ) -> Iterator[Any]:
        """Games this seat may think possible, for search, without end: copies in which the
        cards it cannot see are dealt at random into the other hands (keeping
        ``known_cards`` where they are, and every hand's size) and the stock. A stock
        turned over from the pile (the state's ``stock_shown``) is public, in its order,
        and stays as it is. Only public information decides where the hidden cards may go
        (read once, for every deal); each copy's deck is cleared and its later deals are
        shuffled anew.

        ``barred`` (a belief: an opponent model's reading of the play) names, per other
        seat, physical cards it does not hold: those seats are dealt first, most barred
        first, from the other hidden cards (from any, once those run out)."""
        state = self._state
        visible = self._visible()
        known = self.known_cards()
        sizes = [len(h) for h in state.hands]
        refilled = state.stock_shown
        stock = list(state.stock) if refilled else []
        fixed = visible.union(*known.values(), stock)
        total = sum(sizes) + self.stock_size + len(visible) - sizes[self.player]
        hidden = [c for c in range(total) if c not in fixed]
        barred = barred or {}
        order = sorted(known, key=lambda s: -len(barred.get(s, ())))
        while True:
            pool = list(hidden)
            rng.shuffle(pool)
            new = state.clone()
            for seat in order:
                take = sizes[seat] - len(known[seat])
                out = barred.get(seat)
                if out:  # the allowed cards first (a stable sort: still in random order)
                    pool.sort(key=lambda c: c in out)
                new.hands[seat] = known[seat] + pool[:take]
                pool = pool[take:]
                if out:
                    rng.shuffle(pool)
            new.stock = list(stock) if refilled else pool
            new.deck = []
            new.rng = random.Random(rng.randrange(2**32))
            yield new
