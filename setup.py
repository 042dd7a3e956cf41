"""Packaging: the design card's top-level folders install inside the ``commoncause`` package.

``envs/``, ``agents/`` and ``train/`` become ``commoncause.envs`` and so on, so a wheel puts
only ``commoncause`` in site-packages; every game's shipped policies (its record's
``policies``: Common Cause's partners, ``adhoc`` and the benchmark zoo's, the rummies' per
seat count) and the configs travel with it. Every other setting is in pyproject.toml.
"""

import ast
from pathlib import Path

from setuptools import find_packages, setup

FOLDERS = ("envs", "agents", "train")
SHIPPED = ["*.pt", "*.json", "*.png", "*.md"]  # weights, model card, curve, README card


def shipped_policies(root: Path = Path(__file__).parent) -> list[str]:
    """Every registered game's ``policies``, read from the literals of ``envs/registry.py``'s
    ``GAMES`` and each ``envs/<game>/game.py``'s ``Game(...)`` without importing them (a
    build has no numpy)."""

    def literal(path: Path, keyword: str):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                for item in node.keywords:
                    if item.arg == keyword:
                        return ast.literal_eval(item.value)
        return ()

    registry = ast.parse((root / "envs" / "registry.py").read_text())
    games = next(
        ast.literal_eval(node.value)
        for node in registry.body
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "GAMES"
    )
    return [p for game in games for p in literal(root / "envs" / game / "game.py", "policies")]


POLICIES = shipped_policies()
DATA = {**{f"checkpoints.{name}": SHIPPED for name in POLICIES}, "configs": ["*.yaml"]}

packages = ["commoncause", *find_packages(include=["commoncause.*"])]
package_dir = {"commoncause": "commoncause"}
for folder in FOLDERS:
    package_dir[f"commoncause.{folder}"] = folder
    packages.append(f"commoncause.{folder}")
    packages += [f"commoncause.{p}" for p in find_packages(include=[f"{folder}.*"])]
for data_package in DATA:
    name = f"commoncause.{data_package}"
    package_dir[name] = data_package.replace(".", "/")
    packages.append(name)

package_data = {f"commoncause.{p}": patterns for p, patterns in DATA.items()}
package_data.update({p: ["*.md"] for p in packages if p.startswith("commoncause.envs.")})
package_data["commoncause.web"] = ["static/*"]  # the browser page (commoncause serve)

setup(packages=packages, package_dir=package_dir, package_data=package_data)
