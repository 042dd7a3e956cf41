"""Export a run's checkpoint as a small shipped policy (weights only, no optimizer state)."""

from __future__ import annotations

import json
from pathlib import Path

from commoncause.agents.trained import load_checkpoint, weights_digest
from commoncause.envs.registry import get_game

from .curve import plot_training_curve
from .trainer import intended_use, save_atomically, write_card

SHIPPED_KEYS = ("format", "game", "env_version", "obs_size", "n_actions", "features_dim",
                "net_arch", "activation", "card_head", "policy", "num_timesteps", "config",
                "run_name", "evaluations", "best_win_rate", "seconds")  # fmt: skip


def export_checkpoint(source: str | Path, out_dir: str | Path, lineage: list[str] = ()) -> Path:
    """Write ``out_dir/best.pt`` (policy weights and metadata, no optimizer), its model card
    ``best.json`` (the run's card, with ``lineage`` added) and ``curve.png`` (the run's
    evaluations up to this checkpoint)."""
    source, out_dir = Path(source), Path(out_dir)
    data = load_checkpoint(source)
    shipped = {key: data[key] for key in SHIPPED_KEYS if key in data}
    shipped["digest"] = weights_digest(shipped)  # (of the policy alone: no critic shipped)
    target = out_dir / "best.pt"
    save_atomically(shipped, target)
    card_path = source.with_suffix(".json")
    card = json.loads(card_path.read_text()) if card_path.is_file() else {}
    card |= {
        "exported_from": str(source),
        "lineage": list(lineage),
        "steps": data["num_timesteps"],
        "intended_use": intended_use(get_game(data["game"])),
    }
    write_card(out_dir / "best.json", card)
    plot_training_curve(data["evaluations"], out_dir / "curve.png", data["run_name"])
    return target
