"""An installed copy works: the wheel puts only ``commoncause`` in site-packages (no generic
top-level ``envs``/``agents``/``train`` for a user's own ``train.py`` to shadow) and carries
the shipped partner and the configs, which the installed code finds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from commoncause.envs.registry import game_names, get_game

ROOT = Path(__file__).resolve().parents[2]


SKIP = ("build", "runs", "records", ".*", "*.egg-info", "__pycache__", "*.so", "*.c")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("src") / "commoncause"
    # build from a copy: setuptools writes build/ beside the sources it builds
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*SKIP))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(source)],
        capture_output=True, text=True, cwd=source,
        # (the wheel's files are under test, not the compiled engines: no compiling)
        env={**os.environ, "PIP_NO_INPUT": "1", "COMMONCAUSE_PURE_PYTHON": "1"},
    )  # fmt: skip
    if done.returncode != 0 and "No module named pip" in done.stderr:
        pytest.skip("pip is not available in this interpreter")
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("commoncause-*.whl")
    return path


def test_wheel_has_one_top_level_package_and_the_shipped_partner(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"commoncause"}
    assert "commoncause/checkpoints/normal/best.pt" in names
    assert "commoncause/configs/normal.yaml" in names
    assert "commoncause/envs/common_cause/rules.py" in names
    assert "commoncause/envs/core/melds.py" in names
    assert "commoncause/envs/common_cause/readings.md" in names


def test_wheel_carries_every_policy_a_game_ships(wheel):
    """Each checkpoint a game's ``checkpoint`` names, for 2-4 seats and one-hand games,
    that the repository holds."""
    names = set(zipfile.ZipFile(wheel).namelist())
    configs = [{}] + [{"num_players": n, **h} for n in (2, 3, 4) for h in ({}, {"hands": 1})]
    shipped = set()
    for name in game_names():
        game = get_game(name)
        for options in configs:
            try:
                relative = game.checkpoint(game.make_config(**options))
            except (TypeError, ValueError):  # not an option of this game
                continue
            if relative and (ROOT / relative).is_file():
                shipped.add(relative)
    assert {"checkpoints/dummy_rummy_4p/best.pt", "checkpoints/open_rummy_2p/best.pt"} <= shipped
    assert {f"commoncause/{r}" for r in shipped} <= names


def test_wheel_carries_the_benchmark_zoos_trained_partners(wheel):
    from commoncause.envs.common_cause.study.benchmark import ZOO

    names = set(zipfile.ZipFile(wheel).namelist())
    trained = [p.member for p in ZOO if p.member.endswith(".pt")]
    assert len(trained) >= 4
    for spec in trained:
        assert Path(spec).parent.name in get_game("common_cause").policies, spec
        assert f"commoncause/{spec}" in names, spec


def test_installed_copy_finds_its_partner_and_plays(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    (tmp_path / "train.py").write_text("raise SystemExit('the user train.py was imported')\n")
    script = (
        "import commoncause, pathlib\n"
        f"assert pathlib.Path(commoncause.__file__).is_relative_to({str(target)!r})\n"
        "from commoncause.agents.trained import DEFAULT_CHECKPOINT\n"
        f"assert DEFAULT_CHECKPOINT.is_relative_to({str(target)!r}), DEFAULT_CHECKPOINT\n"
        "assert DEFAULT_CHECKPOINT.exists()\n"
        "from commoncause.agents.evaluate import make_agent, play_game\n"
        "from commoncause.envs.registry import get_game\n"
        "game = get_game('common_cause')\n"
        "trained = make_agent('trained')\n"
        "play_game(game.make_config(), (trained, make_agent('baseline')), 1)\n"
        "import commoncause.train.config\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
