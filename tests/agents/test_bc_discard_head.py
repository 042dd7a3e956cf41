"""studies/bc_discard_head.py, the measurement behind the per-card discard head: its card
features are the baseline's discard key, and the script runs end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from helpers import load_bench

from commoncause.envs.core.cards import parse_card
from commoncause.envs.open_rummy.observer import OBS_SIZE, OFFSET

SCRIPT = Path(__file__).resolve().parents[2] / "studies" / "bc_discard_head.py"


def test_card_features_are_each_held_cards_usefulness_and_points():
    script = load_bench("bc_discard_head")
    obs = np.zeros((1, OBS_SIZE), np.float32)
    hand = [parse_card(c) for c in ("7H", "8H", "7S", "KD", "JK")]
    for t in hand:
        obs[0, OFFSET["hand"] + t] = 0.5
    features = script.card_features(obs)[0]
    seven, king, joker = parse_card("7H"), parse_card("KD"), parse_card("JK")
    assert features[seven] == 2 / 10  # 8H within two run places, 7S of its rank
    assert features[king] == 0 and features[53 + king] == 10 / 15  # useless, costly
    assert features[joker] == 1.0 and features[53 + joker] == 0
    assert features[parse_card("9H")] == 0 and features[53 + parse_card("9H")] == 0  # not held


def test_the_script_runs_both_measurements(tmp_path):
    out = tmp_path / "curves.json"
    run = [sys.executable, str(SCRIPT), "--games", "4", "--test-games", "2", "--epochs", "1"]
    subprocess.run([*run, "--json", str(out)], check=True, capture_output=True, timeout=300)
    curves = json.loads(out.read_text())["curves"]
    assert set(curves) == {"plain", "plain + card features", "card head"}
    for curve in curves.values():
        assert len(curve) == 1 and "discard" in curve[0] and 0 <= curve[0]["all"] <= 1
    shares = subprocess.run(
        [sys.executable, str(SCRIPT), "--policy", "random", "--rounds", "4"],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    assert shares.startswith("discards ") and "more useful" in shares
