"""What the pile rummies (Dummy rummy, Open Rummy) share: the deal from a first deck and the
re-deals from the state's own RNG, the stock and its refill from the discard pile, the pile
and its log, taking a card from a hand, the declared copy of it all and where each card is.

A game's ``GameState`` subclasses :class:`PileRummyState`, names its card-type table
(``TYPE_OF``), adds its own fields to ``CLONE_FIELDS`` and says where its melds are
(``_table_places``).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from .clone import COPY, COPY_EACH, RESET, SHARE, How, copy_rng

DRAW_PHASE, PLACE_PHASE = 0, 1


class PileRummyState:
    """A pile rummy in progress: ``n`` seats, ``hands``, the ``stock`` and the ``discard``
    pile (top last), the pile's ``discard_log`` ([card, who discarded it (-1: the turned-up
    card), who took it (-1: nobody yet, -2: turned into the stock)]) with ``discard_entry``
    (the log index of each pile card), the first ``deck`` and the ``rng`` that shuffles the
    later ones."""

    TYPE_OF: ClassVar[tuple[int, ...]]
    """Card type of each physical id."""
    POINTS_SIGN: ClassVar[float] = 1.0
    """-1.0 where ``totals`` are penalty points (a "points" return is minus the total)."""
    CLONE_FIELDS: ClassVar[dict[str, How]] = {
        "config": SHARE, "n": SHARE, "deck": COPY, "deck_size": SHARE, "rng": copy_rng,
        "first": SHARE, "hands": COPY_EACH, "shown": COPY_EACH, "stock_shown": SHARE,
        "stock": COPY, "discard": COPY, "discard_log": COPY_EACH,
        "discard_entry": COPY, "melds": COPY_EACH, "history": COPY, "totals": COPY,
        "turns": SHARE, "current": SHARE, "phase": SHARE, "result": SHARE,
        "_last_rewards": SHARE, "_legal": RESET,
    }  # fmt: skip
    """The shared fields and how ``clone`` copies them (``envs/core/clone``); a game adds its
    own."""

    config: Any
    melds: list

    def _begin(self, config: Any, deck: list[int], size: int, detail: str = "") -> None:
        """The fields of a game about to be dealt ``deck`` (ValueError unless it holds each
        of ``size`` physical cards once; ``detail`` follows the message)."""
        if sorted(deck) != list(range(size)):
            raise ValueError(f"a deck must hold each of the {size} physical cards once{detail}")
        self.config = config
        self.n = config.num_players
        self.deck = list(deck)
        self.deck_size = size
        self.rng = random.Random(",".join(map(str, deck)))
        self.totals = [0] * self.n
        self.history: list[tuple[int, int]] = []
        self.result: str | None = None
        self._last_rewards: tuple[float, ...] = (0.0,) * self.n

    def _deal_cards(self, deck: list[int], first: int, hand_size: int) -> None:
        """Deal ``hand_size`` cards each from ``deck``, one at a time from seat ``first``,
        turn the next card up on the pile and stack the rest as the stock; ``first`` moves
        first."""
        n = self.n
        self.first = first
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(hand_size * n):
            self.hands[(first + i) % n].append(deck[i])
        self.shown: list[set[int]] = [set() for _ in range(n)]
        """Per seat, the cards of its hand whose whereabouts are public: taken from the pile,
        drawn from a stock turned over from the pile, or taken back from the table."""
        self.stock_shown = False  # the stock is the pile turned over: its order is public
        up = deck[hand_size * n]
        self.discard: list[int] = [up]
        self.stock: list[int] = list(reversed(deck[hand_size * n + 1 :]))  # top is last
        self.discard_log: list[list[int]] = [[up, -1, -1]]
        self.discard_entry: list[int] = [0]
        self.current = first
        self.phase = DRAW_PHASE
        self._legal: list[int] | None = None

    def _deal(self, deck: list[int]) -> None:
        """Deal a hand or round from ``deck`` (``_deal_cards`` and the game's own fields)."""
        raise NotImplementedError

    def _deal_again_unless(self, over: bool) -> None:
        """After a deal is scored: end the game if ``over`` (paying the "win" rewards),
        else deal again from a deck the state's RNG shuffles."""
        if over:
            self.result = "over"
            if self.config.reward == "win":
                self._last_rewards = self.returns()
            return
        deck = list(range(self.deck_size))  # (a sampled copy's ``deck`` is cleared)
        self.rng.shuffle(deck)
        self._deal(deck)

    def winners(self) -> list[int]:
        """The seats that won (all tied at the best total)."""
        raise NotImplementedError

    def returns(self) -> tuple[float, ...]:
        """Per seat: the points total times ``POINTS_SIGN`` ("points"), or +1 / -1 for
        winning or not once the game is over ("win")."""
        if self.config.reward == "points":
            sign = self.POINTS_SIGN
            return tuple(sign * t for t in self.totals)
        if self.result is None:
            return (0.0,) * self.n
        winners = self.winners()
        return tuple(1.0 if s in winners else -1.0 for s in range(self.n))

    @property
    def num_seats(self) -> int:
        return self.n

    @property
    def is_terminal(self) -> bool:
        return self.result is not None

    def rewards(self) -> tuple[float, ...]:
        """Per-seat rewards earned by the last move (their sum over a game is ``returns``)."""
        return self._last_rewards

    def top_discard(self) -> int:
        return self.discard[-1] if self.discard else -1

    def hand_types(self, seat: int) -> list[int]:
        return [self.TYPE_OF[c] for c in self.hands[seat]]

    # ----------------------------------------------------------------------------------
    # cards moving
    TAKE_NEWEST: ClassVar[bool] = False
    """Which copy of a card type leaves a hand among those alike: the one held longest, or
    (True) the one that came last."""

    def _take(self, p: int, t: int) -> int:
        """Take a card of type ``t`` out of player ``p``'s hand, to the table or the pile.

        Copies of a type look alike, so which physical copy goes public must tell nothing
        of the hidden cards: a copy whose whereabouts are already public (``shown``) goes
        first, else a hidden one; among those alike, the one held longest (``TAKE_NEWEST``:
        the one that came last)."""
        hand, type_of = self.hands[p], self.TYPE_OF
        shown = self.shown[p]
        if shown:
            public = [c for c in shown if type_of[c] == t]
            if public:
                if len(public) > 1:  # in hand order (public: each came in sight of all)
                    public = [c for c in hand if c in public]
                card = public[-1] if self.TAKE_NEWEST else public[0]
                shown.remove(card)
                hand.remove(card)
                return card
        if self.TAKE_NEWEST:
            for i in range(len(hand) - 1, -1, -1):
                if type_of[hand[i]] == t:
                    return hand.pop(i)
        else:
            for i, c in enumerate(hand):
                if type_of[c] == t:
                    return hand.pop(i)
        raise AssertionError(f"player {p} holds no {t}")

    def _to_hand(self, p: int, card: int) -> None:
        """Player ``p`` takes ``card`` in sight of all (from the pile or the table)."""
        self.hands[p].append(card)
        self.shown[p].add(card)

    def _take_top(self, p: int) -> None:
        """Player ``p`` takes the top discard."""
        card = self.discard.pop()
        entry = self.discard_entry.pop()
        self.discard_log[entry][2] = p
        self._to_hand(p, card)

    def _put_on_pile(self, p: int, card: int) -> None:
        """Player ``p`` puts ``card`` on the discard pile."""
        self.discard.append(card)
        self.discard_entry.append(len(self.discard_log))
        self.discard_log.append([card, p, -1])

    def _draw_from_stock(self, p: int) -> bool:
        """One card from the stock; an empty stock is refilled from the pile under its top
        card, oldest first (Dummy rummy reading 7, Open Rummy reading 13). False when there
        is no card at all."""
        if not self.stock:
            if len(self.discard) <= 1:
                return False
            self.stock = list(reversed(self.discard[:-1]))
            for entry in self.discard_entry[:-1]:
                self.discard_log[entry][2] = -2  # turned into the stock
            self.discard = self.discard[-1:]
            self.discard_entry = self.discard_entry[-1:]
            self.stock_shown = True
        if self.stock_shown:
            self._to_hand(p, self.stock.pop())
        else:
            self.hands[p].append(self.stock.pop())
        return True

    # ----------------------------------------------------------------------------------
    def _table_places(self) -> list[tuple[str, list[int]]]:
        """(name, physical cards) of each meld on the table."""
        raise NotImplementedError

    def locations(self) -> dict[int, str]:
        """Where each physical card is (for conservation checks)."""
        where: dict[int, str] = {}
        places = [(f"hand{s}", h) for s, h in enumerate(self.hands)]
        places += [("stock", self.stock), ("discard", self.discard), *self._table_places()]
        for name, cards in places:
            for c in cards:
                if c in where:
                    raise AssertionError(f"card {c} is both in {where[c]} and {name}")
                where[c] = name
        return where
