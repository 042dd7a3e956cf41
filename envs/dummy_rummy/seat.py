"""SeatView of Dummy rummy: own hand, the table, the discard history and every player's
public facts (contracts, points, hand sizes); never another hand or the stock order."""

from __future__ import annotations

from ..core.seat import HandsAndStockSeatView
from .actions import (
    KIND_CUTIN_PASS,
    KIND_CUTIN_TAKE,
    KIND_DISCARD,
    KIND_DRAW_DISCARD,
    KIND_DRAW_STOCK,
    KIND_LAYOFF,
    KIND_RUN_MELD,
    KIND_SET_MELD,
    Contract,
    decode,
)
from .rules import GameConfig, GameState, TableMeld

_MENU_PLACE = {
    KIND_DRAW_STOCK: 0, KIND_DRAW_DISCARD: 0, KIND_CUTIN_TAKE: 1, KIND_CUTIN_PASS: 1,
    KIND_SET_MELD: 2, KIND_RUN_MELD: 2, KIND_LAYOFF: 3, KIND_DISCARD: 4,
}  # fmt: skip
"""Where each kind of move stands in the menu."""


class SeatView(HandsAndStockSeatView):
    __slots__ = ()
    _state: GameState

    @property
    def config(self) -> GameConfig:
        return self._state.config

    @property
    def hand(self) -> list[int]:
        """Own hand as card types (read-only)."""
        return self._state.hand_types(self.player)

    def hand_size(self, seat: int) -> int:
        return len(self._state.hands[seat])

    def contract(self, seat: int) -> Contract:
        return self._state.contract_of(seat)

    def contract_index(self, seat: int) -> int:
        """0-11; 12 once all twelve are done."""
        return self._state.contract[seat]

    def laid(self, seat: int) -> bool:
        return self._state.laid[seat]

    @property
    def building(self) -> bool:
        """This player has begun laying the contract this turn (only meld steps follow)."""
        return self.is_my_turn and self._state.building

    @property
    def melds(self) -> list[TableMeld]:
        return self._state.melds

    @property
    def totals(self) -> list[int]:
        return self._state.totals

    @property
    def hand_no(self) -> int:
        return self._state.hand_no

    def laid_off_all(self, seat: int) -> int:
        """The move (history index) of the seat's last discard this hand, made once it
        could lay off; -1 if none (``GameState.laid_off_all``: public play)."""
        return self._state.laid_off_all(seat)

    def fitted_table(self, move: int) -> list[int]:
        """The card types that fitted some meld on the table before history move ``move``
        of this hand (public: the table's past)."""
        return self._state.fitted_table(move)

    def playable(self, card_type: int) -> bool:
        """Whether this player could lay the card off now."""
        return self._state.playable(self.player, card_type)

    # --- what screens draw ------------------------------------------------------
    def table(self) -> dict:
        """The table as this seat sees it (see ``core.seat.SeatView.table``): the hand in
        play, then each player's contract, points and melds."""
        from ..core.cards import card_code, sort_key
        from .actions import CONTRACTS, DECK, group_name
        from .render import meld_text

        n = self.num_seats
        total = len(CONTRACTS)
        limit = self.config.hands
        hand_no = self.hand_no + (not self.is_over)
        sections: list[dict] = [
            {
                "label": "Hand",
                "seat": None,
                "text": f"{hand_no} of {limit}" if limit else str(hand_no),
            },
        ]
        for p in range(n):
            k = self.contract_index(p)
            if k >= total:
                contract = f"all {total} done"
            elif self.is_over:  # the hands are scored: say how far each got
                contract = f"{k} of {total} done"
            else:
                status = "laid" if self.laid(p) else "to lay"
                contract = f"{k + 1} of {total} ({CONTRACTS[k].text()}), {status}"
            points = self.totals[p]
            sections.append(
                {
                    "label": "contract",
                    "seat": p,
                    "text": f"{contract}; {points} point{'s' * (points != 1)}",
                }
            )
            sections.append(
                {
                    "label": "melds",
                    "seat": p,
                    "items": [
                        f"{group_name(CONTRACTS[m.contract], m.group)}: {meld_text(m)}"
                        for m in self.melds
                        if m.owner == p
                    ],
                }
            )
        code = lambda c: card_code(DECK.type_of(c))  # noqa: E731
        return {
            "hand": [card_code(t) for t in sorted(self.hand, key=sort_key)],
            "hand_sizes": [self.hand_size(p) for p in range(n)],
            "open_hands": [None] * n,
            **self._pile_table(code),
            "sections": sections,
        }

    def hand_ends(self) -> list[dict]:
        """Every finished hand: who went out, the cards left in each hand and its penalty
        points (the engine's ``hand_left`` and ``hand_points``)."""
        from ..core.seat import hand_end
        from .actions import DECK

        limit = self.config.hands
        state = self._state
        ends = zip(state.hand_left, state.hand_points, strict=True)
        return [
            hand_end(f"Hand {k + 1}" + (f" of {limit}" if limit else ""), out, left, points,
                     "penalty points", DECK.type_of)
            for k, ((out, left), points) in enumerate(ends)
        ]  # fmt: skip

    def menu_order(self, legal: list[int]) -> list[int]:
        """Draws, cut-ins, contract steps, lay-offs, discards; by id within each."""
        return sorted(legal, key=lambda a: (_MENU_PLACE[decode(a).kind], a))

    def rules_text(self) -> str:
        return RULES

    def move_examples(self) -> str:
        return (
            "draw stock, discard 7h,\n    meld 7h in set 1, meld 2c in run 1 as 7, "
            "layoff 9c on player_1 run 1\n  - or type the start of it: 'disc 7h', 'dr s' or "
            "'meld 7h' are enough"
        )

    def _make_observer(self):
        from .observer import Observer

        return Observer(self.player)


RULES = """\
Dummy rummy in short: 2-4 players, each for themselves; two decks and four jokers (108
cards), 13 cards each. Every 2 and every joker is wild.
  - A set is cards of one rank (suits may repeat); a run is cards in sequence, of any suits
    (the Ace low or high, never K-A-2). Each meld holds at least one natural card.
  - Twelve contracts in order, one per hand: 2 sets of 3; set of 3 + run of 4; 2 sets of 4;
    2 runs of 4; set of 4 + run of 4; 2 sets of 3 + run of 4; set of 3 + run of 7;
    3 sets of 3; 2 sets of 5; 2 runs of 5; set of 8; run of 10.
  - Your turn: draw (the stock, or the top discard while your contract is not down), then
    you may lay your whole contract at once (exactly its melds and sizes, 'meld' steps);
    from the next turn on you may lay off on anyone's melds; then discard one card.
    Once your contract is down you may not discard a card you could lay off.
  - The hand ends when a player discards their last card. The others score what they hold:
    3-9 5 points, 10-K 10, Ace 15, 2 and joker 50. Who laid their contract moves on to the
    next one; the others try theirs again.
  - Cut-ins (an option): when a player draws from the stock, the others may in turn take
    the top discard with three stock cards (twice a hand, not once your contract is down).
  - The game ends after the hand in which a player completes the twelfth contract: the
    lowest total among those who completed all twelve wins."""
