"""Measures of one run: listening (pickups, responses, causal influence), signalling
(probes), conventions, and its win rate."""

from __future__ import annotations

import numpy as np

from commoncause.agents.stats import cluster_mean, rate
from commoncause.envs.common_cause.actions import N_CARD_TYPES

from .interventions import CATEGORY_NAMES, CONTEXT_SIZE, LABEL_NAMES, RESPONSE_NAMES, DiscardEvent
from .probes import probe
from .runs import RunData


def listening_measures(data: RunData, games: int) -> dict:
    ev = [e for _, e in data.events if e.response >= 0]
    takeable = [e for e in ev if e.could_take]
    out: dict = {
        "pickup_rate_when_takeable": rate(sum(e.took for e in takeable), len(takeable)),
        "pickup_rate_all_discards": rate(sum(e.took for e in ev), len(ev)),
        "listening_games": len({g for g, _ in data.listening}),
    }
    for name, phases in (("draw", (0,)), ("all", (0, 1))):
        picked = [(g, x) for g, x in data.listening if x.phase in phases]
        gs = [g for g, _ in picked]
        out[f"response_rate_{name}"] = cluster_mean([x.changed for _, x in picked], gs, games)
        out[f"causal_influence_bits_{name}"] = cluster_mean(
            [x.kl_bits for _, x in picked], gs, games, seed=1
        )
    for seat in (0, 1):
        picked = [(g, x) for g, x in data.listening if x.phase == 0 and x.seat == seat]
        gs = [g for g, _ in picked]
        out[f"seat{seat}_listener_draw"] = {
            "response_rate": cluster_mean([x.changed for _, x in picked], gs, games),
            "causal_influence_bits": cluster_mean([x.kl_bits for _, x in picked], gs, games),
        }
    return out


def _probe_arrays(events: list[tuple[int, DiscardEvent]], label: int):
    rows = [(g, e) for g, e in events if e.labels[label] >= 0]
    n = len(rows)
    context = np.zeros((n, CONTEXT_SIZE))
    message = np.zeros((n, N_CARD_TYPES + len(CATEGORY_NAMES)))
    y = np.zeros(n)
    games = np.zeros(n, dtype=np.int64)
    for i, (g, e) in enumerate(rows):
        context[i] = e.context
        message[i, e.card] = 1.0
        message[i, N_CARD_TYPES + e.category] = 1.0
        y[i] = e.labels[label]
        games[i] = g
    return context, message, y, games


def signalling_measures(events: list[tuple[int, DiscardEvent]], seed: int = 0) -> dict:
    """Probe results per label; probes fit on even games and are scored on odd games."""
    out = {}
    for i, name in enumerate(LABEL_NAMES):
        context, message, y, games = _probe_arrays(events, i)
        result = probe(name, context, message, y, games, games % 2 == 1, seed=seed + i)
        out[name] = result.to_json() if result else None
    return out


def convention_counts(events: list[tuple[int, DiscardEvent]]) -> list[list[int]]:
    counts = np.zeros((len(CATEGORY_NAMES), len(RESPONSE_NAMES)), dtype=int)
    for _, e in events:
        if e.response >= 0:
            counts[e.category, e.response] += 1
    return counts.tolist()


def win_figure(data: RunData, label: str) -> dict:
    r = rate(data.wins.sum(), len(data.wins))
    return r | {
        "label": label,
        "team": list(data.spec.team),
        "mode": data.spec.mode,
        "open_hands": data.spec.open_hands,
        "mean_turns": float(data.turns.mean()),
        "mean_pickups": float(data.pickups.mean()),
        "wins_by_game": win_string(data.wins),
    }


def win_string(wins) -> str:
    """Per-game results as a string of 0s and 1s, in deal order (figures.json)."""
    return "".join("1" if w else "0" for w in wins)
