"""The compiled engines (``setup.py``'s ``COMPILED``, Cython builds of the same sources) play
exactly as the pure-Python reference: seeded random games through the PettingZoo env and the
training view (with the baseline seated), and the baseline team's evaluation, run once with
the extension modules and once with ``COMMONCAUSE_PURE_PYTHON`` set, show the same bytes at
every step (legal moves, observations, hidden cards, rewards, results).

Skipped where nothing was compiled (no C compiler or Cython at install), unless
``COMMONCAUSE_EXPECT_COMPILED`` is set, as CI sets it: there a missing build fails."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from commoncause.compiled import PURE_PYTHON, compiled_modules

ROOT = Path(__file__).resolve().parents[2]


def _compiled_list() -> list[str]:
    """``COMPILED`` of setup.py, as module names."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "COMPILED":
            paths = ast.literal_eval(node.value)
            return ["commoncause." + p.removesuffix(".py").replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED list")


COMPILED = _compiled_list()

# (game, options, games) per digest; each case plays thousands of decisions
ENV_CASES = [
    ("common_cause", {}, 1500),
    ("common_cause", {"level": "hard", "stock_size": 10}, 500),
    ("common_cause", {"open_hands": True, "ace_low": True}, 300),
    ("dummy_rummy", {"num_players": 2, "hands": 1}, 150),
    ("dummy_rummy", {"num_players": 4}, 3),
    ("open_rummy", {"num_players": 2}, 20),
    ("open_rummy", {"num_players": 4}, 10),
]
SELFPLAY_CASES = [
    ("common_cause", {}, 1000),
    ("dummy_rummy", {"num_players": 3, "hands": 1}, 60),
    ("open_rummy", {"num_players": 3}, 10),
]

_CHILD = r"""
import importlib, json, sys
from bench.env_digest import digest, selfplay_digest
from commoncause.compiled import compiled_modules
env_cases, selfplay_cases, modules = json.loads(sys.argv[1])
for name in modules:
    importlib.import_module(name)
out = {
    "env": [digest(g, o, n, seed=7) for g, o, n in env_cases],
    "selfplay": [selfplay_digest(g, o, n, seed=7) for g, o, n in selfplay_cases],
    "compiled": compiled_modules(),
}
print(json.dumps(out))
"""


def _play(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != PURE_PYTHON}
    if pure:
        env[PURE_PYTHON] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([ENV_CASES, SELFPLAY_CASES, COMPILED])],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _eval(pure: bool, out: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != PURE_PYTHON}
    if pure:
        env[PURE_PYTHON] = "1"
    args = ["--team", "baseline,baseline", "--games", "400", "--seed", "3", "--workers", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "commoncause.cli", "eval", *args, "--json", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    return {k: v for k, v in figures.items() if "second" not in k and "time" not in k}


@pytest.fixture(scope="module")
def built() -> None:
    for name in COMPILED:
        __import__(name)
    if not compiled_modules():
        if os.environ.get("COMMONCAUSE_EXPECT_COMPILED"):
            pytest.fail("COMMONCAUSE_EXPECT_COMPILED is set but no module was compiled")
        pytest.skip("no compiled modules in this install (the pure-Python reference runs)")


def test_every_listed_module_is_compiled(built):
    if os.environ.get(PURE_PYTHON):
        pytest.skip(f"{PURE_PYTHON} is set: this run imports the sources")
    missing = sorted(set(COMPILED) - set(compiled_modules()))
    assert not missing, f"built from source, not compiled: {missing}"


def test_compiled_games_show_the_reference_bytes_at_every_step(built):
    compiled, pure = _play(pure=False), _play(pure=True)
    assert set(COMPILED) <= set(compiled["compiled"])
    assert pure["compiled"] == []
    for case, a, b in zip(ENV_CASES, compiled["env"], pure["env"], strict=True):
        assert a == b, f"the PettingZoo env differs on {case}"
    for case, a, b in zip(SELFPLAY_CASES, compiled["selfplay"], pure["selfplay"], strict=True):
        assert a == b, f"the training view differs on {case}"
    assert sum(steps for _, steps in compiled["env"]) > 50_000


def test_compiled_baseline_team_evaluates_as_the_reference(built, tmp_path):
    assert _eval(False, tmp_path / "compiled.json") == _eval(True, tmp_path / "pure.json")


def _module_pair(tmp_path: Path, source_newer: bool) -> None:
    """``fake.py`` and a ``fake`` extension module file, one older than the other."""
    from importlib.machinery import EXTENSION_SUFFIXES

    source, built = tmp_path / "fake.py", tmp_path / f"fake{EXTENSION_SUFFIXES[0]}"
    source.write_text("X = 1\n")
    built.write_bytes(b"not a real extension")
    old, new = (built, source) if source_newer else (source, built)
    os.utime(old, (1_000_000_000, 1_000_000_000))
    os.utime(new, (2_000_000_000, 2_000_000_000))


def test_a_fresh_build_is_left_to_the_usual_import(tmp_path):
    from commoncause.compiled import ModuleFinder

    _module_pair(tmp_path, source_newer=False)
    assert ModuleFinder(pure=False).find_spec("commoncause.fake", [str(tmp_path)]) is None


def test_a_source_edited_after_its_build_runs_from_source(tmp_path):
    from commoncause.compiled import ModuleFinder

    _module_pair(tmp_path, source_newer=True)
    with pytest.warns(UserWarning, match="changed since it was compiled"):
        spec = ModuleFinder(pure=False).find_spec("commoncause.fake", [str(tmp_path)])
    assert spec.origin == str(tmp_path / "fake.py")


def test_pure_python_runs_every_module_from_source(tmp_path):
    from commoncause.compiled import ModuleFinder

    _module_pair(tmp_path, source_newer=False)
    spec = ModuleFinder(pure=True).find_spec("commoncause.fake", [str(tmp_path)])
    assert spec.origin == str(tmp_path / "fake.py")
    assert ModuleFinder(pure=True).find_spec("numpy.fake", [str(tmp_path)]) is None


def test_pure_python_imports_no_module_that_exists_only_compiled(tmp_path):
    from importlib.machinery import EXTENSION_SUFFIXES

    from commoncause.compiled import ModuleFinder

    (tmp_path / f"fake{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a real extension")
    with pytest.raises(ModuleNotFoundError, match="compiled only"):
        ModuleFinder(pure=True).find_spec("commoncause.fake", [str(tmp_path)])
    assert ModuleFinder(pure=False).find_spec("commoncause.fake", [str(tmp_path)]) is None
