"""PettingZoo conformance of ``common_cause_v0``: the library's own api/seed/render tests for
several configs, the registry entry, ``state()``, seeding, the ``deck`` reset option and
the spaces."""

from __future__ import annotations

import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import commoncause.envs.common_cause.common_cause  # noqa: F401  (registers commoncause/common_cause-v0)
from commoncause.envs.common_cause import IllegalMoveError, env
from commoncause.envs.common_cause.actions import (
    ACTIONS,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    N_ACTIONS,
    START,
)
from commoncause.envs.common_cause.cards import N_PHYSICAL, card_code, deck_codes
from commoncause.envs.common_cause.observer import OBS_SIZE, OFFSET, STATE_SIZE
from commoncause.envs.common_cause.rules import LEVELS, MAX_STOCK

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*ignoring unknown reset option",
    "ignore:Observation space for each agent probably should be",
    "ignore:Observation is not a NumPy array",
)

AGENTS = ["player_0", "player_1"]
VARIANTS = [
    pytest.param({}, id="normal"),
    pytest.param({"open_hands": True}, id="open_hands"),
    pytest.param({"max_open_starts": 3}, id="three_open_starts"),
    pytest.param({"stock_size": 0}, id="stock_0"),
    pytest.param({"level": "full"}, id="full"),
    pytest.param(
        {"level": "hard", "ace_low": True, "early_loss": True, "signal_rule": True},
        id="hard_all_rules",
    ),
]


def seeded(kwargs: dict, seed: int = 1):
    """An env constructor whose generator is seeded, so that the library tests' unseeded
    resets are reproducible (with stock_size=0 a random deal may hit the deal bug
    reported in test_empty_stock_deal_is_lost_in_the_env)."""

    def make(render_mode=None):
        e = env(render_mode=render_mode, **kwargs)
        e.reset(seed=seed)
        return e

    return make


@pytest.mark.parametrize("kwargs", VARIANTS)
def test_api(kwargs):
    api_test(seeded(kwargs)(), num_cycles=1000)


@pytest.mark.parametrize("kwargs", VARIANTS)
def test_seed(kwargs):
    seed_test(seeded(kwargs), num_cycles=1000)


@pytest.mark.parametrize("kwargs", VARIANTS)
def test_render(kwargs, capsys):
    render_test(seeded(kwargs))
    assert "Common Cause" in capsys.readouterr().out  # the human mode prints the table


def test_empty_stock_deal_is_lost_in_the_env():
    """A deal lost at once still starts unterminated; its one legal move ends it (-1 each)."""
    e = env(stock_size=0)
    for seed in range(100):
        e.reset(seed=seed)
        mask = e.observe("player_0")["action_mask"]
        if mask[DRAW_DISCARD] == 0:
            break
    assert not any(e.terminations.values())
    assert list(np.flatnonzero(mask)) == [DRAW_STOCK]
    e.step(DRAW_STOCK)
    assert all(e.terminations.values()), f"seed {seed}: not terminated"
    assert all(e.rewards[a] == -1 for a in AGENTS)


def test_registry():
    e = pettingzoo.make("aec", "commoncause/common_cause-v0")
    assert isinstance(e, pettingzoo.AECEnv)
    e.reset(seed=1)
    assert e.agent_selection == "player_0"
    hard = pettingzoo.make("aec", "commoncause/common_cause-v0", level="hard", open_hands=True)
    assert hard.unwrapped.config.stock_size == LEVELS["hard"] and hard.unwrapped.config.open_hands
    assert hard.unwrapped.metadata["name"] == "common_cause_v0"


def first_legal(e) -> int:
    return int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])


def play_greedy(e, rng: random.Random):
    """Step a reset env to the end with a placement-preferring random policy; yield after
    each step."""
    while not any(e.terminations.values()) and not any(e.truncations.values()):
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
        placements = [a for a in legal if ACTIONS[a].kind >= START]
        e.step(rng.choice(placements) if placements and rng.random() < 0.9 else rng.choice(legal))
        yield


@pytest.mark.parametrize("kwargs", VARIANTS)
def test_state_shows_every_card(kwargs):
    e = env(**kwargs)
    assert e.unwrapped.state_space.shape == (STATE_SIZE,)
    e.reset(seed=3)
    standard = ["hand", "partner_hand", "my_starts", "partner_starts", "meld_cards", "in_pile"]
    jokers = ["hand", "partner_hand", "table_jokers", "in_pile"]

    def check() -> None:
        s = e.state()
        game = e.unwrapped.game_state
        assert s.shape == (STATE_SIZE,) and s.dtype == np.float32
        assert e.unwrapped.state_space.contains(s)
        stock, aside = s[OBS_SIZE : OBS_SIZE + 54], s[OBS_SIZE + 54 : OBS_SIZE + 108]
        assert stock.sum() == len(game.stock) and aside.sum() == len(game.aside)
        assert s[-1] == game.current
        count = stock[:52] + aside[:52] + sum(s[OFFSET[f] : OFFSET[f] + 52] for f in standard)
        assert (count == 1).all(), "each standard card shows exactly once"
        n_jokers = stock[52:].sum() + aside[52:].sum()
        n_jokers += sum(s[OFFSET[f] + 52 : OFFSET[f] + 54].sum() for f in jokers)
        assert n_jokers == 2

    check()
    for _ in play_greedy(e, random.Random(3)):
        check()


def test_hidden_planes_show_what_a_seat_does_not_see_for_critics():
    """The critics' complement of a seat's observation: the partner's hand, the stock by
    its draw order (1.0 at the next card drawn, every place distinct) and the put-aside
    cards, on the state's card slots; after a draw the drawn card leaves the stock plane."""
    from commoncause.envs.common_cause.observer import encode_hidden, encode_state

    e = env()
    e.reset(seed=5)
    game = e.unwrapped.game_state
    for _ in range(2):
        seat = game.current
        full = encode_state(game)
        hidden = encode_hidden(game, seat)
        partner = OFFSET["partner_hand"]  # (the state is seat 0's view, partner revealed)
        hands = (full[OFFSET["hand"] : OFFSET["hand"] + 54], full[partner : partner + 54])
        assert np.array_equal(hidden[:54], hands[1 - seat])
        stock, aside = full[OBS_SIZE : OBS_SIZE + 54], full[OBS_SIZE + 54 : OBS_SIZE + 108]
        order = hidden[54:108]
        assert np.array_equal(order > 0, stock > 0) and np.array_equal(hidden[108:], aside)
        assert order.max() == 1.0 and len(set(order[order > 0])) == len(game.stock)
        top = int(order.argmax())
        e.step(DRAW_STOCK)  # the current seat draws the top card: it leaves the plane
        assert encode_hidden(game, seat)[54 + top] == 0.0
        while game.current == seat:  # (to the partner's draw)
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))


def test_same_seed_same_game():
    def game(seed):
        e = env(render_mode="ansi")
        e.reset(seed=seed)
        trace = [e.render()]
        rng = random.Random(0)
        for _ in play_greedy(e, rng):
            obs = [e.observe(a) for a in AGENTS]
            trace.append((e.render(), [o["observation"].tobytes() for o in obs]))
        return e.unwrapped.game_state.deck, trace, e.unwrapped.result

    assert game(11) == game(11)
    assert game(11)[0] != game(12)[0]
    e = env()
    e.reset(seed=5)
    deck = list(e.unwrapped.game_state.deck)
    e.reset()  # continues the seeded generator: a new deal
    assert e.unwrapped.game_state.deck != deck
    e.reset(seed=5)
    assert e.unwrapped.game_state.deck == deck


@pytest.mark.parametrize("stock_size", [0, 1, 22, 33])
def test_reset_with_deck_deals_as_documented(stock_size):
    codes = deck_codes(list(range(N_PHYSICAL)))
    random.Random(stock_size).shuffle(codes)
    e = env(stock_size=stock_size)
    e.reset(options={"deck": codes})
    game = e.unwrapped.game_state

    def cards(xs):
        return sorted(card_code(c) for c in xs)

    assert cards(game.hands[0]) == sorted(codes[0:20:2])  # alternately, from player_0
    assert cards(game.hands[1]) == sorted(codes[1:20:2])
    assert [card_code(c) for c in game.discard] == [codes[20]]  # turned up
    aside_end = 21 + MAX_STOCK - stock_size
    assert cards(game.aside) == sorted(codes[21:aside_end])
    assert len(game.stock) == stock_size
    obs = e.observe("player_0")["observation"]
    hand_plane = obs[OFFSET["hand"] : OFFSET["hand"] + 54]
    assert hand_plane.sum() == 10
    # the stock is drawn in deck order
    drawn = []
    rng = random.Random(0)
    while not any(e.terminations.values()) and len(drawn) < stock_size:
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
        if not legal:  # the empty-stock deal bug (see test_properties)
            break
        if DRAW_STOCK in legal:
            p = e.unwrapped.game_state.current
            before = list(e.unwrapped.game_state.hands[p])
            e.step(DRAW_STOCK)
            (new,) = [c for c in e.unwrapped.game_state.hands[p] if c not in before]
            drawn.append(card_code(new))
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
            discards = [a for a in legal if ACTIONS[a].kind == DISCARD]
            e.step(rng.choice(discards))
        else:
            e.step(rng.choice(legal))
    assert drawn == codes[aside_end : aside_end + len(drawn)]
    assert len(drawn) == stock_size or any(e.terminations.values())


def test_reset_rejects_a_bad_deck():
    e = env()
    codes = deck_codes(list(range(N_PHYSICAL)))
    with pytest.raises(ValueError, match="54"):
        e.reset(options={"deck": codes[:-1]})
    with pytest.raises(ValueError, match="duplicate"):
        e.reset(options={"deck": codes[:-2] + [codes[0], "JK"]})


def test_spaces_are_stable_objects():
    e = env()
    e.reset(seed=0)
    for agent in AGENTS:
        assert e.observation_space(agent) is e.observation_space(agent)
        assert e.action_space(agent) is e.action_space(agent)
        assert e.action_space(agent).n == N_ACTIONS
        space = e.observation_space(agent)
        assert space["observation"].shape == (OBS_SIZE,)
        assert space["action_mask"].shape == (N_ACTIONS,)
        assert space.contains(e.observe(agent))
    spaces = (e.observation_space("player_0"), e.action_space("player_0"))
    e.reset(seed=1)
    assert (e.observation_space("player_0"), e.action_space("player_0")) == spaces
    assert e.observation_space("player_0") is spaces[0]


def test_illegal_action_raises_and_changes_nothing():
    e = env(render_mode="ansi")
    e.reset(seed=2)
    before = e.render()
    illegal = int(np.flatnonzero(e.observe("player_0")["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError):
        e.step(illegal)
    assert e.render() == before
    e.step(first_legal(e))


def test_max_moves_truncates_without_reward():
    e = env(max_moves=5)
    e.reset(seed=4)
    for _ in range(5):
        e.step(first_legal(e))
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert all(e.rewards[a] == 0 for a in AGENTS)
