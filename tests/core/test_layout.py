"""The product apart from the lab: configs/ holds the recipes a user picks, each runnable in a
clone and named for what it makes; experiments live in configs/experiments/; checkpoints/
holds only what ships, each folder with a model card; one-off studies live in studies/."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import yaml

from commoncause.envs.registry import game_names, get_game

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
DOCS = ROOT / "docs"


def test_top_level_configs_are_few_named_for_what_they_make_and_run_in_a_clone():
    tops = sorted(CONFIGS.glob("*.yaml"))
    assert 0 < len(tops) <= 12, [p.name for p in tops]
    for path in tops:
        assert not path.is_symlink(), f"{path.name} is a link (a duplicate)"
        data = yaml.safe_load(path.read_text())
        assert data["name"] == path.stem, f"{path.name} makes {data['name']}"
        start = data.get("init_from")
        if start:  # a clone has it: a shipped checkpoint, never a run folder
            assert not start.startswith("runs/") and (ROOT / start).is_file(), path.name


def test_no_two_configs_are_the_same_file():
    digests: dict[str, str] = {}
    for path in sorted(CONFIGS.rglob("*.yaml")):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert digest not in digests, f"{path} repeats {digests.get(digest)}"
        digests[digest] = str(path)


def test_each_game_trains_by_default_the_recipe_of_its_shipped_policy():
    from commoncause.cli import _default_config

    for name in game_names():
        record = get_game(name)
        folder = Path(record.checkpoint(record.make_config())).parent.name
        assert _default_config(name) == CONFIGS / f"{folder}.yaml"


def test_every_checkpoint_folder_ships_with_a_card_naming_its_config_and_commit():
    """Each folder is used (a game's record, the code or a documented command) and has a
    README.md whose configs exist and whose commit is named."""
    used = "".join(p.read_text() for p in [*DOCS.rglob("*.md"), *(ROOT / "agents").glob("*.py")])
    used += "".join(p.read_text() for p in (ROOT / "envs").glob("*/game.py"))
    for folder in sorted(p for p in (ROOT / "checkpoints").iterdir() if p.is_dir()):
        assert (folder / "best.pt").is_file() and (folder / "best.json").is_file(), folder.name
        assert f"checkpoints/{folder.name}" in used or f'"{folder.name}' in used, folder.name
        card = (folder / "README.md").read_text()
        assert re.search(r"\*\*Commit\*\*[^`]*`[0-9a-f]{7}`", card), folder.name
        configs = re.findall(r"`(configs/[\w/]+\.yaml)`", card)
        assert configs and all((ROOT / c).is_file() for c in configs), (folder.name, configs)


def test_bench_holds_benchmarks_and_studies_hold_the_one_off_measurements():
    studies = {"bc_discard_head", "decision_swap", "hand_lengths", "journal_agreement",
               "lay_down", "search_gaps"}  # fmt: skip
    assert studies <= {p.stem for p in (ROOT / "studies").glob("*.py")}
    assert not studies & {p.stem for p in (ROOT / "bench").glob("*.py")}


def test_every_layer_imports_only_the_layers_below_it():
    """The import graph read from the code (docs/hooks/imports.py, rendered on docs/layout.md):
    no layer imports one above it, so there is no cycle between layers either."""
    import sys

    sys.path.insert(0, str(DOCS / "hooks"))
    from imports import LAYERS, layer_graph

    order = [layer for layer, _ in LAYERS]
    graph = layer_graph()
    assert "adapter" in graph["pettingzoo"] and "core" in graph["adapter"]  # (it is read)
    upward = [edges[0] for here, targets in graph.items() for there, edges in targets.items()
              if order.index(there) > order.index(here)]  # fmt: skip
    assert not upward, upward
    assert "<!-- imports: layers -->" in (DOCS / "layout.md").read_text()


def test_torch_is_imported_only_above_the_envs():
    """No module under envs/ (rules, adapter, PettingZoo modules, a game's studies) imports
    torch, in a function either: a study that needs a network's output asks the agent."""
    import ast

    importers = []
    for path in sorted((ROOT / "envs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if any(n == "torch" or n.startswith("torch.") for n in names):
                importers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not importers, importers
