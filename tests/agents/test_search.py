"""The search agent (agents/search.py): legal moves, the blueprint at zero rollouts, only the
seat view reaches it, reproducible decisions, and the cheating ceiling out of reach."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from commoncause.agents.arena import deal_seed, play_game
from commoncause.agents.registry import AGENT_NAMES, make_agent
from commoncause.agents.search import (
    SearchAgent,
    SearchOptions,
    SearchStats,
    choose,
    rollout_player,
    search_moves,
)
from commoncause.cli import main
from commoncause.envs.common_cause.baseline import BaselineAgent
from commoncause.envs.common_cause.cards import JOKER
from commoncause.envs.common_cause.game import GAME
from commoncause.envs.common_cause.rules import GameConfig, GameState
from commoncause.envs.common_cause.seat import SeatView
from commoncause.envs.common_cause.study.ceiling import ceiling_game
from tests.games.common_cause.test_properties import permute_hidden

FAST = "rollouts=6;blueprint=baseline;threshold=0"


def decision_states(seed: int, every: int = 1) -> list[GameState]:
    """Copies of the states of a baseline game at which the player has several moves."""
    state = GameState.new_game(GameConfig(), seed)
    agent = BaselineAgent()
    views = [SeatView(state, 0), SeatView(state, 1)]
    out = []
    while not state.is_terminal:
        if len(state.legal_actions()) > 1:
            out.append(state.clone())
        state.apply(agent.act(views[state.current]))
    return out[::every]


def search(options: str = FAST) -> SearchAgent:
    return make_agent(f"search:{options}")


@pytest.mark.parametrize(
    "team",
    [
        (FAST, "rollouts=3;blueprint=trained;threshold=0"),
        ("rollouts=3;threshold=0;rollout=baseline", "rollouts=3;threshold=0;moves=0"),
    ],
)
def test_plays_only_legal_moves_in_both_seats(team):
    agents = tuple(search(options) for options in team)
    for seed in (3, 4):
        outcome = play_game(GameConfig(), agents, seed)  # apply() refuses an illegal move
        assert outcome.turns > 0
    for agent in agents:
        assert agent.stats.searched == agent.stats.decisions > 0


@pytest.mark.parametrize("blueprint", ["baseline", "trained"])
def test_zero_rollouts_is_the_blueprint(blueprint):
    agent = search(f"rollouts=0;blueprint={blueprint}")
    plain = make_agent(blueprint)
    for state in decision_states(5, every=2):
        view = SeatView(state, state.current)
        assert agent.act(view) == plain.act(view)
    assert agent.stats.rollouts == 0


def test_search_leaves_the_blueprint():
    """The search is not the blueprint in disguise: with threshold 0 it changes moves."""
    agent = search("rollouts=8;blueprint=baseline;threshold=0")
    plain = BaselineAgent()
    changed = 0
    for state in decision_states(6):
        view = SeatView(state, state.current)
        changed += agent.act(view) != plain.act(view)
    assert changed > 0
    assert agent.stats.deviations == changed


def test_moves_keeps_the_blueprints_likeliest_moves():
    plain = make_agent("trained")
    pruned = 0
    for state in decision_states(5, every=2):
        view = SeatView(state, state.current)
        legal = view.legal_actions()
        candidates = search_moves(plain, view, legal, 3)
        probs = plain.probabilities(view)
        assert plain.act(view) in candidates and set(candidates) <= set(legal)
        assert len(candidates) == min(3, len(legal))
        left_out = set(legal) - set(candidates)
        assert all(probs[a] <= min(probs[c] for c in candidates) for a in left_out)
        pruned += bool(left_out)
    assert pruned > 0


def test_threshold_one_never_deviates():
    agent = search("rollouts=4;blueprint=baseline;threshold=1")
    plain = BaselineAgent()
    for state in decision_states(6, every=2):
        view = SeatView(state, state.current)
        assert agent.act(view) == plain.act(view)
    assert agent.stats.searched > 0 and agent.stats.deviations == 0


@pytest.mark.parametrize("options", [FAST, "rollouts=2;blueprint=trained;threshold=0"])
def test_decision_ignores_hidden_cards(options):
    """The env's permutation test: the partner's hand, the stock and the put-aside cards
    permuted (the partner's hand keeping its size), the decision for a fixed seed is the
    same."""
    agent = search(options)
    rng = random.Random(0)
    changed = 0
    for i, state in enumerate(decision_states(7, every=3)):
        p = state.current
        clone, hand_changed = permute_hidden(state, p, rng)
        changed += hand_changed
        agent.reset(i)
        move = agent.act(SeatView(state, p))
        agent.reset(i)
        assert agent.act(SeatView(clone, p)) == move, f"decision {i} read hidden cards"
    assert changed > 0


def test_the_permutation_test_catches_a_search_that_peeks():
    """Control: the same search on the true deal (what the ceiling does) changes its
    decisions when the hidden cards are permuted, so the test above can fail."""
    options = SearchOptions.parse("rollouts=1;blueprint=baseline;threshold=0")
    blueprint = BaselineAgent()
    rollouts = rollout_player(blueprint, GAME)
    rng = random.Random(0)
    differ = 0
    for state in decision_states(7):
        p = state.current
        clone, _ = permute_hidden(state, p, rng)
        moves = []
        for s in (state, clone):
            view = SeatView(s, p)
            legal = view.legal_actions()
            stats = SearchStats()
            move = blueprint.act(view)
            moves.append(choose(legal, move, [s.clone()], rollouts, options, stats, p))
        differ += moves[0] != moves[1]
    assert differ > 0


def test_time_budget_stops_after_one_batch():
    agent = search("rollouts=40;blueprint=baseline;seconds=0.000001;batch=2")
    state = decision_states(8)[3]
    view = SeatView(state, state.current)
    agent.act(view)
    assert agent.stats.rollouts == 2 * len(view.legal_actions())


def test_same_seed_same_decision():
    states = decision_states(8, every=4)
    runs = []
    for _ in range(2):
        agent = search("rollouts=4;blueprint=baseline;threshold=0")
        moves = []
        for i, state in enumerate(states):
            agent.reset(100 + i)
            moves.append(agent.act(SeatView(state, state.current)))
        runs.append(moves)
    assert runs[0] == runs[1]


def test_sampled_deals_fit_the_view_and_forget_the_true_deal():
    rng = random.Random(1)
    for state in decision_states(9, every=3):
        p = state.current
        view = SeatView(state, p)
        known, rest = view.hidden_cards()
        for _, deal in zip(range(3), view.sample_deals(rng), strict=False):
            assert deal.deck == []
            where = deal.locations()  # every card once
            assert len(where) == 54
            assert deal.hands[p] == state.hands[p]
            assert len(deal.hands[1 - p]) == len(state.hands[1 - p])
            assert len(deal.stock) == len(state.stock) and len(deal.aside) == len(state.aside)
            assert set(known) <= set(deal.hands[1 - p])
            assert deal.legal_actions() == state.legal_actions()
            assert sorted(deal.hands[1 - p] + deal.stock + deal.aside) == sorted(known + rest)
        assert sorted(known + rest) == sorted(state.hands[1 - p] + state.stock + state.aside)


def test_redeal_refuses_cards_the_seat_can_see_or_repeats():
    state = decision_states(9, every=3)[0]
    view = SeatView(state, state.current)
    unseen = state.hands[1 - view.player] + state.stock + state.aside
    assert sorted(view.redeal(unseen[::-1]).locations()) == list(range(54))
    own = state.hands[view.player][0]
    for bad in ([0] * len(unseen), [own, *unseen[1:]], unseen[:-1], [*unseen, own]):
        with pytest.raises(ValueError, match="cards seat .* cannot see, each once"):
            view.redeal(bad)


def test_with_open_hands_the_partner_hand_is_kept():
    """The open-hands variant shows the partner's hand: sampled deals keep it whole."""
    state = GameState.new_game(GameConfig.make(open_hands=True), 4)
    agent = BaselineAgent()
    views = [SeatView(state, 0), SeatView(state, 1)]
    rng = random.Random(0)
    for _ in range(12):
        p = state.current
        deal = next(views[p].sample_deals(rng))
        assert sorted(deal.hands[1 - p]) == sorted(state.hands[1 - p])
        state.apply(agent.act(views[p]))


def test_known_partner_cards_are_in_the_partner_hand():
    """Cards whose place is public (a joker swapped off the table, say) are really there."""
    seen_known = 0
    for seed in range(30):
        state = GameState.new_game(GameConfig(), seed)
        agent = BaselineAgent()
        views = [SeatView(state, 0), SeatView(state, 1)]
        while not state.is_terminal:
            for p in (0, 1):
                known = Counter(views[p].partner_known_cards())
                hand = Counter(min(c, JOKER) for c in state.hands[1 - p])
                assert not known - hand, f"seed {seed}: {known} not all in {hand}"
                seen_known += bool(known)
            state.apply(agent.act(views[state.current]))
    assert seen_known > 0


def test_ceiling_is_no_team_member():
    for spec in ("ceiling", "search:ceiling=1", "search:cheat=1", "search:blueprint=search"):
        with pytest.raises(ValueError):
            make_agent(spec)
    assert not any("ceiling" in name for name in AGENT_NAMES)


def test_ceiling_wins_with_the_true_deal():
    """The ceiling plays the same search on the true deal: at least as often a win as the
    blueprint team on the same deals (a handful of deals)."""
    options = SearchOptions.parse("rollouts=1;blueprint=baseline;threshold=0")
    seeds = range(20, 32)
    ceiling = sum(ceiling_game(GameConfig(), ("baseline",) * 2, s, options) for s in seeds)
    plain = sum(play_game(GameConfig(), (BaselineAgent(), BaselineAgent()), s).win for s in seeds)
    assert ceiling >= plain and ceiling >= 9


@pytest.mark.parametrize(
    "text",
    [
        "rollouts=-1",
        "threshold=2",
        "bogus=1",
        "rollouts=many",
        "blueprint=random",
        "rollout=search",
        "rollouts",
    ],
)
def test_bad_options_are_one_line_errors(text):
    with pytest.raises(ValueError) as error:
        SearchOptions.parse(text)
    assert "\n" not in str(error.value)


def test_options_round_trip():
    options = SearchOptions.parse("rollouts=16;blueprint=baseline;threshold=0.1;seconds=0.5")
    assert SearchOptions.parse(options.text()) == options
    assert make_agent(f"search:{options.text()}").options == options


def test_browser_offers_search_and_never_the_ceiling(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from commoncause.web import app as web

    values = [c["value"] for c in web.partner_choices("common_cause")]
    assert "search" in values
    assert not any("ceiling" in v or "cheat" in v for v in values)
    assert "search" not in [c["value"] for c in web.partner_choices("dummy_rummy")]
    client = TestClient(web.create_app(tmp_path))
    for bad in ("search:rollouts=1000", "search:blueprint=baseline", "ceiling"):
        r = client.post("/api/games", json={"partner": bad, "seed": 3})
        assert r.status_code == 400, r.text
    r = client.post("/api/games", json={"partner": "search", "seat": 1, "seed": 3})
    assert r.status_code == 201, r.text  # the search partner begins and plays its turn
    view = client.get(
        f"/api/games/{r.json()['id']}", headers={"Authorization": f"Bearer {r.json()['token']}"}
    ).json()
    assert view["current"] == 1 and view["discards"]


def test_analysis_reports_the_ceiling_beside_w(tmp_path):
    out = tmp_path / "report"
    args = ["analyze", "--team", "baseline,baseline", "--games", "6", "--workers", "1"]
    assert main([*args, "--seed", "1", "--ceiling-games", "4", "--out", str(out)]) == 0
    figures = json.loads((out / "figures.json").read_text())
    ceiling = figures["win_rates"]["ceiling"]
    assert ceiling["n"] == 4 and figures["meta"]["ceiling_games"] == 4
    options = SearchOptions(blueprint="baseline")
    blueprints = ("baseline", "baseline")
    direct = [ceiling_game(GameConfig(), blueprints, deal_seed(1, i), options) for i in range(4)]
    assert ceiling["wins_by_game"] == "".join("1" if w else "0" for w in direct)
    report = (out / "report.md").read_text()
    assert "W_ceiling" in report and "--ceiling-games 4" in report
    assert "vs W on those deals" in report
