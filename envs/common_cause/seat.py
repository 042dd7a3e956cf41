"""SeatView: what one player may see of a game, and their legal moves.

Every agent (random, baseline, trained policy, a person) acts on a ``SeatView`` and returns
an action id. The view reads the public table, the discard history and its own player's
hand; the partner's hand only in the open-hands variant; never the stock order or the
put-aside cards.
"""

from __future__ import annotations

from ..core.seat import PileSeatView
from .rules import GameConfig, GameState, Meld


class SeatView(PileSeatView):
    __slots__ = ()
    _state: GameState

    # --- own cards and the public table ---------------------------------------
    @property
    def config(self) -> GameConfig:
        return self._state.config

    @property
    def hand(self) -> list[int]:
        """Own hand (physical ids; jokers are 52 and 53). Read-only."""
        return self._state.hands[self.player]

    @property
    def partner_hand(self) -> list[int]:
        if not self._state.config.open_hands:
            raise PermissionError("the partner's hand is hidden (only open hands shows it)")
        return self._state.hands[1 - self.player]

    @property
    def partner_hand_size(self) -> int:
        return len(self._state.hands[1 - self.player])

    @property
    def my_starts(self) -> list[int]:
        return self._state.starts[self.player]

    @property
    def partner_starts(self) -> list[int]:
        return self._state.starts[1 - self.player]

    @property
    def melds(self) -> list[Meld]:
        """Complete melds on the table (read-only)."""
        return self._state.melds

    @property
    def table_cards(self) -> set[int]:
        """The real cards on the table, in open starts and melds (read-only)."""
        return self._state.table_cards

    @property
    def pending(self) -> int:
        """The taken discard still to be placed this turn, or -1."""
        return self._state.pending if self._state.current == self.player else -1

    @property
    def pickups(self) -> int:
        """Turns that took the top discard."""
        return self._state.pickups

    def redeal(self, hidden: list[int]) -> GameState:
        """A copy of the game in which the cards this seat cannot see (the partner's hand,
        the stock, the put-aside cards, in that order) are ``hidden``: a deal the seat
        thinks possible, for search (``GameState.redeal``)."""
        return self._state.redeal(self.player, hidden)

    # --- what screens draw ------------------------------------------------------
    def _discard_entry(self, code: str, who: int, took: int) -> dict:
        return {"card": code, "by": who, "taken": bool(took), "reshuffled": False}

    def table(self) -> dict:
        """The table as this seat sees it (see ``core.seat.SeatView.table``): the complete
        melds, then each player's open starts."""
        from .cards import card_code, sort_key
        from .notation import meld_text, start_text

        seat, n = self.player, self.num_seats
        own = sorted(self.hand, key=sort_key)
        return {
            "hand": [card_code(c) for c in own],
            "hand_sizes": [len(own) if p == seat else self.partner_hand_size for p in range(n)],
            "open_hands": [  # the partner's hand in the open-hands variant
                [card_code(c) for c in sorted(self.partner_hand, key=sort_key)]
                if p != seat and self.config.open_hands
                else None
                for p in range(n)
            ],
            **self._pile_table(card_code),
            "sections": [
                {
                    "label": "Complete melds",
                    "seat": None,
                    "items": [meld_text(m) for m in self.melds],
                },
                *(
                    {
                        "label": "open starts",
                        "seat": p,
                        "items": [
                            start_text(s)
                            for s in (self.my_starts if p == seat else self.partner_starts)
                        ],
                    }
                    for p in range(n)
                ),
            ],
        }

    def menu_order(self, legal: list[int]) -> list[int]:
        """Draws, completions, lay-offs, swaps, open starts, discards; by card within."""
        from .actions import ACTIONS, COMPLETE, DISCARD, DRAW, LAYOFF, START, STARTS, SWAP
        from .cards import JOKER, sort_key

        kinds = {DRAW: 0, COMPLETE: 1, LAYOFF: 2, SWAP: 3, START: 4, DISCARD: 5}

        def key(action: int) -> tuple:
            info = ACTIONS[action]
            if info.kind == DRAW:
                return (0, action)
            card = STARTS[info.origin].cards[0] if info.kind == START else info.card
            return (kinds[info.kind], sort_key(min(card, JOKER)), info.origin, action)

        return sorted(legal, key=key)

    def rules_text(self) -> str:
        return RULES

    def move_examples(self) -> str:
        return (
            "discard kd, start 7h 7s,\n    complete 4c 5c with jk as 6c, layoff 7c on 4c 5c 6c, "
            "swap 6c on 4c 5c jk(6c)\n  - or type the start of it: 'disc kd', 'dr s' or "
            "'start 7h' are enough"
        )

    def _make_observer(self):
        from .observer import Observer

        return Observer(self.player)


RULES = """\
Common Cause in short: you and your partner win or lose together, against the stock.
  - A meld is a set (3-4 cards of one rank) or a run (3+ cards of one suit in sequence;
    the Ace low or high, never K-A-2). The two jokers are wild.
  - Nobody melds alone: you lay an open start of two cards (a pair, neighbours, or one gap;
    no joker; at most two on the table), and only your partner may complete it with a
    third card (or a joker). Then it is a complete meld: either of you may lay off on it,
    or swap a joker out of it with the real card it stands for.
  - Your turn: draw (the stock, or the top discard only if you place it this turn), place
    what you like, then discard one card. With an empty hand you skip the discard.
  - No talking: your discards are your messages. Discarding the card that completes your
    own open start offers it to your partner without using up the stock.
  - You win when both hands are empty and no open start is left. You lose when a player
    must draw from an empty stock and cannot place the top discard."""
