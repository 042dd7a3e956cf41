"""The fast paths of Open Rummy change nothing: observations, legal moves and results.

- ``reference_encode`` below is the straightforward observation encoder (every entry
  recomputed from the state on every call, as ``observer.py`` did before its incremental
  caches). The fast ``Observer`` must give the same vector, bit for bit, on every step of
  random games (2-8 players, jokers or none, the card swap on and off, several rounds),
  whether a seat's observer is asked every step or only now and then (its caches must
  catch up over several moves, new rounds, reshuffles, steals and cards taken back).
- ``legal_steps`` (plans looked up under their lowest card) equals the plain filter of
  every plan of the pool (``plain_legal_steps``, the search as it was).
- ``GOLDEN_DIGESTS`` were recorded from the engine before the speed work: per seeded random
  game, a SHA-256 of every step's legal actions, the action chosen, the acting seat's
  reference observation, and the final totals and round scores. Regenerate only on a
  deliberate rules change: ``.venv/bin/python -m tests.games.open_rummy.test_speed_exact --regen``.
"""

from __future__ import annotations

import hashlib
import random
import sys

import numpy as np
import pytest
from competitive import (
    check_observer_equals_reference,
    check_observer_follows_copies,
    check_returned_observation_is_not_a_cache,
)

from commoncause.envs.core.cards import N_CARD_TYPES, N_STANDARD
from commoncause.envs.open_rummy.actions import (
    MAX_DECK_SIZE,
    MAX_JOKERS,
    MAX_SEATS,
    SET_STEP_BASE,
    TYPE_OF,
)
from commoncause.envs.open_rummy.meld_plans import (
    _is_joker_step,
    _natural_of,
    legal_steps,
    plans,
)
from commoncause.envs.open_rummy.observer import (
    CARD_SCALE,
    MELD_WIDTH,
    OBS_SIZE,
    OFFSET,
    RECENT,
    RECENT_WIDTH,
    SCALARS,
    SEAT_WIDTH,
    Observer,
    encode,
)
from commoncause.envs.open_rummy.rules import DRAW_PHASE, PLACE_PHASE, GameState, OpenConfig

MAX_MOVES = 600


def reference_encode(state: GameState, me: int) -> np.ndarray:
    """The observation of seat ``me``, recomputed from scratch (the pre-cache encoder)."""
    n = state.n
    idx: list[int] = []
    val: list[float] = []
    add_i, add_v = idx.append, val.append
    for c in state.hands[me]:
        add_i(OFFSET["hand"] + TYPE_OF[c])
        add_v(CARD_SCALE[TYPE_OF[c]])
    melds, closed = OFFSET["melds"], OFFSET["closed"]
    for m in state.melds:
        base = melds + m.slot * MELD_WIDTH
        if m.closed:
            add_i(base + 1)
            add_v(1.0)
            for c in m.cards:
                add_i(closed + TYPE_OF[c])
                add_v(0.5)
            continue
        idx += (base, base + 2, base + 3, base + 4 + (m.owner - me) % n)
        val += (1.0, m is state.pending, m.is_set, 1.0)
        if m.is_set:
            jokers = 0
            for c in m.cards:
                t = TYPE_OF[c]
                if t == N_STANDARD:
                    jokers += 1
                else:
                    add_i(base + 55 + t // 13)
                    add_v(1.0)
            if m.rank >= 0:
                add_i(base + 42 + m.rank)
                add_v(1.0)
            add_i(base + 59)
            add_v(jokers / 2)
        else:
            add_i(base + 12 + m.suit)
            add_v(1.0)
            for pos, c in m.slots.items():
                add_i(base + 14 + pos)
                add_v(1.0)
                if TYPE_OF[c] == N_STANDARD:
                    add_i(base + 27 + pos)
                    add_v(1.0)
    target = state.config.target
    for s in range(n):
        base = OFFSET["seats"] + ((s - me) % n) * SEAT_WIDTH
        total = state.totals[s]
        idx += range(base, base + SEAT_WIDTH)
        val += (1.0, len(state.hands[s]) / 20, max(total, 0) / target, max(-total, 0) / target,
                state.placed[s] / target, state.laid[s])  # fmt: skip
    log = state.discard_log
    by, taken_by = OFFSET["discarded_by"], OFFSET["taken_by"]
    for card, who, taken in log:
        t = TYPE_OF[card]
        if who >= 0:
            add_i(by + ((who - me) % n) * N_CARD_TYPES + t)
            add_v(CARD_SCALE[t])
        if taken >= 0:
            add_i(taken_by + ((taken - me) % n) * N_CARD_TYPES + t)
            add_v(CARD_SCALE[t])
    for c in state.discard:
        add_i(OFFSET["in_pile"] + TYPE_OF[c])
        add_v(CARD_SCALE[TYPE_OF[c]])
    if state.discard:
        add_i(OFFSET["top_discard"] + TYPE_OF[state.discard[-1]])
        add_v(1.0)
    for k, i in enumerate(range(len(log) - 1, max(len(log) - 1 - RECENT, -1), -1)):
        card, who, taken = log[i]
        base = OFFSET["recent_discards"] + k * RECENT_WIDTH
        add_i(base + TYPE_OF[card])
        add_v(1.0)
        if who >= 0:
            add_i(base + N_CARD_TYPES + (who - me) % n)
            add_v(1.0)
        add_i(base + N_CARD_TYPES + MAX_SEATS)
        add_v(taken >= 0)
    cfg = state.config
    playing = not state.is_terminal
    acting = state.current == me and playing
    players = [0.0] * 7
    players[n - 2] = 1.0
    idx += range(OFFSET["scalars"], OFFSET["scalars"] + len(SCALARS))
    val += (len(state.stock) / MAX_DECK_SIZE, state.phase == DRAW_PHASE and playing,
            state.phase == PLACE_PHASE and playing, acting, acting and state.pending is not None,
            state.laid[me], state.swap_open and playing, playing and state.top_blocked(),
            state.round_no / 10, *players, cfg.jokers / MAX_JOKERS, cfg.card_swap,
            cfg.reward == "win", cfg.target / 1000, cfg.rounds / 10,
            state.swaps / MAX_SEATS)  # fmt: skip
    obs = np.bincount(idx, weights=val, minlength=OBS_SIZE).astype(np.float32)
    np.clip(obs, 0.0, 1.0, out=obs)
    return obs


def plain_legal_steps(held, jokers, hand_size, laid, kind) -> tuple[int, ...]:
    """``legal_steps`` as it was: every plan of the pool, filtered."""
    if hand_size - (3 - len(laid)) < 1:
        return ()
    pool = held | {_natural_of(s) for s in laid if not _is_joker_step(s)}
    joker_laid = any(_is_joker_step(s) for s in laid)
    steps: set[int] = set()
    for plan in plans(frozenset(pool), jokers > 0 or joker_laid, kind):
        if not laid <= plan:
            continue
        rest = plan - laid
        if all(_is_joker_step(s) or _natural_of(s) in held for s in rest):
            if any(_is_joker_step(s) for s in rest) and jokers == 0:
                continue
            steps |= rest
    return tuple(sorted(steps))


# (players, jokers, card_swap, rounds, eager, seed): eager is the chance of placing a card
# on the table whenever the move allows it (random play rarely lays off or steals).
GAMES = [
    ((2, 4, 8)[i % 3], (4, 0, 2, 4)[i % 4], i % 5 != 1, 2 + i % 2, (0.3, 0.9)[i // 5], 2000 + i)
    for i in range(10)
]


def random_game(players, jokers, card_swap, rounds, eager, seed):
    """Random legal play on the engine; yields (state, action) before each move, then
    (state, None)."""
    rng = random.Random(seed)
    config = OpenConfig(num_players=players, jokers=jokers, card_swap=card_swap, rounds=rounds)
    deck = list(range(config.deck.size))
    rng.shuffle(deck)
    state = GameState(config, deck)
    for _ in range(MAX_MOVES):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        placing = [a for a in legal if a >= SET_STEP_BASE]
        action = rng.choice(placing if placing and rng.random() < eager else legal)
        yield state, action
        state.apply(action)
    yield state, None


def game_digest(game: tuple) -> str:
    h = hashlib.sha256()
    for state, action in random_game(*game):
        if action is None:
            h.update(repr((state.result, state.totals, state.round_scores, state.round_out,
                           state.round_no, state.turns)).encode())  # fmt: skip
            break
        h.update(repr((state.current, state.phase, state.legal_actions(), action)).encode())
        h.update(reference_encode(state, state.current).tobytes())
    return h.hexdigest()[:16]


GOLDEN_DIGESTS = {  # seed: digest (recorded before the speed work)
    2000: "c1eea93c4e5c1489",
    2001: "ba088dc0d18a2928",
    2002: "0ef88305d8ce6ed7",
    2003: "22c4c6b72acdd867",
    2004: "e34a7c120a3f9d62",
    2005: "47a6c021e8772560",
    2006: "30d0987f0f8ef53d",
    2007: "82f02daf4c03089d",
    2008: "dc209dae6eae2848",
    2009: "8935ebf1cfa1e930",
}  # filled by --regen


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_legal_moves_observations_and_results_unchanged(index):
    game = GAMES[index]
    assert game_digest(game) == GOLDEN_DIGESTS[game[-1]], game


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_fast_observer_equals_reference_every_step(index):
    game = GAMES[index]
    check_observer_equals_reference(
        random_game(*game), game[0], Observer, reference_encode, game[-1], 0.1
    )


def test_observer_follows_clones_copies_and_new_states():
    game = GAMES[4]
    check_observer_follows_copies(random_game(*game), game[0], Observer, reference_encode, encode)


def test_returned_observation_is_not_a_cache():
    check_returned_observation_is_not_a_cache(random_game(*GAMES[3]), Observer(0), reference_encode)


def test_meld_search_equals_plain_filter():
    rng = random.Random(7)
    for _ in range(3000):
        held = frozenset(rng.sample(range(N_STANDARD), rng.randrange(0, 14)))
        jokers = rng.randrange(0, 3)
        hand_size = len(held) + jokers + rng.randrange(0, 3)
        kind = rng.choice(["", "set", "run"])
        laid: frozenset[int] = frozenset()
        if kind:  # part of a plan of a bigger hand, as laid so far
            options = plans(frozenset(rng.sample(range(N_STANDARD), 20)), True, kind)
            if options:
                steps = sorted(rng.choice(options))
                laid = frozenset(steps[: rng.randrange(1, 3)])
        args = (held, jokers, hand_size, laid, kind)
        assert legal_steps.__wrapped__(*args) == plain_legal_steps(*args), args


def _regen() -> None:
    print("GOLDEN_DIGESTS = {")
    for game in GAMES:
        print(f'    {game[-1]}: "{game_digest(game)}",')
    print("}")


if __name__ == "__main__" and "--regen" in sys.argv:
    _regen()
