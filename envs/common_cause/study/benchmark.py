"""Common Cause as an ad-hoc teamplay benchmark: how well does an agent play with partners it
never trained with?

The protocol (``BENCHMARK``, frozen: a change to a partner or to the protocol is a new
version): on paired deals (game ``i`` dealt from ``deal_seed(seed, i)``, ``seed`` the
published ``SEED`` unless asked otherwise), the agent plays

* with itself (self-play), and again with the listener blind to the speaker's last discard
  (W_blind), measuring its listening (response rate, causal influence) as ``commoncause
  analyze`` defines them;
* with every partner of the ``ZOO``, once in each seat, ``games`` deals per pairing and seat.

A partner's figure is the agent's win rate with it over both seats, and a split's ad-hoc
score the mean over its partners and both seats; each interval is over deals (a deal's mean
over the pairings it pools), as for the analysis' pooled cross-play. Researchers may train
with the ``train`` split; the ``test`` split is for reporting only, and the project's own
training never uses it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from commoncause.agents.registry import make_agent
from commoncause.agents.stats import mean_interval, paired_difference, rate

from ..rules import GameConfig
from .measures import listening_measures
from .runs import RunSpec, play_runs

BENCHMARK = "common_cause-adhoc-v1"
SEED = 20261203
"""The published deal seed of ``BENCHMARK`` (its deals are game i of this seed)."""
DEFAULT_GAMES = 1000
"""Deals per pairing and seat."""
LISTEN_GAMES = 200
"""Self-play deals on which the listening measures (causal influence) are taken."""
SPLITS = ("train", "test")


@dataclass(frozen=True)
class Partner:
    """A frozen member of the zoo."""

    name: str
    member: str
    """Its team-member spec, as ``eval --team`` takes it."""
    split: str
    """"train" (researchers may train with it) or "test" (held out: report only)."""
    convention: str
    """What its discards say and how it reads its partner's."""
    kind: str
    """"rules" (a hand-written strategy) or "ppo" (a trained policy)."""


ZOO: tuple[Partner, ...] = (
    Partner(
        "sheet", "baseline", "train",
        "The rule sheet's strategy: discards the card that completes its own open start (an "
        "offer), else its least linked card; takes a discard it can place at once or start "
        "with; lays the start with most unseen completers; keeps jokers for the end.",
        "rules",
    ),
    Partner(
        "eager_jokers", "baseline:jokers=eager", "train",
        "As the sheet, but places jokers like any card as soon as it can: its partner's "
        "starts get completed early, and none are held back for the end.",
        "rules",
    ),
    Partner(
        "greedy_taker", "baseline:take_discard=always", "train",
        "As the sheet, but takes the top discard whenever the rules allow it, even when "
        "placing it takes several moves: it reads every discard as meant for it.",
        "rules",
    ),
    Partner(
        "noisy_discards", "baseline:discard=random", "train",
        "Offers the completing card as the sheet does, but otherwise discards at random: "
        "only its offers carry a message, its other discards say nothing.",
        "rules",
    ),
    Partner(
        "ppo_seed11", "checkpoints/normal_seed11/best.pt", "train",
        "Self-play PPO, seed 11 (the make train recipe): its conventions are whatever its "
        "training found.",
        "ppo",
    ),
    Partner(
        "ppo_seed12", "checkpoints/normal_seed12/best.pt", "train",
        "Self-play PPO, seed 12 (the make train recipe): its conventions are whatever its "
        "training found.",
        "ppo",
    ),
    Partner(
        "first_start", "baseline:start_choice=first", "test",
        "As the sheet, but lays the first legal open start it finds, with no card counting: "
        "its starts are often hard to complete.",
        "rules",
    ),
    Partner(
        "silent", "baseline:message=never", "test",
        "Never offers: keeps the card that completes its own open start while any other "
        "discard is legal, so a discard that fits its start is never meant for its partner.",
        "rules",
    ),
    Partner(
        "hoarder", "baseline:jokers=hoard;take_discard=no_start", "test",
        "Hoards jokers (one completes a start only when its hand holds nothing else or the "
        "stock is nearly gone) and takes a discard only when it fits the table as it is.",
        "rules",
    ),
    Partner(
        "ppo_scratch13", "checkpoints/normal_scratch13/best.pt", "test",
        "Self-play PPO trained from scratch with seed 13 (no behaviour-cloned start).",
        "ppo",
    ),
    Partner(
        "rllib_ppo", "checkpoints/rllib_normal/best.pt", "test",
        "PPO trained with Ray RLlib (another implementation and network): its conventions "
        "are its own.",
        "ppo",
    ),
)


def partners(split: str = "all") -> tuple[Partner, ...]:
    """The zoo's partners of ``split`` ("train", "test" or "all")."""
    if split == "all":
        return ZOO
    if split not in SPLITS:
        raise ValueError(f"--split must be train, test or all, got {split!r}")
    return tuple(p for p in ZOO if p.split == split)


def _ci(figure: dict) -> list[float]:
    return [float(x) for x in figure["ci95"]]


def _rate(wins: int, games: int) -> dict:
    """A win rate as the JSON gives it: ``win_rate``, its Wilson ``ci`` and ``games``."""
    figure = rate(wins, games)
    return {"win_rate": figure["value"], "ci": _ci(figure), "games": games}


def run_benchmark(
    agent: str,
    split: str = "all",
    games: int = DEFAULT_GAMES,
    seed: int = SEED,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    listen_games: int = LISTEN_GAMES,
    compare: str | None = None,
) -> dict:
    """Play the protocol for ``agent`` (a team-member spec) and return the benchmark JSON;
    with ``compare`` (another member) that member plays the same deals too, and ``compare``
    holds the paired differences ``agent - compare`` of self-play and each split's score."""
    if games < 2:
        raise ValueError(f"--games must be at least 2, got {games}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    members = [agent] if compare in (None, agent) else [agent, compare]
    for member in members:
        make_agent(member)  # a member that does not load is refused before any game
    zoo = partners(split)
    start = time.perf_counter()
    listen = min(listen_games, games)
    runs: dict[RunSpec, tuple[bool, int]] = {}  # (collect events, listening games)
    for member in reversed(members):  # (a pairing with a partner of the member's own spec
        for p in zoo:  # is its self-play)
            runs[RunSpec((member, p.member))] = (False, 0)
            runs[RunSpec((p.member, member))] = (False, 0)
        runs[RunSpec((member, member))] = (False, listen if member == agent else 0)
    runs[RunSpec((agent, agent), "blind")] = (False, 0)
    data = play_runs(runs, GameConfig.make("normal"), games, seed, workers, progress)

    self_play = data[RunSpec((agent, agent))]
    blind = data[RunSpec((agent, agent), "blind")]
    rows = []
    per_partner = _partner_scores(data, agent, zoo)
    for p in zoo:
        first = data[RunSpec((agent, p.member))].wins
        second = data[RunSpec((p.member, agent))].wins
        figure = mean_interval(per_partner[p.name])
        rows.append(
            {
                "name": p.name,
                "member": p.member,
                "split": p.split,
                "kind": p.kind,
                "convention": p.convention,
                "win_rate": figure["value"],
                "ci": _ci(figure),
                "games": 2 * games,
                "agent_first": _rate(first.sum(), games),
                "agent_second": _rate(second.sum(), games),
            }
        )
    scores = _split_scores(data, agent, zoo)
    adhoc = {}
    for s, per_deal in scores.items():
        pooled = mean_interval(per_deal)
        adhoc[s] = {
            "win_rate": pooled["value"],
            "ci": [float(x) for x in pooled["ci95"]],
            "partners": sum(p.split == s for p in zoo),
            "deals": games,
        }
    w = _rate(self_play.wins.sum(), games)
    listening = listening_measures(self_play, games)
    result = {
        "benchmark": BENCHMARK,
        "agent": agent,
        "seed": seed,
        "games": games,
        "split": split,
        "deals": "game i is dealt from deal_seed(seed, i) = seed * 1000003 + i",
        "self_play": w,
        "partners": rows,
        "adhoc": adhoc,
        "signalling": {
            "W": w["win_rate"],
            "W_blind": float(blind.wins.mean()),
            "W_blind_ci": _ci(rate(blind.wins.sum(), games)),
            "message_value": paired_difference(self_play.wins, blind.wins),
            "causal_influence_bits": listening["causal_influence_bits_draw"],
            "response_rate": listening["response_rate_draw"],
            "listening_games": listening["listening_games"],
            "definitions": "as commoncause analyze: W_blind shows the listener another legal "
            "discard in place of the speaker's last one; message value = W - W_blind (paired); "
            "causal influence = KL(listener's draw | actual discard || mean over discards)",
        },
    }
    if compare is not None:
        other = _split_scores(data, compare, zoo)
        result["compare"] = {
            "agent": compare,
            "self_play": paired_difference(
                self_play.wins, data[RunSpec((compare, compare))].wins
            ),
            "adhoc": {s: paired_difference(scores[s], other[s]) for s in scores},
            "method": "agent minus compare, paired over the same deals",
        }
    result |= {"seconds": round(time.perf_counter() - start, 1), "workers": workers}
    return result


def _partner_scores(data: dict, member: str, zoo: tuple[Partner, ...]) -> dict[str, np.ndarray]:
    """Per partner of ``zoo``, each deal's mean win of ``member`` with it over both seats."""
    return {
        p.name: (data[RunSpec((member, p.member))].wins + data[RunSpec((p.member, member))].wins)
        / 2
        for p in zoo
    }


def _split_scores(data: dict, member: str, zoo: tuple[Partner, ...]) -> dict[str, np.ndarray]:
    """Per split of ``zoo``, each deal's mean win of ``member`` over the split's partners
    and both seats."""
    per_partner = _partner_scores(data, member, zoo)
    by_split: dict[str, list[np.ndarray]] = {s: [] for s in SPLITS}
    for p in zoo:
        by_split[p.split].append(per_partner[p.name])
    return {s: np.mean(rows, axis=0) for s, rows in by_split.items() if rows}


def zoo_matrix(
    games: int = DEFAULT_GAMES,
    seed: int = SEED,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Every partner of the zoo with every partner (seat 0 the row), on the same deals: the
    cross-play matrix that shows whether the test split is as hard as the train split. A
    split's figure pools every ordered pairing of a zoo member with a partner of that split,
    the member itself excluded, each deal's mean over the pairings, with its interval over
    deals."""
    if games < 2:
        raise ValueError(f"--games must be at least 2, got {games}")
    start = time.perf_counter()
    members = [p.member for p in ZOO]
    runs = {RunSpec((a, b)): (False, 0) for a in members for b in members}
    data = play_runs(runs, GameConfig.make("normal"), games, seed, workers, progress)
    wins = {(a, b): data[RunSpec((a, b))].wins for a in members for b in members}
    matrix = [[float(wins[a, b].mean()) for b in members] for a in members]
    with_split = {}
    for split in SPLITS:
        pooled = [
            (wins[a.member, b.member] + wins[b.member, a.member]) / 2
            for a in ZOO
            for b in partners(split)
            if a is not b
        ]
        figure = mean_interval(np.mean(pooled, axis=0))
        with_split[split] = {"win_rate": figure["value"], "ci": _ci(figure)}
    return {
        "benchmark": BENCHMARK,
        "seed": seed,
        "games": games,
        "partners": [p.name for p in ZOO],
        "splits": [p.split for p in ZOO],
        "rows": "seat 0 (begins)",
        "columns": "seat 1",
        "win_rate": matrix,
        "with_split": with_split,
        "seconds": round(time.perf_counter() - start, 1),
    }
