"""The Open Rummy rules engine: config, state, legal moves, apply, scoring.

Pure Python, no RL library. Every rule of ``open_rummy_rules.txt`` lives here (the meld-step
search in ``meld_plans``); where the sheet is silent the engine follows
``envs/open_rummy/readings.md`` (reading numbers in comments).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core.cards import JOKER, N_CARD_TYPES, N_STANDARD, DeckSpec
from ..core.clone import COPY, COPY_EACH, DERIVED, SHARE, How, declared_copy
from ..core.game import IllegalMoveError, RulesConfig
from ..core.melds import ACE_HIGH, MeldRules
from ..core.pile_rummy import DRAW_PHASE, PLACE_PHASE, PileRummyState
from .actions import (
    ACE_POSITION,
    CARDSWAP_BASE,
    DECODED,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    JOKER_HIGH,
    JOKER_LOW,
    KIND_CARDSWAP,
    KIND_DISCARD,
    KIND_DRAW_DISCARD,
    KIND_DRAW_STOCK,
    KIND_LAYOFF,
    KIND_RUN_STEP,
    KIND_SET_STEP,
    LOW_POSITION,
    MAX_JOKERS,
    MAX_SEATS,
    RUN_STEP_BASE,
    SET_STEP_BASE,
    TYPE_OF,
    card_at_position,
    deck_spec,
    layoff_action,
    points,
    position_of,
    run_joker_action,
    steal_action,
)
from .meld_plans import MELD_SIZE, first_steps, legal_steps

MIN_SEATS = 2
_BIT = tuple(1 << t for t in range(N_STANDARD)) + (0,)  # a card type's bit (none: a joker)

MELD_RULES = MeldRules(
    min_size=3,
    suited_runs=True,
    ace=ACE_HIGH,
    distinct_suit_sets=True,
    max_set_size=4,
    wild=frozenset({JOKER}),
    min_natural=2,
)
"""Open Rummy's melds as data: suited runs 2..A (reading 3), sets of distinct suits up to
four, jokers wild, at least two natural cards in a meld (reading 4)."""


def hand_size_for(num_players: int) -> int:
    """Reading 2: 13 cards each, 12 at an eight-player table (8 x 13 + 1 > 104)."""
    return 13 if num_players <= 7 else 12


@dataclass(frozen=True)
class GameConfig(RulesConfig):
    """Everything that changes the rules of a game of Open Rummy."""

    VARIANTS: ClassVar[dict[str, str]] = {
        "target": "target",
        "rounds": "rounds",
        "jokers": "jokers",
        "card_swap": "card swap",
        "reward": "reward",
    }

    num_players: int = 4
    """Players, 2-8."""
    target: int = 300
    """Points that win, checked when a round that a player went out of ends."""
    rounds: int = 0
    """Rounds the game lasts before it stops (0: until a player has ``target`` points after
    a round that a player went out of)."""
    jokers: int = 4
    """Jokers added to the two decks (0-4; reading 1)."""
    card_swap: bool = True
    """The round-start card swap."""
    reward: str = "points"
    """"points": points placed, as earned, and minus the points left in hand when a round
    ends; "win": +1 to the winners and -1 to the others when the game ends."""

    def __post_init__(self) -> None:
        self.check_int("num_players", MIN_SEATS, MAX_SEATS)
        self.check_int("target", 1)
        self.check_int("rounds", 0)
        self.check_int("jokers", 0, MAX_JOKERS)
        self.check_bool("card_swap")
        self.check_choice("reward", ("points", "win"))

    @property
    def deck(self) -> DeckSpec:
        return deck_spec(self.jokers)

    @property
    def hand_size(self) -> int:
        return hand_size_for(self.num_players)

    def label(self) -> str:
        return f"{self.num_players} players"


OpenConfig = GameConfig
"""The config's former name (the three games' configs are all ``GameConfig`` now)."""


Offers = tuple[frozenset[int], tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
"""What a meld on the table offers (``TableMeld.offers``)."""
TableMoves = tuple[dict[int, list[int]], dict[int, list[int]]]
"""Per card type: its steals, and its lay-offs and steals (``GameState._table_moves``)."""


class TableMeld:
    """A meld on the table in meld slot ``slot``. A set keeps ``cards`` in play order and
    its ``rank``; a run keeps ``suit`` and ``slots``: run position -> physical card (a joker
    stands for the card of its place). A set that holds four natural cards is ``closed``
    and out of the game (reading 8). Whoever changes a meld calls ``changed``."""

    __slots__ = ("slot", "owner", "is_set", "rank", "suit", "cards", "slots", "closed", "_offers")

    def __init__(self, slot: int, owner: int, is_set: bool) -> None:
        self.slot = slot
        self.owner = owner
        self.is_set = is_set
        self.rank = -1
        self.suit = -1
        self.cards: list[int] = []
        self.slots: dict[int, int] = {}
        self.closed = False
        self._offers: Offers | None = None

    def changed(self) -> None:
        """Forget ``offers`` (after a card was placed on the meld)."""
        self._offers = None

    def offers(self) -> Offers:
        """(``stand_ins``, (card type, lay-off action id) of each ``layoff_places``, (card
        type, steal action id) of each stand-in), kept until the meld ``changed``."""
        if self._offers is None:
            stand = frozenset(self.stand_ins())
            self._offers = (
                stand,
                tuple((t, layoff_action(self.slot, k)) for t, k in self.layoff_places()),
                tuple((t, steal_action(self.slot, t)) for t in sorted(stand)),
            )
        return self._offers

    def physical(self) -> list[int]:
        return self.cards if self.is_set else [self.slots[p] for p in sorted(self.slots)]

    def types(self) -> list[int]:
        return [TYPE_OF[c] for c in self.physical()]

    def __len__(self) -> int:
        return len(self.cards) if self.is_set else len(self.slots)

    @property
    def lo(self) -> int:
        return min(self.slots)

    @property
    def hi(self) -> int:
        return max(self.slots)

    def natural_suits(self) -> set[int]:
        """Sets: the suits of its natural cards."""
        return {TYPE_OF[c] // 13 for c in self.cards if TYPE_OF[c] != JOKER}

    def joker_count(self) -> int:
        return sum(TYPE_OF[c] == JOKER for c in self.physical())

    def stand_ins(self) -> set[int]:
        """The natural card types that may take a joker's place (empty: no joker)."""
        if self.closed:
            return set()
        if self.is_set:
            if self.rank < 0 or not self.joker_count():
                return set()
            suits = self.natural_suits()
            return {s * 13 + self.rank for s in range(4) if s not in suits}
        return {
            card_at_position(self.suit, p) for p, c in self.slots.items() if TYPE_OF[c] == JOKER
        }

    def open_ends(self) -> list[tuple[int, int]]:
        """Runs: (end, position) where a card may be added: 0 low, 1 high."""
        ends = []
        if self.lo > LOW_POSITION:
            ends.append((0, self.lo - 1))
        if self.hi < ACE_POSITION:
            ends.append((1, self.hi + 1))
        return ends

    def layoff_places(self) -> list[tuple[int, int]]:
        """(card type, lay-off code ``k``) of every card that may be laid off on this meld
        (a natural type is its own code; a joker: ``JOKER_LOW``, or ``JOKER_HIGH`` at a
        run's high end), whoever holds it; for a meld on the table, not closed."""
        if self.is_set:
            if len(self.cards) >= 4:
                return []
            places = [(JOKER, JOKER_LOW)]
            if self.rank >= 0:
                suits = self.natural_suits()
                places += [(t, t) for t in range(self.rank, N_STANDARD, 13) if t // 13 not in suits]
            return places
        places = []
        for end, position in self.open_ends():
            t = card_at_position(self.suit, position)
            places += ((t, t), (JOKER, JOKER_HIGH if end else JOKER_LOW))
        return places

    copy = declared_copy(
        {"slot": SHARE, "owner": SHARE, "is_set": SHARE, "rank": SHARE, "suit": SHARE,
         "cards": COPY, "slots": COPY, "closed": SHARE,
         "_offers": SHARE},  # replaced, never changed in place
        __slots__,
    )  # fmt: skip


def placed_points(meld: TableMeld, card: int, position: int = 0) -> int:
    """Points a card earns where it is placed: a joker counts as the card it stands for."""
    t = TYPE_OF[card]
    if t != JOKER:
        return points(t)
    if meld.is_set:
        return points(meld.rank)
    return points(card_at_position(meld.suit, position))


class GameState(PileRummyState):
    """A game of Open Rummy in progress. ``legal_actions()`` is the one legal-move function.

    The first round is dealt from ``deck`` (physical ids, top first); later rounds are
    shuffled by the state's own RNG, seeded from that deck, so a game is reproducible from
    its first deck."""

    TYPE_OF = TYPE_OF
    TAKE_NEWEST = True
    CLONE_FIELDS: ClassVar[dict[str, How]] = {
        **PileRummyState.CLONE_FIELDS,
        "spec": SHARE, "hand_size": SHARE, "round_no": SHARE, "round_scores": COPY_EACH,
        "round_out": COPY, "placed_total": COPY, "laid_rounds": COPY, "placements": SHARE,
        "pending": DERIVED, "laid": COPY, "placed": COPY, "swap_open": SHARE, "swaps": SHARE,
        "round_moves": SHARE, "round_left": COPY,
        "_stand": SHARE, "_moves": SHARE,  # replaced, never changed in place
    }  # fmt: skip
    _copy_state = declared_copy(CLONE_FIELDS)

    def __init__(self, config: GameConfig, deck: list[int]) -> None:
        self.spec = config.deck
        self._begin(config, deck, self.spec.size, f" ({self.spec.describe()})")
        self.hand_size = config.hand_size
        self.round_no = 0
        self.round_scores: list[list[int]] = []  # each finished round's point change per seat
        self.round_out: list[int] = []  # who went out of each finished round (-1: nobody)
        self.round_left: list[tuple[tuple[int, ...], ...]] = []  # its cards left in each hand
        self.placed_total = [0] * self.n  # points placed, every round
        self.laid_rounds = [0] * self.n  # finished rounds in which the seat laid a meld
        self.turns = 0  # turns begun, every round (a draw or a card swap begins one)
        self.placements = 0  # moves that placed a card on the table, every round
        self._deal(deck)

    # ----------------------------------------------------------------------------------
    # dealing and rounds
    def _deal(self, deck: list[int]) -> None:
        n = self.n
        # reading 10: the dealer moves clockwise each round
        self._deal_cards(deck, self.round_no % n, self.hand_size)
        self.melds: list[TableMeld] = []
        self.pending: TableMeld | None = None  # the new meld being laid
        self.laid = [False] * n  # laid a meld of one's own this round
        self.placed = [0] * n  # points placed this round
        self.swap_open = self.config.card_swap  # the card-swap chain (reading 11)
        self.swaps = 0
        self.round_moves = 0
        self._stand: frozenset[int] | None = None  # stand_ins, until a card is placed
        self._moves: TableMoves | None = None  # ``_table_moves``, the same

    @property
    def building(self) -> bool:
        return self.pending is not None

    def seat_stats(self, seat: int) -> dict[str, float]:
        """Per seat over the game: points total, rounds finished, rounds gone out, points
        placed, points lost in hand, rounds in which it laid a meld."""
        return {
            "points": float(self.totals[seat]),
            "rounds": float(len(self.round_scores)),
            "went_out": float(sum(1 for out in self.round_out if out == seat)),
            "placed": float(self.placed_total[seat]),
            "in_hand": float(self.placed_total[seat] - self.totals[seat]),
            "laid": float(self.laid_rounds[seat]),
        }

    def winners(self) -> list[int]:
        """Reading 12: the highest total wins (all tied at the top win); only checked when
        a round has ended."""
        best = max(self.totals)
        return [s for s in range(self.n) if self.totals[s] == best]

    def outcome(self) -> str:
        if self.result is None:
            return ""
        names = ", ".join(f"player_{s}" for s in self.winners())
        scores = ", ".join(f"player_{s} {t}" for s, t in enumerate(self.totals))
        return f"{names} won after {len(self.round_scores)} round(s); points: {scores}"

    def clone(self) -> GameState:
        new = self._copy_state()
        new.pending = new.melds[self.pending.slot] if self.pending is not None else None
        return new

    def live_melds(self) -> list[TableMeld]:
        """Melds on the table, closed sets and the meld being laid excluded."""
        return [m for m in self.melds if not m.closed and m is not self.pending]

    def stand_ins(self) -> set[int]:
        """Card types that may take a joker's place on the table now."""
        return set(self._stand_ins())

    def _stand_ins(self) -> frozenset[int]:
        """``stand_ins``, kept until a card is next placed on the table (``apply``)."""
        if self._stand is None:
            self._stand = frozenset().union(*[m.offers()[0] for m in self.live_melds()])
        return self._stand

    def top_blocked(self) -> bool:
        """Reading 9: the top discard may not be taken when it is a joker's stand-in."""
        return bool(self.discard) and TYPE_OF[self.discard[-1]] in self._stand_ins()

    # ----------------------------------------------------------------------------------
    # legal moves
    def legal_actions(self) -> list[int]:
        """The current player's legal action ids, ascending (empty once the game is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        """``legal_actions``, built in ascending order: the blocks of ids come in the order
        of the moves' kinds (``actions.py``), each block ascending."""
        if self.result is not None:
            return []
        p = self.current
        hand = self.hands[p]
        if self.phase == DRAW_PHASE:
            legal = [DRAW_STOCK]
            if self.discard and not self.top_blocked():
                legal.append(DRAW_DISCARD)
            if self.swap_open and self.discard:
                top = TYPE_OF[self.discard[-1]]
                legal += [CARDSWAP_BASE + t for t in sorted({TYPE_OF[c] for c in hand}) if t != top]
            return legal
        types = [TYPE_OF[c] for c in hand]
        if self.pending is not None:
            # a meld begun is finished before anything else (reading 6)
            return list(self._pending_steps(self.pending, types))
        kinds = sorted(set(types))
        legal = [DISCARD_BASE + t for t in kinds]
        legal += first_steps(sum(map(_BIT.__getitem__, kinds)), types.count(JOKER), len(types))
        if self.laid[p]:  # reading 7: lay-offs and steals after one's own meld
            steals, placing = self._table_moves()
            by_type = placing if len(types) > 1 else steals
            more = [a for t in kinds if t in by_type for a in by_type[t]]
            more.sort()
            legal += more
        return legal

    def _pending_steps(self, pending: TableMeld, types: list[int]) -> tuple[int, ...]:
        """The meld steps that go on with ``pending``, the meld being laid."""
        held = frozenset(t for t in types if t != JOKER)
        laid = frozenset(self._step_of(pending, c, pos) for pos, c in self._cards_with_pos(pending))
        kind = "set" if pending.is_set else "run"
        return legal_steps(held, types.count(JOKER), len(types), laid, kind)

    @staticmethod
    def _cards_with_pos(meld: TableMeld) -> list[tuple[int, int]]:
        return [(0, c) for c in meld.cards] if meld.is_set else list(meld.slots.items())

    @staticmethod
    def _step_of(meld: TableMeld, card: int, position: int) -> int:
        t = TYPE_OF[card]
        if meld.is_set:
            return SET_STEP_BASE + t
        if t == JOKER:
            return run_joker_action(meld.suit, position)
        return RUN_STEP_BASE + t

    def fits(self, meld: TableMeld, t: int) -> list[int]:
        """Lay-off codes ``k`` (a natural type, ``JOKER_LOW`` or ``JOKER_HIGH``) for card
        type ``t`` on ``meld``; empty if it does not fit."""
        if meld.closed or meld is self.pending:
            return []
        return [k for card, k in meld.layoff_places() if card == t]

    def _table_moves(self) -> TableMoves:
        """Per card type, whoever holds it: its steals, and its lay-offs and steals
        together, each ascending; kept until a card is next placed on the table
        (``apply``)."""
        if self._moves is None:
            steals: dict[int, list[int]] = {}
            placing: dict[int, list[int]] = {}
            for meld in self.live_melds():
                _, layoffs, meld_steals = meld.offers()
                for t, a in layoffs:
                    placing.setdefault(t, []).append(a)
                for t, a in meld_steals:
                    steals.setdefault(t, []).append(a)
            for t, actions in steals.items():
                placing.setdefault(t, []).extend(actions)
            for actions in placing.values():
                actions.sort()
            self._moves = (steals, placing)
        return self._moves

    def dead_round(self) -> bool:
        """Reading 13: no hand holds more than two cards (so none can lay a new meld, which
        needs three and a card to discard) and no meld on the table can take another card
        (every run 2..A, every set four cards): nobody can ever go out."""
        if max(map(len, self.hands)) > 2:
            return False
        return not any(self.fits(m, JOKER) for m in self.live_melds())

    def can_lay_off(self, seat: int, t: int) -> bool:
        """Whether card type ``t`` fits on a meld on the table (ignoring whose turn it is)."""
        return any(self.fits(m, t) for m in self.live_melds())

    # ----------------------------------------------------------------------------------
    # moves
    def apply(self, action: int) -> None:
        """Play ``action`` for the current player; raises IllegalMoveError if not legal."""
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalMoveError(action, legal)
        p = self.current
        self._legal = None
        self._last_rewards = (0.0,) * self.n
        self.history.append((p, action))
        self.round_moves += 1
        info = DECODED[action]
        kind = info.kind
        if kind == KIND_DRAW_STOCK:
            self.swap_open = False
            self.turns += 1
            if not self._draw_from_stock(p):
                self._end_round(out=-1)  # reading 13: no card left anywhere
                return
            self.phase = PLACE_PHASE
        elif kind == KIND_DRAW_DISCARD:
            self.swap_open = False
            self.turns += 1
            self._take_top(p)
            self.phase = PLACE_PHASE
        elif kind == KIND_CARDSWAP:
            self.turns += 1
            self._take_top(p)
            self._put_on_pile(p, self._take(p, info.card))
            self.swaps += 1
            self.swap_open = self.swaps < self.n  # reading 11: once round the table at most
            self._next_turn(p)
        elif kind == KIND_DISCARD:
            self._put_on_pile(p, self._take(p, info.card))
            if not self.hands[p]:
                self._end_round(out=p)
                return
            if self.dead_round():
                self._end_round(out=-1)  # reading 13: nobody can ever go out
                return
            self._next_turn(p)
        else:  # a card placed on the table
            self.placements += 1
            self._stand = self._moves = None
            if kind in (KIND_SET_STEP, KIND_RUN_STEP):
                self._meld_step(p, info)
            elif kind == KIND_LAYOFF:
                self._layoff(p, self.melds[info.slot], info.card, info.end)
            else:
                self._steal(p, self.melds[info.slot], info.card)

    def _earn(self, p: int, gained: int) -> None:
        self.placed[p] += gained
        self.placed_total[p] += gained
        self.totals[p] += gained
        if self.config.reward == "points" and gained:
            rewards = [0.0] * self.n
            rewards[p] = float(gained)
            self._last_rewards = tuple(rewards)

    def _next_turn(self, p: int) -> None:
        self.current = (p + 1) % self.n
        self.phase = DRAW_PHASE

    def _meld_step(self, p: int, info) -> None:
        meld = self.pending
        is_set = info.kind == KIND_SET_STEP
        if meld is None:
            meld = TableMeld(len(self.melds), p, is_set)
            self.melds.append(meld)
            self.pending = meld
        card = self._take(p, info.card)
        if is_set:
            meld.cards.append(card)
            if info.card != JOKER:
                meld.rank = info.card % 13
        else:
            meld.suit = info.suit
            meld.slots[info.position] = card
        meld.changed()
        if len(meld) == MELD_SIZE:  # reading 5: a new meld is three cards
            self.pending = None
            self.laid[p] = True
            self._earn(p, sum(placed_points(meld, c, pos) for pos, c in self._cards_with_pos(meld)))

    def _layoff(self, p: int, meld: TableMeld, t: int, end: int) -> None:
        card = self._take(p, t)
        if meld.is_set:
            meld.cards.append(card)
            position = 0
        else:
            position = position_of(t) if t != JOKER else dict(meld.open_ends())[end]
            meld.slots[position] = card
        self._close_if_full(meld)
        meld.changed()
        self._earn(p, placed_points(meld, card, position))

    def _steal(self, p: int, meld: TableMeld, t: int) -> None:
        """Reading 9: the natural card takes the joker's place and earns nothing; the joker
        goes to the hand."""
        card = self._take(p, t)
        if meld.is_set:
            i = next(i for i, c in enumerate(meld.cards) if TYPE_OF[c] == JOKER)
            joker, meld.cards[i] = meld.cards[i], card
        else:
            pos = position_of(t)
            joker, meld.slots[pos] = meld.slots[pos], card
        self._to_hand(p, joker)
        self._close_if_full(meld)
        meld.changed()

    @staticmethod
    def _close_if_full(meld: TableMeld) -> None:
        if meld.is_set and len(meld.natural_suits()) == 4:
            meld.closed = True  # reading 8: all four suits: out of the game

    def _end_round(self, out: int) -> None:
        """Score the round (each hand's points lost; a joker in hand 30), then deal the next
        round or end the game (reading 12): at the target only after a round that ``out``, a
        player, went out of (-1: nobody did, reading 13)."""
        penalty = [sum(points(TYPE_OF[c]) for c in hand) for hand in self.hands]
        change = [self.placed[s] - penalty[s] for s in range(self.n)]
        self.round_scores.append(change)
        self.round_out.append(out)
        self.round_left.append(tuple(tuple(hand) for hand in self.hands))
        for s in range(self.n):
            self.totals[s] -= penalty[s]
            self.laid_rounds[s] += self.laid[s]
        rewards = list(self._last_rewards)
        if self.config.reward == "points":
            rewards = [r - x for r, x in zip(rewards, penalty, strict=True)]
        self._last_rewards = tuple(float(r) for r in rewards)
        self.round_no += 1
        limit = self.config.rounds
        won = out >= 0 and max(self.totals) >= self.config.target
        self._deal_again_unless(won or bool(limit and self.round_no >= limit))

    # ----------------------------------------------------------------------------------
    def _table_places(self) -> list[tuple[str, list[int]]]:
        return [(f"{'closed' if m.closed else 'meld'}{m.slot}", m.physical()) for m in self.melds]


__all__ = [
    "DRAW_PHASE",
    "MELD_RULES",
    "N_CARD_TYPES",
    "N_STANDARD",
    "PLACE_PHASE",
    "GameState",
    "IllegalMoveError",
    "GameConfig",
    "OpenConfig",
    "TableMeld",
    "hand_size_for",
    "placed_points",
]
