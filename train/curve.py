"""The training curve: evaluated win rate against steps, with the baseline team's rate (a team
game), or the trained seat's return minus the baselines' against steps (a competitive game:
``baseline_win_rate`` is absent from its evaluations)."""

from __future__ import annotations

from pathlib import Path


def plot_training_curve(evaluations: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not evaluations:
        return
    steps = [e["step"] for e in evaluations]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.fill_between(steps, [e["ci95"][0] for e in evaluations], [e["ci95"][1] for e in evaluations],
                    alpha=0.25, label="95% interval")  # fmt: skip
    team = "baseline_win_rate" in evaluations[-1]
    games = evaluations[-1]["games"]
    if team:
        ax.plot(steps, [e["win_rate"] for e in evaluations], marker="o", label="trained team")
        ax.plot(steps, [e["baseline_win_rate"] for e in evaluations], linestyle="--",
                color="grey", label="baseline team (same deals)")  # fmt: skip
        ax.set_ylabel(f"win rate ({games} games per point)")
    else:
        ax.plot(steps, [e["win_rate"] for e in evaluations], marker="o",
                label="trained seat minus the baselines")  # fmt: skip
        ax.axhline(0.0, linestyle="--", color="grey", label="parity with the baselines")
        ax.set_ylabel(f"return per game vs baselines ({games} games per point)")
    ax.set_xlabel("self-play steps (learner decisions)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
