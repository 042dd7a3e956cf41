"""Interval statistics, one place for every figure the project reports: Wilson intervals of
win rates, Newcombe's paired difference, means and ratios over deals, and bootstrap means
clustered by game. Every comparison is paired over the same deals."""

from __future__ import annotations

import math

import numpy as np

RESAMPLES = 1000
"""Bootstrap resamples of every bootstrapped interval."""


def wilson_interval(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    low = 0.0 if wins == 0 else max(0.0, centre - half)  # (exact at the ends: no rounding)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return (low, high)


def _is_binary(values: list[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


def paired_difference(a, b, z: float = 1.959964) -> dict:
    """Mean of a - b over the same deals, with a 95% interval that respects the bounds.

    Win indicators (every value 0 or 1) get Newcombe's hybrid score interval for the
    difference of paired proportions (Newcombe 1998, Stat. Med. 17:2635, method 10, as in
    Altman et al., *Statistics with Confidence*): the Wilson intervals of the two rates,
    combined with the correlation of the pairs. It
    stays within [-1, 1], is defined for one game, and is close to the normal interval of
    the paired differences for many games. Any other per-game figure gets the normal
    interval of the paired differences, clipped to the differences the data allow
    [min a - max b, max a - min b] (that whole range for fewer than two games)."""
    x = [float(v) for v in a]
    y = [float(v) for v in b]
    if len(x) != len(y):
        raise ValueError(f"paired figures need the same games, got {len(x)} and {len(y)}")
    n = len(x)
    if n == 0:
        raise ValueError("a paired difference needs at least one game")
    mean = sum(u - v for u, v in zip(x, y, strict=True)) / n
    if _is_binary(x) and _is_binary(y):
        low, high = _newcombe_paired(x, y, z)
        method = "newcombe"
    else:
        lowest, highest = min(x) - max(y), max(x) - min(y)
        if n < 2:
            low, high = lowest, highest
        else:
            d = [u - v for u, v in zip(x, y, strict=True)]
            var = sum((u - mean) ** 2 for u in d) / (n - 1)
            half = z * math.sqrt(var / n)
            low, high = max(lowest, mean - half), min(highest, mean + half)
        method = "normal, clipped"
    return {"value": mean, "ci95": [low, high], "n": n, "method": method}


def _newcombe_paired(x: list[float], y: list[float], z: float) -> tuple[float, float]:
    n = len(x)
    both = sum(1 for u, v in zip(x, y, strict=True) if u and v)  # a
    only_x = sum(1 for u, v in zip(x, y, strict=True) if u and not v)  # b
    only_y = sum(1 for u, v in zip(x, y, strict=True) if v and not u)  # c
    neither = n - both - only_x - only_y  # d
    p1, p2 = (both + only_x) / n, (both + only_y) / n
    l1, u1 = wilson_interval(both + only_x, n, z)
    l2, u2 = wilson_interval(both + only_y, n, z)
    margins = (both + only_x) * (only_y + neither) * (both + only_y) * (only_x + neither)
    # the correlation of the pairs, shrunk towards 0 when positive (Newcombe's correction)
    cross = both * neither - only_x * only_y
    cross = cross - n / 2 if cross > n / 2 else min(cross, 0)
    phi = cross / math.sqrt(margins) if margins else 0.0
    diff = p1 - p2
    below = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    above = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    low = diff - math.sqrt(max(0.0, below))
    high = diff + math.sqrt(max(0.0, above))
    return max(-1.0, low), min(1.0, high)


def mean_interval(values, z: float = 1.959964) -> dict:
    """Mean of per-deal win shares (each in [0, 1]) with a 95% interval over deals: Wilson's
    for 0/1 values, else the normal interval clipped to [0, 1] (all of it for one deal)."""
    x = [float(v) for v in values]
    n = len(x)
    if n == 0:
        raise ValueError("a mean needs at least one deal")
    if min(x) < 0.0 or max(x) > 1.0:
        raise ValueError("mean_interval takes shares in [0, 1]")
    mean = sum(x) / n
    if _is_binary(x):
        low, high = wilson_interval(round(sum(x)), n, z)
        return {"value": mean, "ci95": [low, high], "n": n, "method": "wilson"}
    low, high = 0.0, 1.0
    if n >= 2:
        low, high = normal_interval(x, z)["ci95"]
        low, high = max(0.0, low), min(1.0, high)
    return {"value": mean, "ci95": [low, high], "n": n, "method": "normal, clipped to [0, 1]"}


def normal_interval(values: list[float], z: float = 1.959964) -> dict:
    """Mean of per-deal values with the normal 95% interval (not clipped)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "ci95": [mean, mean] if n else [0.0, 0.0], "n": n}
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": n}


def ratio_interval(numerators: list[float], denominators: list[float],
                    z: float = 1.959964) -> dict:  # fmt: skip
    """sum(numerators) / sum(denominators) with a 95% interval over the pairs (the delta
    method: the pairs are the deals, each a sum over its games)."""
    n = len(numerators)
    ratio = sum(numerators) / sum(denominators)
    if n < 2:
        return {"mean": ratio, "ci95": [ratio, ratio], "n": n}
    mean_den = sum(denominators) / n
    residuals = [a - ratio * b for a, b in zip(numerators, denominators, strict=True)]
    var = sum(r * r for r in residuals) / (n - 1)
    half = z * math.sqrt(var / n) / mean_den
    return {"mean": ratio, "ci95": [ratio - half, ratio + half], "n": n}


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
