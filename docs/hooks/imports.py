"""MkDocs hook and script: the layers of the code and who imports whom, read from the code.

Every ``import`` of every module (a function's too) is read with ``ast``; modules are grouped
into the layers of ``LAYERS`` and each layer lists the layers it imports. A page saying
``<!-- imports: layers -->`` gets that table. Run it to print the table:
``python docs/hooks/imports.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("envs", "agents", "train", "commoncause")
MARK = "<!-- imports: layers -->"
MARKERS = {"commoncause", "commoncause.envs", "commoncause.agents", "commoncause.train"}
"""Package markers, in no layer (``commoncause/__init__.py`` says where the project lies)."""

LAYERS: tuple[tuple[str, str], ...] = (
    ("core", "envs/core/ (cards, meld rules, the game protocol, the seat view base)"),
    ("rules", "each game's folder but its PettingZoo module and study/"),
    ("registry", "envs/registry.py"),
    ("adapter", "envs/aec.py"),
    ("pettingzoo", "envs/<game>/<game>.py"),
    ("agents", "agents/"),
    ("training", "train/"),
    ("app", "commoncause/ (cli, session, screens, web)"),
    ("studies", "envs/<game>/study/ (a game's own commands: the app runs them by the name in "
                "the game's record, never by an import)"),
)
"""The layers, lowest first: what each holds."""


def layer_of(path: Path) -> str:
    """The layer of a module, by its path relative to the repository."""
    parts = path.relative_to(ROOT).parts
    top = parts[0]
    if top == "envs":
        if parts[1] == "registry.py":
            return "registry"
        if parts[1] == "aec.py":
            return "adapter"
        if len(parts) > 2 and parts[2] == "study":
            return "studies"
        if len(parts) > 2 and parts[2] == f"{parts[1]}.py":
            return "pettingzoo"
        return "core" if parts[1] == "core" else "rules"
    return {"agents": "agents", "train": "training", "commoncause": "app"}[top]


def modules() -> dict[str, Path]:
    """Dotted name (``commoncause.envs.aec``; the package's own name for ``commoncause/``)
    -> file, for every module of the packages."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            dotted = dotted.removesuffix(".__init__")
            out[dotted if package == "commoncause" else f"commoncause.{dotted}"] = path
    return out


def _imported(path: Path, name: str, known: dict[str, Path], typing_only: bool) -> set[str]:
    """The project's modules that module ``name`` (at ``path``) imports anywhere in it; those
    under ``if TYPE_CHECKING:`` only with ``typing_only``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text())
    for block in ast.walk(tree):
        test = ast.unparse(block.test) if isinstance(block, ast.If) else ""
        if not typing_only and test in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            block.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            base = f"{base}.{node.module}" if node.level and node.module else (
                base if node.level else node.module or "")
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and known[target] != path:
                found.add(target)
    return found


def module_graph(typing_only: bool = False) -> dict[str, set[str]]:
    """Module (dotted name) -> the project's modules it imports, package markers aside;
    imports for type checkers only (no dependency at run time) with ``typing_only``."""
    known = modules()
    return {
        name: _imported(path, name, known, typing_only) - MARKERS
        for name, path in known.items()
        if name not in MARKERS
    }


def layer_graph() -> dict[str, dict[str, list[str]]]:
    """Layer -> the layers it imports -> one example edge (``module -> module``) each."""
    known = modules()
    graph: dict[str, dict[str, list[str]]] = {layer: {} for layer, _ in LAYERS}
    for name, targets in module_graph().items():
        here = layer_of(known[name])
        for target in sorted(targets):
            there = layer_of(known[target])
            if there != here:
                graph[here].setdefault(there, []).append(f"{name} -> {target}")
    return graph


def table() -> str:
    """The layers as a Markdown table: each one's contents and the layers it imports."""
    graph = layer_graph()
    rows = ["| layer | holds | imports |", "|---|---|---|"]
    for layer, holds in LAYERS:
        holds = holds.replace("<", "&lt;").replace(">", "&gt;")  # (a folder's <game>)
        rows.append(f"| {layer} | {holds} | {', '.join(sorted(graph[layer])) or '(nothing)'} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **_) -> str:
    return markdown.replace(MARK, table()) if MARK in markdown else markdown


if __name__ == "__main__":
    print(table())
    for layer, targets in layer_graph().items():
        for there, edges in sorted(targets.items()):
            print(f"{layer} -> {there}: {len(edges)} imports, e.g. {edges[0]}")
