"""The rummy core (``envs/core``), the registry and the generic PettingZoo adapter: physical
ids vs card types, meld rules as data, config serialisation, game registration in either
import order, and clear errors before reset (copies mid-game: tests/games/test_conformance.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from commoncause.envs.core.cards import JOKER, DeckSpec, card_code, parse_card
from commoncause.envs.core.melds import ACE_BOTH, ACE_HIGH, ACE_LOW, MeldRules
from commoncause.envs.registry import GAMES, entry_point, env_id, game_names, get_game

ROOT = Path(__file__).resolve().parents[2]


def types(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


# ----------------------------------------------------------------------------- cards
def test_two_decks_have_two_physical_cards_of_each_type():
    spec = DeckSpec(decks=2, jokers=4)
    assert spec.size == 108
    seven_h = parse_card("7H")
    assert spec.copies(seven_h) == [seven_h, 52 + seven_h]
    assert {spec.type_of(p) for p in spec.copies(seven_h)} == {seven_h}
    assert spec.copies(JOKER) == [104, 105, 106, 107]
    assert all(spec.type_of(j) == JOKER for j in spec.copies(JOKER))


def test_parse_gives_copies_in_order_and_names_problems():
    spec = DeckSpec(decks=2, jokers=4)
    codes = [card_code(spec.type_of(p)) for p in range(spec.size)]
    deck = spec.parse(list(reversed(codes)))
    assert sorted(deck) == list(range(108))
    assert deck[-53] == 0 and deck[-1] == 52  # the first AC read gets copy 0
    with pytest.raises(ValueError, match="copy 3 of AC"):
        spec.parse(["AC"] + codes[:-1])
    with pytest.raises(ValueError, match="108 card codes"):
        spec.parse(codes[:-1])
    with pytest.raises(ValueError, match="a fifth joker"):
        spec.parse(codes[:-5] + ["JK"] * 5)
    with pytest.raises(ValueError, match="unknown card code"):
        spec.parse(codes[:-1] + ["1X"])


def test_one_deck_physical_ids_are_the_types():
    spec = DeckSpec(decks=1, jokers=2)
    assert [spec.type_of(p) for p in range(54)] == list(range(52)) + [JOKER, JOKER]


# ----------------------------------------------------------------------------- melds
@pytest.mark.parametrize(
    "ace, run, ok",
    [
        (ACE_BOTH, "AH 2H 3H", True),
        (ACE_BOTH, "QH KH AH", True),
        (ACE_BOTH, "KH AH 2H", False),  # never round the corner
        (ACE_LOW, "QH KH AH", False),
        (ACE_LOW, "AH 2H 3H", True),
        (ACE_HIGH, "AH 2H 3H", False),
        (ACE_HIGH, "QH KH AH", True),
    ],
)
def test_where_the_ace_sits(ace, run, ok):
    assert (MeldRules(ace=ace).read_run(types(run)) is not None) == ok


def test_runs_suited_or_not():
    mixed = types("5H 6S 7H")
    assert MeldRules(suited_runs=True).read_run(mixed) is None
    assert MeldRules(suited_runs=False).read_run(mixed) is not None
    assert MeldRules().read_run(types("5H 7H 6H")) is None  # as laid: in order


def test_wild_cards_stand_for_their_place():
    reading = MeldRules().read_run(types("5H JK 7H JK"))
    assert reading is not None and (reading.suit, reading.lo, reading.hi) == (2, 5, 8)
    assert reading.stands_for == {1: 6, 3: 8}
    assert MeldRules().read_run(types("JK JK JK")) is None  # no real card
    assert MeldRules(min_natural=0).read_run(types("JK JK JK")) is not None


def test_twos_wild_read_as_themselves_where_they_fit():
    rules = MeldRules(wild=frozenset({JOKER, *types("2C 2D 2H 2S")}), ace=ACE_BOTH)
    natural = rules.read_run(types("AH 2H 3H"))
    assert natural is not None and natural.stands_for == {}
    standing = rules.read_run(types("AH 2S 3H"))
    assert standing is not None and standing.stands_for == {1: 2}
    assert rules.read_set(types("7H 2C 7S")).stands_for == {1: -1}


def test_sets_distinct_suits_and_size_caps():
    assert MeldRules().read_set(types("7H 7S 7C")) is not None
    assert MeldRules().read_set(types("7H 7H 7C")) is None
    assert MeldRules(distinct_suit_sets=False).read_set(types("7H 7H 7C")) is not None
    assert MeldRules().read_set(types("7H 7S 7C 7D JK")) is None  # at most four
    assert MeldRules(max_set_size=None).read_set(types("7H 7S 7C 7D JK")) is not None
    assert MeldRules(max_wild=1).read_set(types("7H JK JK")) is None
    assert MeldRules().read_set(types("7H 8H")) is None  # too small


def test_can_form_takes_any_order():
    rules = MeldRules()
    assert rules.can_form(types("7H 5H JK"))
    assert rules.can_form(types("2H AH 3H"))
    assert not rules.can_form(types("2H AH 4H"))
    assert rules.can_form(types("KD QD AD"))
    assert not rules.can_form(types("KD AD 2D"))


# ---------------------------------------------------------------------------- configs
def test_config_round_trips_and_names_bad_keys():
    game = get_game("common_cause")
    config = game.make_config(level="hard", open_hands=True, max_open_starts=3)
    assert game.config_type.from_dict(config.to_dict()) == config
    assert config.variant_names() == ["open hands", "three open starts"]
    assert config.label() == "hard"
    with pytest.raises(ValueError, match="unknown game option"):
        game.config_type.from_dict({**config.to_dict(), "jokers": 3})
    with pytest.raises(ValueError, match="unknown option"):
        game.make_config(level="normal", stok_size=20)


# --------------------------------------------------------------------------- registry
def test_registry_names_each_game_and_its_pettingzoo_id():
    assert "common_cause" in game_names()
    for name in game_names():
        game = get_game(name)
        assert (GAMES[name], env_id(name)) == (game.version, game.env_id)
        assert entry_point(name) == f"{game.env_module}:env"
        assert game.name == name
    with pytest.raises(ValueError, match="unknown game 'gin'.*common_cause"):
        get_game("gin")


def run_python(script: str) -> None:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("first", ["engine", "pettingzoo"])
def test_pettingzoo_make_works_in_either_import_order(first):
    imports = ["import commoncause.envs.common_cause", "import pettingzoo"]
    if first == "pettingzoo":
        imports.reverse()
    run_python(
        "import sys\n" + "\n".join(imports) + "\nimport pettingzoo\n"
        "e = pettingzoo.make('aec', 'commoncause/common_cause-v0', level='hard')\n"
        "e.reset(seed=1)\n"
        "assert e.unwrapped.level == 'hard', e.unwrapped.level\n"
    )


# ---------------------------------------------------------------------------- adapter
@pytest.mark.parametrize("call", ["state", "observe", "render", "legal_moves"])
def test_before_reset_a_clear_error(call):
    from commoncause.envs.common_cause import raw_env

    e = raw_env(render_mode="ansi")
    args = ("player_0",) if call == "observe" else ()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before"):
        getattr(e, call)(*args)
