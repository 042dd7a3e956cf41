"""The fast paths of Dummy rummy change nothing: observations, legal moves and results.

- ``reference_encode`` below is the straightforward observation encoder (every entry
  recomputed from the state on every call, as ``observer.py`` did before its incremental
  caches). The fast ``Observer`` must give the same vector, bit for bit, on every step of
  many random games (2-4 players, cut-ins on and off, several hands, eager and lazy
  melding), whether a seat's observer is asked every step or only now and then (its caches
  must catch up over several moves, new hands, reshuffles and cards taken back).
- The contract search (``contract_plans.legal_steps``, pruned) equals the plain
  enumeration of every plan (``slow_legal_steps``, the search as it was) on random hands
  and part-laid contracts.
- ``GOLDEN_DIGESTS`` were recorded from the engine before the speed work: per seeded random
  game, a SHA-256 of every step's legal actions, the action chosen, the acting seat's
  reference observation, and the final totals, hand points and contracts. Regenerate only
  on a deliberate rules change:
  ``.venv/bin/python -m tests.games.dummy_rummy.test_speed_exact --regen``.
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
    random_play,
)

from commoncause.envs.core.cards import N_CARD_TYPES
from commoncause.envs.dummy_rummy.actions import (
    CONTRACTS,
    DECK,
    IS_WILD,
    MAX_GROUPS,
    MAX_SEATS,
    NATURAL_RANKS,
    SET_MELD_BASE,
    TYPE_OF,
)
from commoncause.envs.dummy_rummy.contract_plans import legal_steps, run_windows, slow_legal_steps
from commoncause.envs.dummy_rummy.observer import (
    MELD_WIDTH,
    OBS_SIZE,
    OFFSET,
    RECENT,
    RECENT_WIDTH,
    Observer,
    encode,
)
from commoncause.envs.dummy_rummy.rules import (
    CUTIN_PHASE,
    DRAW_PHASE,
    PLACE_PHASE,
    DummyConfig,
    GameState,
)


def reference_encode(state: GameState, me: int) -> np.ndarray:
    """The observation of seat ``me``, recomputed from scratch (the pre-cache encoder)."""
    n = state.n
    idx: list[int] = []
    val: list[float] = []
    add_i, add_v = idx.append, val.append
    hand = OFFSET["hand"]
    for c in state.hands[me]:
        add_i(hand + TYPE_OF[c])
        add_v(0.25)
    melds = OFFSET["melds"]
    for m in state.melds:
        base = melds + (((m.owner - me) % n) * MAX_GROUPS + m.group) * MELD_WIDTH
        wild = 0
        if m.is_set:
            if m.rank >= 0:
                add_i(base + 32 + m.rank)
                add_v(1.0)
            wild = sum(IS_WILD[TYPE_OF[c]] for c in m.cards)
        else:
            for pos, c in m.slots.items():
                add_i(base + 3 + pos)
                add_v(1.0)
                if IS_WILD[TYPE_OF[c]]:
                    add_i(base + 17 + pos)
                    add_v(1.0)
                    wild += 1
        idx += (base, base + 1, base + 2, base + 3, base + 45, base + 46)
        val += (1.0, m.is_set, len(m) >= m.size, m.size / 10, m.naturals / 8, wild / 8)
    for s in range(n):
        r = (s - me) % n
        base = OFFSET["contracts"] + r * 14
        if state.contract[s] < len(CONTRACTS):
            add_i(base + state.contract[s])
            add_v(1.0)
        idx += (base + 12, base + 13)
        val += (state.laid[s], state.laid[s] and state.laid_turn[s] < state.turns)
        base = OFFSET["seats"] + r * 5
        idx += range(base, base + 5)
        val += (
            1.0,
            len(state.hands[s]) / 30,
            state.totals[s] / 1000,
            state.completed[s] / 12,
            state.cutins_used[s] / 2,
        )
    log = state.discard_log
    by, taken_by = OFFSET["discarded_by"], OFFSET["taken_by"]
    discards = 0
    for card, who, taken in log:
        t = TYPE_OF[card]
        if who >= 0:
            add_i(by + ((who - me) % n) * N_CARD_TYPES + t)
            add_v(0.25)
            discards += 1
        if taken >= 0:
            add_i(taken_by + ((taken - me) % n) * N_CARD_TYPES + t)
            add_v(0.25)
    pile = OFFSET["in_pile"]
    for c in state.discard:
        add_i(pile + TYPE_OF[c])
        add_v(0.125)
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
    s = OFFSET["scalars"]
    cfg = state.config
    acting = state.current == me and not state.is_terminal
    placed = 0.0
    if not state.laid[me] and state.contract[me] < len(CONTRACTS):
        left = state.contract_of(me).cards - sum(len(m) for m in state.melds if m.owner == me)
        placed = left / 10
    idx += range(s, s + 16)
    val += (
        len(state.stock) / DECK.size,
        state.phase == DRAW_PHASE and not state.is_terminal,
        state.phase == PLACE_PHASE and not state.is_terminal,
        state.phase == CUTIN_PHASE and not state.is_terminal,
        acting,
        acting and state.building,
        state.hand_no / 12,
        n == 2,
        n == 3,
        n == 4,
        cfg.cut_ins,
        cfg.reward == "win",
        state.turn_owner == me and state.phase == CUTIN_PHASE,
        discards / 64,
        placed,
        0.0,
    )
    obs = np.bincount(idx, weights=val, minlength=OBS_SIZE).astype(np.float32)
    np.clip(obs, 0.0, 1.0, out=obs)
    return obs


# ------------------------------------------------------------------------------------------
# seeded random games
MAX_MOVES = 1500
GAMES = [  # (num_players, cut_ins, first_contract, hands, eager, seed)
    (2 + i % 3, bool(i % 2), 1 + (i * 5) % 12, 2 + i % 2, (0.0, 0.6, 0.95)[i % 3], 1000 + i)
    for i in range(20)
]


def random_game(players, cut_ins, first, hands, eager, seed):
    """Random legal play on the engine; yields (state, action) before each move, then
    (state, None)."""
    config = DummyConfig(num_players=players, cut_ins=cut_ins, first_contract=first, hands=hands)
    return random_play("dummy_rummy", config, seed, eager, SET_MELD_BASE, MAX_MOVES)


def game_digest(game: tuple) -> str:
    h = hashlib.sha256()
    for state, action in random_game(*game):
        if action is None:
            h.update(repr((state.result, state.totals, state.hand_points, state.contract,
                           state.completed, state.hand_no, state.turns)).encode())  # fmt: skip
            break
        h.update(repr((state.current, state.phase, state.legal_actions(), action)).encode())
        h.update(reference_encode(state, state.current).tobytes())
    return h.hexdigest()[:16]


GOLDEN_DIGESTS = {  # seed: digest (recorded before the speed work)
    1000: "7f3a779fc1a42526",
    1001: "99039d14f13d5c42",
    1002: "156f04f4c799a3d5",
    1003: "d33627a6c9a20460",
    1004: "1946e612a37d8ae9",
    1005: "3e744bfdda13e4ce",
    1006: "49493e0662e20124",
    1007: "c4205b94796256e2",
    1008: "ce3535b504ecee04",
    1009: "7dea672295b97a56",
    1010: "a74bf9d9bbea5eac",
    1011: "ead1536a7d282a9e",
    1012: "a853daf0d27a4214",
    1013: "29e75104719a49ee",
    1014: "053d176370bbc88a",
    1015: "762af1f0687055a7",
    1016: "47a06ffb1c914bb3",
    1017: "7529d674799cc528",
    1018: "5e1e6ee7448d8b13",
    1019: "2eecbbdc49601cb6",
}  # filled by --regen


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_legal_moves_observations_and_results_unchanged(index):
    game = GAMES[index]
    assert game_digest(game) == GOLDEN_DIGESTS[game[-1]], game


@pytest.mark.parametrize("index", range(0, len(GAMES), 2))
def test_fast_observer_equals_reference_every_step(index):
    game = GAMES[index]
    check_observer_equals_reference(
        random_game(*game), game[0], Observer, reference_encode, game[-1], 0.15
    )


def test_observer_follows_clones_copies_and_new_states():
    game = GAMES[5]
    check_observer_follows_copies(random_game(*game), game[0], Observer, reference_encode, encode)


def test_returned_observation_is_not_a_cache():
    check_returned_observation_is_not_a_cache(random_game(*GAMES[3]), Observer(0), reference_encode)


def _random_groups(rng: random.Random, contract) -> tuple:
    """A contract's groups part laid at random (a set: its rank and count; a run: the
    positions held within one window), as ``rules._meld_steps`` hands them over."""
    groups = []
    for is_set, size in contract.groups:
        if rng.random() < 0.4:
            groups.append((is_set, size, -1, 0 if is_set else frozenset(), False))
        elif is_set:
            placed = rng.randint(1, size)
            natural = rng.random() < 0.8
            rank = rng.choice(NATURAL_RANKS) if natural else -1
            groups.append((True, size, rank, placed, natural))
        else:
            lo = rng.choice(run_windows(size, frozenset()))
            held = frozenset(p for p in range(lo, lo + size) if rng.random() < 0.4)
            natural = any(p != 2 for p in held) and rng.random() < 0.8
            groups.append((False, size, -1, held, natural))
    return tuple(groups)


def test_contract_search_equals_plain_enumeration():
    """``legal_steps`` (the pruned search) equals ``slow_legal_steps`` (every plan) on
    random hands and part-laid contracts, every contract, wild cards from 0 to 6."""
    rng = random.Random(7)
    for i in range(3000):
        contract = CONTRACTS[i % len(CONTRACTS)]
        counts = [0] * 13
        for _ in range(rng.randint(4, 16)):
            counts[rng.choice(NATURAL_RANKS)] += 1
        wilds = rng.choice((0, 0, 1, 1, 2, 3, 4, 6))
        hand_size = sum(counts) + wilds
        groups = _random_groups(rng, contract)
        args = (tuple(counts), wilds, hand_size, groups)
        assert legal_steps.__wrapped__(*args) == slow_legal_steps(*args), args


def test_contract_search_with_twin_groups_equals_plain_enumeration():
    """The same on contracts whose groups are identical (fresh, or laid alike): the search
    takes their targets in one order only and gives each step to every twin."""
    rng = random.Random(11)
    twinned = [c for c in CONTRACTS if len(set(c.groups)) < len(c.groups)]
    for i in range(1500):
        contract = twinned[i % len(twinned)]
        counts = [0] * 13
        for _ in range(rng.randint(6, 18)):
            counts[rng.choice(NATURAL_RANKS)] += 1
        wilds = rng.choice((0, 1, 2, 3, 4, 6))
        hand_size = sum(counts) + wilds
        groups = list(_random_groups(rng, contract))
        for g in range(1, len(groups)):  # twins laid alike
            if groups[g][:2] == groups[0][:2] and rng.random() < 0.8:
                groups[g] = groups[0]
        args = (tuple(counts), wilds, hand_size, tuple(groups))
        assert legal_steps.__wrapped__(*args) == slow_legal_steps(*args), args


def _regen() -> None:
    digests = {game[-1]: game_digest(game) for game in GAMES}
    text = "GOLDEN_DIGESTS = {  # seed: digest (recorded before the speed work)\n"
    text += "".join(f'    {seed}: "{d}",\n' for seed, d in digests.items()) + "}"
    path = __file__
    with open(path) as f:
        src = f.read()
    start = src.index("GOLDEN_DIGESTS = {")
    end = src.index("}", start) + 1
    with open(path, "w") as f:
        f.write(src[:start] + text + src[end:])
    print(text)


if __name__ == "__main__":
    if "--regen" in sys.argv:
        _regen()
