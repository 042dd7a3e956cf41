"""Statistics of the analysis: rates with Wilson intervals, means clustered by game,
bootstrapped ratios (efficiency), pooled cross-play."""

from __future__ import annotations

import math

import numpy as np

from commoncause.agents.evaluate import paired_difference, wilson_interval

RESAMPLES = 1000
"""Bootstrap resamples of every bootstrapped interval."""


def rate(wins: int | float, n: int) -> dict:
    """A rate with its Wilson interval."""
    wins = int(round(wins))
    return {
        "value": wins / n if n else float("nan"),
        "ci95": list(wilson_interval(wins, n)) if n else [float("nan")] * 2,
        "count": wins,
        "n": n,
    }


def cluster_mean(values: list[float], games: list[int], n_games: int, seed: int = 0) -> dict:
    """Mean of per-decision values with a bootstrap interval over games (decisions of one
    game are resampled together)."""
    if not values:
        return {"value": float("nan"), "ci95": [float("nan")] * 2, "n": 0}
    sums = np.zeros((n_games, 2))
    np.add.at(sums, (np.asarray(games), 0), np.asarray(values, dtype=np.float64))
    np.add.at(sums, (np.asarray(games), 1), 1.0)
    sums = sums[sums[:, 1] > 0]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(len(sums), np.full(len(sums), 1 / len(sums)), size=RESAMPLES)
    totals = counts @ sums
    ok = totals[:, 1] > 0
    boot = totals[ok, 0] / totals[ok, 1]
    low, high = np.percentile(boot, [2.5, 97.5]) if len(boot) else (float("nan"),) * 2
    return {"value": float(np.mean(values)), "ci95": [float(low), float(high)], "n": len(values)}


def efficiency(w: np.ndarray, blind: np.ndarray, w_open: np.ndarray, seed: int = 0) -> dict:
    """(W - W_blind) / (W_open - W_blind), bootstrap over deals (all three paired)."""
    rows = np.stack([w, blind, w_open], axis=1)
    n = len(rows)

    def ratio(t: np.ndarray) -> float:
        denom = t[2] - t[1]
        return (t[0] - t[1]) / denom if denom > 0 else float("nan")

    value = ratio(rows.sum(axis=0))
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1 / n), size=RESAMPLES)
    boot = np.array([ratio(t) for t in counts @ rows])
    finite = boot[np.isfinite(boot)]
    ci = list(np.percentile(finite, [2.5, 97.5])) if len(finite) else [float("nan")] * 2
    return {
        "value": float(value),
        "ci95": [float(c) for c in ci],
        "undefined_resamples": int(len(boot) - len(finite)),
        "note": "undefined where W_open <= W_blind" if not math.isfinite(value) else "",
    }


def mean_interval(values) -> dict:
    """Mean of per-deal values with a 95% interval over deals (``paired_difference``
    against zero: Newcombe's score interval for 0/1 values, else a normal interval clipped
    to the values' range)."""
    return paired_difference(values, np.zeros(len(values)))


def pool_cross_play(wins: dict[tuple[str, str], np.ndarray], members: list[str]) -> dict:
    """Self-play, cross-play and with-baseline win rates of the checkpoint members. Every
    pairing plays the same deals, so each group is pooled per deal (the deal's mean over the
    group's pairings) and its interval is over deals; the gaps are paired by deal, and
    ``kept`` is the share of self-play's lead over a baseline partner that cross-play keeps,
    (cross - with_baseline) / (self - with_baseline), bootstrapped over deals."""
    ck = [m for m in members if m != "baseline"]
    groups = {
        "self_play": [(a, a) for a in ck],
        "cross_play": [(a, b) for a in ck for b in ck if a != b],
        "with_baseline": [(a, "baseline") for a in ck] + [("baseline", a) for a in ck]
        if "baseline" in members
        else [],
    }
    per_deal = {k: np.mean([wins[p] for p in v], axis=0) for k, v in groups.items() if v}
    out: dict = {k: mean_interval(per_deal[k]) if k in per_deal else None for k in groups}
    out["pooling"] = "per deal: each deal's mean over the group's pairings; intervals over deals"
    out["gaps"] = {
        f"self_play_minus_{k}": paired_difference(per_deal["self_play"], per_deal[k])
        for k in ("cross_play", "with_baseline")
        if k in per_deal and "self_play" in per_deal
    }
    out["kept"] = (
        efficiency(per_deal["cross_play"], per_deal["with_baseline"], per_deal["self_play"])
        if len(per_deal) == 3
        else None
    )
    return out
