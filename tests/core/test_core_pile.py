"""The pile rummies' shared mechanics (``envs/core/pile_rummy``): the deal, the stock and its
refill from the pile, the pile's log, taking a card, re-dealing and card locations; and the
conventions the three engines share (int action kinds, ``GameConfig``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from commoncause.envs.common_cause import actions as cc_actions
from commoncause.envs.common_cause import rules as cc_rules
from commoncause.envs.core.game import RulesConfig
from commoncause.envs.core.pile_rummy import DRAW_PHASE, PileRummyState
from commoncause.envs.dummy_rummy import actions as dummy_actions
from commoncause.envs.dummy_rummy import rules as dummy_rules
from commoncause.envs.open_rummy import actions as open_actions
from commoncause.envs.open_rummy import rules as open_rules
from commoncause.envs.registry import get_game

SHARED = ("_take_top", "_put_on_pile", "_draw_from_stock", "_deal_cards",
          "_deal_again_unless", "locations", "returns", "rewards", "top_discard",
          "hand_types", "num_seats", "is_terminal")  # fmt: skip


@dataclass(frozen=True)
class ToyConfig(RulesConfig):
    num_players: int = 2
    reward: str = "win"


class Toy(PileRummyState):
    """Two seats, three cards each from a 12-card deck of types ``id % 4``."""

    TYPE_OF = tuple(c % 4 for c in range(12))

    def __init__(self, deck: list[int]) -> None:
        self._begin(ToyConfig(), deck, 12, " (a toy deck)")
        self.deals = 0
        self._deal(deck)

    def _deal(self, deck: list[int]) -> None:
        self.deals += 1
        self.melds = [[]]
        self._deal_cards(deck, self.deals % 2, 3)

    def _table_places(self) -> list[tuple[str, list[int]]]:
        return [("meld", self.melds[0])]

    def winners(self) -> list[int]:
        return [0]


def test_the_deal_goes_round_from_the_first_seat_and_turns_one_card_up():
    toy = Toy(list(range(12)))
    assert toy.first == toy.current == 1 and toy.phase == DRAW_PHASE
    assert toy.hands == [[1, 3, 5], [0, 2, 4]]
    assert toy.discard == [6] and toy.discard_log == [[6, -1, -1]] and toy.discard_entry == [0]
    assert toy.stock == [11, 10, 9, 8, 7]  # the top (7) is last
    assert toy.top_discard() == 6 and toy.hand_types(0) == [1, 3, 1]
    with pytest.raises(ValueError, match=r"each of the 12 physical cards once \(a toy deck\)"):
        Toy([0] * 12)


class NewestToy(Toy):
    TAKE_NEWEST = True


def test_take_takes_the_oldest_or_the_newest_copy():
    oldest, newest = Toy(list(range(12))), NewestToy(list(range(12)))
    assert oldest._take(0, 1) == 1 and oldest.hands[0] == [3, 5]  # 1 and 5 are both type 1
    assert newest._take(0, 1) == 5 and newest.hands[0] == [1, 3]
    for toy in (oldest, newest):
        with pytest.raises(AssertionError, match="holds no 0"):
            toy._take(0, 0)


@pytest.mark.parametrize("kind", [Toy, NewestToy])
def test_take_takes_a_copy_shown_in_the_hand_first(kind):
    """A copy whose place is public (here taken from the pile) leaves before a hidden one
    that the game would take otherwise (held longest, or newest), and leaves ``shown``."""
    toy = kind(list(range(12)))
    toy._put_on_pile(1, toy._take(1, 2))  # seat 1 discards its 2; seat 0 takes it
    toy._take_top(0)
    assert toy.hands[0] == [1, 3, 5, 2] and toy.shown == [{2}, set()]
    toy.stock.remove(10)  # a hidden copy of type 2 the old rule would have taken first
    toy.hands[0].insert(len(toy.hands[0]) if kind.TAKE_NEWEST else 0, 10)
    assert toy._take(0, 2) == 2 and toy.shown[0] == set()
    assert toy._take(0, 2) == 10


def test_the_pile_log_says_who_discarded_and_who_took():
    toy = Toy(list(range(12)))
    toy._put_on_pile(0, toy._take(0, 3))
    assert toy.discard == [6, 3] and toy.discard_log[-1] == [3, 0, -1]
    toy._take_top(1)
    assert toy.hands[1][-1] == 3 and toy.discard_log[1] == [3, 0, 1] and toy.discard == [6]


def test_an_empty_stock_is_refilled_from_under_the_top_discard_oldest_first():
    toy = Toy(list(range(12)))
    toy.stock.clear()
    assert not toy._draw_from_stock(0)  # only the top card: nothing to draw
    for card in (1, 3):
        toy._put_on_pile(0, toy._take(0, toy.TYPE_OF[card]))
    assert toy._draw_from_stock(1)
    assert toy.hands[1][-1] == 6  # the oldest pile card comes first
    assert toy.stock_shown and toy.shown[1] == {6}  # in sight of all: the pile turned over
    assert toy.stock == [1] and toy.discard == [3]
    assert [e[2] for e in toy.discard_log] == [-2, -2, -1]  # turned into the stock; the top stays


def test_locations_find_every_card_once_and_name_a_card_in_two_places():
    toy = Toy(list(range(12)))
    toy.melds[0].append(toy._take(0, 3))
    where = toy.locations()
    assert sorted(where) == list(range(12)) and where[3] == "meld" and where[6] == "discard"
    toy.stock.append(3)
    with pytest.raises(AssertionError, match="card 3 is both in"):
        toy.locations()


def test_a_finished_deal_deals_again_from_the_rng_or_ends_the_game():
    toy, twin = Toy(list(range(12))), Toy(list(range(12)))
    toy._deal_again_unless(False)
    twin._deal_again_unless(False)
    assert toy.deals == 2 and toy.hands == twin.hands and toy.stock == twin.stock  # seeded
    assert sorted(toy.locations()) == list(range(12)) and not toy.is_terminal
    toy._deal_again_unless(True)
    assert toy.is_terminal and toy.deals == 2 and toy.rewards() == (1.0, -1.0)


@pytest.mark.parametrize("rules", [dummy_rules, open_rules])
def test_both_pile_rummies_use_the_shared_mechanics(rules):
    assert issubclass(rules.GameState, PileRummyState)
    for name in SHARED:
        assert getattr(rules.GameState, name) is getattr(PileRummyState, name), name
    assert rules.GameState._take is PileRummyState._take
    # Open Rummy takes the copy of a type taken last, Dummy rummy the one held longest
    assert rules.GameState.TAKE_NEWEST is (rules is open_rules)


KINDS = {
    "common_cause": (cc_actions.KIND_NAMES, lambda a: cc_actions.ACTIONS[a].kind),
    "dummy_rummy": (dummy_actions.KIND_NAMES, lambda a: dummy_actions.decode(a).kind),
    "open_rummy": (open_actions.KIND_NAMES, lambda a: open_actions.decode(a).kind),
}


@pytest.mark.parametrize("game", sorted(KINDS))
def test_every_game_names_its_action_kinds_by_small_ints(game):
    names, kind_of = KINDS[game]
    kinds = {kind_of(a) for a in range(get_game(game).num_actions)}
    assert kinds == set(range(len(names)))  # ints 0..k-1, each named, every one used


def test_every_game_calls_its_config_game_config():
    for rules, name in ((cc_rules, "common_cause"), (dummy_rules, "dummy_rummy"),
                        (open_rules, "open_rummy")):  # fmt: skip
        assert get_game(name).config_type is rules.GameConfig
    assert dummy_rules.DummyConfig is dummy_rules.GameConfig  # the former names still work
    assert open_rules.OpenConfig is open_rules.GameConfig
