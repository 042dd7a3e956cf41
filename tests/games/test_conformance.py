"""The conformance suite every registered game passes, parametrized over the registry (a game
added to ``envs/registry.py`` is covered with nothing written here): PettingZoo's api and
seed tests; random play where the action mask is the legal moves; a seat's observation blind
to the cards it cannot see (permuted); a clone, a deep copy and a pickle mid-game playing on
identically; the move notation round trip for every legal move; every physical card in
exactly one place; the golden record ``tests/golden/<game>_game.json`` replayed move by
move; and the fast paths (a kept observer's caches, a reference encoder the game's own tests
provide, the digest of everything the env shows recorded before the speed work in
``tests/games/env_digests.json``) equal to the plain ones. Each game plays its default
config (``make_config()``); each game's variants and rules are in ``tests/games/<game>/``.

The checks are plain functions of a game's registry name (``check_*``), so that
``test_new_game.py`` runs them on a game copied under a new name.
"""

from __future__ import annotations

import copy
import importlib
import json
import pickle
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from competitive import check_mask_equals_legal_moves, game_env, replay_golden
from pettingzoo.test import api_test, seed_test

from commoncause.envs.registry import game_names, get_game

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*ignoring unknown reset option",
    "ignore:Observation space for each agent probably should be",
    "ignore:Observation is not a NumPy array",
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
DIGESTS = Path(__file__).with_name("env_digests.json")
SEEDS = (1, 2, 3)
MAX_MOVES = 400
"""Moves per random game: enough for every phase of a hand, quick for every game."""
GOLDEN_KEYS = {"env_kwargs", "seed", "deck", "initial_render", "steps", "result", "turns"}
"""A golden record's fixed keys; ``returns`` is each seat's rewards summed, and any other key
names a figure of the finished game's state (``hand_points``) by its attribute."""

games = pytest.mark.parametrize("name", game_names())


def random_states(name: str, seed: int, max_moves: int = MAX_MOVES) -> Iterator[tuple[Any, int]]:
    """A random legal game of the default config: (state, the move about to be played)."""
    game = get_game(name)
    state = game.new_game(game.make_config(), seed)
    rng = random.Random(seed)
    for _ in range(max_moves):
        if state.is_terminal:
            return
        action = rng.choice(state.legal_actions())
        yield state, action
        state.apply(action)


def seeded_env(name: str, seed: int = 1):
    """An env constructor whose generator is seeded (the library tests reset unseeded)."""

    def make(render_mode=None):
        e = game_env(name)(render_mode=render_mode)
        e.reset(seed=seed)
        return e

    return make


# ------------------------------------------------------------------------------ the checks
def check_api(name: str) -> None:
    api_test(seeded_env(name)(), num_cycles=300)


def check_seed(name: str) -> None:
    seed_test(seeded_env(name), num_cycles=300)


def check_mask(name: str) -> None:
    for seed in SEEDS:
        check_mask_equals_legal_moves(game_env(name)(), seed=seed, max_iter=MAX_MOVES)


def check_cards_conserved(name: str) -> None:
    """Every physical card of the deck in exactly one place (``locations`` raises on a card
    in two), before every move and at the end; a finished game has no legal move."""
    game = get_game(name)
    for seed in SEEDS:
        state = None
        for state, _ in random_states(name, seed):
            assert sorted(state.locations()) == list(range(game.deck(state.config).size))
        assert state is not None and sorted(state.locations()) == list(
            range(game.deck(state.config).size)
        )


def check_notation(name: str) -> None:
    """Every legal move's text parses back to that move."""
    game = get_game(name)
    for seed in SEEDS:
        for state, _ in random_states(name, seed):
            for action in state.legal_actions():
                text = game.move_text(state, action)
                assert game.parse_move(state, text) == action, (seed, action, text)


def hidden_piles(state: Any, me: int) -> list[list[int]]:
    """The card lists seat ``me`` cannot see: the other hands, the stock and any put-aside
    cards the engine keeps (``aside``, named by ``locations``)."""
    places = set(state.locations().values())
    piles = [hand for seat, hand in enumerate(state.hands) if seat != me]
    return piles + [getattr(state, place) for place in ("stock", "aside") if place in places]


def permute_hidden(state: Any, me: int, rng: random.Random) -> Any:
    """A clone where the cards seat ``me`` cannot see are dealt anew among their places
    (each place keeps its size)."""
    twin = state.clone()
    piles = hidden_piles(twin, me)
    cards = [c for pile in piles for c in pile]
    rng.shuffle(cards)
    for pile in piles:
        pile[:], cards = cards[: len(pile)], cards[len(pile) :]
    return twin


def check_hidden_cards(name: str) -> None:
    """The seat to act sees the same observation and the same legal moves whatever the
    cards it cannot see are; and some permutation does change a hidden card (the check
    is not empty)."""
    game = get_game(name)
    rng = random.Random(0)
    moved = 0
    for seed in SEEDS:
        for step, (state, _) in enumerate(random_states(name, seed)):
            if step % 7:
                continue
            me = state.current
            twin = permute_hidden(state, me, rng)
            assert sorted(twin.locations()) == sorted(state.locations())
            moved += twin.locations() != state.locations()
            seen = game.observer(me).encode(state)
            assert np.array_equal(seen, game.observer(me).encode(twin)), (seed, step)
            assert twin.legal_actions() == state.legal_actions(), (seed, step)
    assert moved, "no permutation moved a hidden card"


def check_copies_play_on(name: str) -> None:
    """A deep copy and a pickle of an env mid-game, and a clone of its engine, play on
    exactly as the original (observations, rewards, legal moves, render, result)."""
    game = get_game(name)
    for how in ("deepcopy", "pickle"):
        e = game_env(name)(render_mode="ansi")
        e.reset(seed=5)
        for _ in range(25):
            obs, *_ = e.last()
            e.step(int(obs["action_mask"].nonzero()[0][-1]))
        twin = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
        clone = e.unwrapped.game_state.clone()
        assert twin.unwrapped.game_state is not e.unwrapped.game_state
        for _agent in e.agent_iter(max_iter=MAX_MOVES):
            obs, reward, term, trunc, _ = e.last()
            t_obs, t_reward, *_ = twin.last()
            assert np.array_equal(obs["observation"], t_obs["observation"]) and reward == t_reward
            if not (term or trunc):
                seat = clone.current
                assert clone.legal_actions() == e.unwrapped.game_state.legal_actions()
                assert np.array_equal(game.observer(seat).encode(clone), obs["observation"])
            action = None if term or trunc else int(obs["action_mask"].nonzero()[0][0])
            e.step(action)
            twin.step(action)
            if action is not None:
                clone.apply(action)
        assert twin.render() == e.render()
        assert twin.unwrapped.result == e.unwrapped.result


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}_game.json"


def check_golden(name: str, path: Path | None = None) -> None:
    """The game's golden record replays move by move (each move legal, each render as
    recorded) to the recorded result, turns, returns and figures."""
    record = json.loads((path or golden_path(name)).read_text())
    e, earned = replay_golden(name, record)
    if "result" in record:
        assert e.unwrapped.result == record["result"]
    if "turns" in record:
        assert e.unwrapped.game_state.turns == record["turns"]
    if "returns" in record:
        assert [earned[a] for a in e.possible_agents] == record["returns"]
    for key in sorted(set(record) - GOLDEN_KEYS - {"returns"}):
        assert getattr(e.unwrapped.game_state, key) == record[key], key


def check_kept_observer(name: str) -> None:
    """Each seat's observer, kept over a whole game (its caches following the moves),
    gives what a fresh observer gives; writing into what it returned changes nothing."""
    game = get_game(name)
    for seed in SEEDS:
        kept: list[Any] | None = None
        for state, _ in random_states(name, seed):
            if kept is None:
                kept = [game.observer(s) for s in range(state.num_seats)]
            for seat, observer in enumerate(kept):
                got = observer.encode(state)
                assert np.array_equal(got, game.observer(seat).encode(state)), (seed, seat)
                got[:] = 0.5


def reference_encoder(name: str) -> Any:
    """The plain observation encoder a game's own tests keep (``reference_encode`` in
    ``tests/games/<game>/test_speed_exact.py``), or None."""
    try:
        module = importlib.import_module(f"tests.games.{name}.test_speed_exact")
    except ModuleNotFoundError:
        return None
    return getattr(module, "reference_encode", None)


def check_reference_observer(name: str, reference: Any) -> None:
    """The game's observer equals its plain reference encoder at every step."""
    game = get_game(name)
    for seed in SEEDS:
        for state, _ in random_states(name, seed):
            for seat in range(state.num_seats):
                got = game.observer(seat).encode(state)
                assert np.array_equal(got, reference(state, seat)), (seed, seat)


# ------------------------------------------------------------------------------- the tests
@games
def test_pettingzoo_api(name):
    check_api(name)


@games
def test_pettingzoo_seed(name):
    check_seed(name)


@games
def test_random_play_mask_equals_legal_moves(name):
    check_mask(name)


@games
def test_the_raw_env_says_to_reset_before_a_deal_and_after_the_game(name):
    """``raw_env`` (no order-enforcing wrapper): ``step`` and ``last`` before the first deal
    and once the game is over are a RuntimeError naming ``reset()``, not a bare KeyError."""
    env = importlib.import_module(get_game(name).env_module).raw_env()
    for call in (lambda: env.step(0), env.last):
        with pytest.raises(RuntimeError, match=r"call reset\(\) before"):
            call()
    env.reset(seed=1)
    rng = random.Random(1)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(legal)))
    for call in (lambda: env.step(0), env.last):
        with pytest.raises(RuntimeError, match=r"the game is over: call reset\(\)"):
            call()


@games
def test_hidden_cards_are_invisible(name):
    check_hidden_cards(name)


@games
def test_clone_copy_and_pickle_mid_game_play_on_identically(name):
    check_copies_play_on(name)


@games
def test_move_notation_round_trips(name):
    check_notation(name)


@games
def test_cards_are_conserved(name):
    check_cards_conserved(name)


@games
def test_golden_game_replays(name):
    if not golden_path(name).is_file():
        pytest.skip(f"{name} has no golden record ({golden_path(name)})")
    check_golden(name)


@games
def test_speed_exact_kept_observer_equals_a_fresh_one(name):
    check_kept_observer(name)


@games
def test_speed_exact_env_shows_what_it_showed_before_the_speed_work(name):
    """The digest of everything the env shows over seeded random games equals the one
    recorded before the speed work (``tests/games/env_digests.json``)."""
    from bench.env_digest import digest

    recorded = json.loads(DIGESTS.read_text())["games"].get(name)
    if not recorded:
        pytest.skip(f"{name} has no recorded env digest ({DIGESTS.name})")
    for case in recorded:
        assert digest(name, case["options"], case["games"]) == (case["sha256"], case["steps"]), case


def test_every_registered_game_has_a_recorded_env_digest():
    """(A game added later records its own: ``bench/env_digest.py`` in the tree before its
    speed work, or now when it has none.)"""
    assert set(json.loads(DIGESTS.read_text())["games"]) == set(game_names())


@games
def test_speed_exact_observer_equals_the_reference(name):
    reference = reference_encoder(name)
    if reference is None:
        pytest.skip(
            f"{name} has no plain reference encoder "
            f"(reference_encode in tests/games/{name}/test_speed_exact.py)"
        )
    check_reference_observer(name, reference)
