"""The registry of games: ``--game NAME`` everywhere, ``commoncause games``, and PettingZoo ids.

Adding a game is one folder under ``envs/`` (rules, actions, observer, notation, render,
baseline, ``game.py`` with its :class:`~commoncause.envs.core.game.Game` record, and the
PettingZoo spec module ``<name>.py``) plus one line in ``GAMES``. Records load lazily, so
naming a game imports only that game's engine.

PettingZoo registration: ``pettingzoo.make("aec", "commoncause/common_cause-v0")`` works in
either import order. The ids are registered with string entry points (nothing of ours
loads until an env is made) as soon as pettingzoo is imported, whether that happened
before or after this package: the engine itself never imports pettingzoo.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import Any

from .core.game import Game

DEFAULT_GAME = "common_cause"
GAMES: dict[str, int] = {
    "common_cause": 0,
    "dummy_rummy": 0,
    "open_rummy": 0,
}
"""Registry name -> env version: the one line a game adds. The game lives in
``envs/<name>/``: ``game.py`` holds its ``GAME`` record and ``<name>.py`` its PettingZoo env."""


def game_names() -> list[str]:
    return list(GAMES)


def get_game(name: str = DEFAULT_GAME) -> Game:
    """The record of a registered game; a ValueError naming the choices otherwise."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(GAMES)}")
    return importlib.import_module(f"commoncause.envs.{name}.game").GAME


def env_id(name: str) -> str:
    """The PettingZoo id of a registered game (known without importing the game)."""
    return f"commoncause/{name}-v{GAMES[name]}"


def entry_point(name: str) -> str:
    return f"commoncause.envs.{name}.{name}:env"


def register_with_pettingzoo(pettingzoo: Any) -> None:
    """Register every game's env id with PettingZoo's registry (idempotent)."""
    for name in GAMES:
        if env_id(name) not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id(name), entry_point=entry_point(name))


class _AfterPettingZoo(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A one-shot import hook: when pettingzoo is imported, let it load as usual, then
    register our env ids with it."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "pettingzoo":
            return None
        sys.meta_path.remove(self)  # find the real module, once
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return None
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        register_with_pettingzoo(module)


def _register_when_pettingzoo_loads() -> None:
    if "pettingzoo" in sys.modules:
        register_with_pettingzoo(sys.modules["pettingzoo"])
    elif not any(isinstance(f, _AfterPettingZoo) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterPettingZoo())


_register_when_pettingzoo_loads()
