"""The one arena (agents/arena.py), the one registry (agents/registry.py) and the one report
(agents/evaluate.py): rotations seat the members round the table, a team game is one
rotation, a refused move is one line in every game, the report is keyed by seat, and the
agents package imports without a cycle."""

from __future__ import annotations

import subprocess
import sys

import pytest

from commoncause import ROOT
from commoncause.agents.arena import deal_seed, play_game
from commoncause.agents.evaluate import evaluate
from commoncause.agents.registry import make_agent
from commoncause.envs.registry import get_game

AGENTS = ROOT / "agents"
MODULES = sorted(p.stem for p in AGENTS.glob("*.py") if p.stem != "__init__")


def import_graph() -> dict[str, set[str]]:
    """Module of agents/ -> the modules of agents/ it imports, anywhere in it (a function's
    import closes a cycle as surely as the module's; a type checker's import counts too),
    as docs/hooks/imports.py reads the code."""
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    from imports import module_graph

    prefix = "commoncause.agents."
    return {
        name.removeprefix(prefix): {t.removeprefix(prefix) for t in targets if t.startswith(prefix)}
        for name, targets in module_graph(typing_only=True).items()
        if name.startswith(prefix)
    }


def test_the_agents_package_has_no_import_cycle():
    graph = import_graph()
    assert "base" in graph["search"]  # (the graph is read)
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        if module in path:
            cycle = " -> ".join((*path[path.index(module):], module))
            raise AssertionError(f"import cycle in agents/: {cycle}")
        if module in done:
            return
        for other in sorted(graph[module]):
            visit(other, (*path, module))
        done.add(module)

    for module in MODULES:
        visit(module, ())


@pytest.mark.parametrize("module", MODULES)
def test_each_agents_module_imports_alone(module):
    """In a fresh interpreter, first of all (an import order no other test can hide)."""
    run = subprocess.run([sys.executable, "-c", f"import commoncause.agents.{module}"],
                         capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert run.returncode == 0, run.stderr


def test_rotation_seats_member_k_at_k_plus_r():
    game = get_game("dummy_rummy")
    config = game.make_config(num_players=3, hands=1)

    class Seated:
        def __init__(self) -> None:
            self.name, self.seats, self.inner = "seated", set(), make_agent("baseline", game.name)

        def reset(self, seed: int) -> None:
            self.inner.reset(seed)

        def act(self, view) -> int:
            self.seats.add(view.player)
            return self.inner.act(view)

    for rotation in range(3):
        agents = (Seated(), Seated(), Seated())
        outcome = play_game(config, agents, deal_seed(2, 0), game.name, rotation=rotation)
        assert [a.seats for a in agents] == [{(k + rotation) % 3} for k in range(3)]
        assert len(outcome.returns) == len(outcome.seat_stats) == 3
        assert outcome.seat_stats[0]["hands"] == 1 and not outcome.truncated


def test_a_refused_move_is_one_line_in_a_competitive_evaluation_too():
    class Wrong:
        name = "wrong"

        def reset(self, seed: int) -> None:
            pass

        def act(self, view) -> int:
            return -1

    game = get_game("open_rummy")
    config = game.make_config(num_players=2)
    with pytest.raises(ValueError, match=r"^wrong in seat \d chose -1; Open Rummy refused it"):
        play_game(config, (Wrong(), make_agent("baseline", game.name)), 3, game.name, rotation=1)


def test_one_report_keyed_by_seat_for_either_kind_of_game():
    """A team game is one rotation: its members are its seats, with the team's win rate;
    a competitive game rotates every member through every seat."""
    team = evaluate(("baseline", "random"), get_game("common_cause").make_config(), 12, seed=3)
    assert team.games == team.deals == 12 and [m["member"] for m in team.members] == [
        "baseline", "random"
    ]
    for m in team.members:
        assert m["win_rate"] == team.win_rate == team.wins / 12
        assert m["mean_turns"] == team.mean_turns
    assert team.mean_returns == [m["return"]["mean"] for m in team.members]
    assert set(team.to_json()) >= {"wins", "win_rate", "ci95", "mean_turns", "wins_by_game"}
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    table = evaluate(("baseline", "random"), config, 3, seed=3, game="dummy_rummy")
    assert table.games == 2 * table.deals == 6
    assert {r.seat for deal in table.by_deal for r in deal if r.member == 1} == {0, 1}
    assert set(table.to_json()) >= {"members", "vs_field", "truncated", "vs_field_per_hand"}


def test_a_relative_checkpoint_path_is_found_in_the_project_from_any_folder(tmp_path,
                                                                            monkeypatch):
    """A shipped checkpoint named relative to the project (as the benchmark's zoo names its
    trained partners) loads from another working folder, as in an installed copy."""
    monkeypatch.chdir(tmp_path)
    agent = make_agent("checkpoints/normal_seed11/best.pt")
    assert agent.path == ROOT / "checkpoints" / "normal_seed11" / "best.pt"
    with pytest.raises(ValueError, match="not found"):
        make_agent("checkpoints/no_such_run/best.pt")


def test_a_member_the_game_record_names_is_its_shipped_policy(monkeypatch):
    """``Game.members``: a name for a shipped policy beside ``trained``; unknown elsewhere."""
    from dataclasses import replace

    import commoncause.agents.registry as registry

    game = get_game("common_cause")
    named = replace(game, members={"seed11": "checkpoints/normal_seed11/best.pt"})
    monkeypatch.setattr(registry, "get_game", lambda name: named)
    assert make_agent("seed11").path == ROOT / "checkpoints" / "normal_seed11" / "best.pt"
    monkeypatch.setattr(registry, "get_game", lambda name: game)
    with pytest.raises(ValueError, match="unknown team member 'seed11'"):
        make_agent("seed11")


def _games(game: str, config, teams: list[tuple[str, ...]], deals: int, rotations: int):
    """Every (team, deal, rotation) as a game: fresh agents, its seed and its rotation."""
    cases = [(t, deal_seed(3, d), r) for t in teams for d in range(deals) for r in range(rotations)]
    agents = [tuple(make_agent(m, game) for m in team) for team, _, _ in cases]
    return cases, agents


@pytest.mark.parametrize(
    ("game", "options", "teams", "rotations"),
    [("common_cause", {}, [("trained", "trained"), ("trained", "random"),
                           ("checkpoints/adhoc/best.pt", "baseline:discard=random")], 1),
     ("dummy_rummy", {"num_players": 3, "hands": 1},
      [("trained", "baseline", "random")], 3)],
)  # fmt: skip
def test_side_by_side_games_end_as_one_by_one(game, options, teams, rotations):
    """``play_side_by_side`` (a policy's decisions in batches) plays every game as
    ``play_game`` does: random agents, baselines with their own draws, rotations."""
    from commoncause.agents.arena import play_side_by_side

    config = get_game(game).make_config(**options)
    cases, agents = _games(game, config, teams, 6, rotations)
    together = play_side_by_side(config, agents, [s for _, s, _ in cases], game,
                                 [r for _, _, r in cases])  # fmt: skip
    _, fresh = _games(game, config, teams, 6, rotations)
    alone = [play_game(config, a, s, game, rotation=r)
             for a, (_, s, r) in zip(fresh, cases, strict=True)]  # fmt: skip
    assert together == alone
    assert len({o.returns for o in alone}) > 1  # (the games differ)


def test_a_policy_acts_in_a_batch_as_alone():
    """``PolicyAgent.act_batch`` is each agent's ``act``, views with one legal move too;
    a sampling agent has no batch key (it acts alone)."""
    import random

    from commoncause.agents.trained import PolicyAgent

    game = get_game("common_cause")
    rng = random.Random(4)
    views = []
    for n in range(40):
        state = game.new_game(game.make_config(), n)
        for _ in range(rng.randrange(60)):
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal:
            views.append(game.seat_view(state, state.current))
    assert any(len(v.legal_actions()) == 1 for v in views)
    agents = [make_agent("trained") for _ in views]
    alone = [agent.act(view) for agent, view in zip(agents, views, strict=True)]
    assert PolicyAgent.act_batch(agents, views) == alone
    assert agents[0].batch_key == agents[1].batch_key
    assert PolicyAgent("checkpoints/normal/best.pt", deterministic=False).batch_key is None


@pytest.mark.parametrize(
    ("game", "options", "team", "rotations"),
    [("common_cause", {}, ("trained", "baseline"), 1),
     ("dummy_rummy", {"num_players": 2, "hands": 1}, ("trained", "baseline"), 2)],
)  # fmt: skip
def test_a_pool_task_plays_a_policy_side_by_side_with_the_same_rows(
    game, options, team, rotations, monkeypatch
):
    """``play_deals`` plays a policy's games side by side, several decisions a pass, with
    the rows one by one play gives; a team with a member that is not cheap to make per
    game (a search) plays one by one."""
    import commoncause.agents.evaluate as evaluation
    from commoncause.agents.trained import PolicyAgent

    config = get_game(game).make_config(**options)
    agents = evaluation.team_agents(game, team)
    assert evaluation.side_by_side(agents, team)
    search = ("search:rollouts=1", "baseline")
    assert not evaluation.side_by_side(evaluation.team_agents(game, search), search)
    sizes = []
    batch = PolicyAgent.act_batch

    def counted(agents, views):
        sizes.append(len(views))
        return batch(agents, views)

    monkeypatch.setattr(PolicyAgent, "act_batch", staticmethod(counted))
    together = evaluation.play_deals(agents, game, config, 2, 0, 10, rotations, team)
    assert max(sizes) > 1  # (several games' decisions in one pass)
    monkeypatch.setattr(evaluation, "side_by_side", lambda agents, team: False)
    alone = evaluation.play_deals(agents, game, config, 2, 0, 10, rotations, team)
    assert together == alone and len(together) == 10


def test_an_agent_in_two_games_side_by_side_is_refused():
    from commoncause.agents.arena import play_side_by_side

    config = get_game("common_cause").make_config()
    shared = make_agent("trained")
    teams = [(shared, make_agent("baseline")), (shared, make_agent("baseline"))]
    with pytest.raises(ValueError, match="plays in two games side by side"):
        play_side_by_side(config, teams, [1, 2], "common_cause")


def test_near_ties_are_taken_alone(monkeypatch):
    """Where the batch's two best logits are within ``NEAR_TIE``, the move is ``act``'s
    own (a batch's rounding could reorder them)."""
    from commoncause.agents.trained import PolicyAgent

    game = get_game("common_cause")
    state = game.new_game(game.make_config(), 3)
    view = game.seat_view(state, state.current)
    agent = make_agent("trained")
    monkeypatch.setattr(PolicyAgent, "NEAR_TIE", float("inf"))  # every move a near tie
    monkeypatch.setattr(PolicyAgent, "act", lambda self, view: -7)
    assert PolicyAgent.act_batch([agent], [view]) == [-7]


def test_a_refused_move_is_one_line_side_by_side():
    from commoncause.agents.arena import play_side_by_side

    class Stubborn:
        name = "stubborn"

        def reset(self, seed: int) -> None:
            pass

        def act(self, view) -> int:
            return 10**6

    config = get_game("common_cause").make_config()
    teams = [(make_agent("trained"), Stubborn()), (make_agent("trained"), Stubborn())]
    with pytest.raises(ValueError, match="stubborn in seat 1 chose 1000000; Common Cause"):
        play_side_by_side(config, teams, [1, 2], "common_cause")
