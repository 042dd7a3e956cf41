"""The analysis' compositions of the interval statistics (``agents/stats.py``): the
bootstrapped efficiency ratio and the pooled cross-play."""

from __future__ import annotations

import math

import numpy as np

from commoncause.agents.stats import RESAMPLES, mean_interval, paired_difference


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
