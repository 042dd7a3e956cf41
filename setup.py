"""Packaging: the design card's top-level folders install inside the ``commoncause`` package.

``envs/``, ``agents/`` and ``train/`` become ``commoncause.envs`` and so on, so a wheel puts
only ``commoncause`` in site-packages; every game's shipped policies (its record's
``policies``: Common Cause's partners, ``adhoc`` and the benchmark zoo's, the rummies' per
seat count) and the configs travel with it. Every other setting is in pyproject.toml.

Speed: the engines' hot modules (``COMPILED``) are also compiled, unchanged, by Cython into
extension modules beside their sources, which Python then imports in their place (about
1.5x the steps per second). The ``.py`` files stay the reference and are what runs wherever
the extensions are missing: a build without Cython or a C compiler, a failed compile
(the extensions are optional), a build with ``COMMONCAUSE_PURE_PYTHON=1``, or any run with
``COMMONCAUSE_PURE_PYTHON=1`` set (``commoncause/__init__.py`` then imports the sources).
``tests/core/test_compiled.py`` plays the same games through both and demands the same
bytes. Common Cause's training view also has an engine written in C
(``envs/common_cause/engine/``; optional in the same way, checked against the Python engine
move by move by ``tests/games/common_cause/test_engine_differential.py``), and the torch
trainer a first layer computed on the observation's non-zeros (``train/sparse_kernels.pyx``;
optional too, checked against the dense layer by ``tests/train/test_fast_layers.py``).
"""

import ast
import os
from pathlib import Path

from setuptools import Extension, find_packages, setup

FOLDERS = ("envs", "agents", "train")
SHIPPED = ["*.pt", "*.json", "*.png", "*.md"]  # weights, model card, curve, README card


def assigned(path: Path, name: str):
    """The literal assigned to ``name`` at the top of the module ``path``, read without
    importing it (a build has no numpy)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(ast.unparse(target) == name for target in targets):
                return ast.literal_eval(node.value)
    raise LookupError(f"{path} assigns no {name}")


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

    games = assigned(root / "envs" / "registry.py", "GAMES")
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


COMPILED = [
    "agents/arena.py",
    "envs/aec.py",
    "envs/core/melds.py",
    "envs/core/pile_rummy.py",
    "envs/core/planes.py",
    "envs/core/seat.py",
    "envs/common_cause/baseline.py",
    "envs/common_cause/observer.py",
    "envs/common_cause/rules.py",
    "envs/common_cause/seat.py",
    "envs/dummy_rummy/baseline.py",
    "envs/dummy_rummy/contract_plans.py",
    "envs/dummy_rummy/observer.py",
    "envs/dummy_rummy/rules.py",
    "envs/dummy_rummy/seat.py",
    "envs/open_rummy/baseline.py",
    "envs/open_rummy/meld_plans.py",
    "envs/open_rummy/observer.py",
    "envs/open_rummy/rules.py",
    "envs/open_rummy/seat.py",
    "train/selfplay.py",
]
"""The modules compiled by Cython (the engines' and the training view's hot paths)."""


def compiled_extensions() -> list[Extension]:
    """``COMPILED`` as optional Cython extensions, with Python's own semantics (annotations
    are not C types), then Common Cause's C engine and the torch trainer's sparse kernels;
    none without Cython or with ``COMMONCAUSE_PURE_PYTHON`` set."""
    if os.environ.get("COMMONCAUSE_PURE_PYTHON"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    extensions = [
        Extension(
            "commoncause." + path.removesuffix(".py").replace("/", "."),
            [path],
            optional=True,  # a failed compile leaves the pure-Python module
            extra_compile_args=["-O1"],  # (as fast here as -O2, half the compile time)
        )
        for path in COMPILED
    ]
    engine = Path("envs/common_cause/engine")
    sources = [str(engine / name) for name in assigned(engine / "__init__.py", "SOURCES")]
    followed = assigned(engine / "__init__.py", "FOLLOWS")
    extensions.append(
        Extension(
            "commoncause.envs.common_cause.engine.state",
            [p for p in sources if not p.endswith(".h")],
            include_dirs=[str(engine)],
            # rebuilt when a Python module it follows changes (else it would not run)
            depends=[p for p in sources if p.endswith(".h")]
            + [f"envs/common_cause/{module}.py" for module in followed],
            optional=True,  # without it Common Cause's Python engine runs
            extra_compile_args=["-O2"],
        )
    )
    extensions.append(
        Extension(
            "commoncause.train.sparse_kernels",  # the torch trainer's first layer
            ["train/sparse_kernels.pyx"],
            optional=True,  # without it the dense layer runs (train/fast_layers.py)
            extra_compile_args=["-O3"],  # (its loops vectorised)
        )
    )
    directives = {"language_level": 3, "annotation_typing": False, "binding": True}
    return cythonize(extensions, compiler_directives=directives, quiet=True)


setup(
    packages=packages,
    package_dir=package_dir,
    package_data=package_data,
    ext_modules=compiled_extensions(),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
