"""Search in the competitive games (Dummy rummy, Open Rummy): the seat view's sampled deals
fit what the seat sees and only that, the cards whose place is public stay there, and the
search agent plays legal moves, is the blueprint with no rollouts and ignores the hidden
cards."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from competitive import random_play

from commoncause.agents.registry import make_agent, parse_team
from commoncause.agents.search import SearchOptions, can_search, rollout_player, seat_won
from commoncause.agents.trained import trained_spec
from commoncause.envs.dummy_rummy.actions import SET_MELD_BASE as DUMMY_PLACING
from commoncause.envs.dummy_rummy.rules import DummyConfig
from commoncause.envs.open_rummy.actions import SET_STEP_BASE as OPEN_PLACING
from commoncause.envs.open_rummy.rules import OpenConfig
from commoncause.envs.registry import get_game

PLACING = {"dummy_rummy": DUMMY_PLACING, "open_rummy": OPEN_PLACING}
CONFIGS = [
    ("dummy_rummy", DummyConfig(num_players=2, hands=1)),
    ("dummy_rummy", DummyConfig(num_players=4, hands=1, cut_ins=True)),
    ("open_rummy", OpenConfig(num_players=2, rounds=1)),
    ("open_rummy", OpenConfig(num_players=5, rounds=1)),
]


def states(name: str, config: Any, seed: int, every: int, eager: float = 0.5) -> list[Any]:
    """Copies of every ``every``-th state of a random game (the play reuses one state)."""
    out = []
    for i, (state, action) in enumerate(
        random_play(name, config, seed, eager, PLACING[name], 3000)
    ):
        if action is not None and i % every == 0:
            out.append(state.clone())
    return out


def where(state: Any) -> Counter:
    """How many places each physical card is in (hands, stock, pile, table)."""
    places = [c for h in state.hands for c in h] + state.stock + state.discard
    places += [c for m in state.melds for c in m.physical()]
    return Counter(places)


def view(name: str, state: Any, seat: int) -> Any:
    return get_game(name).seat_view(state, seat)


@pytest.mark.parametrize("name,config", CONFIGS)
def test_sampled_deals_fit_the_view_and_forget_the_true_deal(name, config):
    rng = random.Random(3)
    known_seen = 0
    for seed in range(3):
        for state in states(name, config, seed, every=5):
            me = state.current
            seat = view(name, state, me)
            known = seat.known_cards()
            known_seen += sum(map(len, known.values()))
            for _, deal in zip(range(2), seat.sample_deals(rng), strict=False):
                assert deal.deck == []
                assert where(deal) == Counter(range(len(state.deck)))  # every card once
                assert deal.hands[me] == state.hands[me]
                assert [len(h) for h in deal.hands] == [len(h) for h in state.hands]
                assert len(deal.stock) == len(state.stock)
                for other, cards in known.items():
                    assert set(cards) <= set(deal.hands[other])
                assert deal.legal_actions() == state.legal_actions()
    assert known_seen > 0


@pytest.mark.parametrize("name,config", CONFIGS[1:2] + CONFIGS[3:])
def test_known_cards_are_really_in_those_hands(name, config):
    """Top discards taken (a cut-in's, a card swap's) and not played since: they are where
    the view says."""
    checked = 0
    for seed in range(6):
        for state in states(name, config, seed, every=3, eager=0.2):
            for me in range(state.num_seats):
                for seat, cards in view(name, state, me).known_cards().items():
                    assert set(cards) <= set(state.hands[seat]), (seed, me, seat)
                    checked += len(cards)
    assert checked > 0


def test_a_stock_turned_from_the_pile_is_public_and_kept():
    """Random 4-player Dummy rummy with cut-ins (seed 2) turns the pile into the stock
    (reading 7): from then on the stock's order is public and every sampled deal keeps it."""
    name, config = CONFIGS[1]
    refilled = [
        s for s in states(name, config, 2, every=1, eager=0.0)
        if any(taker == -2 for _, _, taker in s.discard_log) and s.stock
    ]  # fmt: skip
    assert refilled, "seed 2 no longer turns the pile into the stock"
    rng = random.Random(0)
    for state in refilled[:: max(1, len(refilled) // 5)]:
        deal = next(view(name, state, state.current).sample_deals(rng))
        assert deal.stock == state.stock
        assert where(deal) == Counter(range(len(state.deck)))


def permute_hidden(name: str, state: Any, me: int, rng: random.Random) -> Any:
    """A copy in which the cards ``me`` cannot see and whose place is not public (other
    hands but their known cards, the stock) are shuffled among those places."""
    twin = state.clone()
    known = view(name, state, me).known_cards()
    slots = [
        (s, i) for s in range(twin.num_seats) if s != me
        for i, c in enumerate(twin.hands[s]) if c not in known[s]
    ]  # fmt: skip
    hidden = [twin.hands[s][i] for s, i in slots] + twin.stock
    rng.shuffle(hidden)
    for (s, i), card in zip(slots, hidden, strict=False):
        twin.hands[s][i] = card
    twin.stock = hidden[len(slots) :]
    return twin


@pytest.mark.parametrize(
    "name,config,belief",
    [(*CONFIGS[1], ""), (*CONFIGS[1], ";others=baseline;belief=others"), (*CONFIGS[3], "")],
)
def test_search_decision_ignores_hidden_cards(name, config, belief):
    agent = make_agent(f"search:blueprint=baseline;rollouts=3;threshold=0{belief}", name)
    rng = random.Random(5)
    decided = barred = 0
    for i, state in enumerate(states(name, config, 4, every=6)):
        if len(state.legal_actions()) < 2 or any(t == -2 for _, _, t in state.discard_log):
            continue
        me = state.current
        twin = permute_hidden(name, state, me, rng)
        assert twin.hands != state.hands or twin.stock != state.stock
        agent.reset(i)
        move = agent.act(view(name, state, me))
        agent.reset(i)
        assert agent.act(view(name, twin, me)) == move, f"decision {i} read hidden cards"
        decided += 1
        if agent.belief:  # (the belief bars cards at some of these decisions)
            others = [s for s in range(state.num_seats) if s != me]
            barred += any(agent.belief(view(name, state, me), s) for s in others)
    assert decided > 3
    assert barred > 3 or not belief


def play(name: str, team: tuple[str, ...], config: Any, seed: int) -> list[tuple[int, int]]:
    """A whole game of these members (every move checked legal by the engine)."""
    game = get_game(name)
    agents = [make_agent(spec, name) for spec in team]
    state = game.new_game(config, seed)
    for s, agent in enumerate(agents):
        agent.reset(seed * len(agents) + s)
    while not state.is_terminal and len(state.history) < game.max_moves:
        state.apply(agents[state.current].act(game.seat_view(state, state.current)))
    assert state.is_terminal
    return state.history


@pytest.mark.parametrize("name,config", [CONFIGS[0], CONFIGS[2]])
def test_search_plays_legal_moves_and_is_the_blueprint_without_rollouts(name, config):
    for seed in (1, 2):
        play(name, ("search:blueprint=baseline;rollouts=2;threshold=0", "baseline"), config, seed)
        blueprint = play(name, ("search:blueprint=baseline;rollouts=0", "baseline"), config, seed)
        assert blueprint == play(name, ("baseline", "baseline"), config, seed)


@pytest.mark.parametrize(
    "name,config,counter",
    [("dummy_rummy", DummyConfig(num_players=2, hands=2), "hand_no"),
     ("open_rummy", OpenConfig(num_players=2, rounds=2), "round_no")],
)  # fmt: skip
def test_a_sampled_deal_plays_on_into_the_next_hand(name, config, counter):
    """A rollout of a game of several hands deals the next one in the sampled copy (whose
    first deck is cleared) from all the cards, as the game itself does."""
    game = get_game(name)
    state = [s for s in states(name, config, 1, every=1) if getattr(s, counter) == 0][-1]
    deal = next(view(name, state, state.current).sample_deals(random.Random(0)))
    agent = make_agent("baseline", name)
    while getattr(deal, counter) == 0:
        assert not deal.is_terminal
        deal.apply(agent.act(game.seat_view(deal, deal.current)))
    assert where(deal) == Counter(range(len(state.deck)))  # the next deal: every card once


def test_search_on_a_trained_blueprint_plays_legal_moves():
    team = ("search:blueprint=checkpoints/dummy_rummy_2p/best.pt;rollouts=2;moves=2", "baseline")
    play("dummy_rummy", team, CONFIGS[0][1], 3)


def test_a_rollout_is_won_by_going_out():
    game = get_game("dummy_rummy")
    state = game.new_game(CONFIGS[0][1], 0)
    assert seat_won(game, state, 0) == 0.0  # not over
    agent = make_agent("baseline", "dummy_rummy")
    while not state.is_terminal:
        state.apply(agent.act(game.seat_view(state, state.current)))
    out = [s for s in (0, 1) if state.hand_points[0][s] == 0]  # the one who went out
    assert len(out) == 1
    assert [seat_won(game, state, s) for s in (0, 1)] == [float(s in out) for s in (0, 1)]


def test_every_game_can_be_searched():
    assert all(can_search(get_game(name)) for name in ("common_cause", *PLACING))


def test_a_search_member_takes_the_configs_trained_policy():
    """``search`` (blueprint ``trained``) follows the config's shipped policy: Dummy rummy's
    one hand of contract 1 heads-up its 2-player checkpoint, at four players its 4-player
    one; whole games at four players the default's, the member as written (as in Common
    Cause's default config); none at three players (an error naming them)."""
    team = parse_team("search,baseline", 2, "dummy_rummy", CONFIGS[0][1])
    assert "blueprint=" in team[0] and team[0].endswith("moves=4;seconds=0.0;batch=8")
    assert "checkpoints/dummy_rummy_2p/best.pt" in team[0] and team[1] == "baseline"
    team = parse_team("search,baseline,baseline,baseline", 4, "dummy_rummy", CONFIGS[1][1])
    assert "checkpoints/dummy_rummy_4p/best.pt" in team[0]
    team = parse_team("search,baseline,baseline,baseline", 4, "dummy_rummy", DummyConfig())
    assert team[0] == "search"
    with pytest.raises(ValueError, match="3 players"):
        parse_team("search,baseline,baseline", 3, "dummy_rummy", DummyConfig(num_players=3))
    common = get_game("common_cause")
    assert parse_team("search", 2, "common_cause", common.make_config()) == ("search", "search")


class Spy:
    """A baseline that records the seats it moved for."""

    def __init__(self, name: str) -> None:
        self.agent = make_agent("baseline", name)
        self.seats: set[int] = set()

    def act(self, view: Any) -> int:
        self.seats.add(view.player)
        return self.agent.act(view)


@pytest.mark.parametrize("mine", ["baseline", "checkpoints/dummy_rummy_2p/best.pt"])
def test_others_play_every_seat_but_the_searching_one(mine):
    """``others``: the rollouts' other seats are played by that member, the searching seat
    by the rollout player; each game ends as if played move by move by those two."""
    game = get_game("dummy_rummy")
    config = CONFIGS[0][1]
    me = make_agent(mine, "dummy_rummy")
    spy = Spy("dummy_rummy")
    rollouts = rollout_player(me, game)
    rollouts.others = spy
    starts = [game.new_game(config, seed) for seed in (5, 6, 7)]
    won = rollouts.finish([s.clone() for s in starts], 1)
    assert spy.seats == {0}
    for state, result in zip(starts, won, strict=True):
        agents = (make_agent("baseline", "dummy_rummy"), me)
        while not state.is_terminal:
            state.apply(agents[state.current].act(game.seat_view(state, state.current)))
        assert result == seat_won(game, state, 1)


def test_others_option_names_a_member_and_takes_the_configs_trained_policy():
    options = SearchOptions.parse("others=baseline;blueprint=baseline")
    rollouts = make_agent(f"search:{options.text()}", "dummy_rummy").rollouts
    assert rollouts.others is not rollouts.agent
    assert SearchOptions.parse(options.text()) == options
    for bad in ("others=random", "others=search", "others="):
        with pytest.raises(ValueError, match="others"):
            SearchOptions.parse(bad)
    team = parse_team("search:others=trained,baseline", 2, "dummy_rummy", CONFIGS[0][1])
    others = SearchOptions.parse(team[0].partition(":")[2]).others
    assert others == trained_spec("dummy_rummy", CONFIGS[0][1]) != "trained"


@pytest.mark.parametrize("mine", ["baseline", "checkpoints/dummy_rummy_2p/best.pt"])
def test_horizon_cuts_a_rollout_and_counts_it_not_won(mine):
    """``horizon``: a rollout plays at most that many moves (every seat's) and one cut
    short is not won; a horizon the games fit in changes nothing."""
    game = get_game("dummy_rummy")
    me = make_agent(mine, "dummy_rummy")
    starts = [game.new_game(CONFIGS[0][1], seed) for seed in (5, 6, 7)]

    def finish(horizon: int) -> tuple[list[float], list[int]]:
        played = [s.clone() for s in starts]
        baseline = make_agent("baseline", "dummy_rummy")
        finished = rollout_player(me, game, baseline, horizon).finish(played, 1)
        return finished, [len(s.history) for s in played]

    won, lengths = finish(0)
    assert all(length < game.max_moves for length in lengths)  # every game ended
    assert finish(min(lengths) - 1) == ([0.0] * 3, [min(lengths) - 1] * 3)
    assert finish(max(lengths)) == (won, lengths)
    middle = sorted(lengths)[1]  # the shortest game ends, the longest is cut
    cut = [w if n <= middle else 0.0 for w, n in zip(won, lengths, strict=True)]
    assert finish(middle) == (cut, [min(n, middle) for n in lengths])
    assert "horizon" not in SearchOptions().text()  # the labels of older journals
    options = SearchOptions(horizon=500)
    assert "horizon=500" in options.text() and SearchOptions.parse(options.text()) == options
    with pytest.raises(ValueError, match="horizon must be 0 or more"):
        SearchOptions(horizon=-1)
