"""Property tests of the Common Cause engine and env over random seeds and configs.

Games are played at engine level (``GameState.new_game`` + ``apply``) by a mix of a uniform
random policy and a "greedy" one that prefers placements (and taking the top discard) so that
melds, completions, lay-offs and swaps happen. Checked after every move: card conservation,
the env's action mask, the validity of every meld and open start (by a validator written here
from the rule sheet), termination and results, the move notation round-trip, that a seat's
observation and legal moves do not depend on hidden cards, and that "take the top discard" is
legal exactly when a brute-force search over placement sequences can place that card.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.common_cause import env as make_env
from envs.common_cause.actions import (
    ACTIONS,
    COMPLETE,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    START,
    STARTS,
    SWAP,
)
from envs.common_cause.cards import N_PHYSICAL, N_STANDARD, card_code, deck_codes
from envs.common_cause.notation import move_text, parse_move
from envs.common_cause.observer import encode
from envs.common_cause.rules import (
    DRAW_PHASE,
    LEVELS,
    PLACE_PHASE,
    GameConfig,
    GameState,
)

PLACEMENT_KINDS = (START, COMPLETE, LAYOFF, SWAP)
MAX_MOVES = 400  # a game is at most ~33 + 20 turns; each has a handful of moves
SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

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


def check_conservation(state: GameState) -> None:
    where = state.locations()  # raises on a card in two places
    assert sorted(where) == list(range(N_PHYSICAL)), "cards lost or invented"
    assert len(state.hands[0]) + len(state.hands[1]) + len(state.stock) + len(state.aside) + len(
        state.discard
    ) + 2 * len(state.start_order) + sum(len(m.cards) for m in state.melds) == N_PHYSICAL


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
        assert state.returns() == (0.0, 0.0) or state.is_terminal
        if taken >= 0 and state.locations()[taken].startswith(("meld", "start")):
            placed = True  # (a swap may later take a taken joker back into the hand)
        if (state.current, state.turns) != turn:  # a new turn began
            assert placed or state.result == "loss", f"taken {card_code(taken)} not placed"
            taken, placed = -1, True
            turn = (state.current, state.turns)
        if action is not None and ACTIONS[action].stands_for >= 0:
            # reading 2: a run joker never stands for a card already on the table
            stands = ACTIONS[action].stands_for
            assert stands not in table_cards(state), f"joker as {card_code(stands)} twice"
        if action == DRAW_DISCARD:
            taken, placed = state.top_discard(), False
            turn = (state.current, state.turns + 1)
        if action is None:
            final = state
    if final is None:  # the known empty-stock deal bug
        return
    assert final.result in ("win", "loss")
    assert final.legal_actions() == []
    assert final.turns == sum(1 for _, a in final.history if a in (DRAW_STOCK, DRAW_DISCARD))
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
            try:
                assert not can_place(clone, x)
            except BudgetExceeded:
                pass


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


@settings(max_examples=100, deadline=None)
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
            mask = e.observe(agent)["action_mask"]
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
    from envs.common_cause.render import render_table

    return render_table(state, "test") + f"\ndeck: {' '.join(deck_codes(state.deck))}"


def sweep_discard_take(config: GameConfig, seed: int, greedy: float, tally: Tally) -> None:
    for state, _ in play(config, seed, greedy):
        check_discard_take(state, tally)


@settings(max_examples=200, deadline=None)
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
    print(f"\ntop-discard brute force: {tally.checked} checked ({tally.legal} legal), "
          f"{tally.skipped} skipped")
    assert tally.checked > 1000
    assert tally.legal > 50
    assert tally.skipped <= tally.checked // 100


# ----------------------------------------------------------------------------------------
# known engine bug


@pytest.mark.xfail(
    strict=True,
    reason="engine bug: a deal with stock_size=0 whose turned-up card cannot be placed is "
    "not lost although player_0 has no legal move (loss is only judged in _end_turn)",
)
def test_empty_stock_deal_is_lost():
    state = GameState.new_game(GameConfig(stock_size=0), 34)
    assert not state.stock and DRAW_DISCARD not in state._compute_legal()
    assert state.result == "loss"
    assert state.legal_actions() == []
