"""Property tests of the Common Cause engine and env over random seeds and configs.

Games are played at engine level (``GameState.new_game`` + ``apply``) by a mix of a uniform
random policy and a "greedy" one that prefers placements (and taking the top discard) so that
melds, completions, lay-offs and swaps happen. Checked after every move: card conservation;
the validity of every meld and open start (a validator written here from the rule sheet);
the legal placements and discards against a reference derived here from the rule sheet and
envs/common_cause/readings.md; termination and results; the env's action mask and observation; the
move notation round-trip; that a seat's observation and legal moves do not depend on hidden
cards; and that "take the top discard" is legal exactly when a brute-force search over
placement sequences can place that card (and, once taken, exactly the placements that keep
it placeable are legal). Runs in about 20 s.
"""

from __future__ import annotations

import contextlib
import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commoncause.envs.common_cause import env as make_env
from commoncause.envs.common_cause.actions import (
    ACTIONS,
    COMPLETE,
    COMPLETIONS,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    LAYOFFS,
    START,
    START_BASE,
    STARTS,
    SWAP,
    SWAPS,
    discard_action,
    start_id,
)
from commoncause.envs.common_cause.cards import (
    JOKER,
    N_PHYSICAL,
    N_STANDARD,
    card_at,
    card_code,
    deck_codes,
)
from commoncause.envs.common_cause.notation import move_text, parse_move
from commoncause.envs.common_cause.observer import encode
from commoncause.envs.common_cause.rules import (
    DRAW_PHASE,
    LEVELS,
    PLACE_PHASE,
    GameConfig,
    GameState,
)

PLACEMENT_KINDS = (START, COMPLETE, LAYOFF, SWAP)
MAX_MOVES = 400  # a game is at most ~33 + 20 turns; each has a handful of moves
SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ----------------------------------------------------------------------------------------
# strategies and policies


@st.composite
def configs(draw) -> GameConfig:
    variants = {
        "open_hands": draw(st.booleans()),
        "ace_low": draw(st.booleans()),
        "max_open_starts": draw(st.sampled_from([2, 3])),
        "early_loss": draw(st.booleans()),
        "signal_rule": draw(st.booleans()),
    }
    if draw(st.booleans()):
        return GameConfig.make(draw(st.sampled_from(sorted(LEVELS))), **variants)
    return GameConfig(stock_size=draw(st.integers(0, 33)), **variants)


seeds = st.integers(0, 2**32 - 1)
greediness = st.sampled_from([0.0, 0.9, 1.0])


def choose(state: GameState, rng: random.Random, greedy: float) -> int:
    """A random legal action; with probability ``greedy`` a placement (or the top discard)
    when there is one."""
    legal = state.legal_actions()
    if rng.random() < greedy:
        if DRAW_DISCARD in legal:
            return DRAW_DISCARD
        placements = [a for a in legal if ACTIONS[a].kind in PLACEMENT_KINDS]
        if placements:
            # prefer moves that use the partner's or the common cards over new starts
            shared = [a for a in placements if ACTIONS[a].kind != START]
            return rng.choice(shared if shared and rng.random() < 0.7 else placements)
    return rng.choice(legal)


def stuck_at_deal(state: GameState) -> bool:
    """The known engine bug: a deal with an empty stock whose turned-up card cannot be
    placed is neither lost nor playable (see ``test_empty_stock_deal_is_lost``)."""
    return not state.history and not state.stock and not state.legal_actions()


def play(config: GameConfig, seed: int, greedy: float):
    """Yield (state, action) before each move of one game, then (final state, None)."""
    state = GameState.new_game(config, seed)
    rng = random.Random(seed + 1)
    while not state.is_terminal:
        if stuck_at_deal(state):
            return
        assert state.legal_actions(), "a live state without a legal action"
        assert len(state.history) < MAX_MOVES, "game does not end"
        action = choose(state, rng, greedy)
        yield state, action
        state.apply(action)
    yield state, None


# ----------------------------------------------------------------------------------------
# an independent validator of the table, from the rule sheet


def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


def positions(card: int, ace_low: bool) -> set[int]:
    """Run positions a real card may take: A=1 (or 14 when the Ace may be high), 2=2 ..."""
    pos = {rank(card) + 1}
    if rank(card) == 0 and not ace_low:
        pos.add(14)
    return pos


def check_open_start(cards: tuple[int, int], ace_low: bool) -> None:
    a, b = cards
    assert a != b and a < N_STANDARD and b < N_STANDARD, f"bad start {cards}"
    if rank(a) == rank(b):
        assert suit(a) != suit(b)
        return
    assert suit(a) == suit(b), f"start {card_code(a)} {card_code(b)} is no pair or run start"
    gaps = {abs(pa - pb) for pa in positions(a, ace_low) for pb in positions(b, ace_low)}
    assert gaps & {1, 2}, f"start {card_code(a)} {card_code(b)} is too far apart"


def check_meld(meld, config: GameConfig) -> None:
    cards = list(meld.cards)
    real = [c for c in cards if c < N_STANDARD]
    text = " ".join(card_code(c) for c in cards)
    assert len(set(cards)) == len(cards), f"duplicate card in meld {text}"
    assert len(cards) - len(real) <= 2
    origin = STARTS[meld.origin].cards
    assert set(origin) <= set(real), f"meld {text} lost its start {origin}"
    if meld.is_set:
        assert 3 <= len(cards) <= 4, f"set {text} has {len(cards)} cards"
        assert len({rank(c) for c in real}) == 1, f"set {text} mixes ranks"
        assert len({suit(c) for c in real}) == len(real), f"set {text} repeats a suit"
        return
    assert len(cards) >= 3, f"run {text} is too short"
    assert len({suit(c) for c in real}) == 1, f"run {text} mixes suits"
    maxpos = 13 if config.ace_low else 14
    # the lowest position such that every real card sits at its place; jokers fill the rest
    fits = [
        lo
        for lo in range(1, maxpos - len(cards) + 2)
        if all(lo + i in positions(c, config.ace_low) for i, c in enumerate(cards) if c < 52)
    ]
    assert fits, f"run {text} is not a sequence"
    lo = fits[0]
    hi = lo + len(cards) - 1
    assert not (lo == 1 and hi == 14), f"run {text} holds the Ace twice"
    assert meld.lo in fits, f"run {text}: engine says it starts at {meld.lo}, fits {fits}"


def check_table(state: GameState) -> None:
    cfg = state.config
    for p in (0, 1):
        assert len(state.starts[p]) <= cfg.max_open_starts
        for sid in state.starts[p]:
            check_open_start(STARTS[sid].cards, cfg.ace_low)
    open_ids = state.starts[0] + state.starts[1]
    assert len(set(open_ids)) == len(open_ids)
    assert sorted(state.start_order) == sorted(open_ids)
    origins = [m.origin for m in state.melds]
    assert len(set(origins)) == len(origins)
    assert not set(origins) & set(open_ids)
    assert state.meld_of == {m.origin: m for m in state.melds}
    for m in state.melds:
        check_meld(m, cfg)


def table_cards(state: GameState) -> set[int]:
    """Real cards on the table and the cards that jokers in complete runs stand for."""
    cards = {c for s in state.start_order for c in STARTS[s].cards}
    for m in state.melds:
        cards.update(c for c in m.cards if c < N_STANDARD)
        if not m.is_set:  # the joker at index i stands for the card at position lo + i
            cards.update(
                m.suit * 13 + (m.lo + i - 1) % 13 for i, c in enumerate(m.cards) if c >= 52
            )
    return cards


def is_run(cards: list[int], ace_low: bool) -> bool:
    """Real cards (a joker given as the card it stands for) that form one run."""
    if len(set(cards)) != len(cards) or len({suit(c) for c in cards}) != 1:
        return False
    choices = [[]]
    for c in cards:
        choices = [ps + [q] for ps in choices for q in positions(c, ace_low)]
    return any(len(set(ps)) == len(ps) and max(ps) - min(ps) == len(ps) - 1 for ps in choices)


def run_cards(meld, ace_low: bool) -> list[int]:
    """The cards of a complete run, each joker replaced by the card it stands for."""
    reals = [(i, c) for i, c in enumerate(meld.cards) if c < N_STANDARD]
    maxpos = 13 if ace_low else 14
    lo = next(
        lo
        for lo in range(1, maxpos - len(meld.cards) + 2)
        if all(lo + i in positions(c, ace_low) for i, c in reals)
    )
    return [meld.suit * 13 + (lo + i - 1) % 13 for i in range(len(meld.cards))]


def completes(start: tuple[int, int], card: int, ace_low: bool) -> bool:
    """Whether the real ``card`` turns the open start into a meld."""
    a, b = start
    if rank(a) == rank(b):
        return rank(card) == rank(a) and suit(card) not in (suit(a), suit(b))
    return is_run([a, b, card], ace_low)


def reference_placements(state: GameState) -> set[int]:
    """The current player's placements, derived from the rule sheet and the readings."""
    cfg = state.config
    p = state.current
    hand = state.hands[p]
    real = sorted({c for c in hand if c < N_STANDARD})
    joker = any(c >= N_STANDARD for c in hand)
    out: set[int] = set()
    if len(state.starts[p]) < cfg.max_open_starts:
        for i, a in enumerate(real):
            for b in real[i + 1 :]:
                try:
                    check_open_start((a, b), cfg.ace_low)
                except AssertionError:
                    continue
                out.add(START_BASE + start_id(a, b))
    for sid in state.starts[1 - p]:
        start = STARTS[sid].cards
        options = {(c, stands): aid for aid, c, stands, _ in COMPLETIONS[sid]}
        out.update(options[(c, -1)] for c in real if completes(start, c, cfg.ace_low))
        if joker and STARTS[sid].is_set:
            out.add(options[(JOKER, -1)])
        elif joker:
            out.update(
                options[(JOKER, c)] for c in range(N_STANDARD) if completes(start, c, cfg.ace_low)
            )
    for m in state.melds:
        if m.is_set:
            suits = {suit(c) for c in m.cards if c < N_STANDARD}
            fits = [c for c in real if rank(c) == m.rank and suit(c) not in suits]
            if len(m.cards) < 4:
                out.update(LAYOFFS[m.origin][(c, -1)] for c in fits)
                if joker:
                    out.add(LAYOFFS[m.origin][(JOKER, -1)])
            if any(c >= N_STANDARD for c in m.cards):
                out.update(SWAPS[m.origin][c] for c in fits)
            continue
        cards = run_cards(m, cfg.ace_low)
        out.update(LAYOFFS[m.origin][(c, -1)] for c in real if is_run(cards + [c], cfg.ace_low))
        if joker:
            out.update(
                LAYOFFS[m.origin][(JOKER, c)]
                for c in range(N_STANDARD)
                if is_run(cards + [c], cfg.ace_low)
            )
        stand_ins = {cards[i] for i, c in enumerate(m.cards) if c >= N_STANDARD}
        out.update(SWAPS[m.origin][c] for c in real if c in stand_ins)
    return out


def reference_discards(state: GameState) -> set[int]:
    p = state.current
    types = {min(c, JOKER) for c in state.hands[p]}
    if state.config.signal_rule:
        signals = {
            c
            for c in types
            if c < N_STANDARD
            and any(completes(STARTS[s].cards, c, state.config.ace_low) for s in state.starts[p])
        }
        types = signals or types
    return {discard_action(c) for c in types}


def check_legal_placements(state: GameState) -> None:
    if state.phase != PLACE_PHASE or state.is_terminal:
        return
    legal = set(state.legal_actions())
    placements = {a for a in legal if ACTIONS[a].kind in PLACEMENT_KINDS}
    expected = reference_placements(state)
    if state.pending >= 0:  # only those that keep the taken card placeable (checked below)
        assert placements <= expected, describe_diff(state, placements, expected)
        assert placements == legal
        return
    assert placements == expected, describe_diff(state, placements, expected)
    assert legal - placements == reference_discards(state)


def describe_diff(state: GameState, got: set[int], expected: set[int]) -> str:
    extra = [move_text(state, a) for a in sorted(got - expected)]
    missing = [move_text(state, a) for a in sorted(expected - got)]
    return f"engine only: {extra}; rule sheet only: {missing}\n{describe(state)}"


def check_conservation(state: GameState) -> None:
    where = state.locations()  # raises on a card in two places
    assert sorted(where) == list(range(N_PHYSICAL)), "cards lost or invented"
    assert (
        len(state.hands[0])
        + len(state.hands[1])
        + len(state.stock)
        + len(state.aside)
        + len(state.discard)
        + 2 * len(state.start_order)
        + sum(len(m.cards) for m in state.melds)
        == N_PHYSICAL
    )


# ----------------------------------------------------------------------------------------
# conservation, table validity, termination


@SETTINGS
@given(configs(), seeds, greediness)
def test_conservation_table_and_termination(config, seed, greedy):
    final = None
    taken, placed = -1, True  # the card taken from the discard pile this turn
    turn = (0, 0)
    for state, action in play(config, seed, greedy):
        check_conservation(state)
        check_table(state)
        check_legal_placements(state)
        if state.phase == DRAW_PHASE and not state.is_terminal:
            legal = set(state.legal_actions())
            if state.stock:
                assert legal - {DRAW_DISCARD} == {DRAW_STOCK}
            else:  # the stock is empty: take the top discard, or "draw stock" and lose
                assert legal in ({DRAW_DISCARD}, {DRAW_STOCK})
        assert state.returns() == (0.0, 0.0) or state.is_terminal
        if taken >= 0 and state.locations()[taken].startswith(("meld", "start")):
            placed = True  # (a swap may later take a taken joker back into the hand)
        if (state.current, state.turns) != turn:  # a new turn began
            assert placed or state.result == "loss", f"taken {card_code(taken)} not placed"
            taken, placed = -1, True
            turn = (state.current, state.turns)
        if action == DRAW_DISCARD:
            taken, placed = state.top_discard(), False
            turn = (state.current, state.turns + 1)
        if action is None:
            final = state
    assert final.result in ("win", "loss")
    assert final.legal_actions() == []
    draws = sum(1 for _, a in final.history if a in (DRAW_STOCK, DRAW_DISCARD))
    lost_on_draw = final.history[-1][1] == DRAW_STOCK and final.result == "loss"
    assert final.turns == draws - lost_on_draw  # drawing from the empty stock is no turn
    assert final.pickups == sum(1 for _, a in final.history if a == DRAW_DISCARD)
    r = final.returns()
    assert r[0] == r[1] == (1.0 if final.result == "win" else -1.0)
    if final.result == "win":
        assert not final.hands[0] and not final.hands[1]
        assert not final.starts[0] and not final.starts[1]
    elif final.loss_reason.startswith("open start"):
        assert config.early_loss and final.dead_starts()
    else:
        # a turn began with an empty stock and a top discard that cannot be placed
        assert not final.stock and final.phase == DRAW_PHASE
        if final.discard:
            live = final.clone()
            live.result = None
            clone, x = with_top_discard_taken(live)
            with contextlib.suppress(BudgetExceeded):
                assert not can_place(clone, x)


@SETTINGS
@given(configs(), seeds, greediness)
def test_notation_round_trips(config, seed, greedy):
    for state, _ in play(config, seed, greedy):
        for a in state.legal_actions():
            text = move_text(state, a)
            assert parse_move(state, text) == a, text
            assert parse_move(state, text.upper()) == a, text


# ----------------------------------------------------------------------------------------
# env: action mask == legal actions


@settings(max_examples=150, deadline=None)
@given(configs(), seeds, greediness)
def test_env_mask_equals_legal_actions(config, seed, greedy):
    twin = GameState.new_game(config, seed)
    if stuck_at_deal(twin):
        return
    e = make_env(
        stock_size=config.stock_size,
        open_hands=config.open_hands,
        ace_low=config.ace_low,
        max_open_starts=config.max_open_starts,
        early_loss=config.early_loss,
        signal_rule=config.signal_rule,
    )
    e.reset(options={"deck": deck_codes(twin.deck)})
    rng = random.Random(seed)
    agents = ["player_0", "player_1"]
    while True:
        for i, agent in enumerate(agents):
            seen = e.observe(agent)
            mask = seen["action_mask"]
            # the env's (cached, incremental) view equals one computed from scratch
            assert np.array_equal(seen["observation"], encode(twin.clone(), i))
            assert mask.dtype == np.int8 and mask.shape == (4445,)
            if i == twin.current and not twin.is_terminal:
                assert np.flatnonzero(mask).tolist() == twin.legal_actions()
            else:
                assert not mask.any()
        if twin.is_terminal:
            assert e.terminations == {a: True for a in agents}
            assert all(e.rewards[a] == twin.returns()[0] for a in agents)
            break
        assert e.agent_selection == agents[twin.current]
        action = choose(twin, rng, greedy)
        e.step(action)
        twin.apply(action)


# ----------------------------------------------------------------------------------------
# hidden information


def permute_hidden(state: GameState, p: int, rng: random.Random) -> tuple[GameState, bool]:
    """A clone in which the cards player p cannot see (partner's hand, stock, put-aside) are
    permuted, the partner's hand keeping its size; also whether the partner's hand changed
    (as card types, jokers being alike)."""
    clone = state.clone()
    q = 1 - p
    hand = clone.hands[q]
    # a card taken from the discard pile and not yet placed is public
    movable = [i for i, c in enumerate(hand) if not (clone.current == q and c == clone.pending)]
    pools = [pile for pile in (clone.stock, clone.aside) if pile]
    before = sorted(min(c, 52) for c in hand)
    if movable and pools:
        for _ in range(rng.randint(1, 3)):
            i = rng.choice(movable)
            pile = rng.choice(pools)
            j = rng.randrange(len(pile))
            hand[i], pile[j] = pile[j], hand[i]
    rng.shuffle(hand)
    rng.shuffle(clone.stock)
    rng.shuffle(clone.aside)
    return clone, sorted(min(c, 52) for c in hand) != before


@SETTINGS
@given(configs(), seeds, greediness)
def test_observation_ignores_hidden_cards(config, seed, greedy):
    rng = random.Random(seed)
    changed_seen = 0
    for state, _ in play(config, seed, greedy):
        for p in (0, 1):
            obs = encode(state, p)
            assert np.array_equal(obs, encode(state.clone(), p)), "cached view is stale"
            obs[:] = 0.5  # the caller owns the array: the cache is not touched
            obs = encode(state, p)
            assert np.array_equal(obs, encode(state.clone(), p))
            clone, changed = permute_hidden(state, p, rng)
            check_conservation(clone)
            obs2 = encode(clone, p)
            if not config.open_hands:
                assert np.array_equal(obs, obs2), f"player {p}'s view shows hidden cards"
            elif changed:
                changed_seen += 1
                assert not np.array_equal(obs, obs2), "open hands: partner's hand not shown"
            if p == state.current and not state.is_terminal:
                assert clone.legal_actions() == state.legal_actions()


# ----------------------------------------------------------------------------------------
# "take the top discard": a brute-force reference

NODE_BUDGET = 20_000


class BudgetExceeded(Exception):
    pass


def _key(state: GameState, p: int) -> tuple:
    return (
        tuple(sorted(state.hands[p])),
        tuple(sorted((m.origin, tuple(m.cards)) for m in state.melds)),
        tuple(sorted(state.starts[0])),
        tuple(sorted(state.starts[1])),
    )


def can_place(start: GameState, x: int, budget: int = NODE_BUDGET) -> bool:
    """Whether some sequence of placements by the current player of ``start`` (a state in
    the place phase holding the physical card ``x``) puts ``x`` on the table."""
    p = start.current
    if x not in start.hands[p]:
        return True
    seen = {_key(start, p)}
    stack = [start]
    nodes = 0
    x_type = min(x, N_STANDARD)
    while stack:
        s = stack.pop()
        moves = s._placements(p)
        # try the moves that play x's card type last, so they are popped (searched) first
        moves.sort(key=lambda a: ACTIONS[a].card == x_type)
        for a in moves:
            nodes += 1
            if nodes > budget:
                raise BudgetExceeded
            child = s.clone()
            child._apply_unchecked(a)
            if x not in child.hands[p]:
                return True
            if child.is_terminal or child.current != p:
                continue
            key = _key(child, p)
            if key not in seen:
                seen.add(key)
                stack.append(child)
    return False


def with_top_discard_taken(state: GameState) -> tuple[GameState, int]:
    """A clone in which the current player has put the top discard into their hand."""
    clone = state.clone()
    x = clone.discard.pop()
    clone.discard_entry.pop()
    clone.hands[clone.current].append(x)
    clone.pending = x  # so that a joker placed is the taken one (jokers are alike)
    clone.phase = PLACE_PHASE
    clone._legal = None
    return clone, x


class Tally:
    def __init__(self) -> None:
        self.checked = self.skipped = self.legal = 0


def check_discard_take(state: GameState, tally: Tally) -> None:
    if state.phase == DRAW_PHASE and state.discard and not state.is_terminal:
        clone, x = with_top_discard_taken(state)
        try:
            expected = can_place(clone, x)
        except BudgetExceeded:
            tally.skipped += 1
            return
        tally.checked += 1
        tally.legal += expected
        got = DRAW_DISCARD in state.legal_actions()
        assert got == expected, (
            f"top discard {card_code(x)}: engine says {'legal' if got else 'illegal'}, "
            f"brute force {'can' if expected else 'cannot'} place it\n{describe(state)}"
        )
    elif state.phase == PLACE_PHASE and state.pending >= 0 and not state.is_terminal:
        # until the taken card is placed, exactly the placements that keep it placeable
        x, p = state.pending, state.current
        legal = set(state.legal_actions())
        for a in state._placements(p):
            child = state.clone()
            child._apply_unchecked(a)
            try:
                # a placement that ends the game (an early loss) is not held back
                keeps = child.is_terminal or x not in child.hands[p] or can_place(child, x)
            except BudgetExceeded:
                tally.skipped += 1
                continue
            tally.checked += 1
            assert (a in legal) == keeps, (
                f"with {card_code(x)} taken, {move_text(state, a)!r} is "
                f"{'legal' if a in legal else 'illegal'} but it "
                f"{'keeps' if keeps else 'loses'} a way to place it\n{describe(state)}"
            )
        assert not any(ACTIONS[a].kind not in PLACEMENT_KINDS for a in legal)


def describe(state: GameState) -> str:
    from commoncause.envs.common_cause.render import render_table

    return render_table(state) + f"\ndeck: {' '.join(deck_codes(state.deck))}"


def sweep_discard_take(config: GameConfig, seed: int, greedy: float, tally: Tally) -> None:
    for state, _ in play(config, seed, greedy):
        check_discard_take(state, tally)


@settings(max_examples=300, deadline=None)
@given(configs(), seeds, st.sampled_from([0.9, 1.0]))
def test_take_top_discard_matches_brute_force(config, seed, greedy):
    tally = Tally()
    sweep_discard_take(config, seed, greedy, tally)
    assert tally.skipped <= max(2, tally.checked // 10)


def test_take_top_discard_sweep_counts():
    """A fixed sweep whose counts are reported: most states must be checked, few skipped."""
    rng = random.Random(2024)
    tally = Tally()
    for seed in range(400):
        config = GameConfig(
            stock_size=rng.randint(10, 33),
            ace_low=rng.random() < 0.2,
            max_open_starts=rng.choice([2, 3]),
            open_hands=rng.random() < 0.2,
            early_loss=rng.random() < 0.2,
            signal_rule=rng.random() < 0.3,
        )
        sweep_discard_take(config, seed, rng.choice([0.9, 1.0]), tally)
    print(
        f"\ntop-discard brute force: {tally.checked} checked ({tally.legal} legal), "
        f"{tally.skipped} skipped"
    )
    assert tally.checked > 1000
    assert tally.legal > 50
    assert tally.skipped <= tally.checked // 100


# ----------------------------------------------------------------------------------------
# the deal itself can be lost


def test_empty_stock_deal_is_lost():
    """Stock 0 and an unplaceable turned-up card: player_0's only move loses the game."""
    state = GameState.new_game(GameConfig(stock_size=0), 34)
    assert not state.stock and state.result is None
    assert state.legal_actions() == [DRAW_STOCK]
    state.apply(DRAW_STOCK)
    assert state.result == "loss" and state.turns == 0
    assert state.legal_actions() == []


@settings(max_examples=60, deadline=None)
@given(seeds, greediness)
def test_joker_identities_tell_nothing(seed, greedy):
    """The two jokers look alike: exchanging them in the deck changes nothing any seat sees
    (pile, discard history, melds), so a joker's id never tells where the other one is."""
    deck = list(range(N_PHYSICAL))
    random.Random(seed).shuffle(deck)
    swapped = [{N_STANDARD: N_STANDARD + 1, N_STANDARD + 1: N_STANDARD}.get(c, c) for c in deck]
    a, b = GameState(GameConfig(), deck), GameState(GameConfig(), swapped)
    rng = random.Random(seed)

    def public(state: GameState):
        return (
            list(state.discard),
            [list(e) for e in state.discard_log],
            [list(m.cards) for m in state.melds],
        )

    while not a.is_terminal:
        assert public(a) == public(b)
        assert a.legal_actions() == b.legal_actions()
        legal = a.legal_actions()
        placements = [x for x in legal if ACTIONS[x].kind in PLACEMENT_KINDS]
        action = rng.choice(placements if placements and rng.random() < greedy else legal)
        a.apply(action)
        b.apply(action)
    assert public(a) == public(b) and a.result == b.result


@SETTINGS
@given(configs(), seeds, greediness)
def test_every_meld_on_the_table_passes_the_core_validator(config, seed, greedy):
    """The engine's lookup tables and the core's meld rules (``rules.meld_rules``) agree on
    every meld that random play puts on the table, joker stand-ins included."""
    from commoncause.envs.common_cause.cards import DECK
    from commoncause.envs.common_cause.rules import meld_rules

    rules = meld_rules(config)
    for state, _ in play(config, seed, greedy):
        for m in state.melds:
            types = [DECK.type_of(c) for c in m.cards]
            reading = rules.read_meld(types)
            assert reading is not None, f"{types} is no meld under {rules}"
            assert reading.is_set == m.is_set
            if m.is_set:
                assert reading.rank == m.rank
                assert len(m.cards) <= 4
            else:
                assert (reading.suit, reading.lo) == (m.suit, m.lo)
                stands = {i: card_at(m.suit, pos) for i, pos in reading.stands_for.items()}
                assert stands == dict(m.stand_ins())
