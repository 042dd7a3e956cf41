"""MkDocs hook: the benchmark page's tables come from the benchmark's own JSON reports.

One source: ``reports/benchmark/<agent>.json`` (written by ``commoncause benchmark --json``)
and ``reports/benchmark/zoo_matrix.json`` (``commoncause benchmark --zoo-matrix --json``) are
rendered wherever a page says ``<!-- benchmark: zoo -->`` (the partners and their
conventions), ``<!-- benchmark: matrix -->`` (the zoo's cross-play) or ``<!-- benchmark:
leaderboard -->`` (one row per report).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports" / "benchmark"
MARK = re.compile(r"<!-- benchmark: (zoo|matrix|leaderboard) -->")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _ci(figure: dict, key: str = "ci") -> str:
    low, high = figure[key]
    return f"{_pct(figure['win_rate'])} [{_pct(low)}, {_pct(high)}]"


def reports() -> list[dict]:
    """Every agent's benchmark report, in leaderboard order (best ad-hoc test score first)."""
    out = [json.loads(p.read_text()) for p in sorted(REPORTS.glob("*.json"))]
    out = [r for r in out if "agent" in r]
    return sorted(out, key=lambda r: -r["adhoc"].get("test", {}).get("win_rate", -1))


def zoo_table() -> str:
    partners = json.loads((REPORTS / "baseline.json").read_text())["partners"]
    rows = ["| partner | split | kind | member | convention |", "|---|---|---|---|---|"]
    rows += [
        f"| `{p['name']}` | {p['split']} | {p['kind']} | `{p['member']}` | {p['convention']} |"
        for p in partners
    ]
    return "\n".join(rows)


def matrix_table() -> str:
    m = json.loads((REPORTS / "zoo_matrix.json").read_text())
    names = [f"{n} ({s})" for n, s in zip(m["partners"], m["splits"], strict=True)]
    rows = ["| seat 0 \\ seat 1 | " + " | ".join(m["partners"]) + " |"]
    rows.append("|---" * (len(names) + 1) + "|")
    for name, row in zip(names, m["win_rate"], strict=True):
        rows.append(f"| {name} | " + " | ".join(_pct(x) for x in row) + " |")
    split = m["with_split"]
    rows.append("")
    rows.append(
        f"Every zoo member with a train partner: {_ci(split['train'])}; with a test partner: "
        f"{_ci(split['test'])} (percent, {m['games']:,} deals a pairing, seed {m['seed']})."
    )
    return "\n".join(rows)


def leaderboard_table() -> str:
    rows = [
        "| agent | ad-hoc test | ad-hoc train | self-play | W_blind | message value | "
        "causal influence (bits) | deals |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in reports():
        s = r["signalling"]
        mv = s["message_value"]
        adhoc = r["adhoc"]
        test = _ci(adhoc["test"]) if "test" in adhoc else "-"
        train = _ci(adhoc["train"]) if "train" in adhoc else "-"
        rows.append(
            f"| `{r['agent']}` | {test} | {train} | {_ci(r['self_play'])} | "
            f"{_pct(s['W_blind'])} | {100 * mv['value']:+.1f} | "
            f"{s['causal_influence_bits']['value']:.3f} | {r['games']:,} |"
        )
    return "\n".join(rows)


TABLES = {"zoo": zoo_table, "matrix": matrix_table, "leaderboard": leaderboard_table}


def on_page_markdown(markdown: str, page, config, files):
    """Expand the benchmark markers into their tables."""
    return MARK.sub(lambda m: TABLES[m[1]](), markdown)
