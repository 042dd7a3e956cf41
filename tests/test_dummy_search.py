"""Search in a competitive game (Dummy rummy): the seat view's sampled deals fit what the
seat sees and only that, the cards whose place is public stay there, and the search agent
plays legal moves, is the blueprint with no rollouts and ignores the hidden cards."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from competitive import random_play

from commoncause.agents.evaluate import make_agent
from commoncause.agents.search import can_search, seat_won
from commoncause.envs.dummy_rummy.actions import DECK, SET_MELD_BASE
from commoncause.envs.dummy_rummy.rules import DummyConfig, GameState
from commoncause.envs.dummy_rummy.seat import SeatView
from commoncause.envs.registry import get_game

GAME = get_game("dummy_rummy")


def states(config: DummyConfig, seed: int, every: int, eager: float = 0.5) -> list[GameState]:
    """Copies of every ``every``-th state of a random game (the play reuses one state)."""
    out = []
    plays = random_play("dummy_rummy", config, seed, eager, SET_MELD_BASE, 3000)
    for i, (state, action) in enumerate(plays):
        if action is not None and i % every == 0:
            out.append(state.clone())
    return out


def where(state: GameState) -> Counter:
    """How many places each physical card is in (hands, stock, pile, table)."""
    places = [c for h in state.hands for c in h] + state.stock + state.discard
    places += [c for m in state.melds for c in m.physical()]
    return Counter(places)


@pytest.mark.parametrize("players,cut_ins", [(2, False), (3, True), (4, True)])
def test_sampled_deals_fit_the_view_and_forget_the_true_deal(players, cut_ins):
    config = DummyConfig(num_players=players, hands=1, cut_ins=cut_ins)
    rng = random.Random(players)
    known_seen = 0
    for seed in range(3):
        for state in states(config, seed, every=5):
            me = state.current
            view = SeatView(state, me)
            known = view.known_cards()
            known_seen += sum(map(len, known.values()))
            for _ in range(2):
                deal = view.sample_deal(rng)
                assert deal.deck == []
                assert where(deal) == Counter(range(DECK.size))  # every card once
                assert deal.hands[me] == state.hands[me]
                assert [len(h) for h in deal.hands] == [len(h) for h in state.hands]
                assert len(deal.stock) == len(state.stock)
                for seat, cards in known.items():
                    assert set(cards) <= set(deal.hands[seat])
                assert deal.legal_actions() == state.legal_actions()
    assert known_seen > 0


def test_known_cards_are_really_in_those_hands():
    """Top discards taken and not played since: they are where the view says."""
    config = DummyConfig(num_players=4, hands=1, cut_ins=True)
    checked = 0
    for seed in range(6):
        for state in states(config, seed, every=3, eager=0.2):
            for me in range(4):
                for seat, cards in SeatView(state, me).known_cards().items():
                    assert set(cards) <= set(state.hands[seat]), (seed, me, seat)
                    checked += len(cards)
    assert checked > 0


def test_a_stock_turned_from_the_pile_is_public_and_kept():
    """Random 4-player play with cut-ins (seed 2) turns the pile into the stock (reading 7):
    from then on the stock's order is public and every sampled deal keeps it."""
    config = DummyConfig(num_players=4, hands=1, cut_ins=True)
    refilled = [
        s for s in states(config, 2, every=1, eager=0.0)
        if any(taker == -2 for _, _, taker in s.discard_log) and s.stock
    ]  # fmt: skip
    assert refilled, "seed 2 no longer turns the pile into the stock"
    rng = random.Random(0)
    for state in refilled[:: max(1, len(refilled) // 5)]:
        deal = SeatView(state, state.current).sample_deal(rng)
        assert deal.stock == state.stock
        assert where(deal) == Counter(range(DECK.size))


def test_redeal_refuses_other_cards_or_sizes():
    state = GAME.new_game(DummyConfig(num_players=2, hands=1), 0)
    hands = [list(h) for h in state.hands]
    with pytest.raises(ValueError, match="cards"):
        state.redeal([hands[0], hands[1][:-1] + [state.discard[0]]], state.stock, 0)
    with pytest.raises(ValueError, match="size"):
        state.redeal([hands[0] + [state.stock[0]], hands[1]], state.stock[1:], 0)


def permute_hidden(state: GameState, me: int, rng: random.Random) -> GameState:
    """A copy in which the cards ``me`` cannot see and whose place is not public (other
    hands but their known cards, the stock) are shuffled among those places."""
    twin = state.clone()
    known = SeatView(state, me).known_cards()
    slots = [
        (s, i) for s in range(twin.n) if s != me
        for i, c in enumerate(twin.hands[s]) if c not in known[s]
    ]  # fmt: skip
    hidden = [twin.hands[s][i] for s, i in slots] + twin.stock
    rng.shuffle(hidden)
    for (s, i), card in zip(slots, hidden, strict=False):
        twin.hands[s][i] = card
    twin.stock = hidden[len(slots) :]
    return twin


def test_search_decision_ignores_hidden_cards():
    agent = make_agent("search:blueprint=baseline;rollouts=4;threshold=0", "dummy_rummy")
    config = DummyConfig(num_players=3, hands=1, cut_ins=True)
    rng = random.Random(5)
    decided = 0
    for i, state in enumerate(states(config, 4, every=4)):
        if len(state.legal_actions()) < 2 or any(t == -2 for _, _, t in state.discard_log):
            continue
        me = state.current
        twin = permute_hidden(state, me, rng)
        assert twin.hands != state.hands or twin.stock != state.stock
        agent.reset(i)
        move = agent.act(SeatView(state, me))
        agent.reset(i)
        assert agent.act(SeatView(twin, me)) == move, f"decision {i} read hidden cards"
        decided += 1
    assert decided > 5


def play(team: tuple[str, ...], config: DummyConfig, seed: int) -> list[tuple[int, int]]:
    """A whole game of these members (every move checked legal by the engine)."""
    agents = [make_agent(spec, "dummy_rummy") for spec in team]
    state = GAME.new_game(config, seed)
    for s, agent in enumerate(agents):
        agent.reset(seed * len(agents) + s)
    while not state.is_terminal and len(state.history) < GAME.max_moves:
        view = GAME.seat_view(state, state.current)
        state.apply(agents[state.current].act(view))
    assert state.is_terminal
    return state.history


def test_search_plays_legal_moves_and_is_the_blueprint_without_rollouts():
    config = DummyConfig(num_players=2, hands=1)
    for seed in (1, 2):
        play(("search:blueprint=baseline;rollouts=2;threshold=0", "baseline"), config, seed)
        assert play(("search:blueprint=baseline;rollouts=0", "baseline"), config, seed) == play(
            ("baseline", "baseline"), config, seed
        )


def test_search_on_a_trained_blueprint_plays_legal_moves():
    play(
        ("search:blueprint=checkpoints/dummy_rummy_2p/best.pt;rollouts=2;moves=2", "baseline"),
        DummyConfig(num_players=2, hands=1),
        3,
    )


def test_a_rollout_is_won_by_going_out_and_open_rummy_is_not_searched():
    state = GAME.new_game(DummyConfig(num_players=2, hands=1), 0)
    assert seat_won(GAME, state, 0) == 0.0  # not over
    agent = make_agent("baseline", "dummy_rummy")
    while not state.is_terminal:
        state.apply(agent.act(GAME.seat_view(state, state.current)))
    out = [s for s in (0, 1) if state.hand_points[0][s] == 0]  # the one who went out
    assert len(out) == 1
    assert [seat_won(GAME, state, s) for s in (0, 1)] == [float(s in out) for s in (0, 1)]
    assert can_search(GAME) and not can_search(get_game("open_rummy"))
    with pytest.raises(ValueError, match="cannot play Open Rummy"):
        make_agent("search:blueprint=baseline", "open_rummy")
