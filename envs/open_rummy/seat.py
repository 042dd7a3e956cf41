"""SeatView of Open Rummy: own hand, the table, the discard history and every player's
public facts (points, hand sizes, whether they have laid a meld); never another hand or the
stock order."""

from __future__ import annotations

from ..core.cards import JOKER
from ..core.seat import HandsAndStockSeatView
from .actions import TYPE_OF
from .rules import GameConfig, GameState, TableMeld


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

    def laid(self, seat: int) -> bool:
        """Whether ``seat`` has laid a meld of its own this round."""
        return self._state.laid[seat]

    @property
    def building(self) -> bool:
        """This player is laying a new meld (only meld steps follow)."""
        return self.is_my_turn and self._state.pending is not None

    @property
    def melds(self) -> list[TableMeld]:
        """Every meld slot of this round (closed sets included, flagged ``closed``)."""
        return self._state.melds

    def live_melds(self) -> list[TableMeld]:
        return self._state.live_melds()

    @property
    def totals(self) -> list[int]:
        return self._state.totals

    @property
    def placed(self) -> list[int]:
        """Points each seat placed this round."""
        return self._state.placed

    @property
    def round_no(self) -> int:
        return self._state.round_no

    @property
    def swap_open(self) -> bool:
        return self._state.swap_open

    def fits(self, meld: TableMeld, card_type: int) -> bool:
        return bool(self._state.fits(meld, card_type))

    def stand_ins(self) -> set[int]:
        """Card types that may take a joker's place on the table."""
        return self._state.stand_ins()

    # --- what screens draw ------------------------------------------------------
    def table(self) -> dict:
        """The table as this seat sees it (see ``core.seat.SeatView.table``): the round in
        play, then per player their points, whether they have laid a meld this round and
        their melds (numbered as moves name them; a joker shown with what it stands for)."""
        from ..core.cards import card_code, sort_key

        n = self.num_seats
        cfg = self.config
        round_no = self.round_no + (not self.is_over)
        goal = f"{round_no} of {cfg.rounds}" if cfg.rounds else f"{round_no}"
        sections: list[dict] = [
            {"label": "Round", "seat": None, "text": f"{goal}; {cfg.target} points win"},
        ]
        if self.swap_open and not self.is_over:
            sections.append(
                {"label": "Card swap", "seat": None, "text": "open (swap with the top discard)"}
            )
        for p in range(n):
            total, placed = self.totals[p], self.placed[p]
            if self.is_over:
                status = ""
            else:
                status = "; laid a meld" if self.laid(p) else "; no meld laid yet"
            sections.append(
                {
                    "label": "score",
                    "seat": p,
                    "text": f"{total} point{'s' * (abs(total) != 1)} "
                    f"({placed} placed this round){status}",
                }
            )
            sections.append(
                {
                    "label": "melds",
                    "seat": p,
                    "items": [self._meld_item(m) for m in self.melds if m.owner == p],
                }
            )
        code = lambda c: card_code(TYPE_OF[c])  # noqa: E731
        return {
            "hand": [card_code(t) for t in sorted(self.hand, key=sort_key)],
            "hand_sizes": [self.hand_size(p) for p in range(n)],
            "open_hands": [None] * n,
            **self._pile_table(code),
            "sections": sections,
        }

    def hand_ends(self) -> list[dict]:
        """Every finished round: who went out, the cards left in each hand and each seat's
        points for it (placed minus left in hand: the engine's ``round_out``,
        ``round_left`` and ``round_scores``)."""
        from ..core.seat import hand_end

        limit = self.config.rounds
        state = self._state
        ends = zip(state.round_out, state.round_left, state.round_scores, strict=True)
        return [
            hand_end(f"Round {k + 1}" + (f" of {limit}" if limit else ""), out, left, points,
                     "points (placed minus left in hand)", TYPE_OF.__getitem__)
            for k, (out, left, points) in enumerate(ends)
        ]  # fmt: skip

    def _meld_item(self, meld: TableMeld) -> str:
        """``meld 3: 7H 8H JK(9H)``; a set's joker names the suits it may stand for
        (``JK(7C/7S)``); a closed set or the meld being laid says so."""
        from ..core.cards import card_code
        from .render import meld_text

        if meld.is_set and meld.joker_count() and not meld.closed:
            stands = "/".join(card_code(t) for t in sorted(meld.stand_ins()))
            body = " ".join(
                f"JK({stands})" if TYPE_OF[c] == JOKER else card_code(TYPE_OF[c])
                for c in meld.cards
            )
        else:
            body = meld_text(meld)
        note = " (closed)" if meld.closed else ""
        if meld is self._state.pending:
            note = " (being laid)"
        return f"meld {meld.slot + 1}{note}: {body}"

    def menu_order(self, legal: list[int]) -> list[int]:
        """Draws, card swaps, meld steps, lay-offs, joker steals, discards; by id within
        each (the action blocks are already in that order but for discards)."""
        from .actions import CARDSWAP_BASE, DISCARD_BASE

        return sorted(legal, key=lambda a: (DISCARD_BASE <= a < CARDSWAP_BASE, a))

    def rules_text(self) -> str:
        return RULES

    def move_examples(self) -> str:
        return (
            "draw stock, discard 7h, cardswap 7h,\n    meld set 7h, meld run jk as 8h, "
            "layoff 9c on meld 2, steal meld 1 with 8h\n  - or type the start of it: "
            "'disc 7h', 'dr s' or 'meld run 7h' are enough"
        )

    def _make_observer(self):
        from .observer import Observer

        return Observer(self.player)


RULES = """\
Open Rummy in short: 2-8 players, each for themselves; two decks and four jokers (108
cards), 13 cards each (12 at eight players). Jokers are wild. Play to 300 points.
  - A run is 3+ cards of one suit in sequence, 2-3-...-K-A (the Ace high only); a set is
    3 or 4 cards of one rank, each of a different suit. A new meld is three cards with at
    least two natural ones; a set of all four suits is closed and leaves the game.
  - Your turn: draw (the stock, or the top discard), then lay new melds ('meld' steps, three
    cards each), lay off on anyone's melds and take jokers ('steal': put the card a joker
    stands for in its place); lay-offs and steals only once you have laid a meld of your
    own this round. Then discard one card: that ends the turn.
  - Placing a card earns its points at once: 2-9 5, 10-K 10, Ace 15, a joker as the card
    it stands for; a card put in a joker's place earns nothing.
  - The round ends when a player discards their last card; the others lose the points left
    in their hands (a joker 30). The top discard cannot be taken while it is exactly what
    a joker on the table stands for.
  - Card swap: the first player of a round may swap a card of their hand for the top
    discard instead of drawing (that is their turn); the next may too, until someone draws.
  - After a round in which a player reached 300 points the highest total wins."""
