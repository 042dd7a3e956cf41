"""studies/journal_agreement.py: two journals of one table agree deal by deal where their
members play alike, the deals that differ are named, and journals of another table are
refused."""

from __future__ import annotations

import json

from helpers import load_bench

from commoncause.agents.evaluate import evaluate
from commoncause.envs.registry import get_game

DUMMY = "dummy_rummy"


def test_journals_compared_deal_by_deal(tmp_path, capsys):
    script = load_bench("journal_agreement")
    config = get_game("dummy_rummy").make_config(num_players=2, hands=1)
    same, other, costly = (tmp_path / f"{name}.jsonl" for name in ("same", "other", "costly"))
    evaluate(("baseline", "random"), config, 4, seed=3, journal=same, game=DUMMY)
    evaluate(("baseline", "random"), config, 3, seed=3, journal=other, game=DUMMY)
    evaluate(("baseline:discard=costly", "random"), config, 4, seed=3, journal=costly, game=DUMMY)
    assert script.agreement(same, other) | {"journals": None} == {
        "journals": None, "deals_in_both": 3, "alike": 3, "differ": []
    }  # fmt: skip
    report = script.agreement(same, costly)
    assert report["deals_in_both"] == 4 and report["alike"] < 4
    assert {row["deal"] for row in report["differ"]} <= {0, 1, 2, 3}
    out = tmp_path / "agreement.json"
    assert script.main([str(same), str(costly), "--json", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads(json.dumps(report))
    assert f"{report['alike']} of 4 deals played alike" in capsys.readouterr().out
    seeded = tmp_path / "seeded.jsonl"
    evaluate(("baseline", "random"), config, 2, seed=4, journal=seeded, game=DUMMY)
    assert script.main([str(same), str(seeded)]) == 2
    assert "not of the same table: seed differs" in capsys.readouterr().err
