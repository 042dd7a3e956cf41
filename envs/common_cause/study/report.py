"""The report: plots, ``figures.json`` and ``report.md`` with its verdicts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from .format import ci_pct, pct, pts, rate_text, reproduce_command, team_name
from .interventions import LABEL_NAMES, LABEL_TEXT
from .plots import (
    plot_conventions,
    plot_cross_play,
    plot_listening,
    plot_signalling,
    plot_win_rates,
)
from .runs import BASELINE


def write_report(fig: dict, out: Path) -> None:
    """Write the plots, ``figures.json`` and ``report.md`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    plots = {
        "win_rates.png": plot_win_rates(fig, out / "win_rates.png"),
        "listening.png": plot_listening(fig, out / "listening.png"),
        "signalling.png": plot_signalling(fig, out / "signalling.png"),
        "conventions.png": plot_conventions(fig, out / "conventions.png"),
    }
    if fig["cross_play"]:
        plots["cross_play.png"] = plot_cross_play(fig, out / "cross_play.png")
    fig["plots"] = plots
    (out / "figures.json").write_text(json.dumps(_finite(fig), indent=1) + "\n")
    (out / "report.md").write_text(report_markdown(fig))


def _finite(x):
    """JSON-safe: NaN and infinities become null."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite(v) for v in x]
    if isinstance(x, np.floating | np.integer):
        return _finite(x.item())
    return x


def _verdicts(fig: dict) -> list[str]:
    iv, lis, sig = fig["interventions"]["team"], fig["listening"]["team"], fig["signalling"]
    lines = []
    msg = iv["message_value"]
    resp = lis["response_rate_draw"]
    if msg["ci95"][0] > 0:
        lines.append(
            f"**Listening: yes.** Corrupting what the listener sees of the last discard loses "
            f"wins: W - W_blind = {pts(msg)}; the listener's draw changes for "
            f"{pct(resp['value'])} of swapped discards."
        )
    elif resp["value"] > 0 and resp["ci95"][0] > 0:
        lines.append(
            f"**Listening: the listener responds to the discard** ({pct(resp['value'])} of swaps "
            f"change its draw) **but this wins nothing measurable** ({pts(msg)})."
        )
    else:
        lines.append(f"**Listening: no evidence.** W - W_blind = {pts(msg)}.")
    strong = []
    for label in LABEL_NAMES:
        own, ctrl = sig["team"].get(label), sig["team_random_discards"].get(label)
        if own and ctrl and own["mi_ci95"][0] > ctrl["mi_ci95"][1]:
            strong.append(f"{label} ({own['mi_bits']:.3f} vs {ctrl['mi_bits']:.3f} bits)")
    if strong:
        lines.append(
            "**Signalling: yes.** The discard tells more about the speaker's hand than a random "
            "discard would for: " + ", ".join(strong) + "."
        )
    else:
        lines.append(
            "**Signalling: no evidence** beyond what any random discard from the hand reveals."
        )
    hm = iv["hand_management_value"]
    if hm["ci95"][1] < 0:
        lines.append(
            f"W_blind is *below* W_total ({pts(hm)}): with nobody reading them, the team's "
            "discards do worse than random ones. The discard policy is built around being read: "
            "it gives away cards (the one completing one's own start) that only pay off when "
            "the partner takes them."
        )
    lines += [v for v in (open_hands_verdict(fig), cross_play_verdict(fig["cross_play"])) if v]
    return lines


def open_hands_verdict(fig: dict) -> str | None:
    """What W_open says about the channel, or None without an open-hands team."""
    wr, eff = fig["win_rates"], fig["efficiency"]
    if "open" not in wr:
        return None
    gap = wr["open"]["vs_team"]
    if gap["ci95"][0] > 0:
        e = eff["efficiency"]
        return (
            f"**Open hands help:** W_open - W = {pts(gap)}; the channel recovers "
            f"{e['value']:.2f} [{e['ci95'][0]:.2f}, {e['ci95'][1]:.2f}] of the open team's lead "
            "over W_blind."
        )
    if gap["ci95"][1] < 0:
        return (
            f"**W_open is below W** ({pts(gap)}): the open-hands team plays worse than this "
            "one, so it bounds nothing and the efficiency is not meaningful."
        )
    return (
        f"**W_open is not above W** ({pts(gap)}): the open-hands team is no stronger than this "
        "one, so it bounds the channel only loosely. An efficiency near 1 says this team "
        "matches the best open-hands play found, not that the channel is perfect."
    )


def cross_play_verdict(cp: dict | None) -> str | None:
    """Whether the conventions transfer between independently trained members, judged by
    the interval of the share of self-play's lead (over a baseline partner) kept in
    cross-play; None without cross-play between at least two trained members."""
    if not cp or cp.get("kept") is None:
        return None
    lead, drop, kept = (
        cp["gaps"]["self_play_minus_with_baseline"],
        cp["gaps"]["self_play_minus_cross_play"],
        cp["kept"],
    )
    if lead["ci95"][0] <= 0 or not math.isfinite(kept["value"]):
        return (
            f"**Cross-play: transfer cannot be judged:** self-play is not clearly ahead of a "
            f"baseline partner ({pts(lead)})."
        )
    low, high = kept["ci95"]
    if low >= 0.75:
        verdict = "the conventions largely transfer"
    elif high <= 0.25:
        verdict = "the conventions do not transfer"
    else:
        verdict = "the conventions partly transfer"
    return (
        f"**Cross-play: {verdict}.** Self-play minus cross-play of independently trained "
        f"partners: {pts(drop)}; cross-play keeps {pct(kept['value'])} {ci_pct(kept['ci95'])} "
        f"of self-play's lead over a baseline partner ({pts(lead)})."
    )


def report_markdown(fig: dict) -> str:
    meta = fig["meta"]
    team = team_name(tuple(meta["team"]))
    keys = [k for k in ("team", "baseline") if k in fig["listening"]]
    heads = {"team": "this team", "baseline": "baseline team"}
    level = meta["level"]
    lines = [
        f"# Does {team} talk through its discards? (Common Cause, {level}, stock "
        f"{meta['stock_size']})",
        "",
        f"{meta['games']:,} deals (seed {meta['seed']}); every condition plays the same deals, "
        "so differences are paired. Brackets: 95% intervals (Wilson for win and pickup rates; "
        "Newcombe's paired score interval for differences of win rates; bootstrap over "
        "games for the rest).",
        "",
        "## Headline",
        "",
        "| measure | " + " | ".join(heads[k] for k in keys) + " | what it means |",
        "|---|" + "---:|" * len(keys) + "---|",
    ]
    for row in fig["headline"]:
        cells = " | ".join(row["values"].get(k, "") for k in keys)
        lines.append(f"| {row['measure']} | {cells} | {row['meaning']} |")
    lines += [""] + [f"- {v}" for v in _verdicts(fig)]
    if team == team_name(BASELINE):
        lines += [
            "",
            "This is the example report for the baseline team (the rule sheet's simple "
            "strategy). The report for the shipped checkpoint "
            "(`commoncause analyze --team trained,trained`) follows once "
            "`checkpoints/normal/best.pt` exists.",
        ]
    lines += [
        "",
        "## How to read it",
        "",
        "- *Speaker* and *listener*: every discard is a message from the player who made it "
        "to the partner, who moves next. Both players are both, turn by turn.",
        "- *W_blind* keeps the real game but shows the listener, while the speaker's last "
        "discard lies on top of the pile, a different card the speaker could have discarded "
        "(taken from the speaker's hidden hand, so the view stays consistent; older, buried "
        "discards are shown as they were). If the listener "
        "then reaches for a card it cannot really place, it draws from the stock instead "
        f"({fig['interventions']['team']['blind_takes_refused_per_game']:.2f} times a game "
        "here). *W_total* replaces the discard itself with a random legal one.",
        "- *Response rate*: at each listener decision while the discard is on top, the discard "
        "is swapped for each other card the speaker could have discarded; the share of swaps "
        "that change the listener's chosen move. *Causal influence*: KL (bits) between the "
        "listener's move distribution given the real discard and its average over all the "
        "speaker's possible discards (one-hot for deterministic agents such as the baseline). "
        + (
            f"Measured on the first {meta['listen_games']} deals."
            if meta["listen_games"] < meta["games"]
            else "Measured on every deal."
        ),
        "- *Signal bits*: a logistic-regression probe predicts a fact about the speaker's hand "
        "from public context, with and without the discard (card and category); the drop in "
        "held-out cross-entropy is the information the discard adds. *Random discards* is the "
        "channel-blind control: the same team with random legal discards (a discard always "
        "reveals a little: the card was in the hand).",
        "",
        "## Plots",
        "",
    ]
    captions = {
        "win_rates.png": "Win rates of every condition (blue: as played; orange: listener "
        "blind; red: random discards; green: open hands).",
        "listening.png": "Listening: how often the listener takes a discard it could place, "
        "how often swapping the discard changes its move, and the causal influence in bits.",
        "signalling.png": "Signalling probes, per label: bits the discard adds (left) and "
        "held-out accuracy against always guessing the majority (black diamonds).",
        "conventions.png": "Conventions: the listener's next turn (columns) by the category of "
        "the partner's discard (rows), as row percentages; '-': the team never made such a "
        "discard (a card it could place, it places).",
        "cross_play.png": "Cross-play: independently trained partners paired up (rows begin).",
    }
    for name, plot in fig["plots"].items():
        lines += [f"**{plot['title']}.** {captions[name]}", "", f"![{plot['title']}]({name})", ""]
    if fig["cross_play"]:
        cp = fig["cross_play"]
        lines += [
            "Cross-play, pooled per deal over the pairings of each group (intervals over "
            "deals): "
            + ", ".join(
                f"{k.replace('_', '-')} {rate_text(cp[k])}"
                for k in ("self_play", "cross_play", "with_baseline")
                if cp.get(k)
            )
            + ". A convention that transfers keeps cross-play close to self-play.",
            "",
        ]
        for k, gap in cp.get("gaps", {}).items():
            partner = k.removeprefix("self_play_minus_").replace("_", " ")
            lines += [
                f"- Self-play minus {partner}, paired by deal (each deal's mean over pairings): "
                f"{pts(gap)}.",
            ]
        lines += [""] if cp.get("gaps") else []
    lines += [
        "## Notes",
        "",
        f"- Labels: own_completer = {LABEL_TEXT['own_completer']}; fits_listener = "
        f"{LABEL_TEXT['fits_listener']}; linked = {LABEL_TEXT['linked']}. Probes fit on "
        "even-numbered deals, scored on odd ones.",
        "- Discard categories (first match): completes the speaker's own open start (the "
        "sheet's message), completes one of the listener's own open starts, fits a complete "
        "meld, other. A joker fits everything.",
        "- Communication efficiency needs W_open, a team trained on the open-hands variant "
        "(`--open-team`); "
        + (
            "given here."
            if fig["efficiency"]["available"]
            else "not given here, so it is reported as not available."
        ),
        f"- Everything is in `figures.json`; {meta['seconds']:.0f} s to compute. "
        f"Reproduce: `{reproduce_command(meta)}`.",
        "",
    ]
    return "\n".join(lines)
