"""``analyze``: play every condition on the same deals and compute the figures
(``figures.json``)."""

from __future__ import annotations

import time
from collections.abc import Callable

from commoncause.agents.stats import paired_difference, rate
from commoncause.envs.common_cause.rules import GameConfig

from .ceiling import ceiling_team
from .format import headline, team_name
from .interventions import CATEGORY_NAMES, LABEL_TEXT, RESPONSE_NAMES
from .measures import (
    convention_counts,
    listening_measures,
    signalling_measures,
    win_figure,
    win_string,
)
from .runs import BASELINE, RunData, RunSpec, play_ceiling, play_runs
from .stats import efficiency, pool_cross_play


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
    ceiling_games: int = 0,
) -> dict:
    """Play every condition on the same deals and return the figures (``figures.json``);
    with ``ceiling_games``, the team's search ceiling on that many first deals."""
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
            "ceiling_games": min(ceiling_games, games),
            "workers": workers,
        }
    }
    win_rates = {}
    per_source = {}
    for key, t in sources.items():
        w, blind, total = get(t), get(t, "blind"), get(t, "total")
        win_rates[key] = win_figure(w, f"{team_name(t)}")
        win_rates[f"{key}_blind"] = win_figure(blind, f"{team_name(t)}, listener blind")
        win_rates[f"{key}_total"] = win_figure(total, f"{team_name(t)}, random discards")
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
            win_rates[key] = win_figure(get(t), team_name(t))
            win_rates[key]["vs_team"] = paired_difference(get(t).wins, get(team).wins)
    figures["win_rates"] = win_rates
    figures["interventions"] = per_source

    if open_team:
        w_open = get(open_team, open_hands=True)
        win_rates["open"] = win_figure(w_open, f"{team_name(open_team)}, open hands")
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

    if ceiling_games:
        n = min(ceiling_games, games)
        wins = play_ceiling(team, config, n, seed, workers)
        blueprints, options = ceiling_team(team)
        win_rates["ceiling"] = rate(wins.sum(), n) | {
            "label": f"search on the true deal ({options.text()}; blueprints "
            f"{', '.join(blueprints)})",
            "team": list(blueprints),
            "wins_by_game": win_string(wins),
            "vs_team": paired_difference(wins, get(team).wins[:n]),
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
