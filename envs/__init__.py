"""Rummy games: the shared core (``core/``), one folder per game, the registry and the one
PettingZoo adapter (``aec.py``). Importing this package loads no RL library; it arranges for
the games' PettingZoo ids to be registered whenever pettingzoo is imported."""

from . import registry as registry
