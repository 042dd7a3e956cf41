"""SeatView of Open Rummy: own hand, the table, the discard history and every player's
public facts (points, hand sizes, whether they have laid a meld); never another hand or the
stock order."""

from __future__ import annotations

from ..core.seat import SeatView as BaseSeatView
from .rules import GameState, OpenConfig, TableMeld


class SeatView(BaseSeatView):
    __slots__ = ()
    _state: GameState

    @property
    def config(self) -> OpenConfig:
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
    def discard_pile(self) -> list[int]:
        """Physical ids of the pile, top last (read-only)."""
        return self._state.discard

    @property
    def discard_log(self) -> list[list[int]]:
        """This round's discards: [card, who (-1 turned up), taken by (-1 no, -2 turned
        into the stock)]."""
        return self._state.discard_log

    @property
    def stock_size(self) -> int:
        return len(self._state.stock)

    @property
    def phase(self) -> int:
        return self._state.phase

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

    def _make_observer(self):
        from .observer import Observer

        return Observer(self.player)
