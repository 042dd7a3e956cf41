"""Signalling probes: how much a discard tells about the speaker's hand.

A probe is an L2-regularised logistic regression (numpy, Newton steps) that predicts a
binary label about the speaker's hand from features of the discard. It is fitted on one set
of games and scored on other, held-out games. Two probes are compared on the same events:

* ``context``: public context only (open starts, stock, hand sizes, ...);
* ``full``: the same context plus the discard (card one-hot and its category on the table).

The information the discard carries is estimated as the drop in held-out cross-entropy,
``CE(context) - CE(full)`` in bits per discard: a variational estimate of the conditional
mutual information I(label; discard | context) (it can come out slightly negative when the
discard tells nothing and the larger probe overfits). ``H(label) - CE(full)`` is the
information in discard and context together. Intervals: bootstrap over held-out games.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

_EPS = 1e-6


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 50) -> np.ndarray:
    """Weights (intercept first) of a logistic regression of ``y`` (0/1) on ``x``, by Newton's
    method on the summed log loss plus ``l2`` / 2 times the squared weights (not the
    intercept)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    xb = np.hstack([np.ones((len(x), 1)), x])
    reg = np.full(xb.shape[1], float(l2))
    reg[0] = 1e-8
    w = np.zeros(xb.shape[1])
    for _ in range(iters):
        p = _sigmoid(xb @ w)
        grad = xb.T @ (p - y) + reg * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return w


def predict(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(label = 1) for each row of ``x``."""
    return _sigmoid(np.asarray(x, dtype=np.float64) @ w[1:] + w[0])


def _ce_bits(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    p = np.clip(p, _EPS, 1 - _EPS)
    return -(y * np.log2(p) + (1 - y) * np.log2(1 - p))


@dataclass
class ProbeResult:
    label: str
    train_events: int
    test_events: int
    base_rate: float  # share of label 1 in the held-out events
    accuracy: float  # full probe, held-out
    accuracy_ci95: tuple[float, float]
    majority_accuracy: float  # always the training set's majority class
    context_accuracy: float  # the context-only probe
    entropy_bits: float  # held-out CE of the training base rate (H(label))
    mi_bits: float  # CE(context) - CE(full): what the discard adds
    mi_ci95: tuple[float, float]
    total_bits: float  # H(label) - CE(full): discard and context together
    total_ci95: tuple[float, float]

    def to_json(self) -> dict:
        return asdict(self)


def _bootstrap(sums: np.ndarray, stat, resamples: int, seed: int) -> tuple[float, float]:
    """95% percentile interval of ``stat(column totals)`` over games resampled with
    replacement (``sums``: one row of per-game totals per game)."""
    if len(sums) < 2:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(len(sums), np.full(len(sums), 1 / len(sums)), size=resamples)
    totals = counts @ sums
    values = np.array([stat(t) for t in totals])
    values = values[np.isfinite(values)]
    if not len(values):
        return (float("nan"), float("nan"))
    low, high = np.percentile(values, [2.5, 97.5])
    return (float(low), float(high))


def probe(
    label: str,
    context: np.ndarray,
    message: np.ndarray,
    y: np.ndarray,
    games: np.ndarray,
    test: np.ndarray,
    l2: float = 1.0,
    resamples: int = 1000,
    seed: int = 0,
) -> ProbeResult | None:
    """Fit the context-only and full probes on the events with ``test`` False and score
    them on the events with ``test`` True (whole games on one side: the caller splits by
    game). ``context`` (n, c) may have zero columns; ``message`` (n, m) are the discard's
    features; ``games`` the game index of each event (the bootstrap resamples games).
    None if either side has no events."""
    y = np.asarray(y, dtype=np.float64)
    test = np.asarray(test, dtype=bool)
    train = ~test
    if not train.any() or not test.any():
        return None
    full = np.hstack([context, message])
    w_full = fit_logistic(full[train], y[train], l2)
    w_ctx = fit_logistic(context[train], y[train], l2)
    rate = float(np.clip(y[train].mean(), _EPS, 1 - _EPS))
    yt = y[test]
    p_full = predict(w_full, full[test])
    p_ctx = predict(w_ctx, context[test])
    ce_full, ce_ctx = _ce_bits(p_full, yt), _ce_bits(p_ctx, yt)
    ce_base = _ce_bits(np.full(len(yt), rate), yt)
    majority = float(rate >= 0.5)
    correct = ((p_full >= 0.5) == (yt == 1)).astype(np.float64)
    correct_ctx = ((p_ctx >= 0.5) == (yt == 1)).astype(np.float64)
    correct_major = (yt == majority).astype(np.float64)
    # per-game totals: events, correct (full), CE full, CE context, CE base rate
    _, game_ix = np.unique(games[test], return_inverse=True)
    columns = np.stack([np.ones(len(yt)), correct, ce_full, ce_ctx, ce_base], axis=1)
    sums = np.zeros((game_ix.max() + 1, columns.shape[1]))
    np.add.at(sums, game_ix, columns)
    n = len(yt)
    return ProbeResult(
        label=label,
        train_events=int(train.sum()),
        test_events=n,
        base_rate=float(yt.mean()),
        accuracy=float(correct.mean()),
        accuracy_ci95=_bootstrap(sums, lambda t: t[1] / t[0], resamples, seed),
        majority_accuracy=float(correct_major.mean()),
        context_accuracy=float(correct_ctx.mean()),
        entropy_bits=float(ce_base.sum() / n),
        mi_bits=float((ce_ctx.sum() - ce_full.sum()) / n),
        mi_ci95=_bootstrap(sums, lambda t: (t[3] - t[2]) / t[0], resamples, seed + 1),
        total_bits=float((ce_base.sum() - ce_full.sum()) / n),
        total_ci95=_bootstrap(sums, lambda t: (t[4] - t[2]) / t[0], resamples, seed + 2),
    )
