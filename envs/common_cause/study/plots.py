"""The report's PNG plots (matplotlib, Agg backend)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from .format import pct, short, team_name
from .interventions import LABEL_NAMES
from .runs import BASELINE


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _err(values, cis):
    values = np.asarray(values, dtype=np.float64)
    lows = np.array([c[0] for c in cis], dtype=np.float64)
    highs = np.array([c[1] for c in cis], dtype=np.float64)
    return np.nan_to_num(np.stack([values - lows, highs - values]).clip(min=0))


def plot_win_rates(fig: dict, path: Path) -> dict:
    plt = _plt()
    wr = fig["win_rates"]
    order = ["team", "team_blind", "team_total", "a_with_baseline", "baseline_with_b"]
    if fig["meta"]["team"] != list(BASELINE):
        order += ["baseline", "baseline_blind", "baseline_total"]
    if "open" in wr:
        order.append("open")
    order = [k for k in dict.fromkeys(order) if k in wr]
    labels = [wr[k]["label"] for k in order]
    values = [wr[k]["value"] for k in order]
    colors = {"normal": "tab:blue", "blind": "tab:orange", "total": "tab:red"}
    f, ax = plt.subplots(figsize=(8, 0.45 * len(order) + 1.6))
    y = np.arange(len(order))[::-1]
    ax.barh(
        y,
        values,
        xerr=_err(values, [wr[k]["ci95"] for k in order]),
        capsize=3,
        color=[("tab:green" if wr[k]["open_hands"] else colors[wr[k]["mode"]]) for k in order],
    )
    for yi, k in zip(y, order, strict=True):
        ax.text(wr[k]["ci95"][1] + 0.015, yi, pct(wr[k]["value"]), va="center", fontsize=8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (95% Wilson interval)")
    ax.set_title(f"Win rates on the same {fig['meta']['games']} deals")
    ax.grid(axis="x", alpha=0.3)
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)
    return {"title": ax.get_title(), "bars": {wr[k]["label"]: wr[k]["value"] for k in order}}


def plot_listening(fig: dict, path: Path) -> dict:
    plt = _plt()
    lis = fig["listening"]
    keys = list(lis)
    names = {"team": team_name(tuple(fig["meta"]["team"])), "baseline": "baseline+baseline"}
    rate_keys = [
        ("pickup_rate_when_takeable", "pickup rate\n(when takeable)"),
        ("response_rate_draw", "response rate\n(draw decision)"),
        ("response_rate_all", "response rate\n(all decisions)"),
    ]
    kl_keys = [
        ("causal_influence_bits_draw", "draw decision"),
        ("causal_influence_bits_all", "all decisions"),
    ]
    f, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios": [3, 2]})
    width = 0.8 / len(keys)
    data = {}
    for i, k in enumerate(keys):
        vals = [lis[k][m]["value"] for m, _ in rate_keys]
        cis = [lis[k][m]["ci95"] for m, _ in rate_keys]
        x = np.arange(len(rate_keys)) + i * width
        a1.bar(x, vals, width, yerr=_err(vals, cis), capsize=3, label=names[k])
        kv = [lis[k][m]["value"] for m, _ in kl_keys]
        kc = [lis[k][m]["ci95"] for m, _ in kl_keys]
        a2.bar(
            np.arange(len(kl_keys)) + i * width,
            kv,
            width,
            yerr=_err(kv, kc),
            capsize=3,
            label=names[k],
        )
        data[names[k]] = {m: lis[k][m]["value"] for m, _ in rate_keys + kl_keys}
    a1.set_xticks(
        np.arange(len(rate_keys)) + width * (len(keys) - 1) / 2,
        [t for _, t in rate_keys],
        fontsize=8,
    )
    a1.set_ylabel("share")
    a1.set_ylim(0, 1)
    a1.set_title("Listening: does the discard change what the partner does?", fontsize=10)
    a1.legend(fontsize=8)
    a2.set_xticks(
        np.arange(len(kl_keys)) + width * (len(keys) - 1) / 2, [t for _, t in kl_keys], fontsize=8
    )
    a2.set_ylabel("bits per decision")
    a2.set_title("Causal influence of the discard (KL)", fontsize=10)
    for ax in (a1, a2):
        ax.grid(axis="y", alpha=0.3)
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)
    return {"title": "Listening: pickup rate, response rate, causal influence", "bars": data}


def plot_signalling(fig: dict, path: Path) -> dict:
    plt = _plt()
    sig = fig["signalling"]
    team = team_name(tuple(fig["meta"]["team"]))
    series = [("team", team), ("team_random_discards", f"{team}, random discards")]
    if "baseline" in fig["listening"] and "baseline" in sig and team != team_name(BASELINE):
        series += [
            ("baseline", "baseline+baseline"),
            ("baseline_random_discards", "baseline, random discards"),
        ]
    f, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(series)
    x = np.arange(len(LABEL_NAMES))
    data = {}
    for i, (key, name) in enumerate(series):
        res = [sig[key].get(label) for label in LABEL_NAMES]
        mi = [r["mi_bits"] if r else np.nan for r in res]
        mi_ci = [r["mi_ci95"] if r else (np.nan, np.nan) for r in res]
        acc = [r["accuracy"] if r else np.nan for r in res]
        acc_ci = [r["accuracy_ci95"] if r else (np.nan, np.nan) for r in res]
        a1.bar(x + i * width, np.nan_to_num(mi), width, yerr=_err(mi, mi_ci), capsize=3, label=name)
        a2.bar(
            x + i * width, np.nan_to_num(acc), width, yerr=_err(acc, acc_ci), capsize=3, label=name
        )
        major = [r["majority_accuracy"] if r else np.nan for r in res]
        a2.scatter(
            x + i * width,
            major,
            marker="D",
            s=18,
            color="black",
            zorder=4,
            label="always guessing the majority" if i == 0 else None,
        )
        data[name] = {
            label: (
                r
                and {
                    "mi_bits": r["mi_bits"],
                    "accuracy": r["accuracy"],
                    "majority_accuracy": r["majority_accuracy"],
                }
            )
            for label, r in zip(LABEL_NAMES, res, strict=True)
        }
    for ax in (a1, a2):
        ax.set_xticks(x + width * (len(series) - 1) / 2, LABEL_NAMES, fontsize=8)
        ax.set_xlabel("label about the speaker's hand")
        ax.grid(axis="y", alpha=0.3)
    a1.set_ylabel("bits per discard (held-out)")
    a1.set_title("Signalling: information the discard adds beyond public context", fontsize=10)
    a1.axhline(0, color="black", linewidth=0.8)
    a1.legend(fontsize=7)
    a2.set_ylabel("held-out accuracy")
    a2.set_ylim(0, 1.3)
    a2.set_yticks(np.linspace(0, 1, 6))
    a2.set_title("Probe accuracy vs always guessing the majority", fontsize=10)
    a2.legend(fontsize=7, loc="upper center", ncol=2)
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)
    return {"title": "Signalling probes: bits and accuracy per label", "bars": data}


def plot_conventions(fig: dict, path: Path) -> dict:
    plt = _plt()
    conv = fig["conventions"]
    keys = [k for k in ("team", "baseline") if k in conv]
    names = {"team": team_name(tuple(fig["meta"]["team"])), "baseline": "baseline+baseline"}
    f, axes = plt.subplots(1, len(keys), figsize=(6.2 * len(keys), 4.2), squeeze=False)
    data = {}
    for ax, k in zip(axes[0], keys, strict=True):
        counts = np.array(conv[k], dtype=np.float64)
        shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        ax.imshow(shares, cmap="Blues", vmin=0, vmax=1)
        for i in range(shares.shape[0]):
            for j in range(shares.shape[1]):
                text = f"{100 * shares[i, j]:.0f}%\n(n={int(counts[i, j])})"
                ax.text(
                    j,
                    i,
                    text if counts[i].sum() else "-",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if shares[i, j] > 0.6 else "black",
                )
        ax.set_xticks(
            range(len(conv["columns"])), [textwrap.fill(c, 12) for c in conv["columns"]], fontsize=7
        )
        rows = [
            f"{textwrap.fill(r, 18)}\n(n={int(n)})"
            for r, n in zip(conv["rows"], counts.sum(1), strict=True)
        ]
        ax.set_yticks(range(len(rows)), rows, fontsize=7)
        ax.set_xlabel("listener's next turn")
        ax.set_ylabel("the speaker's discard")
        ax.set_title(f"{names[k]}: what the listener does next (row %)", fontsize=10)
        data[names[k]] = shares.round(4).tolist()
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)
    return {"title": "Conventions: listener's next turn by discard category", "row_shares": data}


def plot_cross_play(fig: dict, path: Path) -> dict:
    plt = _plt()
    cp = fig["cross_play"]
    names = [short(m) for m in cp["members"]]
    matrix = np.array(cp["win_rate"])
    f, ax = plt.subplots(figsize=(1.3 * len(names) + 2.5, 1.1 * len(names) + 1.8))
    im = ax.imshow(matrix, cmap="viridis", vmin=0, vmax=1)
    for i in range(len(names)):
        for j in range(len(names)):
            lo, hi = cp["ci95"][i][j]
            ax.text(
                j,
                i,
                f"{100 * matrix[i, j]:.0f}%\n[{100 * lo:.0f}-{100 * hi:.0f}]",
                ha="center",
                va="center",
                fontsize=7,
                color="black" if matrix[i, j] > 0.6 else "white",
            )
    ax.set_xticks(range(len(names)), names, fontsize=7, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xlabel("seat 1 partner")
    ax.set_ylabel("seat 0 (begins)")
    ax.set_title(f"Cross-play win rate ({fig['meta']['games']} deals per pair)", fontsize=10)
    f.colorbar(im, ax=ax, label="win rate")
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)
    return {"title": ax.get_title(), "members": names, "win_rate": cp["win_rate"]}
