"""Figures as text: percentages, intervals, bits, member names, the reproduce command
and the headline table."""

from __future__ import annotations

import math
import shlex
from pathlib import Path

from .interventions import LABEL_NAMES, LABEL_TEXT


def short(member: str) -> str:
    """A member's display name: a checkpoint path shortened to its folder for ``best.pt``
    (``checkpoints/normal_seed11/best.pt``: ``normal_seed11``), else to its last two parts."""
    if member.endswith(".pt"):
        path = Path(member)
        if path.name == "best.pt" and path.parent.name not in ("", "checkpoints"):
            return path.parent.name
        return "/".join([p for p in path.parts if p != "checkpoints"][-2:])
    return member


def team_name(team: tuple[str, str]) -> str:
    return "+".join(short(m) for m in team)


def pct(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{100 * x:.1f}%"


def ci_pct(ci) -> str:
    return "n/a" if not all(map(math.isfinite, ci)) else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def pts(d: dict) -> str:
    return f"{100 * d['value']:+.1f} pts {ci_pct(d['ci95'])}"


def bits(d: dict | None, key: str = "mi_bits", ci: str = "mi_ci95") -> str:
    if d is None:
        return "n/a"
    if d.get("base_rate") in (0.0, 1.0):
        return f"n/a: never {'false' if d['base_rate'] else 'true'}"
    low, high = d[ci]
    return f"{d[key]:.3f} [{low:.3f}, {high:.3f}]"


def rate_text(r: dict) -> str:
    return f"{pct(r['value'])} {ci_pct(r['ci95'])}"


def reproduce_command(meta: dict) -> str:
    """The ``commoncause analyze`` command line that recomputes these figures."""
    parts = ["commoncause", "analyze", "--team", ",".join(meta["team"])]
    parts += ["--level", meta["level"], "--games", str(meta["games"]), "--seed", str(meta["seed"])]
    if meta["listen_games"] != meta["games"]:
        parts += ["--listen-games", str(meta["listen_games"])]
    if meta["open_team"]:
        parts += ["--open-team", ",".join(meta["open_team"])]
    if meta["cross_play"]:
        parts += ["--cross-play", ",".join(meta["cross_play"])]
    if meta.get("ceiling_games"):
        parts += ["--ceiling-games", str(meta["ceiling_games"])]
    return shlex.join(parts)


def headline(fig: dict) -> list[dict]:
    """The headline rows: a measure, its value per column (team, baseline team) as text."""
    wr, iv, lis, sig = fig["win_rates"], fig["interventions"], fig["listening"], fig["signalling"]
    keys = [k for k in ("team", "baseline") if k in lis]
    rows = []

    def add(measure: str, value, meaning: str) -> None:
        """``value(k)``: the text for column k (the team's column only if not callable)."""
        texts = {k: value(k) for k in keys} if callable(value) else {"team": value}
        rows.append(
            {"measure": measure, "values": texts, "text": texts["team"], "meaning": meaning}
        )

    add("Win rate W", lambda k: rate_text(wr[k]), "the team as it plays")
    for key, what in (
        ("a_with_baseline", "A with a baseline partner"),
        ("baseline_with_b", "a baseline partner with B"),
    ):
        if key in wr:
            text = f"{rate_text(wr[key])}; vs W {pts(wr[key]['vs_team'])}"
            add(f"Win rate, mixed: {wr[key]['label']}", text, f"{what} (seat 0 begins)")
    add(
        "W_blind: listener sees a random other discard",
        lambda k: rate_text(wr[f"{k}_blind"]),
        "the real game unchanged; only the listener's view of the last discard is corrupted",
    )
    add(
        "W_total: random discards",
        lambda k: rate_text(wr[f"{k}_total"]),
        "the speaker's discard itself replaced by a random legal one",
    )
    add(
        "Value of the message W - W_blind",
        lambda k: pts(iv[k]["message_value"]),
        "wins that come from reading the partner's discards",
    )
    add(
        "Value of hand management W_blind - W_total",
        lambda k: pts(iv[k]["hand_management_value"]),
        "wins from choosing what to throw away, with nobody reading it",
    )
    add(
        "Pickup rate of partner discards (when takeable)",
        lambda k: rate_text(lis[k]["pickup_rate_when_takeable"]),
        "how often the listener takes a discard it could place",
    )
    add(
        "Listener response rate (draw decision)",
        lambda k: rate_text(lis[k]["response_rate_draw"]),
        "share of swapped discards that change the listener's draw",
    )
    add(
        "Causal influence, bits (draw decision)",
        lambda k: bits(lis[k]["causal_influence_bits_draw"], "value", "ci95"),
        "KL: listener's draw given the discard vs averaged over the possible discards",
    )
    for label in LABEL_NAMES:
        add(
            f"Signal bits: {label}",
            lambda k, label=label: (
                f"{bits(sig[k].get(label))} (random discards: "
                f"{bits(sig[f'{k}_random_discards'].get(label))})"
            ),
            LABEL_TEXT[label],
        )
    if "open" in wr:
        add(
            "W_open: a team trained on open hands, played open",
            f"{rate_text(wr['open'])}; vs W {pts(wr['open']['vs_team'])}",
            "an empirical upper bound for the channel (both hands visible, stock hidden)",
        )
    if "ceiling" in wr:
        c = wr["ceiling"]
        add(
            f"W_ceiling: the search knowing the true deal (first {c['n']} deals)",
            f"{rate_text(c)}; vs W on those deals {pts(c['vs_team'])}",
            "cheating, a measurement only: what is left to win once the hidden cards are "
            "known (information), the rest is play",
        )
    eff = fig["efficiency"]
    if not eff["available"]:
        text = "not available (no --open-team)"
    elif math.isfinite(eff["efficiency"]["value"]):
        e = eff["efficiency"]
        low, high = e["ci95"]
        text = f"{e['value']:.2f} [{low:.2f}, {high:.2f}] (W_open {pct(eff['W_open'])})"
    else:
        text = f"undefined: W_open {pct(eff['W_open'])} is not above W_blind"
    add(
        "Communication efficiency (W - W_blind) / (W_open - W_blind)",
        text,
        "share of the open-hands advantage the channel recovers",
    )
    return rows
