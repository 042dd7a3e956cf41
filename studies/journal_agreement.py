"""Where two evaluation journals (``commoncause eval --journal``) of the same table and seed
played a deal alike: a check that an option changes play only where it should (a search
``horizon`` only where some rollout would have run past it).

For the deals both journals hold it counts those with the same results in every seat
rotation and lists the others, with the first member's going-out count in each journal::

    python studies/journal_agreement.py A.jsonl B.jsonl [--json F]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.journal import read_journal  # noqa: E402


def agreement(a: Path, b: Path) -> dict:
    """Deals both journals hold, how many were played alike, and the others (deal, the
    first member's hands out in ``a`` and in ``b``)."""
    (run_a, deals_a), (run_b, deals_b) = read_journal(a), read_journal(b)
    for key in ("game", "config", "seed"):
        if run_a.get(key) != run_b.get(key):
            raise ValueError(f"{a} and {b} are not of the same table: {key} differs")
    both = sorted(set(deals_a) & set(deals_b))
    differ = [i for i in both if deals_a[i] != deals_b[i]]

    def out(deal: list) -> float:
        return sum(r.stats.get("went_out", 0.0) for r in deal if r.member == 0)

    return {
        "journals": [str(a), str(b)],
        "deals_in_both": len(both),
        "alike": len(both) - len(differ),
        "differ": [{"deal": i, "out_a": out(deals_a[i]), "out_b": out(deals_b[i])} for i in differ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    try:
        report = agreement(args.a, args.b)
    except (ValueError, OSError) as error:
        print(f"journal_agreement: error: {error}", file=sys.stderr)
        return 2
    print(f"{report['alike']} of {report['deals_in_both']} deals played alike")
    for row in report["differ"]:
        print(f"  deal {row['deal']}: first member out {row['out_a']:g} vs {row['out_b']:g}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
