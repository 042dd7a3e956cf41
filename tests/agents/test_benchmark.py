"""The ad-hoc teamplay benchmark: the zoo, the JSON it writes, a researcher's own agent class
(``FILE.py:Class``) and its errors, and the zoo's new baseline conventions."""

from __future__ import annotations

import json
import textwrap

import pytest

from commoncause.agents.evaluate import make_agent, play_game
from commoncause.cli import main
from commoncause.envs.common_cause.actions import DISCARD_BASE, START_BASE
from commoncause.envs.common_cause.baseline import BaselineAgent, BaselineOptions
from commoncause.envs.common_cause.rules import GameConfig
from commoncause.envs.common_cause.study.benchmark import (
    BENCHMARK,
    SEED,
    ZOO,
    partners,
    run_benchmark,
)

MY_AGENT = """
    class Mine:
        name = "mine"

        def reset(self, seed):
            self.turn = 0

        def act(self, view):
            self.turn += 1
            return view.legal_actions()[-1]

    class Illegal:
        name = "illegal"

        def reset(self, seed):
            pass

        def act(self, view):
            return 10**6

    class NeedsArgs:
        def __init__(self, size):
            pass

    class NoAct:
        def reset(self, seed):
            pass

    class ActRaises:
        def reset(self, seed):
            pass

        def act(self, view):
            raise RuntimeError("act boom")

    class BatchRaises:
        batch_key = "batch"

        def reset(self, seed):
            pass

        def act(self, view):
            return view.legal_actions()[0]

        @staticmethod
        def act_batch(agents, views):
            raise RuntimeError("batch boom")

    class ResetRaises:
        def reset(self, seed):
            raise RuntimeError("reset boom")

        def act(self, view):
            return view.legal_actions()[0]

    class Word:
        def reset(self, seed):
            pass

        def act(self, view):
            return "x"

    class Fraction:
        def reset(self, seed):
            pass

        def act(self, view):
            return float(view.legal_actions()[0])

    class NumpyInt:
        def reset(self, seed):
            pass

        def act(self, view):
            import numpy as np

            return np.int64(view.legal_actions()[0])
"""


@pytest.fixture
def agent_file(tmp_path):
    path = tmp_path / "my_agent.py"
    path.write_text(textwrap.dedent(MY_AGENT))
    return path


def test_a_comparison_is_paired_over_the_same_deals():
    """``compare``: the other member plays the same deals; the same strategy under another
    spelling differs by exactly nothing, and a different one by its own scores' difference."""
    same = run_benchmark("baseline", "test", games=6, workers=1, listen_games=0,
                         compare="baseline:jokers=hold")  # fmt: skip
    c = same["compare"]
    assert c["agent"] == "baseline:jokers=hold"
    low, high = c["self_play"]["ci95"]
    assert c["self_play"]["value"] == 0 and low < 0 < high
    assert c["adhoc"]["test"]["value"] == 0 and list(c["adhoc"]) == ["test"]
    other = run_benchmark("baseline", "test", games=6, workers=1, listen_games=0,
                          compare="random")  # fmt: skip
    alone = run_benchmark("random", "test", games=6, workers=1, listen_games=0)
    assert other["compare"]["adhoc"]["test"]["value"] == pytest.approx(
        other["adhoc"]["test"]["win_rate"] - alone["adhoc"]["test"]["win_rate"]
    )
    own = run_benchmark("baseline", "test", games=6, workers=1, listen_games=0)
    assert other["adhoc"] == same["adhoc"] == own["adhoc"]  # the agent's own figures stay
    assert other["partners"] == own["partners"] and "compare" not in own


def test_zoo_has_eight_described_partners_four_held_out():
    names = [p.name for p in ZOO]
    assert len(names) == len(set(names)) >= 8
    assert len(partners("test")) >= 4 and len(partners("train")) >= 4
    assert {p.split for p in ZOO} == {"train", "test"}
    assert len({p.member for p in ZOO}) == len(ZOO)  # no partner twice under two names
    for p in ZOO:
        assert len(p.convention) > 40, p.name
        assert p.kind in ("rules", "ppo")
        assert make_agent(p.member) is not None  # every partner loads
    assert {p.kind for p in partners("test")} == {"rules", "ppo"}
    with pytest.raises(ValueError, match="--split"):
        partners("dev")


def test_benchmark_json_has_the_protocol_fields():
    result = run_benchmark("baseline", "all", games=4, workers=1, listen_games=2)
    assert result["benchmark"] == BENCHMARK and result["seed"] == SEED
    assert result["agent"] == "baseline" and result["games"] == 4
    sp = result["self_play"]
    assert sp["games"] == 4 and sp["ci"][0] <= sp["win_rate"] <= sp["ci"][1]
    assert [p["name"] for p in result["partners"]] == [p.name for p in ZOO]
    for row in result["partners"]:
        assert set(row) >= {"name", "split", "convention", "win_rate", "ci", "games"}
        assert row["games"] == 8  # 4 deals in each seat
        assert row["ci"][0] <= row["win_rate"] <= row["ci"][1]
        first, second = row["agent_first"], row["agent_second"]
        assert row["win_rate"] == pytest.approx((first["win_rate"] + second["win_rate"]) / 2)
        for part in (first, second):
            assert part["games"] == 4 and part["ci"][0] <= part["win_rate"] <= part["ci"][1]
    for split in ("train", "test"):
        rows = [r["win_rate"] for r in result["partners"] if r["split"] == split]
        adhoc = result["adhoc"][split]
        assert adhoc["win_rate"] == pytest.approx(sum(rows) / len(rows))
        assert adhoc["ci"][0] <= adhoc["win_rate"] <= adhoc["ci"][1]
    s = result["signalling"]
    assert s["W"] == sp["win_rate"]
    assert s["message_value"]["value"] == pytest.approx(s["W"] - s["W_blind"])
    assert s["causal_influence_bits"]["value"] >= 0 and s["listening_games"] == 2
    json.dumps(result)  # it is JSON as it stands


def test_benchmark_is_paired_and_reproducible():
    a = run_benchmark("baseline", "test", games=3, workers=1, listen_games=0)
    b = run_benchmark("baseline", "test", games=3, workers=2, listen_games=0)
    assert [r["win_rate"] for r in a["partners"]] == [r["win_rate"] for r in b["partners"]]
    assert set(a["adhoc"]) == {"test"}


def test_benchmark_command_scores_a_users_class(agent_file, tmp_path, capsys):
    out = tmp_path / "bench.json"
    spec = f"{agent_file}:Mine"
    rc = main(["benchmark", "--agent", spec, "--split", "test", "--games", "3",
               "--workers", "1", "--json", str(out)])  # fmt: skip
    assert rc == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    assert data["agent"] == spec and len(data["partners"]) == len(partners("test"))
    assert "ad-hoc mean" in capsys.readouterr().out


def test_eval_takes_a_users_class(agent_file, capsys):
    rc = main(["eval", "--team", f"{agent_file}:Mine,baseline", "--games", "3"])
    assert rc == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    ("member", "message"),
    [
        ("{dir}/missing.py:Mine", "not found"),
        ("{file}:Nope", "has no class 'Nope'"),
        ("{file}:NeedsArgs", "cannot be built with no arguments"),
        ("{file}:NoAct", "lacks act()"),
        ("{file}:Illegal", "illegal in seat 0 chose 1000000"),
        ("{file}:ActRaises", "ActRaises in seat 0 failed in act(): RuntimeError: act boom"),
        ("{file}:ResetRaises", "ResetRaises failed in reset(): RuntimeError: reset boom"),
        ("{broken}:Mine", "failed to load: SyntaxError"),
        ("{dir}:Mine.py", "not found"),
    ],
)
def test_a_users_class_that_fails_is_one_line_exit_2(
    member, message, agent_file, tmp_path, capsys
):
    broken = tmp_path / "broken.py"
    broken.write_text("class Mine(:\n")
    spec = member.format(dir=tmp_path, file=agent_file, broken=broken)
    rc = main(["benchmark", "--agent", spec, "--games", "2", "--workers", "1"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert message in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize(
    ("game", "team", "message"),
    [
        ("common_cause", "{file}:ActRaises,baseline", "ActRaises in seat 0 failed in act(): "
         "RuntimeError: act boom"),
        ("common_cause", "baseline,{file}:ResetRaises", "ResetRaises failed in reset(): "
         "RuntimeError: reset boom"),
        ("open_rummy", "{file}:ActRaises,baseline,baseline,baseline", "failed in act(): "
         "RuntimeError: act boom"),
        ("common_cause", "{file}:BatchRaises,baseline", "BatchRaises failed in act_batch(): "
         "RuntimeError: batch boom"),
    ],
)  # fmt: skip
def test_eval_reports_a_users_class_that_raises_in_one_line(
    game, team, message, workers, agent_file, capsys
):
    rc = main(["eval", "--game", game, "--team", team.format(file=agent_file), "--games", "2",
               "--workers", workers])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert f"{agent_file}:" in err and message in err
    assert "\n" not in err and "Traceback" not in err


def test_the_projects_own_agent_that_raises_keeps_its_traceback(monkeypatch):
    """Only a user's class is reported in a line: the project's agents raising is a bug."""
    from commoncause.envs.common_cause import baseline

    def boom(self, view):
        raise RuntimeError("own bug")

    monkeypatch.setattr(baseline.BaselineAgent, "act", boom)
    with pytest.raises(RuntimeError, match="own bug"):
        play_game(GameConfig.make("normal"), (make_agent("baseline"), make_agent("baseline")), 0)


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        (("{file}:ActRaises", "baseline"), "ActRaises in seat 0 failed in act(): "
         "RuntimeError: act boom"),
        (("baseline", "{file}:ActRaises"), "ActRaises in seat 1 failed in act(): "
         "RuntimeError: act boom"),
        (("{file}:ResetRaises", "baseline"), "ResetRaises failed in reset(): "
         "RuntimeError: reset boom"),
        (("{file}:Illegal", "baseline"), "illegal in seat 0 chose 1000000; Common Cause "
         "refused it: illegal action 1000000"),
        (("{file}:Word", "baseline"), "Word in seat 0 chose 'x'; Common Cause refused it"),
        (("{file}:Fraction", "baseline"), "Fraction in seat 0 chose 0.0; Common Cause refused "
         "it: it is not an action id"),
    ],
)  # fmt: skip
def test_play_reports_a_users_class_that_fails_in_one_line(
    seats, message, agent_file, tmp_path, capsys
):
    player, partner = (s.format(file=agent_file) for s in seats)
    rc = main(["play", "--player", player, "--partner", partner, "--seed", "1",
               "--record-dir", str(tmp_path)])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert message in err and "\n" not in err and "Traceback" not in err


def test_a_users_class_failing_in_play_keeps_the_moves_before(agent_file, tmp_path):
    from commoncause.session import PlaySession

    session = PlaySession.new(seats=["baseline", f"{agent_file}:ActRaises"], seed=1,
                              record_dir=tmp_path)  # fmt: skip
    with pytest.raises(ValueError, match=r"in seat 1 failed in act\(\)"):
        session.step_agents()
    saved = json.loads(session.path.read_text())
    assert saved["moves"] and len(saved["moves"]) == len(session.moves)


def test_play_takes_a_users_numpy_integer_move(agent_file, tmp_path):
    from commoncause.session import PlaySession

    session = PlaySession.new(seats=[f"{agent_file}:NumpyInt", "baseline"], seed=1,
                              record_dir=tmp_path)  # fmt: skip
    session.step_agents()
    assert session.is_over
    saved = json.loads(session.path.read_text())
    assert [m["action"] for m in saved["moves"]] == [m.action for m in session.moves]


def _discards_of(options: str, games: int = 30):
    """(view's own-start completers, legal discards, chosen discard) at every discard."""
    agent = BaselineAgent(BaselineOptions.parse(options))
    seen = []

    class Watch:
        name = agent.name

        def reset(self, seed):
            agent.reset(seed)

        def act(self, view):
            action = agent.act(view)
            if DISCARD_BASE <= action < START_BASE:
                legal = [a - DISCARD_BASE for a in view.legal_actions() if a < START_BASE]
                completers = set()
                for sid in view.my_starts:
                    completers.update(agent._completers(view, sid))
                seen.append((completers, legal, action - DISCARD_BASE))
            return action

    for seed in range(games):
        play_game(GameConfig.make("normal"), (Watch(), make_agent("baseline")), seed)
    return seen


def test_silent_partner_never_offers_while_another_discard_is_legal():
    seen = _discards_of("message=never")
    offers_possible = [s for s in seen if s[0] & set(s[1]) and set(s[1]) - s[0]]
    assert offers_possible  # the situation arises, so the test can fail
    assert all(card not in completers for completers, _, card in offers_possible)
    # while the sheet's player offers in exactly those situations
    sheet = _discards_of("")
    offered = [c for comp, legal, c in sheet if comp & set(legal)]
    assert offered and all(c in comp for comp, legal, c in sheet if comp & set(legal))


def test_the_benchmark_page_renders_every_report_and_the_frozen_zoo():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "hooks"))
    import benchmark as hook

    reports = hook.reports()
    assert {"baseline", "random"} <= {r["agent"] for r in reports}
    board = hook.leaderboard_table()
    for r in reports:
        assert f"`{r['agent']}`" in board
        assert r["benchmark"] == BENCHMARK and r["seed"] == SEED
        # the published reports were played with today's zoo (partners are frozen)
        assert [(p["name"], p["member"], p["split"], p["convention"]) for p in r["partners"]] == [
            (p.name, p.member, p.split, p.convention) for p in ZOO
        ]
    zoo = hook.zoo_table()
    assert all(f"`{p.name}`" in zoo for p in ZOO)
    matrix = hook.matrix_table()
    rows = [line for line in matrix.splitlines() if line.startswith("| ")]
    assert len(rows) == len(ZOO) + 1  # a header and a row per partner


def test_play_takes_a_users_class(agent_file):
    from commoncause.session import make_player

    agent, seat = make_player(f"{agent_file}:Mine", "common_cause")
    assert agent.name == "mine" and seat["agent"] == f"{agent_file}:Mine"


def test_the_web_never_loads_code_a_request_names(tmp_path):
    from fastapi.testclient import TestClient

    from commoncause.web import app as web

    marker = tmp_path / "loaded"
    evil = tmp_path / "evil.py"
    evil.write_text(f"open({str(marker)!r}, 'w').write('x')\nclass Mine:\n    pass\n")
    client = TestClient(web.create_app(tmp_path / "records"))
    for spec in (f"{evil}:Mine", "evil.py:Mine"):
        r = client.post("/api/games", json={"partner": spec})
        assert r.status_code == 400 and "unknown partner" in r.json()["error"]
    assert not marker.exists()
