"""studies/search_gaps.py: the measured seat plays its blueprint's moves (the games are the
blueprint's own), the gaps are rates' differences, and the command runs end to end and
refuses what it cannot measure."""

from __future__ import annotations

import json

import pytest
from helpers import load_bench

from commoncause.agents.evaluate import deal_seed, play_game, team_agents
from commoncause.agents.search import SearchOptions
from commoncause.envs.registry import get_game


@pytest.mark.parametrize("players", [2, 3])
def test_the_watched_seat_plays_the_blueprint(players):
    script = load_bench("search_gaps")
    game = get_game("dummy_rummy")
    config = game.make_config(num_players=players, hands=1)
    options = SearchOptions.parse("blueprint=baseline;rollouts=3")
    watch = script.GapWatch(options, game.name)
    outcomes = script.play_deals(game, config, watch, 4, 9)
    agents = team_agents(game.name, ("baseline",) * players)
    assert outcomes == [play_game(config, agents, deal_seed(9, d), game.name) for d in range(4)]
    assert watch.gaps and watch.stats.searched == len(watch.gaps)
    for gap, mine, moves in watch.gaps:
        assert moves >= 2 and 0 <= mine <= 1 and 0 <= gap <= 1 - mine
        assert (gap * 3).is_integer()  # a difference of wins over 3 deals
    figures = script.summary(watch.gaps)
    shares = list(figures["share_past"].values())
    assert shares == sorted(shares, reverse=True)
    assert list(figures["gap_quantiles"].values()) == sorted(figures["gap_quantiles"].values())


def test_command_end_to_end_and_bad_members(tmp_path, capsys):
    script = load_bench("search_gaps")
    out = tmp_path / "gaps.json"
    args = ["--num-players", "2", "--hands", "1", "--deals", "2", "--json", str(out),
            "--member", "search:blueprint=trained;rollouts=2;moves=3"]  # fmt: skip
    assert script.main(args) == 0
    record = json.loads(out.read_text())
    assert record["decisions"] > 0 and record["config"]["num_players"] == 2
    assert "checkpoints/dummy_rummy_2p/best.pt" in capsys.readouterr().out  # the config's policy
    with pytest.raises(SystemExit, match="must be a search member"):
        script.main(["--member", "baseline", "--deals", "1"])
    with pytest.raises(SystemExit, match="search option rollouts must be 0 or more"):
        script.main(["--member", "search:rollouts=-1", "--deals", "1"])
    with pytest.raises(SystemExit, match="team game"):
        script.main(["--game", "common_cause", "--deals", "1"])
