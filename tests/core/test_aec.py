"""The PettingZoo adapter (``envs/aec.py``) over every registered game: a refused move leaves
the env exactly as it was, and ``reset``'s options (decks as numpy arrays, options that are
not a mapping)."""

from __future__ import annotations

import copy
import importlib
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commoncause.envs.core.game import IllegalMoveError
from commoncause.envs.registry import game_names, get_game


def make_env(name: str, **kwargs):
    return importlib.import_module(get_game(name).env_module).env(**kwargs)


def frozen(value):
    """``value`` with numpy arrays as (dtype, shape, bytes), so that ``==`` compares all."""
    if isinstance(value, np.ndarray):
        return (str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, dict):
        return {k: frozen(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return copy.deepcopy(value)


def snapshot(e) -> dict:
    """Everything a refused move must leave as it was."""
    raw = e.unwrapped
    return frozen({
        "observations": {a: e.observe(a) for a in raw.possible_agents},
        "rewards": raw.rewards,
        "cumulative": raw._cumulative_rewards,
        "terminations": raw.terminations,
        "truncations": raw.truncations,
        "infos": raw.infos,
        "agent_selection": raw.agent_selection,
        "agents": raw.agents,
        "last": e.last(),
        "history": raw.game_state.history,
        "moves": raw.moves,
        "move_log": raw.move_log,
        "legal_moves": raw.legal_moves(),
    })  # fmt: skip


def illegal_action(rng: random.Random, mask: np.ndarray) -> int:
    """An int action the mask refuses: a masked-out id, or one out of range."""
    refused = np.flatnonzero(mask == 0).tolist()
    choices = [-1, len(mask), len(mask) + 17] + rng.sample(refused, min(3, len(refused)))
    return rng.choice(choices)


@pytest.mark.parametrize("name", game_names())
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), p=st.floats(0.02, 0.3), numpy_int=st.booleans())
def test_a_refused_move_changes_nothing(name, seed, p, numpy_int):
    """On the first move, at random points and wherever the seat to act has a reward
    pending, an illegal action is refused and leaves the env (``last()`` included) as it
    was; play goes on."""
    e = make_env(name, render_mode="ansi")
    e.reset(seed=seed)
    rng = random.Random(seed)
    tried = 0
    for agent in e.agent_iter(400):
        obs, _reward, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if not tried or e.unwrapped._cumulative_rewards[agent] != 0 or rng.random() < p:
            before = snapshot(e)
            action = illegal_action(rng, obs["action_mask"])
            with pytest.raises(IllegalMoveError):
                e.step(np.int64(action) if numpy_int else action)
            assert snapshot(e) == before, f"{name} seed {seed}: refused {action} changed the env"
            tried += 1
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


@pytest.mark.parametrize("name", game_names())
def test_a_refused_move_keeps_a_pending_reward(name):
    """The reward a seat has earned since it last acted is still there after a refusal (a
    competitive game pays one at the end of every hand)."""
    e = make_env(name)
    pending = 0
    for seed in range(40):
        e.reset(seed=seed)
        rng = random.Random(seed)
        for agent in e.agent_iter(600):
            obs, reward, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            if reward != 0:
                refused = int(np.flatnonzero(obs["action_mask"] == 0)[0])
                with pytest.raises(IllegalMoveError):
                    e.step(refused)
                assert e.last()[1] == reward
                assert e.unwrapped._cumulative_rewards[agent] == reward
                pending += 1
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        if pending >= 3:
            break
    if get_game(name).team:  # Common Cause pays only on the move that ends the game
        assert pending == 0
    else:
        assert pending >= 3


# --------------------------------------------------------------------- reset options


def deck_size(name: str) -> int:
    game = get_game(name)
    return game.deck(game.make_config()).size


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize(
    "as_numpy",
    [
        pytest.param(lambda n: np.arange(n), id="int64_array"),
        pytest.param(lambda n: np.arange(n, dtype=np.int16), id="int16_array"),
        pytest.param(lambda n: list(np.arange(n)), id="list_of_np_int"),
        pytest.param(lambda n: np.arange(n).tolist()[::-1], id="reversed_ints"),
    ],
)
def test_reset_takes_a_deck_of_numpy_ints(name, as_numpy):
    """A deck of numpy integers deals exactly as the same deck of Python ints."""
    size = deck_size(name)
    deck = as_numpy(size)
    plain = [int(c) for c in deck]
    a, b = make_env(name), make_env(name)
    a.reset(options={"deck": deck})
    b.reset(options={"deck": plain})
    assert a.unwrapped.game_state.deck == b.unwrapped.game_state.deck
    for agent in a.possible_agents:
        assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize(
    "bad", [np.arange(3), np.full(200, 0), np.array([True] * 54)], ids=["short", "long", "bools"]
)
def test_reset_refuses_a_bad_numpy_deck(name, bad):
    size = deck_size(name)
    deck = bad if len(bad) != 54 else np.resize(bad, size)
    with pytest.raises(ValueError, match="deck"):
        make_env(name).reset(options={"deck": deck})


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("options", ["deck", ["deck"], 5, ("deck", [])], ids=repr)
def test_reset_refuses_options_that_are_not_a_mapping(name, options):
    """One line naming the problem, not a TypeError from inside ``reset``; the env stays
    usable."""
    e = make_env(name)
    with pytest.raises(ValueError, match=r"reset options must be a dict") as info:
        e.reset(options=options)
    assert "\n" not in str(info.value)
    e.reset(seed=1, options=None)
    e.reset(seed=1, options={})


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("options", ["deck", {"deck": [0, 1]}], ids=["not_a_dict", "short_deck"])
def test_a_refused_reset_changes_nothing(name, options):
    """Refused options leave the game in progress and the env's generator as they were (a
    refused ``reset(seed=9, ...)`` does not reseed)."""
    e, twin = make_env(name), make_env(name)
    for x in (e, twin):
        x.reset(seed=3)
        for _ in range(5):
            x.step(int(np.flatnonzero(x.observe(x.agent_selection)["action_mask"])[0]))
    before = snapshot(e)
    with pytest.raises(ValueError):
        e.reset(seed=9, options=options)
    assert snapshot(e) == before
    e.reset()
    twin.reset()
    assert e.unwrapped.game_state.deck == twin.unwrapped.game_state.deck
