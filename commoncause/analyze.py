"""``commoncause analyze``: does a team communicate through its discards, and how much?

Following Lowe et al. (2019), the report separates *listening* (the discard changes what the
partner does, measured by intervening on it) from *signalling* (the discard depends on the
speaker's private cards, measured with probes), and prices the channel with ablations:

* W: the team's win rate; W_blind: the listener sees a random other legal discard in place
  of the speaker's last one (the real game unchanged, ``agents.interventions``); W_total:
  the speaker's discards are random legal discards. W - W_blind is the value of the message,
  W_blind - W_total the value of the discard choice as hand management.
* W_open (``--open-team``): a team trained on open hands, on open hands: an empirical upper
  bound; efficiency = (W - W_blind) / (W_open - W_blind).
* Listening: pickup rate of the partner's discards, response rate and causal influence
  (Jaques et al. 2019) at the listener's decisions; signalling: probes (``agents.probes``);
  conventions: what the listener does next by the discard's category; cross-play.

Every condition plays the same deals (game ``i`` from ``deal_seed(seed, i)``), so every
comparison is paired. Output: ``report.md``, PNG plots and ``figures.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import textwrap
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from agents.evaluate import deal_seed, make_agent, paired_difference, parse_team, wilson_interval
from agents.interventions import (
    CATEGORY_NAMES,
    CONTEXT_SIZE,
    LABEL_NAMES,
    LABEL_TEXT,
    RESPONSE_NAMES,
    DiscardEvent,
    GameRecord,
    Listening,
    play_measured,
)
from agents.probes import probe
from envs.common_cause.actions import N_CARD_TYPES
from envs.common_cause.rules import LEVELS, GameConfig

DEFAULT_GAMES = 1000
RESAMPLES = 1000
BASELINE = ("baseline", "baseline")
Z = 1.959964

# ------------------------------------------------------------------- the CLI


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--team", required=True, help="two members, comma separated (A,B)")
    p.add_argument("--level", default="normal", help=f"one of {', '.join(LEVELS)}")
    p.add_argument("--games", type=int, default=DEFAULT_GAMES, help="deals per condition")
    p.add_argument("--seed", type=int, default=0, help="deal seed (same seed, same deals)")
    p.add_argument("--out", type=Path, help="output folder (default reports/<team>/)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--open-team", help="a team trained on open hands (C,D), played open")
    p.add_argument(
        "--cross-play", help="independently trained members (ckpt1,ckpt2,...) to pair up"
    )
    p.add_argument(
        "--listen-games",
        type=int,
        help="measure listening on the first N games only (default: all; it costs about "
        "one more run of the team)",
    )


def default_out(team: tuple[str, str]) -> Path:
    def slug(member: str) -> str:
        path = Path(member)
        if member.endswith(".pt"):
            member = f"{path.parent.name}-{path.stem}" if path.parent.name else path.stem
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", member).strip("_") or "member"

    return Path("reports") / "+".join(slug(m) for m in team)


def run(args: argparse.Namespace) -> int:
    team = parse_team(args.team)
    open_team = parse_team(args.open_team) if args.open_team else None
    cross = [m.strip() for m in args.cross_play.split(",")] if args.cross_play else []
    if args.cross_play and (len(cross) < 2 or not all(cross)):
        raise ValueError("--cross-play needs at least two members, comma separated")
    for member in cross:
        make_agent(member)
    if args.games < 2:
        raise ValueError(f"--games must be at least 2, got {args.games}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.listen_games is not None and args.listen_games < 0:
        raise ValueError(f"--listen-games must not be negative, got {args.listen_games}")
    config = GameConfig.make(args.level)
    out = args.out or default_out(team)
    bar, advance = _progress()
    with bar:
        figures = analyze(
            team,
            config,
            args.games,
            args.seed,
            args.workers,
            level=args.level,
            open_team=open_team,
            cross_play=cross,
            listen_games=args.listen_games,
            progress=advance,
        )
    write_report(figures, out)
    print(f"wrote {out / 'report.md'}, {out / 'figures.json'} and the plots")
    for row in figures["headline"][:4]:
        print(f"  {row['measure']}: {row['text']}")
    return 0


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    bar = Progress(TextColumn("analyze"), BarColumn(), MofNCompleteColumn(), transient=True)
    state: dict = {}

    def advance(done: int, total: int) -> None:
        if "task" not in state:
            state["task"] = bar.add_task("games", total=total)
        bar.update(state["task"], completed=done, total=total)

    return bar, advance


# ---------------------------------------------------------------- playing games


@dataclass(frozen=True)
class RunSpec:
    """One condition: a team, an intervention mode, and whether hands are open."""

    team: tuple[str, str]
    mode: str = "normal"
    open_hands: bool = False


@dataclass
class RunData:
    spec: RunSpec
    wins: np.ndarray  # 0/1 per game
    turns: np.ndarray
    pickups: np.ndarray
    events: list[tuple[int, DiscardEvent]]  # (game, event)
    listening: list[tuple[int, Listening]]  # (game, decision)
    corrupted: int
    fallbacks: int


_agents: dict[tuple[str, int], object] = {}  # (member, seat) -> agent, per process


def _init_worker() -> None:
    _agents.clear()


def _agent(member: str, seat: int):
    key = (member, seat)
    if key not in _agents:
        _agents[key] = make_agent(member)
    return _agents[key]


def _play_chunk(job: tuple) -> tuple[RunSpec, int, list[GameRecord]]:
    spec, config, seed, first, count, collect, listen_games = job
    agents = (_agent(spec.team[0], 0), _agent(spec.team[1], 1))
    records = [
        play_measured(
            config, agents, deal_seed(seed, i), spec.mode, collect, listen=i < listen_games
        )
        for i in range(first, first + count)
    ]
    return spec, first, records


def play_runs(
    runs: dict[RunSpec, tuple[bool, int]],
    config: GameConfig,
    games: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[RunSpec, RunData]:
    """Play every run (spec -> (collect events, listening games)) on games 0..games-1."""
    size = max(1, min(50, games // (workers * 8) or 1))
    jobs = []
    for spec, (collect, listen) in runs.items():
        cfg = replace(config, open_hands=True) if spec.open_hands else config
        for first in range(0, games, size):
            jobs.append((spec, cfg, seed, first, min(size, games - first), collect, listen))
    records: dict[RunSpec, list[GameRecord | None]] = {s: [None] * games for s in runs}
    total, done = games * len(runs), 0

    def store(result) -> None:
        nonlocal done
        spec, first, recs = result
        records[spec][first : first + len(recs)] = recs
        done += len(recs)
        if progress:
            progress(done, total)

    if workers == 1:
        _init_worker()
        for job in jobs:
            store(_play_chunk(job))
    else:
        with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker) as pool:
            for future in as_completed([pool.submit(_play_chunk, job) for job in jobs]):
                store(future.result())
    out = {}
    for spec, recs in records.items():
        out[spec] = RunData(
            spec,
            np.array([r.win for r in recs], dtype=np.float64),
            np.array([r.turns for r in recs], dtype=np.float64),
            np.array([r.pickups for r in recs], dtype=np.float64),
            [(g, e) for g, r in enumerate(recs) for e in r.events],
            [(g, x) for g, r in enumerate(recs) for x in r.listening],
            sum(r.corrupted_decisions for r in recs),
            sum(r.blind_fallbacks for r in recs),
        )
    return out


# ------------------------------------------------------------------- statistics


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
    """Mean of per-deal values with a normal 95% interval over deals."""
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


# ------------------------------------------------------------------- measures


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


def _win(data: RunData, label: str) -> dict:
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


def short(member: str) -> str:
    """A member's display name: a checkpoint path shortened to its folder for ``best.pt``
    (``checkpoints/normal_seed11/best.pt``: ``normal_seed11``), else to its last two parts."""
    if member.endswith(".pt"):
        path = Path(member)
        if path.name == "best.pt" and path.parent.name not in ("", "checkpoints"):
            return path.parent.name
        return "/".join([p for p in path.parts if p != "checkpoints"][-2:])
    return member


def _name(team: tuple[str, str]) -> str:
    return "+".join(short(m) for m in team)


def analyze(
    team: tuple[str, str],
    config: GameConfig,
    games: int,
    seed: int = 0,
    workers: int = 1,
    level: str = "",
    open_team: tuple[str, str] | None = None,
    cross_play: list[str] | tuple[str, ...] = (),
    listen_games: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Play every condition on the same deals and return the figures (``figures.json``)."""
    start = time.perf_counter()
    listen_games = games if listen_games is None else min(listen_games, games)
    sources = {"team": team} | ({"baseline": BASELINE} if team != BASELINE else {})
    runs: dict[RunSpec, tuple[bool, int]] = {}

    def need(t, mode="normal", open_hands=False, collect=False, listen=0) -> RunSpec:
        spec = RunSpec(tuple(t), mode, open_hands)
        old = runs.get(spec, (False, 0))
        runs[spec] = (old[0] or collect, max(old[1], min(listen, games)))
        return spec

    for t in sources.values():
        need(t, collect=True, listen=listen_games)
        need(t, "blind")
        need(t, "total", collect=True)
    mixed = {"a_with_baseline": (team[0], "baseline"), "baseline_with_b": ("baseline", team[1])}
    for t in mixed.values():
        need(t)
    if open_team:
        need(open_team, open_hands=True)
    members = list(dict.fromkeys([*cross_play, "baseline"])) if cross_play else []
    for a in members:
        for b in members:
            need((a, b))
    data = play_runs(runs, config, games, seed, workers, progress)

    def get(t, mode="normal", open_hands=False) -> RunData:
        return data[RunSpec(tuple(t), mode, open_hands)]

    figures: dict = {
        "meta": {
            "team": list(team),
            "level": level or f"stock {config.stock_size}",
            "stock_size": config.stock_size,
            "games": games,
            "seed": seed,
            "deals": "game i is dealt from deal_seed(seed, i) = seed * 1000003 + i",
            "listen_games": listen_games,
            "open_team": list(open_team) if open_team else None,
            "cross_play": list(cross_play),
            "workers": workers,
        }
    }
    win_rates = {}
    per_source = {}
    for key, t in sources.items():
        w, blind, total = get(t), get(t, "blind"), get(t, "total")
        win_rates[key] = _win(w, f"{_name(t)}")
        win_rates[f"{key}_blind"] = _win(blind, f"{_name(t)}, listener blind")
        win_rates[f"{key}_total"] = _win(total, f"{_name(t)}, random discards")
        per_source[key] = {
            "team": list(t),
            "W": win_rates[key]["value"],
            "W_blind": win_rates[f"{key}_blind"]["value"],
            "W_total": win_rates[f"{key}_total"]["value"],
            "message_value": paired_difference(w.wins, blind.wins),
            "hand_management_value": paired_difference(blind.wins, total.wins),
            "total_value": paired_difference(w.wins, total.wins),
            "corrupted_decisions_per_game": blind.corrupted / games,
            "blind_takes_refused_per_game": blind.fallbacks / games,
        }
    if "baseline" not in sources:
        per_source["baseline"] = per_source["team"]
        for suffix in ("", "_blind", "_total"):
            win_rates[f"baseline{suffix}"] = win_rates[f"team{suffix}"]
    for key, t in mixed.items():
        if t != team:
            win_rates[key] = _win(get(t), _name(t))
            win_rates[key]["vs_team"] = paired_difference(get(t).wins, get(team).wins)
    figures["win_rates"] = win_rates
    figures["interventions"] = per_source

    if open_team:
        w_open = get(open_team, open_hands=True)
        win_rates["open"] = _win(w_open, f"{_name(open_team)}, open hands")
        win_rates["open"]["vs_team"] = paired_difference(w_open.wins, get(team).wins)
        figures["efficiency"] = {
            "available": True,
            "W_open": win_rates["open"]["value"],
            "open_team": list(open_team),
            "efficiency": efficiency(get(team).wins, get(team, "blind").wins, w_open.wins),
        }
    else:
        figures["efficiency"] = {
            "available": False,
            "reason": "no --open-team given (a team trained on the open-hands variant)",
        }

    figures["listening"] = {key: listening_measures(get(t), games) for key, t in sources.items()}
    figures["signalling"] = {
        "labels": LABEL_TEXT,
        "split": "probes fit on even-numbered games, scored on odd-numbered games",
    }
    for key, t in sources.items():
        figures["signalling"][key] = signalling_measures(get(t).events)
        figures["signalling"][f"{key}_random_discards"] = signalling_measures(
            get(t, "total").events
        )
    figures["conventions"] = {
        "rows": list(CATEGORY_NAMES),
        "columns": list(RESPONSE_NAMES),
    } | {key: convention_counts(get(t).events) for key, t in sources.items()}

    if members:
        matrix, cis = [], []
        for a in members:
            row = [rate(get((a, b)).wins.sum(), games) for b in members]
            matrix.append([r["value"] for r in row])
            cis.append([r["ci95"] for r in row])
        figures["cross_play"] = {
            "members": members,
            "rows": "seat 0 (begins)",
            "columns": "seat 1",
            "win_rate": matrix,
            "ci95": cis,
            "wins_by_game": [[win_string(get((a, b)).wins) for b in members] for a in members],
        } | pool_cross_play({(a, b): get((a, b)).wins for a in members for b in members}, members)
    else:
        figures["cross_play"] = None
    figures["meta"]["seconds"] = round(time.perf_counter() - start, 1)
    figures["headline"] = headline(figures)
    return figures


# ------------------------------------------------------------------- formatting


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


# ------------------------------------------------------------------------ plots


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
    names = {"team": _name(tuple(fig["meta"]["team"])), "baseline": "baseline+baseline"}
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
    team = _name(tuple(fig["meta"]["team"]))
    series = [("team", team), ("team_random_discards", f"{team}, random discards")]
    if "baseline" in fig["listening"] and "baseline" in sig and team != _name(BASELINE):
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
    names = {"team": _name(tuple(fig["meta"]["team"])), "baseline": "baseline+baseline"}
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


# ----------------------------------------------------------------------- report


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
    team = _name(tuple(meta["team"]))
    keys = [k for k in ("team", "baseline") if k in fig["listening"]]
    heads = {"team": "this team", "baseline": "baseline team"}
    level = meta["level"]
    lines = [
        f"# Does {team} talk through its discards? (Common Cause, {level}, stock "
        f"{meta['stock_size']})",
        "",
        f"{meta['games']:,} deals (seed {meta['seed']}); every condition plays the same deals, "
        "so differences are paired. Brackets: 95% intervals (Wilson for win and pickup rates; "
        "normal for paired differences; bootstrap over games for the rest).",
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
    if team == _name(BASELINE):
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
