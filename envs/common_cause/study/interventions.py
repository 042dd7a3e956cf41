"""Interventions on the discard channel, and the per-game measurements behind ``analyze``.

A discard is the only message in Common Cause. Every discard has a *speaker* (who made it)
and a *listener* (the partner, who acts next). ``play_measured`` plays one game in one of
three modes, on the same deal and agent seeds as ``commoncause.agents.arena.play_game``:

``normal``
    The game as it is (same moves and result as ``play_game``).
``blind``
    The listener's *view* of the speaker's last discard is corrupted; the real game is not.
    When the speaker discards card ``c``, one other legal discard ``c'`` of that moment is
    drawn at random. While ``c`` lies untaken on top of the pile (the listener's next turn),
    the listener acts on a corrupted copy of the state (``corrupted_clone``): ``c'`` on the
    pile and in the discard log, ``c`` back in the speaker's (hidden) hand. The real state
    is never touched. A move that is legal in the copy but not in the real game can only be
    taking the discard (the copy's top card is placeable, the real one is not): it becomes
    drawing from the stock, as a player who picked the card up and found it useless would
    have to (counted as ``blind_fallbacks``). Earlier discards are shown as they were.
``total``
    The speaker's discard itself is replaced by a uniformly random legal discard (the whole
    discard policy is ablated: message and hand management).

With ``collect`` it also logs every discard (``DiscardEvent``: its category on the table,
labels about the speaker's hand for the signalling probes, public context and what the
listener did next); with ``listen`` it measures, at every listener decision while the
speaker's last discard is untaken on top, how the listener's action responds when that
discard is swapped for each other legal discard of the speaker's (``Listening``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from commoncause.agents.arena import REFUSALS, refused
from commoncause.agents.base import Agent, RandomAgent
from commoncause.envs.common_cause.actions import (
    ACTIONS,
    COMPLETIONS,
    DISCARD,
    DISCARD_BASE,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    N_ACTIONS,
    START_LOOKUP,
    STARTS,
)
from commoncause.envs.common_cause.cards import HIGH_ACE_POSITION, JOKER, N_STANDARD
from commoncause.envs.common_cause.rules import DRAW_PHASE, GameConfig, GameState
from commoncause.envs.common_cause.seat import SeatView

MODES = ("normal", "blind", "total")

# Discard categories (rows of the conventions heatmap), judged on the table at the moment of
# the discard, first match wins. A joker counts as completing any start and fitting any meld.
OWN_START, LISTENER_START, MELD, OTHER = range(4)
CATEGORY_NAMES = (
    "completes speaker's own start",
    "fits listener's own start",
    "fits a complete meld",
    "other",
)
# The listener's next turn (columns of the heatmap).
TAKES, STOCK_PLACES, STOCK_DISCARDS, STOCK_EMPTY = range(4)
RESPONSE_NAMES = (
    "takes the discard",
    "draws stock, places",
    "draws stock, only discards",
    "stock empty: game lost",
)
# Labels about the speaker's hand (targets of the signalling probes); -1 where undefined.
LABEL_NAMES = ("own_completer", "fits_listener", "linked")
LABEL_TEXT = {
    "own_completer": "speaker held a card completing their own open start (when they had one)",
    "fits_listener": "speaker still holds a card completing a listener's open start "
    "(when the listener had one)",
    "linked": "speaker still holds a card that makes an open start with the discard "
    "(real-card discards)",
}
CONTEXT_SIZE = 13  # public context features of a discard event (see _context)

_KIND = [info.kind for info in ACTIONS]


@dataclass
class DiscardEvent:
    """One discard: who made it, what it was, and what followed."""

    speaker: int
    card: int  # card type 0-52 (52: a joker)
    category: int
    labels: tuple[int, int, int]  # LABEL_NAMES; 1 true, 0 false, -1 undefined
    context: tuple[float, ...]  # public context at the discard (CONTEXT_SIZE values)
    legal_discards: int  # how many card types the speaker could have discarded
    response: int = -1  # RESPONSE_NAMES index; -1: the game ended with this discard
    could_take: bool = False  # taking it was legal at the listener's next draw
    took: bool = False


@dataclass
class Listening:
    """One listener decision measured against every alternative discard of the speaker."""

    seat: int  # the listener
    phase: int  # 0: the draw decision, 1: a later decision of the same turn
    alternatives: int  # other legal discards the speaker had
    changed: float  # share of the alternatives that change the listener's chosen action
    kl_bits: float  # KL(p(.|actual) || mean over all possible discards of p(.|discard))


@dataclass
class GameRecord:
    win: bool
    turns: int
    pickups: int
    moves: list[tuple[int, int]] = field(default_factory=list)  # (player, action), if kept
    events: list[DiscardEvent] = field(default_factory=list)
    listening: list[Listening] = field(default_factory=list)
    corrupted_decisions: int = 0  # blind: listener decisions made on a corrupted copy
    blind_fallbacks: int = 0  # blind: takes that were illegal in the real game


# ------------------------------------------------------------------ corrupted views


def discard_types(state: GameState) -> list[int]:
    """The card types (0-52) the current player may discard now."""
    return [a - DISCARD_BASE for a in state.legal_actions() if _KIND[a] == DISCARD]


def physical_in_hand(hand: list[int], card_type: int) -> int:
    """A physical card of ``card_type`` in ``hand`` (a joker type: either joker), or -1."""
    if card_type < N_STANDARD:
        return card_type if card_type in hand else -1
    return next((c for c in hand if c >= N_STANDARD), -1)


def corrupted_clone(state: GameState, entry: int, fake: int) -> GameState:
    """A copy of ``state`` in which discard-log ``entry`` (untaken, on the pile) shows the
    physical card ``fake`` instead of the real card, and ``fake`` sits in the speaker's hand
    in place of the real card (so all 54 cards stay accounted for). The move history's last
    discard of the speaker is rewritten to match. ``state`` itself is not changed."""
    clone = state.clone()
    real, speaker, taken = clone.discard_log[entry]
    if taken:
        raise ValueError("a discard that was taken back cannot be corrupted")
    hand = clone.hands[speaker]
    hand[hand.index(fake)] = real
    clone.discard_log[entry][0] = fake
    clone.discard[clone.discard_entry.index(entry)] = fake
    real_action = DISCARD_BASE + min(real, JOKER)
    for i in range(len(clone.history) - 1, -1, -1):
        if clone.history[i] == (speaker, real_action):
            clone.history[i] = (speaker, DISCARD_BASE + min(fake, JOKER))
            break
    return clone


def open_message(state: GameState, listener: int) -> int:
    """The discard-log entry of the speaker's last discard if the listener is to act and it
    lies untaken on top of the pile (the window in which it can be acted on), else -1."""
    if state.result is not None or state.current != listener or not state.discard_entry:
        return -1
    entry = state.discard_entry[-1]
    return entry if state.discard_log[entry][1] == 1 - listener else -1


# ------------------------------------------------------------ listener distributions


def _rng_states(agent: Agent):
    saved = []
    rng = getattr(agent, "rng", None)
    if isinstance(rng, random.Random):
        saved.append(("rng", rng.getstate()))
    gen = getattr(agent, "generator", None)
    if gen is not None and hasattr(gen, "get_state"):
        saved.append(("generator", gen.get_state()))
    return saved


def _restore(agent: Agent, saved) -> None:
    for name, st in saved:
        if name == "rng":
            agent.rng.setstate(st)
        else:
            agent.generator.set_state(st)


def decision(agent: Agent, view: SeatView) -> int:
    """The action the agent would choose on ``view``, without advancing its random state
    (agents with ``probabilities``: the most likely move)."""
    if hasattr(agent, "probabilities"):
        return int(np.argmax(agent.probabilities(view)))
    saved = _rng_states(agent)
    try:
        return agent.act(view)
    finally:
        _restore(agent, saved)


def distributions(agent: Agent, views: list[SeatView]) -> np.ndarray:
    """The agent's move distribution on each view, shape (len(views), N_ACTIONS): exact for
    policies (one batched forward pass for a ``PolicyAgent``) and the random agent
    (uniform over the legal moves); a one-hot of ``decision`` for deterministic agents."""
    if hasattr(agent, "probabilities_batch"):
        return agent.probabilities_batch(views)
    out = np.zeros((len(views), N_ACTIONS), dtype=np.float64)
    for i, v in enumerate(views):
        if hasattr(agent, "probabilities"):
            out[i] = agent.probabilities(v)
        elif isinstance(agent, RandomAgent):
            legal = v.legal_actions()
            out[i, legal] = 1.0 / len(legal)
        else:
            out[i, decision(agent, v)] = 1.0
    return out


def causal_influence(dists: np.ndarray) -> float:
    """Jaques et al.'s causal influence of a message, in bits: KL between the listener's
    distribution given the actual message (row 0) and its mean over every possible message
    (all rows, uniform weights; the actual one included, so the KL is finite)."""
    p = np.asarray(dists[0], dtype=np.float64)
    m = np.asarray(dists, dtype=np.float64).mean(axis=0)
    nz = p > 0
    kl = float(np.sum(p[nz] * np.log2(p[nz] / m[nz])))
    return kl if kl > 1e-12 else 0.0  # (rounding: identical rows give exactly 0)


def measure_listening(
    state: GameState, agent: Agent, listener: int, entry: int, alternatives: list[int]
) -> Listening | None:
    """Response and causal influence at one listener decision (see ``Listening``)."""
    speaker = 1 - listener
    fakes = [physical_in_hand(state.hands[speaker], t) for t in alternatives]
    fakes = [f for f in fakes if f >= 0]
    if not fakes:
        return None
    views = [SeatView(state, listener)]
    views += [SeatView(corrupted_clone(state, entry, f), listener) for f in fakes]
    if hasattr(agent, "probabilities") or isinstance(agent, RandomAgent):
        dists = distributions(agent, views)
        if isinstance(agent, RandomAgent):
            chosen = [decision(agent, v) for v in views]
        else:
            chosen = [int(np.argmax(d)) for d in dists]
    else:
        chosen = [decision(agent, v) for v in views]
        dists = np.zeros((len(views), N_ACTIONS))
        dists[np.arange(len(views)), chosen] = 1.0
    changed = sum(c != chosen[0] for c in chosen[1:]) / len(fakes)
    phase = 0 if state.phase == DRAW_PHASE else 1
    return Listening(listener, phase, len(fakes), changed, causal_influence(dists))


# ----------------------------------------------------------------- discard events


def _completers(sid: int, maxpos: int) -> frozenset[int]:
    return _COMPLETERS[maxpos][sid]


_COMPLETERS = {
    mp: [frozenset(c for _, c, _, pos in options if pos <= mp) for options in COMPLETIONS]
    for mp in (13, HIGH_ACE_POSITION)
}


def _category(state: GameState, speaker: int, card: int) -> int:
    maxpos = state.config.max_position
    if any(card in _completers(s, maxpos) for s in state.starts[speaker]):
        return OWN_START
    if any(card in _completers(s, maxpos) for s in state.starts[1 - speaker]):
        return LISTENER_START
    for m in state.melds:
        if any(c == card for c, _ in m.offers(maxpos)):
            return MELD
    return OTHER


def _forms_start(a: int, b: int, maxpos: int) -> bool:
    if a >= N_STANDARD or b >= N_STANDARD:
        return False
    sid = START_LOOKUP[a * N_STANDARD + b]
    return sid >= 0 and (maxpos == HIGH_ACE_POSITION or not STARTS[sid].needs_high_ace)


def _labels(state: GameState, speaker: int, card: int) -> tuple[int, int, int]:
    maxpos = state.config.max_position
    hand = state.hands[speaker]
    after = list(hand)
    after.remove(physical_in_hand(hand, card))
    own = state.starts[speaker]
    theirs = state.starts[1 - speaker]
    own_completer = (
        int(any(h < N_STANDARD and h in _completers(s, maxpos) for s in own for h in hand))
        if own
        else -1
    )
    fits_listener = (
        int(any(h < N_STANDARD and h in _completers(s, maxpos) for s in theirs for h in after))
        if theirs
        else -1
    )
    linked = int(any(_forms_start(card, h, maxpos) for h in after)) if card < N_STANDARD else -1
    return own_completer, fits_listener, linked


def _context(state: GameState, speaker: int) -> tuple[float, ...]:
    """Public context of a discard: open-start counts of speaker and listener (one-hot
    0-3 each), stock left, hand sizes after the discard, turns, complete melds."""
    ctx = [0.0] * CONTEXT_SIZE
    ctx[min(len(state.starts[speaker]), 3)] = 1.0
    ctx[4 + min(len(state.starts[1 - speaker]), 3)] = 1.0
    ctx[8] = len(state.stock) / 33
    ctx[9] = (len(state.hands[speaker]) - 1) / 16
    ctx[10] = len(state.hands[1 - speaker]) / 16
    ctx[11] = min(state.turns, 64) / 64
    ctx[12] = min(len(state.melds), 10) / 10
    return tuple(ctx)


def discard_event(state: GameState, card: int, legal_count: int) -> DiscardEvent:
    """The event for the current player discarding ``card`` now (before it is applied)."""
    speaker = state.current
    return DiscardEvent(
        speaker=speaker,
        card=card,
        category=_category(state, speaker, card),
        labels=_labels(state, speaker, card),
        context=_context(state, speaker),
        legal_discards=legal_count,
    )


# ---------------------------------------------------------------------- the game


def play_measured(
    config: GameConfig,
    agents: tuple[Agent, Agent],
    seed: int,
    mode: str = "normal",
    collect: bool = False,
    listen: bool = False,
    keep_moves: bool = False,
) -> GameRecord:
    """One game dealt from ``seed`` (agents reset as in ``play_game``) in ``mode``."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}: choose one of {', '.join(MODES)}")
    state = GameState.new_game(config, seed)
    views = (SeatView(state, 0), SeatView(state, 1))
    agents[0].reset(seed * 2)
    agents[1].reset(seed * 2 + 1)
    rng = random.Random(seed * 7919 + MODES.index(mode))  # the interventions' own draws
    record = GameRecord(False, 0, 0)
    fake: tuple[int, int] | None = None  # blind: (log entry, fake physical card)
    last_entry, alternatives = -1, []  # the last discard: its log entry, the other choices
    event: DiscardEvent | None = None  # the last discard, awaiting the listener's response
    while state.result is None:
        p = state.current
        if event is not None and event.speaker == p:  # the listener's turn is over
            event = None
        entry = open_message(state, p)
        if listen and entry >= 0 and entry == last_entry and alternatives:
            measured = measure_listening(state, agents[p], p, entry, alternatives)
            if measured is not None:
                record.listening.append(measured)
        if (
            mode == "blind"
            and fake is not None
            and entry == fake[0]
            and fake[1] in state.hands[1 - p]
        ):
            clone = corrupted_clone(state, *fake)
            action = agents[p].act(SeatView(clone, p))
            record.corrupted_decisions += 1
            legal = state.legal_actions()
            if action not in legal:
                if _KIND[action] != DRAW:
                    raise RuntimeError(f"blind: a non-draw move {action} legal only in the copy")
                action = DRAW_STOCK if DRAW_STOCK in legal else legal[0]
                record.blind_fallbacks += 1
        else:
            action = agents[p].act(views[p])
        try:
            kind = _KIND[action]
        except REFUSALS as exc:
            raise refused(agents[p], p, action, "Common Cause", exc) from None
        if kind == DISCARD:
            types = discard_types(state)
            if mode == "total":
                action = DISCARD_BASE + rng.choice(types)
            card = action - DISCARD_BASE
            alternatives = [t for t in types if t != card]
            if collect:
                event = discard_event(state, card, len(types))
                record.events.append(event)
        elif event is not None and event.speaker != p:  # the listener's turn after it
            if event.response < 0:  # their draw
                event.could_take = DRAW_DISCARD in state.legal_actions()
                if action == DRAW_DISCARD:
                    event.took, event.response = True, TAKES
                else:
                    event.response = STOCK_EMPTY if not state.stock else STOCK_DISCARDS
            elif kind != DRAW and event.response == STOCK_DISCARDS:
                event.response = STOCK_PLACES
        if keep_moves:
            record.moves.append((p, action))
        try:
            state.apply(action)
        except REFUSALS as exc:
            raise refused(agents[p], p, action, "Common Cause", exc) from None
        if kind == DISCARD and state.result is None:
            last_entry = state.discard_entry[-1]
            fake = None
            if mode == "blind" and alternatives:
                fake = (last_entry, physical_in_hand(state.hands[p], rng.choice(alternatives)))
    record.win = state.result == "win"
    record.turns = state.turns
    record.pickups = state.pickups
    return record
