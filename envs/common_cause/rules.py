"""The Common Cause rules engine: game config, state, legal moves, apply, result.

Pure Python, no RL library: cards and moves are small ints (see ``cards`` and ``actions``).
Every rule of ``common_cause_rules.txt`` lives here; readings of points the sheet leaves open
are listed in ``READINGS`` and in envs/common_cause/readings.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import ClassVar

from ..core.clone import COPY, COPY_EACH, DERIVED, RESET, SHARE, How, declared_copy
from ..core.game import IllegalMoveError, RulesConfig
from ..core.melds import ACE_BOTH, ACE_LOW, MeldRules
from .actions import (
    ACTIONS,
    COMPLETE,
    COMPLETE_BASE,
    COMPLETIONS,
    DISCARD,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    GAP,
    LAYOFF,
    LAYOFFS,
    START,
    START_BASE,
    START_LOOKUP,
    STARTS,
    SWAP,
    SWAPS,
)
from .cards import HIGH_ACE_POSITION, JOKER, N_PHYSICAL, N_STANDARD, card_at, card_code

# Stock sizes per level: the one place levels are defined. The sheet gives full (33) and
# normal (22); easy and hard are the stock sizes at which the baseline team wins closest to
# the sheet's 82% and 31% (``commoncause calibrate``; docs/results/common_cause.md, "Levels").
LEVELS: dict[str, int] = {"full": 33, "easy": 29, "normal": 22, "hard": 18}
MAX_STOCK = 33
HAND_SIZE = 10

DRAW_PHASE, PLACE_PHASE = 0, 1
STOCK_OUT = "the stock is empty and the top discard cannot be placed"
"""The loss reason of a game lost by the draw from an empty stock."""

# Lookup tables for the hot paths, per highest run position (13: ace low, 14: ace high).
# _START_PARTNERS[mp][a]: {b: open start action id} for the cards b that lay a start with a;
# _HIGHER_PARTNERS[mp][a]: the same as (b, action id) pairs for b > a.
# _COMPLETION_OFFERS[mp][sid]: (card type, action id) of each way to complete start sid.
_START_PARTNERS: dict[int, list[dict[int, int]]] = {
    mp: [
        {
            b: START_BASE + sid
            for b in range(N_STANDARD)
            if (sid := START_LOOKUP[a * N_STANDARD + b]) >= 0
            and (mp == HIGH_ACE_POSITION or not STARTS[sid].needs_high_ace)
        }
        for a in range(N_STANDARD)
    ]
    for mp in (13, HIGH_ACE_POSITION)
}
_HIGHER_PARTNERS: dict[int, list[tuple[tuple[int, int], ...]]] = {
    mp: [tuple((b, aid) for b, aid in sorted(d.items()) if b > a) for a, d in enumerate(partners)]
    for mp, partners in _START_PARTNERS.items()
}
# per action id: the card type played and the start or meld acted on (ACTIONS, flattened);
# _START_CARDS[a]: the two cards of open start action a (a < COMPLETE_BASE).
_CARD = [info.card for info in ACTIONS]
_ORIGIN = [info.origin for info in ACTIONS]
_START_CARDS = [STARTS[info.origin].cards if info.kind == START else () for info in ACTIONS]
_COMPLETION_OFFERS: dict[int, list[tuple[tuple[int, int], ...]]] = {
    mp: [
        tuple((card, aid) for aid, card, _, pos in options if pos <= mp) for options in COMPLETIONS
    ]
    for mp in (13, HIGH_ACE_POSITION)
}


__all__ = ["LEVELS", "GameConfig", "GameState", "IllegalMoveError", "Meld", "meld_rules"]


def meld_rules(config: GameConfig) -> MeldRules:
    """Common Cause's melds as data: runs of one suit, the Ace low or high (low only in the
    ace-low variant), sets of distinct suits up to four, jokers wild, at least one real card
    (every meld grows from a two-card start of real cards). The engine's hot paths use lookup
    tables; the property tests check every meld on the table against these rules."""
    return MeldRules(ace=ACE_LOW if config.ace_low else ACE_BOTH)


@dataclass(frozen=True)
class GameConfig(RulesConfig):
    """Everything that changes the rules of a game (levels are stock sizes)."""

    VARIANTS: ClassVar[dict[str, str]] = {
        "open_hands": "open hands",
        "ace_low": "ace low",
        "max_open_starts": "three open starts",
        "early_loss": "early loss",
        "signal_rule": "signal rule",
    }
    LEVELS: ClassVar[dict[str, int]] = LEVELS
    """Level name -> stock size (``make(level=...)``)."""
    CLI_ALIASES: ClassVar[dict[str, tuple[str, int]]] = {"three_starts": ("max_open_starts", 3)}
    """Command-line shorthands: flag -> (field, value)."""

    stock_size: int = LEVELS["normal"]
    """Cards left in the stock after the put-aside cards are counted off (0-33)."""
    open_hands: bool = False
    """Variant: both hands are face up (the stock and the put-aside cards stay hidden)."""
    ace_low: bool = False
    """Variant: the Ace is only low (A-2-3, never Q-K-A)."""
    max_open_starts: int = 2
    """Open starts a player may have on the table at once (3 for the variant)."""
    early_loss: bool = False
    """End the game as lost as soon as an open start can no longer be completed, judged
    from public information (the sheet's "you may stop at once")."""
    signal_rule: bool = False
    """Enforce the sheet's advice as a rule: a player holding a real card that completes
    one of their own open starts must discard such a card."""

    def __post_init__(self) -> None:
        if isinstance(self.stock_size, bool) or not isinstance(self.stock_size, int):
            raise ValueError(f"stock_size must be an int 0-{MAX_STOCK}, got {self.stock_size!r}")
        if not 0 <= self.stock_size <= MAX_STOCK:
            raise ValueError(f"stock_size must be 0-{MAX_STOCK}, got {self.stock_size}")
        if self.max_open_starts not in (2, 3) or isinstance(self.max_open_starts, bool):
            raise ValueError(f"max_open_starts must be 2 or 3, got {self.max_open_starts!r}")
        self.check_bool("open_hands", "ace_low", "early_loss", "signal_rule")

    @classmethod
    def make(cls, level: str = "normal", stock_size: int | None = None, **variants) -> GameConfig:
        """Config from a level name, an optional explicit stock size and variant flags."""
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
        names = [f.name for f in fields(cls) if f.name != "stock_size"]
        unknown = sorted(set(variants) - set(names))
        if unknown:
            raise ValueError(
                f"unknown option(s) {unknown}: choose from level, stock_size, {', '.join(names)}"
            )
        return cls(stock_size=LEVELS[level] if stock_size is None else stock_size, **variants)

    @property
    def max_position(self) -> int:
        return 13 if self.ace_low else HIGH_ACE_POSITION

    @property
    def level(self) -> str | None:
        """The level whose stock size this is, or None."""
        return next((name for name, size in LEVELS.items() if size == self.stock_size), None)

    def label(self) -> str:
        """``normal``, or ``stock 20`` for a size that is no level."""
        return self.level or f"stock {self.stock_size}"


class Meld:
    """A complete meld on the table, named by ``origin``: the open start it grew from.

    A set keeps its physical cards in play order; a run keeps them by position from ``lo``,
    so the joker at index ``i`` stands for ``card_at(suit, lo + i)``. Change it only
    through ``add`` and ``swap_in`` (they keep ``jokers``, the joker count, up to date).
    """

    __slots__ = ("origin", "is_set", "rank", "suit", "lo", "cards", "jokers", "_offers")

    def __init__(self, origin: int, cards: list[int], lo: int = 0) -> None:
        shape = STARTS[origin]
        self.origin = origin
        self.is_set = shape.is_set
        self.rank = shape.rank
        self.suit = shape.suit
        self.lo = lo
        self.cards = cards
        self.jokers = sum(1 for c in cards if c >= N_STANDARD)
        self._offers: list[tuple[int, int]] | None = None

    def add(self, physical: int, at_low_end: bool = False) -> None:
        if at_low_end:
            self.cards.insert(0, physical)
            self.lo -= 1
        else:
            self.cards.append(physical)
        self.jokers += physical >= N_STANDARD
        self._offers = None

    def swap_in(self, index: int, card: int) -> int:
        """Put real ``card`` at ``index`` (a joker's place); returns that joker."""
        joker = self.cards[index]
        self.cards[index] = card
        self.jokers -= 1
        self._offers = None
        return joker

    def offers(self, max_position: int) -> list[tuple[int, int]]:
        """(card type needed, action id) of every lay-off and swap this meld takes now."""
        if self._offers is not None:
            return self._offers
        layoffs = LAYOFFS[self.origin]
        swaps = SWAPS[self.origin]
        offers: list[tuple[int, int]] = []
        if self.is_set:
            missing = self.missing_suit_cards()
            if len(self.cards) < 4:
                offers.extend((c, layoffs[(c, -1)]) for c in missing)
                offers.append((JOKER, layoffs[(JOKER, -1)]))
            if self.jokers:
                offers.extend((c, swaps[c]) for c in missing)
        else:
            for pos in self.open_ends(max_position):
                c = card_at(self.suit, pos)
                offers.append((c, layoffs[(c, -1)]))
                offers.append((JOKER, layoffs[(JOKER, c)]))
            offers.extend((c, swaps[c]) for _, c in self.stand_ins())
        self._offers = offers
        return offers

    @property
    def hi(self) -> int:
        return self.lo + len(self.cards) - 1

    copy = declared_copy(
        {"origin": SHARE, "is_set": SHARE, "rank": SHARE, "suit": SHARE, "lo": SHARE,
         "cards": COPY, "jokers": SHARE,
         "_offers": SHARE},  # replaced, never changed in place: safe to share
        __slots__,
    )  # fmt: skip

    def missing_suit_cards(self) -> list[int]:
        """Set only: the real cards of its rank whose suit is not in the set."""
        present = {c // 13 for c in self.cards if c < N_STANDARD}
        return [s * 13 + self.rank for s in range(4) if s not in present]

    def stand_ins(self) -> list[tuple[int, int]]:
        """Run only: (index, card) for each joker and the card it stands for."""
        return [
            (i, card_at(self.suit, self.lo + i))
            for i, c in enumerate(self.cards)
            if c >= N_STANDARD
        ]

    def open_ends(self, max_position: int) -> list[int]:
        """Run only: positions a card may be added at (low end first; the Ace only once)."""
        lo, hi = self.lo, self.hi
        ends = []
        if lo > 1 and not (lo - 1 == 1 and hi == HIGH_ACE_POSITION):
            ends.append(lo - 1)
        if hi < max_position and not (lo == 1 and hi + 1 == HIGH_ACE_POSITION):
            ends.append(hi + 1)
        if ends == [1, HIGH_ACE_POSITION]:  # a 2-K run takes its Ace once; it goes low
            ends = [1]
        return ends


class GameState:
    """One game in progress. ``legal_actions()`` is the one legal-move function."""

    PLACEMENT_FIELDS: ClassVar[dict[str, How]] = {
        "hands": COPY_EACH, "starts": COPY_EACH, "start_order": COPY, "table_cards": COPY,
        "public_jokers": COPY, "history": COPY, "_legal": RESET,
    }  # fmt: skip
    """What any placement changes: a look-ahead copy (``_placement_copy``) copies only these."""
    CLONE_FIELDS: ClassVar[dict[str, How]] = {
        **PLACEMENT_FIELDS,
        "aside": COPY, "stock": COPY, "discard": COPY, "discard_entry": COPY,
        "discard_log": COPY_EACH, "taken_entries": COPY, "melds": COPY_EACH, "meld_of": DERIVED,
        "config": SHARE, "deck": SHARE, "current": SHARE, "phase": SHARE, "pending": SHARE,
        "turns": SHARE, "pickups": SHARE, "result": SHARE, "loss_reason": SHARE,
        "placements": SHARE,
    }  # fmt: skip
    """Every field and how ``clone`` copies it (``envs/core/clone``)."""
    _copy_placement_fields = declared_copy(PLACEMENT_FIELDS)
    _copy_state = declared_copy(CLONE_FIELDS)

    def __init__(self, config: GameConfig, deck: list[int]) -> None:
        if sorted(deck) != list(range(N_PHYSICAL)):
            raise ValueError("a deck must hold each of the 54 physical cards exactly once")
        self.config = config
        self.deck = list(deck)
        self.hands: list[list[int]] = [list(deck[0:20:2]), list(deck[1:20:2])]
        aside_end = 21 + (MAX_STOCK - config.stock_size)
        self.aside: list[int] = list(deck[21:aside_end])
        self.stock: list[int] = list(reversed(deck[aside_end:]))  # top of the stock is last
        self.discard: list[int] = [deck[20]]  # top is last
        self.discard_entry: list[int] = [0]  # index into discard_log of each pile card
        # discard_log: [card, who discarded it (-1: the turned-up card), taken from the pile]
        self.discard_log: list[list[int]] = [[deck[20], -1, 0]]
        self.public_jokers: set[int] = set()  # jokers ever seen on the table or the pile
        self.starts: list[list[int]] = [[], []]  # open start ids per player, in laying order
        self.start_order: list[int] = []  # all open start ids in laying order
        self.melds: list[Meld] = []
        self.meld_of: dict[int, Meld] = {}
        self.table_cards: set[int] = set()  # real cards on the table (they never leave it)
        self.current = 0
        self.phase = DRAW_PHASE
        self.pending = -1  # physical card taken from the discard pile, not yet placed
        self.turns = 0  # draws so far: one per turn
        self.pickups = 0  # turns that took the top discard
        self.history: list[tuple[int, int]] = []  # (player, action)
        self.result: str | None = None  # "win" or "loss"
        self.loss_reason = ""
        self.placements = 0  # cards put on the table so far (moves that change the table)
        self.taken_entries: list[int] = []  # discard_log indices taken back, in order
        self._legal: list[int] | None = None
        if deck[20] >= N_STANDARD:  # a turned-up joker is the first public one: joker 52
            if deck[20] != N_STANDARD:
                self._swap_joker_names()
            self.public_jokers.add(N_STANDARD)

    @classmethod
    def new_game(cls, config: GameConfig, seed: int | None = None) -> GameState:
        deck = list(range(N_PHYSICAL))
        random.Random(seed).shuffle(deck)
        return cls(config, deck)

    # ----------------------------------------------------------------------------------
    # queries
    num_seats = 2

    @property
    def is_terminal(self) -> bool:
        return self.result is not None

    def returns(self) -> tuple[float, float]:
        """Team return, identical for both seats: +1 win, -1 loss, 0 while playing."""
        r = 1.0 if self.result == "win" else -1.0 if self.result == "loss" else 0.0
        return (r, r)

    # Rewards of the last move: the team return on the move that ends the game, else nothing
    # (the returns are zero until then), so rewards() is returns() itself.
    rewards = returns

    def seat_stats(self, seat: int) -> dict[str, float]:
        """The team's figures (the same for both seats): won, turns, discard pickups."""
        return {"won": float(self.result == "win"), "turns": self.turns, "pickups": self.pickups}

    def outcome(self) -> str:
        if self.result == "win":
            return "won: both hands are empty and every card on the table is in a complete meld"
        if self.result == "loss":
            return f"lost: {self.loss_reason}"
        return ""

    def top_discard(self) -> int:
        return self.discard[-1] if self.discard else -1

    def clone(self) -> GameState:
        new = self._copy_state()
        new.meld_of = {m.origin: m for m in new.melds}
        return new

    def redeal(self, seat: int, hidden: list[int]) -> GameState:
        """A copy of this game in which the cards ``seat`` cannot see are ``hidden`` (physical
        ids): the partner's hand takes the first ones (keeping its size), the stock the next
        (top last), the put-aside cards the rest. For search over the deals a seat thinks
        possible; the original deal (``deck``) is cleared, the caches start empty."""
        q = 1 - seat
        size, stock = len(self.hands[q]), len(self.stock)
        unseen = self.hands[q] + self.stock + self.aside
        if sorted(hidden) != sorted(unseen):
            raise ValueError(
                f"a redeal needs the {len(unseen)} cards seat {seat} cannot see, each once"
            )
        new = self.clone()
        new.deck = []
        new.hands[q] = list(hidden[:size])
        new.stock = list(hidden[size : size + stock])
        new.aside = list(hidden[size + stock :])
        return new

    def locations(self) -> dict[int, str]:
        """Where each physical card is (for conservation checks and debugging)."""
        where: dict[int, str] = {}
        places = [
            ("hand0", self.hands[0]),
            ("hand1", self.hands[1]),
            ("stock", self.stock),
            ("aside", self.aside),
            ("discard", self.discard),
        ]
        places += [(f"start{p}", STARTS[s].cards) for p in (0, 1) for s in self.starts[p]]
        places += [(f"meld{m.origin}", m.cards) for m in self.melds]
        for name, cards in places:
            for c in cards:
                if c in where:
                    raise AssertionError(f"card {c} is both in {where[c]} and {name}")
                where[c] = name
        return where

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
        hand = self.hands[p]
        if self.phase == DRAW_PHASE:
            takeable = bool(self.discard) and self._placeable(self.discard[-1], hand, p)
            if not self.stock:  # "draw stock" from an empty stock is the move that loses
                return [DRAW_DISCARD] if takeable else [DRAW_STOCK]
            return [DRAW_STOCK, DRAW_DISCARD] if takeable else [DRAW_STOCK]
        moves = self._placements(p)
        if self.pending >= 0:
            return self._keeping_pending_placeable(moves)
        return moves + self._discards(p)

    def _discards(self, p: int) -> list[int]:
        types = {c if c < N_STANDARD else JOKER for c in self.hands[p]}
        if self.config.signal_rule:
            signals = types & self._own_completers(p)
            if signals:
                types = signals
        return [DISCARD_BASE + c for c in types]

    def _own_completers(self, p: int) -> set[int]:
        """Real cards that would complete one of player p's own open starts."""
        maxpos = self.config.max_position
        return {
            card
            for sid in self.starts[p]
            for _, card, _, pos in COMPLETIONS[sid]
            if card != JOKER and pos <= maxpos
        }

    def _placements(self, p: int) -> list[int]:
        """Player p's legal placements, in no particular order: open starts from the hand,
        then every way the table takes a held card (completions of the partner's starts,
        and each meld's ``offers``)."""
        cfg = self.config
        maxpos = cfg.max_position
        hand = self.hands[p]
        held = set(hand)  # card types held (and the physical joker 53, which no offer names)
        if N_STANDARD + 1 in held:
            held.add(JOKER)
        out: list[int] = []
        if len(self.starts[p]) < cfg.max_open_starts:
            partners = _HIGHER_PARTNERS[maxpos]
            for a in hand:
                if a < N_STANDARD:
                    for b, aid in partners[a]:
                        if b in held:
                            out.append(aid)
        offers = _COMPLETION_OFFERS[maxpos]
        for sid in self.starts[1 - p]:
            for card, aid in offers[sid]:
                if card in held:
                    out.append(aid)
        for m in self.melds:
            meld_offers = m._offers  # (inlined cache look-up of m.offers)
            if meld_offers is None:
                meld_offers = m.offers(maxpos)
            for card, aid in meld_offers:
                if card in held:
                    out.append(aid)
        return out

    def _keeping_pending_placeable(self, moves: list[int]) -> list[int]:
        """With a taken discard x still to place: the placements that place x or leave a way
        to place it. A move that leaves one of x's direct ways untouched (another start or
        meld; for a new start with x, a held partner card it does not use and, if it is a new
        start, a free place for one more) keeps it; the others are played out on a copy."""
        x = self.pending
        x_type = min(x, JOKER)
        targets: set[int] = set()  # partner starts and melds x goes on directly
        partners: set[int] = set()  # held cards x makes a new open start with
        for a in moves:
            if a < COMPLETE_BASE:  # an open start
                c1, c2 = _START_CARDS[a]
                if x == c1:
                    partners.add(c2)
                elif x == c2:
                    partners.add(c1)
            elif _CARD[a] == x_type:
                targets.add(_ORIGIN[a])
        room = len(self.starts[self.current]) + 1 < self.config.max_open_starts
        kept = []
        for a in moves:
            if a < COMPLETE_BASE:
                cards = _START_CARDS[a]
                places_x = x in cards
                keeps_partner = room and any(h not in cards for h in partners)
            else:
                card = _CARD[a]
                places_x = card == x_type
                keeps_partner = any(h != card for h in partners)
            if (
                places_x
                or keeps_partner
                or (targets and any(t != _ORIGIN[a] for t in targets))
                or self._still_placeable_after(a)
            ):
                kept.append(a)
        return kept

    def _placement_copy(self, action: int) -> GameState:
        """A copy of this state on which the placement ``action`` may be applied, for looking
        ahead: it copies only what a placement changes (hands, open starts, the meld it
        touches, table cards, history) and shares the rest (stock, put-aside cards, discard
        pile and log, the other melds), which a placement never changes, except that the
        first joker to go public may rename the two jokers: then everything is copied."""
        if not self.public_jokers:
            return self.clone()
        new = self._copy_placement_fields()
        info = ACTIONS[action]
        if info.kind == COMPLETE:
            new.melds = list(self.melds)
            new.meld_of = dict(self.meld_of)
        elif info.kind == LAYOFF or info.kind == SWAP:
            old = self.meld_of[info.origin]
            meld = old.copy()
            new.melds = [meld if m is old else m for m in self.melds]
            new.meld_of = dict(self.meld_of)
            new.meld_of[info.origin] = meld
        return new

    def _still_placeable_after(self, action: int) -> bool:
        after = self._placement_copy(action)
        after._apply_unchecked(action)
        if after.pending < 0 or after.result is not None:
            return True
        hand = [c for c in after.hands[after.current] if c != after.pending]
        return after._placeable(after.pending, hand, after.current)

    def _placeable(self, x: int, hand: list[int], p: int) -> bool:
        """Whether player p, holding ``hand`` plus the card ``x``, can put ``x`` on the table
        this turn by some sequence of placements (the condition for taking the top discard)."""
        cfg = self.config
        maxpos = cfg.max_position
        partner_starts = self.starts[1 - p]
        if x >= N_STANDARD:  # a joker: only directly (placements never open room for it)
            for sid in partner_starts:
                for _, card, _, pos in COMPLETIONS[sid]:
                    if card == JOKER and pos <= maxpos:
                        return True
            for m in self.melds:
                if m.is_set:
                    if len(m.cards) < 4:
                        return True
                elif m.open_ends(maxpos):
                    return True
            return False
        if len(self.starts[p]) < cfg.max_open_starts:
            for h in hand:
                if h < N_STANDARD:
                    sid = START_LOOKUP[x * N_STANDARD + h]
                    if sid >= 0 and (maxpos == HIGH_ACE_POSITION or not STARTS[sid].needs_high_ace):
                        return True
        for sid in partner_starts:
            for _, card, _, pos in COMPLETIONS[sid]:
                if card == x and pos <= maxpos:
                    return True
        suit, rank = divmod(x, 13)
        candidates: list[tuple[int, int, int]] = []  # (lo, hi, gap position or 0)
        for m in self.melds:
            if m.is_set:
                if m.rank == rank and (len(m.cards) < 4 or m.jokers):
                    return True  # lay off, or swap for one of its jokers
            elif m.suit == suit:
                if any(c == x for _, c in m.stand_ins()):
                    return True  # swap for the joker standing for x
                candidates.append((m.lo, m.hi, 0))
        for sid in partner_starts:
            shape = STARTS[sid]
            if not shape.is_set and shape.suit == suit:
                lo, hi = shape.positions
                candidates.append((lo, hi, lo + 1 if shape.kind == GAP else 0))
        if not candidates:
            return False
        held = set(hand)
        jokers = (N_STANDARD in held) + (N_STANDARD + 1 in held)
        spots = [rank + 1] + (
            [HIGH_ACE_POSITION] if rank == 0 and maxpos == HIGH_ACE_POSITION else []
        )
        for lo, hi, gap in candidates:
            for px in spots:
                if lo <= px <= hi:
                    continue
                if px < lo:
                    path, new_lo, new_hi = list(range(px + 1, lo)), px, hi
                else:
                    path, new_lo, new_hi = list(range(hi + 1, px)), lo, px
                if new_hi > maxpos or (new_lo == 1 and new_hi == HIGH_ACE_POSITION):
                    continue
                if gap:
                    path.append(gap)
                used = {c for c in (card_at(suit, pos) for pos in path) if c in held}
                needed = len(path) - len(used)  # each other card: a joker stands for it
                if needed <= jokers or needed <= jokers + self._freeable_jokers(held - used):
                    return True
        return False

    def _freeable_jokers(self, spare: set[int]) -> int:
        """How many table jokers could be swapped out at once using distinct ``spare`` cards."""
        options: list[set[int]] = []
        for m in self.melds:
            if m.is_set:
                swappers = set(m.missing_suit_cards()) & spare
                options.extend(swappers for _ in range(m.jokers))
            else:
                options.extend({c} & spare for _, c in m.stand_ins())
        options = [o for o in options if o]
        if len(options) >= 2 and any(
            len(a | b) >= 2 for i, a in enumerate(options) for b in options[i + 1 :]
        ):
            return 2
        return 1 if options else 0

    # ----------------------------------------------------------------------------------
    # moves
    def apply(self, action: int) -> None:
        """Play ``action`` for the current player; raises IllegalMoveError if not legal."""
        # drawing from a non-empty stock is always legal at the start of a turn: skip working
        # out the other moves (whether the top discard could be taken) just to check it
        if not (action == DRAW_STOCK and self.phase == DRAW_PHASE and self.stock and
                self.result is None):  # fmt: skip
            legal = self.legal_actions()
            if action not in legal:
                raise IllegalMoveError(action, legal)
        self._apply_unchecked(action)

    def _take(self, p: int, card: int) -> int:
        """Remove a card of type ``card`` from p's hand to put it on the table or the pile.

        The two jokers look alike, so which physical joker goes public must tell nothing
        about the hidden one: the pending (just taken) joker first, else one whose whereabouts
        are already public, else, when no joker has been public yet, joker 52 (renaming the
        two if needed)."""
        hand = self.hands[p]
        if card != JOKER:
            hand.remove(card)
            return card
        held = [c for c in hand if c >= N_STANDARD]
        if self.pending in held:
            physical = self.pending
        else:
            known = [j for j in held if j in self.public_jokers]
            physical = known[0] if known else held[0]
            if not self.public_jokers and physical != N_STANDARD:
                self._swap_joker_names()
                physical = N_STANDARD
        hand.remove(physical)
        self.public_jokers.add(physical)
        return physical

    def _swap_joker_names(self) -> None:
        """Exchange the names 52 and 53 of the two physical jokers everywhere (only done
        before either has been seen, so no public record changes)."""
        other = {N_STANDARD: N_STANDARD + 1, N_STANDARD + 1: N_STANDARD}
        for cards in (*self.hands, self.stock, self.aside, self.discard):
            cards[:] = [other.get(c, c) for c in cards]
        for entry in self.discard_log:
            entry[0] = other.get(entry[0], entry[0])
        self.pending = other.get(self.pending, self.pending)

    def _apply_unchecked(self, action: int) -> None:
        p = self.current
        self._legal = None
        self.history.append((p, action))
        if action == DRAW_STOCK:
            if not self.stock:
                self.result = "loss"
                self.loss_reason = STOCK_OUT
                return
            self.hands[p].append(self.stock.pop())
            self.turns += 1  # (_begin_placing, inlined)
            self.phase = PLACE_PHASE
            return
        if action == DRAW_DISCARD:
            card = self.discard.pop()
            entry = self.discard_entry.pop()
            self.discard_log[entry][2] = 1
            self.taken_entries.append(entry)
            self.hands[p].append(card)
            self.pending = card
            self.pickups += 1
            self._begin_placing()
            return
        info = ACTIONS[action]
        if info.kind == DISCARD:
            card = self._take(p, info.card)
            self.discard.append(card)
            self.discard_entry.append(len(self.discard_log))
            self.discard_log.append([card, p, 0])
            if not self._check_win():  # the discard may empty the last hand
                self._end_turn()
            return
        self.placements += 1
        if info.kind == START:
            a, b = STARTS[info.origin].cards
            self.hands[p].remove(a)
            self.hands[p].remove(b)
            self.table_cards.update((a, b))
            self.starts[p].append(info.origin)
            self.start_order.append(info.origin)
        elif info.kind == COMPLETE:
            self._complete(p, info.origin, info.card, info.position)
        elif info.kind == LAYOFF:
            self._layoff(p, self.meld_of[info.origin], info.card, info.stands_for)
        elif info.kind == SWAP:
            self._swap(p, self.meld_of[info.origin], info.card)
        self._after_placement(p)

    def _begin_placing(self) -> None:
        self.turns += 1
        self.phase = PLACE_PHASE

    def _complete(self, p: int, sid: int, card: int, pos: int) -> None:
        self.starts[1 - p].remove(sid)
        self.start_order.remove(sid)
        physical = self._take(p, card)
        shape = STARTS[sid]
        a, b = shape.cards
        if shape.is_set:
            meld = Meld(sid, [a, b, physical])
        else:
            by_pos = {shape.positions[0]: card_at(shape.suit, shape.positions[0]), pos: physical}
            by_pos[shape.positions[1]] = card_at(shape.suit, shape.positions[1])
            lo = min(by_pos)
            meld = Meld(sid, [by_pos[q] for q in range(lo, lo + 3)], lo)
        if card != JOKER:
            self.table_cards.add(card)
        self.melds.append(meld)
        self.meld_of[sid] = meld

    def _layoff(self, p: int, meld: Meld, card: int, stands: int) -> None:
        physical = self._take(p, card)
        if meld.is_set:
            meld.add(physical)
            if card != JOKER:
                self.table_cards.add(card)
            return
        target = stands if card == JOKER else card
        if card != JOKER:
            self.table_cards.add(card)
        ends = meld.open_ends(self.config.max_position)
        meld.add(physical, at_low_end=card_at(meld.suit, ends[0]) == target and ends[0] < meld.lo)

    def _swap(self, p: int, meld: Meld, card: int) -> None:
        self.hands[p].remove(card)
        self.table_cards.add(card)
        if meld.is_set:
            index = next(i for i, c in enumerate(meld.cards) if c >= N_STANDARD)
        else:
            index = next(i for i, c in meld.stand_ins() if c == card)
        self.hands[p].append(meld.swap_in(index, card))

    def _after_placement(self, p: int) -> None:
        if self.pending >= 0 and self.pending not in self.hands[p]:
            self.pending = -1
        if self._check_win() or (self.config.early_loss and self._check_early_loss()):
            return
        if not self.hands[p]:
            self._end_turn()

    def _check_win(self) -> bool:
        """Won as soon as both hands are empty and no open start is left."""
        if self.hands[0] or self.hands[1] or self.starts[0] or self.starts[1]:
            return False
        self.result = "win"
        return True

    def _end_turn(self) -> None:
        self.current ^= 1
        self.phase = DRAW_PHASE
        if self.config.early_loss:
            self._check_early_loss()

    # ----------------------------------------------------------------------------------
    # the optional early loss: an open start that public information shows to be dead
    def _check_early_loss(self) -> bool:
        if not self.config.early_loss or self.result is not None:
            return False
        dead = self.dead_starts()
        if dead:
            self.result = "loss"
            names = ", ".join(" ".join(card_code(c) for c in STARTS[s].cards) for s in dead)
            self.loss_reason = f"open start {names} can no longer be completed"
        return bool(dead)

    def dead_starts(self) -> list[int]:
        """Open starts that can no longer be completed, judged from public information:
        every card that completes it is on the table or buried in the discard pile (below
        the top), and so is every joker (a table joker counts as gettable while a card that
        could swap it out is neither on the table nor buried)."""
        buried = set(self.discard[:-1])
        table = {c for m in self.melds for c in m.cards}
        table.update(c for p in (0, 1) for s in self.starts[p] for c in STARTS[s].cards)

        def live(c: int) -> bool:
            return c not in table and c not in buried

        joker_live = False
        for j in (N_STANDARD, N_STANDARD + 1):
            if j in buried:
                continue
            if j not in table:
                joker_live = True
                break
            meld = next(m for m in self.melds if j in m.cards)
            if meld.is_set:
                swappers = meld.missing_suit_cards()
            else:
                swappers = [card_at(meld.suit, meld.lo + meld.cards.index(j))]
            if any(live(c) for c in swappers):
                joker_live = True
                break
        maxpos = self.config.max_position
        dead = []
        for sid in self.start_order:
            alive = False
            for _, card, _, pos in COMPLETIONS[sid]:
                if pos > maxpos:
                    continue
                if card == JOKER:
                    alive = joker_live
                else:
                    alive = live(card)
                if alive:
                    break
            if not alive:
                dead.append(sid)
        return dead
