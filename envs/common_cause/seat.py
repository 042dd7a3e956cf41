"""SeatView: what one player may see of a game, and their legal moves.

Every agent (random, baseline, trained policy, a person) acts on a ``SeatView`` and returns
an action id. The view reads the public table, the discard history and its own player's
hand; the partner's hand only in the open-hands variant; never the stock order or the
put-aside cards.
"""

from __future__ import annotations

from .rules import GameConfig, GameState, Meld


class SeatView:
    __slots__ = ("_state", "player")

    def __init__(self, state: GameState, player: int) -> None:
        self._state = state
        self.player = player

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
    def discard_pile(self) -> list[int]:
        """The discard pile, top last (read-only)."""
        return self._state.discard

    @property
    def discard_log(self) -> list[list[int]]:
        """Every discard in order: [card, who (-1: turned up at the deal), taken]."""
        return self._state.discard_log

    @property
    def stock_size(self) -> int:
        return len(self._state.stock)

    @property
    def phase(self) -> int:
        return self._state.phase

    @property
    def pending(self) -> int:
        """The taken discard still to be placed this turn, or -1."""
        return self._state.pending if self._state.current == self.player else -1

    @property
    def turns(self) -> int:
        return self._state.turns

    @property
    def is_my_turn(self) -> bool:
        return self._state.current == self.player and not self._state.is_terminal

    def legal_actions(self) -> list[int]:
        """Own legal action ids (empty when it is not this player's turn)."""
        return self._state.legal_actions() if self.is_my_turn else []

    def observation(self):
        """The numeric observation (``observer.encode``) of this seat."""
        from .observer import encode

        return encode(self._state, self.player)
