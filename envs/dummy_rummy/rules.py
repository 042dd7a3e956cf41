"""The Dummy rummy rules engine: config, state, legal moves, apply, scoring.

Pure Python, no RL library. Every rule of ``dummy_rummy_rules.txt`` lives here (the
contract-completion search in ``contract_plans``); where the sheet is silent the engine
follows ``envs/dummy_rummy/readings.md`` (reading numbers in comments).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

from ..core.cards import N_CARD_TYPES
from ..core.clone import COPY, COPY_EACH, DERIVED, RESET, SHARE, How, declared_copy
from ..core.game import IllegalMoveError, RulesConfig
from ..core.melds import ACE_BOTH, MeldRules
from ..core.pile_rummy import DRAW_PHASE, PLACE_PHASE, PileRummyState
from .actions import (
    CONTRACTS,
    CUTIN_PASS,
    CUTIN_TAKE,
    DECK,
    DECODED,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    HIGH_ACE,
    IS_WILD,
    KIND_CUTIN_PASS,
    KIND_CUTIN_TAKE,
    KIND_DISCARD,
    KIND_DRAW_DISCARD,
    KIND_DRAW_STOCK,
    KIND_RUN_MELD,
    KIND_SET_MELD,
    TYPE_OF,
    WILD_TYPES,
    Contract,
    layoff_action,
    points,
    rank_at,
    run_meld_action,
    set_meld_action,
)
from .contract_plans import legal_steps, sets_possible

HAND_SIZE = 13
_RANK_OF: tuple[int, ...] = tuple(-1 if IS_WILD[t] else t % 13 for t in range(N_CARD_TYPES))
"""A card type's natural rank, -1 for a wild card (a lookup for the hot paths)."""
_CARD_RANK = tuple(_RANK_OF[t] for t in TYPE_OF)
"""A physical card's natural rank, -1 for a wild card."""
_GROUPS = tuple(c.groups for c in CONTRACTS)
_NOTHING: frozenset[int] = frozenset()
_FRESH_GROUPS = tuple(
    tuple((is_set, size, -1, 0 if is_set else _NOTHING, False) for is_set, size in groups)
    for groups in _GROUPS
)
"""Per contract: its groups as ``legal_steps`` takes them before any card is laid."""
_SETS_ONLY = tuple(not c.runs for c in CONTRACTS)
_NATURALS_OF_RANK = tuple(
    tuple(t for t in range(N_CARD_TYPES) if _RANK_OF[t] == r) for r in range(13)
)


@functools.cache  # a few hundred steps at most (group, rank or run position, wild or not)
def _step_actions(step: tuple) -> tuple[tuple[int, int], ...]:
    """(card type, action id) of every card that could make a contract step."""
    if step[0] == "set":
        _, g, rank = step
        types = WILD_TYPES if rank < 0 else _NATURALS_OF_RANK[rank]
        return tuple((t, set_meld_action(g, t)) for t in types)
    _, g, position, natural = step
    types = _NATURALS_OF_RANK[rank_at(position)] if natural else WILD_TYPES
    return tuple((t, run_meld_action(g, position, t)) for t in types)


CUTIN_PHASE = 2  # after DRAW_PHASE, PLACE_PHASE
MAX_CUTINS = 2
CUTIN_CARDS = 3

MELD_RULES = MeldRules(
    suited_runs=False,
    ace=ACE_BOTH,
    distinct_suit_sets=False,
    max_set_size=None,
    wild=frozenset(WILD_TYPES),
    min_natural=1,
)
"""Dummy rummy's melds as data (reading 4: at least one natural card; 2s always wild)."""


@dataclass(frozen=True)
class GameConfig(RulesConfig):
    """Everything that changes the rules of a game of Dummy rummy."""

    VARIANTS: ClassVar[dict[str, str]] = {
        "first_contract": "first contract",
        "hands": "hands",
        "cut_ins": "cut-ins",
        "reward": "reward",
    }

    num_players: int = 4
    """Players, 2-4."""
    first_contract: int = 1
    """The contract (1-12) every player starts on."""
    hands: int = 0
    """Hands the game lasts before it stops (0: the whole game, until a player has completed
    the twelfth contract)."""
    cut_ins: bool = False
    """The optional cut-in rule."""
    reward: str = "points"
    """"points": each hand's penalty points as a negative reward when the hand ends;
    "win": +1 to the winners and -1 to the others when the game ends."""

    def __post_init__(self) -> None:
        self.check_int("num_players", 2, 4)
        self.check_int("first_contract", 1, len(CONTRACTS))
        self.check_int("hands", 0)
        self.check_bool("cut_ins")
        self.check_choice("reward", ("points", "win"))

    def label(self) -> str:
        return f"{self.num_players} players"


DummyConfig = GameConfig
"""The config's former name (the three games' configs are all ``GameConfig`` now)."""


class TableMeld:
    """A meld on the table: group ``group`` of ``owner``'s contract. A set keeps its cards in
    play order; a run keeps ``slots``: run position -> physical card (a wild card stands for
    its position for good: reading 5)."""

    __slots__ = ("owner", "contract", "group", "is_set", "size", "rank", "cards", "slots",
                 "naturals", "placed")  # fmt: skip

    def __init__(self, owner: int, contract: int, group: int, is_set: bool, size: int) -> None:
        self.owner = owner
        self.contract = contract  # the contract (0-11) it was laid for
        self.group = group
        self.is_set = is_set
        self.size = size  # the contract's size for this group
        self.rank = -1  # sets: the rank, once a natural card is in
        self.cards: list[int] = []  # sets
        self.slots: dict[int, int] = {}  # runs
        self.naturals = 0
        self.placed: dict[int, int] = {}  # physical card -> the move (history index) placing it

    def physical(self) -> list[int]:
        return self.cards if self.is_set else [self.slots[p] for p in sorted(self.slots)]

    def __len__(self) -> int:
        return len(self.cards) if self.is_set else len(self.slots)

    @property
    def lo(self) -> int:
        return min(self.slots)

    @property
    def hi(self) -> int:
        return max(self.slots)

    def open_ends(self) -> list[tuple[int, int]]:
        """Runs: (end, position) where a card may be added: 0 low, 1 high; the Ace once."""
        lo, hi = self.lo, self.hi
        ends = []
        if lo > 1 and not (lo - 1 == 1 and hi == HIGH_ACE):
            ends.append((0, lo - 1))
        if hi < HIGH_ACE and not (lo == 1 and hi + 1 == HIGH_ACE):
            ends.append((1, hi + 1))
        return ends

    copy = declared_copy(
        {"owner": SHARE, "contract": SHARE, "group": SHARE, "is_set": SHARE, "size": SHARE,
         "rank": SHARE, "cards": COPY, "slots": COPY, "naturals": SHARE, "placed": COPY},
        __slots__,
    )  # fmt: skip

    def before(self, move: int) -> TableMeld | None:
        """The meld as it stood before history move ``move`` (None: not laid yet)."""
        kept = [c for c in self.physical() if self.placed[c] < move]
        if not kept:
            return None
        old = TableMeld(self.owner, self.contract, self.group, self.is_set, self.size)
        old.placed = {c: self.placed[c] for c in kept}
        old.naturals = sum(not IS_WILD[TYPE_OF[c]] for c in kept)
        if self.is_set:
            old.cards = kept
            old.rank = self.rank if old.naturals else -1
        else:
            old.slots = {p: c for p, c in self.slots.items() if c in old.placed}
        return old


class GameState(PileRummyState):
    """A game of Dummy rummy in progress. ``legal_actions()`` is the one legal-move function.

    The first hand is dealt from ``deck`` (physical ids, top first); later hands are
    shuffled by the state's own RNG, seeded from that deck, so a game is reproducible from
    its first deck. ``totals`` are penalty points."""

    TYPE_OF = TYPE_OF
    POINTS_SIGN = -1.0
    CLONE_FIELDS: ClassVar[dict[str, How]] = {
        **PileRummyState.CLONE_FIELDS,
        "contract": COPY, "completed": COPY, "hand_no": SHARE, "hand_points": COPY_EACH,
        "meld_at": DERIVED, "laid": COPY, "laid_turn": COPY, "last_discard": COPY,
        "last_discard_turn": COPY, "building": SHARE, "cutins_used": COPY,
        "cutin_queue": COPY, "turn_owner": SHARE, "hand_moves": SHARE, "_places": RESET,
        "hand_left": COPY,
    }  # fmt: skip
    _copy_state = declared_copy(CLONE_FIELDS)

    def __init__(self, config: GameConfig, deck: list[int]) -> None:
        self._begin(config, deck, DECK.size)
        self.contract = [config.first_contract - 1] * self.n  # index into CONTRACTS
        self.completed = [0] * self.n  # contracts completed so far
        self.hand_no = 0
        self.hand_points: list[list[int]] = []  # penalty points of every finished hand
        self.hand_left: list[tuple[int, tuple[tuple[int, ...], ...]]] = []
        """Every finished hand: who went out (-1: nobody) and the cards left in each hand."""
        self.turns = 0  # draws so far, every hand (one per turn)
        self._deal(deck)

    # ----------------------------------------------------------------------------------
    # dealing and hands
    def _deal(self, deck: list[int]) -> None:
        n = self.n
        # reading 9: the dealer moves clockwise each hand
        self._deal_cards(deck, self.hand_no % n, HAND_SIZE)
        self.melds: list[TableMeld] = []
        self.meld_at: dict[tuple[int, int], TableMeld] = {}
        self.laid = [False] * n
        self.laid_turn = [-1] * n  # turns when the contract was laid
        self.last_discard = [-1] * n  # history index of each player's last discard this hand
        self.last_discard_turn = [-1] * n  # and its turn
        self.building = False  # the current player has begun laying the contract
        self.cutins_used = [0] * n
        self.cutin_queue: list[int] = []
        self.turn_owner = self.first
        self.hand_moves = 0
        self._places: tuple | None = None  # ``_open_places``, until a card is placed

    def contract_of(self, seat: int) -> Contract:
        return CONTRACTS[self.contract[seat]]

    def winners(self) -> list[int]:
        """Reading 8: the lowest total among the players who completed all twelve contracts,
        or among everyone when the game stopped after ``hands`` hands."""
        done = [s for s in range(self.n) if self.completed_all(s)]
        pool = done or list(range(self.n))
        best = min(self.totals[s] for s in pool)
        return [s for s in pool if self.totals[s] == best]

    def seat_stats(self, seat: int) -> dict[str, float]:
        """Per seat over the hands played: penalty points, hands gone out, contracts laid."""
        hands = len(self.hand_points)
        out = sum(1 for h in self.hand_points if h[seat] == 0 and any(h))
        return {
            "points": float(self.totals[seat]),
            "hands": float(hands),
            "went_out": float(out),
            "contracts": float(self.completed[seat]),
        }

    def completed_all(self, seat: int) -> bool:
        return self.contract[seat] >= len(CONTRACTS)

    def outcome(self) -> str:
        if self.result is None:
            return ""
        names = ", ".join(f"player_{s}" for s in self.winners())
        scores = ", ".join(f"player_{s} {t}" for s, t in enumerate(self.totals))
        return f"{names} won after {len(self.hand_points)} hand(s); points: {scores}"

    def clone(self) -> GameState:
        new = self._copy_state()
        new.meld_at = {(m.owner, m.group): m for m in new.melds}
        return new

    # ----------------------------------------------------------------------------------
    # legal moves
    def legal_actions(self) -> list[int]:
        """The current player's legal action ids, ascending (empty once the game is over)."""
        if self._legal is None:
            self._legal = sorted(self._compute_legal())
        return self._legal

    def _compute_legal(self) -> list[int]:
        if self.result is not None:
            return []
        p = self.current
        if self.phase == CUTIN_PHASE:
            return [CUTIN_TAKE, CUTIN_PASS]
        if self.phase == DRAW_PHASE:
            legal = [DRAW_STOCK]
            if self.discard and not self.laid[p]:  # a laid player draws from the stock
                legal.append(DRAW_DISCARD)
            return legal
        hand = self.hands[p]
        held = {TYPE_OF[c] for c in hand}
        if not self.laid[p]:
            legal = self._meld_steps(p, hand, held)
            if self.building:
                return legal  # a contract begun is finished before anything else
        elif self.laid_turn[p] < self.turns:  # reading 2: lay-offs from the next turn on
            places, by_rank = self._open_places()
            n = self.n
            legal = []
            free = []  # reading 1: a card that could be laid off is not discarded
            for t in held:
                fitting = places if IS_WILD[t] else by_rank.get(t % 13, ())
                if not fitting:
                    free.append(t)
                elif len(hand) > 1:
                    legal.extend(
                        layoff_action((m.owner - p) % n, m.group, e, t) for m, e in fitting
                    )
            legal.extend(DISCARD_BASE + t for t in (free or held))
            return legal
        else:
            legal = []
        legal.extend([DISCARD_BASE + t for t in held])
        return legal

    def _meld_steps(self, p: int, hand: list[int], held: set[int]) -> list[int]:
        """The legal ``meld`` steps of player ``p`` (not laid), holding ``hand`` (card
        types ``held``)."""
        counts = [0] * 13
        wilds = 0
        for c in hand:
            r = _CARD_RANK[c]
            if r < 0:
                wilds += 1
            else:
                counts[r] += 1
        mine = _FRESH_GROUPS[self.contract[p]]
        if self.building:
            groups = []
            for g, (is_set, size, *_) in enumerate(mine):
                meld = self.meld_at.get((p, g))
                if meld is None:
                    groups.append(mine[g])
                elif is_set:
                    groups.append((True, size, meld.rank, len(meld), meld.naturals > 0))
                else:
                    groups.append((False, size, -1, frozenset(meld.slots), meld.naturals > 0))
            mine = tuple(groups)
        elif _SETS_ONLY[self.contract[p]]:  # nothing laid (a contract is laid in one turn)
            shape = tuple(sorted([counts[0], *counts[2:]]))  # every rank but the 2 (wild)
            if not sets_possible(shape, wilds, len(hand), mine):
                return []
        steps = legal_steps(tuple(counts), wilds, len(hand), mine)
        if not steps:
            return []
        actions = []
        for step in steps:
            actions.extend([a for t, a in _step_actions(step) if t in held])
        return actions

    def _fits(self, meld: TableMeld, t: int) -> list[int]:
        """Ends (0, or 0/1 for a run) of ``meld`` where card type ``t`` may be laid off."""
        if meld.is_set:
            return [0] if IS_WILD[t] or t % 13 == meld.rank else []
        return [
            end for end, pos in meld.open_ends()
            if IS_WILD[t] or (pos != 2 and t % 13 == rank_at(pos))
        ]  # fmt: skip

    def _open_places(self) -> tuple[list[tuple[TableMeld, int]], dict[int, list]]:
        """Every (meld, end) that takes a card, and the same by the natural rank it takes;
        kept until a card is next placed on the table."""
        if self._places is None:
            self._places = self._find_places()
        return self._places

    def _find_places(self) -> tuple[list[tuple[TableMeld, int]], dict[int, list]]:
        places: list[tuple[TableMeld, int]] = []
        by_rank: dict[int, list[tuple[TableMeld, int]]] = {}
        for meld in self.melds:
            if meld.is_set:
                places.append((meld, 0))
                by_rank.setdefault(meld.rank, []).append((meld, 0))
                continue
            for end, pos in meld.open_ends():
                places.append((meld, end))
                if pos != 2:
                    by_rank.setdefault(rank_at(pos), []).append((meld, end))
        return places, by_rank

    def playable(self, p: int, t: int) -> bool:
        """Whether player p could lay off card type t now (reading 1: such a card may not be
        discarded)."""
        if not self.laid[p] or self.laid_turn[p] >= self.turns:
            return False
        return self.fits_table(t)

    def fits_table(self, t: int) -> bool:
        """Whether card type t fits some meld on the table (whoever may lay it off)."""
        return any(self._fits(m, t) for m in self.melds)

    def fitted_table(self, move: int) -> list[int]:
        """The card types that fitted some meld on the table as it stood before history
        move ``move`` of this hand."""
        table = [m for m in (x.before(move) for x in self.melds) if m is not None]
        return [t for t in range(N_CARD_TYPES) if any(self._fits(m, t) for m in table)]

    def laid_off_all(self, p: int) -> int:
        """The history index of player p's last discard this hand if p could lay off then
        (the contract laid on an earlier turn), else -1: the move before which the table
        took none of the cards p still holds, for a player who lays off all it can."""
        if self.laid[p] and self.laid_turn[p] < self.last_discard_turn[p]:
            return self.last_discard[p]
        return -1

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
        self.hand_moves += 1
        info = DECODED[action]
        kind = info.kind
        if kind == KIND_DRAW_STOCK:
            self._draw_stock_turn(p)
        elif kind == KIND_DRAW_DISCARD:
            self._take_top(p)
            self._begin_placing()
        elif kind in (KIND_CUTIN_TAKE, KIND_CUTIN_PASS):
            self._cutin(p, kind == KIND_CUTIN_TAKE)
        elif kind == KIND_DISCARD:
            self._discard(p, info.card)
        elif kind in (KIND_SET_MELD, KIND_RUN_MELD):
            self._places = None
            self._meld(p, info.group, info.card, info.position)
        else:
            self._places = None
            owner = (p + info.owner) % self.n
            self._layoff(p, self.meld_at[(owner, info.group)], info.card, info.end)

    def _begin_placing(self) -> None:
        self.turns += 1
        self.phase = PLACE_PHASE

    def _draw_stock_turn(self, p: int) -> None:
        if self.config.cut_ins and self.discard:
            queue = [
                s for s in ((p + k) % self.n for k in range(1, self.n))
                if not self.laid[s] and self.cutins_used[s] < MAX_CUTINS
            ]  # fmt: skip
            if queue:
                self.turn_owner = p
                self.cutin_queue = queue
                self.phase = CUTIN_PHASE
                self.current = queue[0]
                return
        self._finish_draw(p)

    def _finish_draw(self, p: int) -> None:
        self.current = p
        self.turn_owner = p
        if not self._draw_from_stock(p):
            self._end_hand(out=-1)  # reading 7: no card left anywhere
            return
        self._begin_placing()

    def _cutin(self, p: int, take: bool) -> None:
        if take:
            self._take_top(p)
            for _ in range(CUTIN_CARDS):
                if not self._draw_from_stock(p):
                    break
            self.cutins_used[p] += 1
            self.cutin_queue = []
        else:
            self.cutin_queue.pop(0)
        if self.cutin_queue:
            self.current = self.cutin_queue[0]
        else:
            self._finish_draw(self.turn_owner)

    def _meld(self, p: int, group: int, t: int, position: int) -> None:
        is_set, size = self.contract_of(p).groups[group]
        meld = self.meld_at.get((p, group))
        if meld is None:
            meld = TableMeld(p, self.contract[p], group, is_set, size)
            self.melds.append(meld)
            self.meld_at[(p, group)] = meld
        card = self._take(p, t)
        meld.placed[card] = len(self.history) - 1
        if is_set:
            meld.cards.append(card)
            if not IS_WILD[t]:
                meld.rank = t % 13
        else:
            meld.slots[position] = card
        meld.naturals += not IS_WILD[t]
        self.building = True
        contract = self.contract_of(p)
        if all(len(self.meld_at.get((p, g), ())) >= n for g, (_, n) in enumerate(contract.groups)):
            self.laid[p] = True
            self.laid_turn[p] = self.turns
            self.building = False

    def _layoff(self, p: int, meld: TableMeld, t: int, end: int) -> None:
        card = self._take(p, t)
        meld.placed[card] = len(self.history) - 1
        meld.naturals += not IS_WILD[t]
        if meld.is_set:
            meld.cards.append(card)
        else:
            position = dict(meld.open_ends())[end]
            meld.slots[position] = card

    def _discard(self, p: int, t: int) -> None:
        self._put_on_pile(p, self._take(p, t))
        self.last_discard[p] = len(self.history) - 1
        self.last_discard_turn[p] = self.turns
        if not self.hands[p]:
            self._end_hand(out=p)
            return
        self.current = self.turn_owner = (p + 1) % self.n
        self.phase = DRAW_PHASE

    def _end_hand(self, out: int) -> None:
        """Score the hand (the player who went out counts nothing), move every player who
        laid their contract on to the next one, then deal the next hand or end the game."""
        penalty = [sum(points(TYPE_OF[c]) for c in hand) for hand in self.hands]
        if out >= 0:
            penalty[out] = 0
        self.hand_points.append(penalty)
        self.hand_left.append((out, tuple(tuple(hand) for hand in self.hands)))
        for s in range(self.n):
            self.totals[s] += penalty[s]
            if self.laid[s]:
                self.contract[s] += 1
                self.completed[s] += 1
        if self.config.reward == "points":
            self._last_rewards = tuple(-float(x) for x in penalty)
        self.hand_no += 1
        limit = self.config.hands
        done = any(self.completed_all(s) for s in range(self.n))
        self._deal_again_unless(done or bool(limit and self.hand_no >= limit))

    # ----------------------------------------------------------------------------------
    def _table_places(self) -> list[tuple[str, list[int]]]:
        return [(f"meld{m.owner}.{m.group}", m.physical()) for m in self.melds]


__all__ = [
    "CONTRACTS",
    "DRAW_PHASE",
    "MELD_RULES",
    "N_CARD_TYPES",
    "PLACE_PHASE",
    "CUTIN_PHASE",
    "DummyConfig",
    "GameConfig",
    "GameState",
    "IllegalMoveError",
    "TableMeld",
]
