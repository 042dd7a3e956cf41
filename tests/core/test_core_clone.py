"""Copies by declaration (``envs/core/clone``): every field of every engine's state and melds
is declared with how ``clone`` copies it, so a field added without a declaration fails here
rather than being shared between a game and its copies."""

from __future__ import annotations

import random

import pytest

from commoncause.envs.core.clone import COPY, COPY_EACH, RESET, SHARE, declared_copy
from commoncause.envs.registry import get_game

CONFIGS = [
    ("common_cause", {}),
    ("dummy_rummy", {"num_players": 3, "cut_ins": True}),
    ("open_rummy", {"num_players": 4}),
]


def undeclared(obj: object, declared: dict) -> set[str]:
    """Fields of ``obj`` (its ``__dict__``) that ``declared`` does not name."""
    return set(vars(obj)) - set(declared)


def played(name: str, options: dict, seed: int, moves: int = 600):
    """States along a random game of ``name`` (every 25th move, and the last)."""
    game = get_game(name)
    config = game.make_config(**options)
    deck = list(range(game.deck(config).size))
    random.Random(seed).shuffle(deck)
    state = game.new_state(config, deck)
    rng = random.Random(seed)
    for i in range(moves):
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))
        if i % 25 == 0:
            state.legal_actions()  # fill the caches too
            yield state
    yield state


@pytest.mark.parametrize("name, options", CONFIGS)
def test_every_field_of_a_played_game_is_declared(name, options):
    seen: set[str] = set()
    for seed in range(3):
        for state in played(name, options, seed):
            declared = type(state).CLONE_FIELDS
            assert undeclared(state, declared) == set()
            assert undeclared(state.clone(), declared) == set()
            seen |= set(vars(state))
    assert seen == set(type(state).CLONE_FIELDS)  # and nothing declared that never exists


@pytest.mark.parametrize("name, options", CONFIGS)
def test_a_clone_copies_each_field_as_declared(name, options):
    for state in played(name, options, seed=7):
        new = state.clone()
        for field, how in type(state).CLONE_FIELDS.items():
            old_value, new_value = getattr(state, field), getattr(new, field)
            if how == RESET:
                assert new_value is None
            elif how == SHARE:
                assert new_value is old_value
            elif how in (COPY, COPY_EACH):
                assert new_value is not old_value, field
                if field != "melds":  # melds: slot by slot below
                    assert new_value == old_value, field
            elif field == "rng":
                assert new_value is not old_value
                assert new_value.getstate() == old_value.getstate()
            if how == COPY_EACH:
                assert all(a is not b for a, b in zip(new_value, old_value, strict=True))
        for old_meld, new_meld in zip(state.melds, new.melds, strict=True):
            for slot in type(old_meld).__slots__:  # every slot set, equal to the original's
                assert getattr(new_meld, slot) == getattr(old_meld, slot), slot


@pytest.mark.parametrize("name, options", CONFIGS)
def test_a_clone_plays_on_alone(name, options):
    for state in played(name, options, seed=3, moves=300):
        if state.is_terminal:
            continue
        before = (state.legal_actions(), state.returns(), state.locations())
        new = state.clone()
        rng = random.Random(0)
        for _ in range(40):
            if new.is_terminal:
                break
            new.apply(rng.choice(new.legal_actions()))
        assert (state.legal_actions(), state.returns(), state.locations()) == before


def test_a_slots_class_must_declare_exactly_its_slots():
    with pytest.raises(ValueError, match=r"undeclared slots \['b'\]"):
        declared_copy({"a": SHARE}, ("a", "b"))
    with pytest.raises(ValueError, match=r"declared non-slots \['c'\]"):
        declared_copy({"a": SHARE, "b": COPY, "c": SHARE}, ("a", "b"))
    with pytest.raises(ValueError, match="unknown copy rule"):
        declared_copy({"a": "deep"})


def test_a_forgotten_field_is_found():
    class State:
        FIELDS = {"kept": COPY, "cache": RESET}
        copy = declared_copy(FIELDS)

        def __init__(self) -> None:
            self.kept = [1]
            self.cache = {}
            self.added_later = [2]  # nobody declared it

    state = State()
    new = state.copy()
    assert new.kept == [1] and new.kept is not state.kept and new.cache is None
    assert undeclared(state, State.FIELDS) == {"added_later"}
