"""The communication analysis: end to end on a few games, and its measurements checked on
cases whose answer is known (a deaf listener, a channel that carries the label)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import yaml

from commoncause.agents.base import RandomAgent
from commoncause.agents.evaluate import deal_seed, evaluate
from commoncause.cli import main
from commoncause.envs.common_cause.actions import DRAW_STOCK, N_ACTIONS
from commoncause.envs.common_cause.baseline import BaselineAgent
from commoncause.envs.common_cause.rules import DRAW_PHASE, GameConfig, GameState
from commoncause.envs.common_cause.seat import SeatView
from commoncause.envs.common_cause.study.interventions import (
    corrupted_clone,
    discard_types,
    measure_listening,
    open_message,
    physical_in_hand,
    play_measured,
)
from commoncause.envs.common_cause.study.probes import probe
from commoncause.envs.common_cause.study.stats import pool_cross_play

SMOKE = Path(__file__).resolve().parents[3] / "configs" / "smoke.yaml"
KEYS = {
    "meta",
    "headline",
    "win_rates",
    "interventions",
    "efficiency",
    "listening",
    "signalling",
    "conventions",
    "cross_play",
    "plots",
}
PLOTS = {"win_rates.png", "listening.png", "signalling.png", "conventions.png"}


class DeafAgent(RandomAgent):
    """Never looks at the discard pile: draws from the stock (while there is one), then
    plays a random legal move. ``probabilities`` ignore the pile too."""

    name = "deaf"

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions()
        if view.phase == DRAW_PHASE:
            return DRAW_STOCK if view.stock_size else legal[0]
        return legal[self.rng.randrange(len(legal))]

    def probabilities(self, view: SeatView) -> np.ndarray:
        p = np.zeros(N_ACTIONS)
        if view.phase == DRAW_PHASE:
            p[DRAW_STOCK] = 1.0
        else:
            legal = view.legal_actions()
            p[legal] = 1.0 / len(legal)
        return p


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """A policy from a few seconds of the real train command (smoke config, made smaller)."""
    tmp = tmp_path_factory.mktemp("analyze_train")
    small = {
        "out_dir": str(tmp / "runs"),
        "trainer": "torch",
        "bc_games": 10,
        "total_steps": 128,
        "n_steps": 64,
        "batch_size": 64,
        "eval_interval": 128,
        "eval_games": 4,
        "final_eval_games": 4,
        "checkpoint_interval": 128,
    }
    config = tmp / "tiny.yaml"
    config.write_text(yaml.safe_dump(yaml.safe_load(SMOKE.read_text()) | small))
    assert main(["train", "--config", str(config), "--run-name", "tiny"]) == 0
    return tmp / "runs" / "tiny" / "checkpoints" / "best.pt"


def check_report(out: Path) -> dict:
    report = (out / "report.md").read_text()
    assert report.startswith("# ") and report.index("## Headline") < report.index("## Plots")
    assert "| Win rate W |" in report and "W_blind" in report
    figures = json.loads((out / "figures.json").read_text())
    assert set(figures) >= KEYS
    for name in figures["plots"]:
        assert (out / name).stat().st_size > 5000, name
        assert f"]({name})" in report
    return figures


def test_analyze_baseline_team_end_to_end(tmp_path):
    out = tmp_path / "baseline"
    args = ["analyze", "--team", "baseline,baseline", "--games", "30", "--workers", "1"]
    assert main([*args, "--seed", "1", "--out", str(out)]) == 0
    figures = check_report(out)
    assert set(figures["plots"]) == PLOTS
    assert figures["meta"]["games"] == 30 and figures["cross_play"] is None
    assert not figures["efficiency"]["available"]
    assert "not available" in (out / "report.md").read_text()
    # the team's win rate is the eval command's on the same deals
    ref = evaluate(("baseline", "baseline"), GameConfig(), 30, seed=1)
    assert figures["win_rates"]["team"]["wins_by_game"] == ref.to_json()["wins_by_game"]
    assert set(figures["signalling"]["team"]) == {"own_completer", "fits_listener", "linked"}
    assert len(figures["conventions"]["team"]) == 4


def test_analyze_trained_checkpoint_end_to_end(tiny_checkpoint, tmp_path):
    out = tmp_path / "trained"
    ck = str(tiny_checkpoint)
    args = ["analyze", "--team", f"{ck},{ck}", "--games", "12", "--listen-games", "6"]
    args += ["--open-team", "baseline,baseline", "--cross-play", f"{ck},random,baseline"]
    assert main([*args, "--workers", "1", "--out", str(out)]) == 0
    figures = check_report(out)
    assert set(figures["plots"]) == PLOTS | {"cross_play.png"}
    assert figures["efficiency"]["available"]
    w_open = figures["win_rates"]["open"]
    assert w_open["open_hands"] and w_open["vs_team"]["value"] == pytest.approx(
        w_open["value"] - figures["win_rates"]["team"]["value"]
    )
    assert {"team", "baseline", "a_with_baseline", "baseline_with_b", "open"} <= set(
        figures["win_rates"]
    )
    cross = figures["cross_play"]
    assert np.array(cross["win_rate"]).shape == (3, 3)
    # the pooled figures are recomputed from the stored per-pairing wins
    members = cross["members"]
    games = {(a, b): cross["wins_by_game"][i][j] for i, a in enumerate(members)
             for j, b in enumerate(members)}  # fmt: skip
    assert games[(ck, ck)] == figures["win_rates"]["team"]["wins_by_game"]
    wins = {pair: np.array([c == "1" for c in text]) for pair, text in games.items()}
    again = pool_cross_play(wins, members)
    for key in ("self_play", "cross_play", "with_baseline"):
        assert again[key]["value"] == pytest.approx(cross[key]["value"]) and cross[key]["n"] == 12
        assert again[key]["ci95"] == pytest.approx(cross[key]["ci95"])
    report = (out / "report.md").read_text()
    assert "Self-play minus cross play" in report and "**Cross-play: " in report
    assert "**W_open is not above W**" in report or "**Open hands help:**" in report
    assert f"--cross-play {ck},random,baseline" in report and "--listen-games 6" in report
    assert "--open-team baseline,baseline" in report
    listening = figures["listening"]["team"]
    assert listening["listening_games"] <= 6 and listening["response_rate_draw"]["n"] > 0


def test_same_figures_whatever_the_workers():
    from commoncause.envs.common_cause.study import analyze

    runs = [analyze(("baseline", "random"), GameConfig(), 8, seed=2, workers=w) for w in (1, 2)]
    for key in ("win_rates", "interventions", "listening", "conventions"):
        assert runs[0][key] == runs[1][key], key


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    assert main(["analyze", "--team", "baseline,baseline,random", "--out", str(tmp_path)]) == 2
    assert "two members" in capsys.readouterr().err
    assert main(["analyze", "--team", "baseline,nobody", "--out", str(tmp_path)]) == 2
    assert main(["analyze", "--team", "baseline,baseline", "--games", "1"]) == 2


def test_blind_listener_view_never_changes_the_real_game():
    """A listener that ignores the pile plays the same game, move for move, whether or not
    its view of the partner's discards is corrupted; the corruption did happen."""
    config = GameConfig()
    corrupted = 0
    for i in range(40):
        seed = deal_seed(3, i)
        runs = [
            play_measured(config, (DeafAgent(), DeafAgent()), seed, mode, keep_moves=True)
            for mode in ("normal", "blind")
        ]
        assert runs[0].moves == runs[1].moves and runs[0].win == runs[1].win
        corrupted += runs[1].corrupted_decisions
    assert corrupted > 100


def test_blind_games_are_real_legal_games():
    """Under the blind intervention the baseline team's moves, replayed on a fresh deal,
    are legal and give the same result: nothing of the corrupted copies leaks."""
    config = GameConfig()
    agents = (BaselineAgent(), BaselineAgent())
    differ = 0
    for i in range(30):
        seed = deal_seed(4, i)
        blind = play_measured(config, agents, seed, "blind", keep_moves=True)
        normal = play_measured(config, agents, seed, "normal", keep_moves=True)
        differ += blind.moves != normal.moves
        state = GameState.new_game(config, seed)
        for player, action in blind.moves:
            assert state.current == player
            state.apply(action)
        assert state.is_terminal and (state.result == "win") == blind.win
    assert differ > 0  # the baseline does read the discards


def test_corrupted_clone_is_consistent_and_leaves_the_state_alone():
    rng = random.Random(0)
    checked = 0
    for g in range(40):
        state = GameState.new_game(GameConfig(), g)
        while not state.is_terminal and checked < 60:
            entry = open_message(state, state.current)
            last = state.history[-1] if state.history else None
            if entry >= 0 and last and last[0] != state.current:
                speaker = 1 - state.current
                real = state.discard_log[entry][0]
                others = [c for c in state.hands[speaker] if min(c, 52) != min(real, 52)]
                if others:
                    before = (repr(state.hands), repr(state.discard_log), list(state.discard))
                    fake = rng.choice(others)
                    clone = corrupted_clone(state, entry, fake)
                    clone.locations()  # every card exactly once
                    assert clone.discard[-1] == fake and clone.discard_log[entry][0] == fake
                    assert real in clone.hands[speaker] and fake not in clone.hands[speaker]
                    assert clone.hands[state.current] == state.hands[state.current]
                    after = (repr(state.hands), repr(state.discard_log), list(state.discard))
                    assert before == after
                    checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked == 60


def listener_positions(count: int) -> list[tuple[GameState, int, list[int]]]:
    """(state, entry, the speaker's other legal discard types) at listener draw decisions
    right after a discard, from baseline games."""
    found = []
    agents = (BaselineAgent(), BaselineAgent())
    for g in range(50):
        state = GameState.new_game(GameConfig(), g)
        last, alternatives = -1, []
        while not state.is_terminal and len(found) < count:
            p = state.current
            entry = open_message(state, p)
            just_discarded = state.history and 2 <= state.history[-1][1] < 55
            if entry == last and just_discarded and alternatives:
                found.append((state.clone(), entry, alternatives))
            action = agents[p].act(SeatView(state, p))
            discard = 2 <= action < 55
            if discard:
                alternatives = [t for t in discard_types(state) if t != action - 2]
            state.apply(action)
            if discard and not state.is_terminal:
                last = state.discard_entry[-1]
    return found


def test_causal_influence_is_zero_for_a_listener_that_ignores_the_discard():
    deaf, baseline = DeafAgent(), BaselineAgent()
    kl_baseline = []
    for state, entry, alternatives in listener_positions(80):
        listener = state.current
        speaker = 1 - listener
        assert all(physical_in_hand(state.hands[speaker], t) >= 0 for t in alternatives)
        m = measure_listening(state, deaf, listener, entry, alternatives)
        assert m.kl_bits == 0.0 and m.changed == 0.0 and m.phase == 0
        b = measure_listening(state, baseline, listener, entry, alternatives)
        assert 0 <= b.kl_bits <= np.log2(1 + len(alternatives)) + 1e-9  # one-hot: <= log K
        kl_baseline.append(b.kl_bits)
    assert np.mean(kl_baseline) > 0.1  # while the baseline does listen
    # and in whole games: every measured decision of a deaf team has zero influence
    for i in range(5):
        rec = play_measured(GameConfig(), (deaf, DeafAgent()), deal_seed(2, i), listen=True)
        assert rec.listening and all(x.kl_bits == 0 and x.changed == 0 for x in rec.listening)


def synthetic_channel(carries_label: bool, n: int = 4000, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(float)
    card = np.where(y == 1, rng.integers(0, 5, n), rng.integers(5, 10, n))
    if not carries_label:
        card = rng.integers(0, 10, n)
    message = np.eye(10)[card]
    context = rng.random((n, 2))  # noise
    games = np.arange(n) // 10
    return context, message, y, games, games % 2 == 1


def test_probe_reads_a_channel_that_carries_the_label():
    result = probe("y", *synthetic_channel(True))
    assert result.accuracy > 0.98 and result.majority_accuracy < 0.75
    assert result.mi_bits > 0.8 * result.entropy_bits and result.mi_ci95[0] > 0.5


def test_probe_finds_nothing_in_a_random_channel():
    result = probe("y", *synthetic_channel(False))
    assert abs(result.accuracy - result.majority_accuracy) < 0.03
    assert abs(result.mi_bits) < 0.02 and result.mi_ci95[0] < 0.005


def test_pool_cross_play_pools_per_deal_and_pairs_the_gaps():
    from commoncause.envs.common_cause.study.report import cross_play_verdict

    rng = np.random.default_rng(0)
    deals = 400
    easy = rng.random(deals) < 0.5  # a deal effect shared by every pairing
    members = ["a", "b", "baseline"]

    def team(p: float) -> np.ndarray:
        return easy | (rng.random(deals) < p)

    wins = {("a", "a"): team(0.6), ("b", "b"): team(0.6), ("a", "b"): team(0.5)}
    wins |= {("b", "a"): team(0.5), ("baseline", "baseline"): team(0.1)}
    wins |= {(m, "baseline"): team(0.2) for m in "ab"} | {("baseline", m): team(0.2) for m in "ab"}
    cp = pool_cross_play(wins, members)
    self_deal = (wins[("a", "a")].astype(float) + wins[("b", "b")]) / 2
    cross_deal = (wins[("a", "b")].astype(float) + wins[("b", "a")]) / 2
    base_deal = np.mean([wins[k] for k in wins if "baseline" in k and k[0] != k[1]], axis=0)
    assert cp["self_play"]["value"] == pytest.approx(self_deal.mean())
    assert cp["self_play"]["n"] == deals  # the interval is over deals, not over games
    half = 1.959964 * self_deal.std(ddof=1) / np.sqrt(deals)
    mean = self_deal.mean()
    assert cp["self_play"]["ci95"] == pytest.approx([mean - half, mean + half])
    gap = cp["gaps"]["self_play_minus_cross_play"]
    d = self_deal - cross_deal
    assert gap["value"] == pytest.approx(d.mean())
    assert gap["ci95"][1] - gap["value"] == pytest.approx(1.959964 * d.std(ddof=1) / np.sqrt(deals))
    kept = cp["kept"]
    ratio = (cross_deal.mean() - base_deal.mean()) / (self_deal.mean() - base_deal.mean())
    assert kept["value"] == pytest.approx(ratio)
    assert kept["ci95"][0] < ratio < kept["ci95"][1]
    assert "**Cross-play:" in cross_play_verdict(cp)


def test_cross_play_verdict_follows_the_interval_of_the_kept_share():
    from commoncause.envs.common_cause.study.report import cross_play_verdict

    def cp(kept: float, low: float, high: float, lead_low: float = 0.05) -> dict:
        lead = {"value": 0.1, "ci95": [lead_low, 0.15], "n": 100}
        drop = {"value": 0.02, "ci95": [0.0, 0.04], "n": 100}
        gaps = {"self_play_minus_with_baseline": lead, "self_play_minus_cross_play": drop}
        return {"gaps": gaps, "kept": {"value": kept, "ci95": [low, high]}}

    assert "largely transfer" in cross_play_verdict(cp(0.9, 0.8, 1.0))
    assert "partly transfer" in cross_play_verdict(cp(0.85, 0.7, 1.0))  # low end under 0.75
    assert "do not transfer" in cross_play_verdict(cp(0.1, -0.1, 0.2))
    assert "cannot be judged" in cross_play_verdict(cp(0.9, 0.8, 1.0, lead_low=-0.01))
    assert cross_play_verdict(None) is None
    assert cross_play_verdict({"gaps": {}, "kept": None}) is None


def test_open_hands_verdict_has_three_outcomes():
    from commoncause.envs.common_cause.study.report import open_hands_verdict

    def fig(low: float, high: float) -> dict:
        gap = {"value": (low + high) / 2, "ci95": [low, high], "n": 100}
        eff = {"efficiency": {"value": 0.5, "ci95": [0.4, 0.6]}}
        return {"win_rates": {"open": {"vs_team": gap}}, "efficiency": eff}

    assert "Open hands help" in open_hands_verdict(fig(0.02, 0.06))
    assert "0.50 [0.40, 0.60]" in open_hands_verdict(fig(0.02, 0.06))
    assert "W_open is below W" in open_hands_verdict(fig(-0.06, -0.02))
    assert "W_open is not above W" in open_hands_verdict(fig(-0.02, 0.03))
    assert open_hands_verdict({"win_rates": {}, "efficiency": {"available": False}}) is None
