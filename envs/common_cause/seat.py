"""SeatView: what one player may see of a game, and their legal moves.

Every agent (random, baseline, trained policy, a person) acts on a ``SeatView`` and returns
an action id. The view reads the public table, the discard history and its own player's
hand; the partner's hand only in the open-hands variant; never the stock order or the
put-aside cards.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from ..core.seat import PileSeatView
from .actions import ACTIONS, DISCARD, DRAW_DISCARD, DRAW_STOCK, START, STARTS, SWAP
from .cards import JOKER, N_PHYSICAL, N_STANDARD
from .rules import GameConfig, GameState, Meld


class SeatView(PileSeatView):
    __slots__ = ()
    searchable = True
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

    def partner_known_cards(self) -> list[int]:
        """Card types (a joker: ``JOKER``) whose place in the partner's hand is public: top
        discards the partner took and jokers it swapped off the table, not placed or
        discarded since. Read from the public history and discard log only."""
        partner = 1 - self.player
        log = self.discard_log
        pile = [0]  # discard-log entries lying on the pile, top last
        logged = 1
        known: list[int] = []
        for p, a in self.history:
            if a == DRAW_STOCK:
                continue
            if a == DRAW_DISCARD:
                card = log[pile.pop()][0]
                if p == partner:
                    known.append(min(card, JOKER))
                continue
            info = ACTIONS[a]
            if info.kind == DISCARD:
                pile.append(logged)
                logged += 1
            if p != partner:
                continue
            for card in STARTS[info.origin].cards if info.kind == START else (info.card,):
                if card in known:
                    known.remove(card)
            if info.kind == SWAP:
                known.append(JOKER)
        return known

    def hidden_cards(self) -> tuple[list[int], list[int]]:
        """(the physical cards known to be in the partner's hand, the other cards the seat
        cannot see), both ascending, from public information: every card not in the seat's
        hand, on the table or in the discard pile is the partner's, in the stock or put
        aside. With open hands the partner's whole hand is known."""
        seen = set(self.hand)
        seen.update(self.discard_pile, self.table_cards)
        seen.update(c for m in self.melds for c in m.cards)
        unseen = [c for c in range(N_PHYSICAL) if c not in seen]
        if self.config.open_hands:
            partner = set(self.partner_hand)
            return sorted(partner), [c for c in unseen if c not in partner]
        known_types = self.partner_known_cards()
        jokers = known_types.count(JOKER)
        known = [c for c in unseen if c < N_STANDARD and c in known_types]
        known += [c for c in unseen if c >= N_STANDARD][:jokers]
        rest = [c for c in unseen if c not in known]
        return known, rest

    def sample_deals(self, rng: random.Random) -> Iterator[GameState]:
        """Games this seat may think possible, for search, without end: the unseen cards
        re-dealt uniformly at random around the partner's known cards (``hidden_cards``,
        read once for every deal; ``redeal``). Only public information decides where the
        hidden cards may go."""
        known, rest = self.hidden_cards()
        while True:
            shuffled = list(rest)
            rng.shuffle(shuffled)
            yield self.redeal(known + shuffled)

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
