"""A researcher's own agent as a team member: ``FILE.py:Class`` names a class in a Python file
that implements the Agent protocol (``reset(seed)``, ``act(view) -> action id``) and is
constructed with no arguments. The command line loads it (``eval``, ``play``,
``benchmark``); the web server never loads code named in a request."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import Agent

_modules: dict[Path, ModuleType] = {}
"""Loaded files, once per process (a worker loads a file once, however many seats use it)."""

_GUARDED = ("reset", "act", "act_batch", "probabilities")
"""The methods the project calls on an agent: what a user's raises there is one line."""


def is_user_spec(spec: str) -> bool:
    """``spec`` names a class in a Python file (``FILE.py:Class``)."""
    path, sep, cls = spec.rpartition(":")
    return bool(sep) and path.endswith(".py") and bool(cls)


def _load_module(path: Path) -> ModuleType:
    path = path.resolve()
    if path in _modules:
        return _modules[path]
    if path.is_dir():
        raise ValueError(f"agent file {path} is a directory")
    if not path.is_file():
        raise ValueError(f"agent file {path} not found")
    name = f"commoncause_user_agent_{len(_modules)}"
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ValueError(f"agent file {path} cannot be loaded as Python")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:  # any error of a user's file is reported as one line
        del sys.modules[name]
        raise ValueError(f"agent file {path} failed to load: {type(exc).__name__}: {exc}") from None
    _modules[path] = module
    return module


def _guarded(cls: type) -> type:
    """A subclass of ``cls`` whose ``_GUARDED`` methods turn what they raise into a one-line
    ValueError naming the agent, its seat (that of the view it was given; ``reset`` is given
    none) and the exception, wherever the project calls them."""

    def guard(method: str) -> Callable[..., Any]:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return getattr(super(guarded, self), method)(*args, **kwargs)
            except Exception as exc:
                seat = getattr(args[0], "seat", None) if args else None
                where = "" if seat is None else f" in seat {seat}"
                raise ValueError(
                    f"{self.name}{where} failed in {method}(): {type(exc).__name__}: {exc}"
                ) from None

        return call

    methods = {m: guard(m) for m in _GUARDED if callable(getattr(cls, m, None))}
    guarded = type(cls.__name__, (cls,), methods)
    guarded.__qualname__, guarded.__module__ = cls.__qualname__, cls.__module__
    return guarded


def load_user_agent(spec: str) -> Agent:
    """A new agent from ``FILE.py:Class``; a ValueError names a file that does not load, a
    class that is missing, cannot be built with no arguments, or lacks ``reset``/``act``;
    what the agent raises later in one of them is a one-line ValueError too (``_guarded``)."""
    file, _, cls_name = spec.rpartition(":")
    module = _load_module(Path(file))
    cls = getattr(module, cls_name, None)
    if not isinstance(cls, type):
        raise ValueError(f"agent file {file} has no class {cls_name!r}")
    try:
        agent = _guarded(cls)()
    except Exception as exc:
        raise ValueError(
            f"agent class {cls_name} of {file} cannot be built with no arguments: "
            f"{type(exc).__name__}: {exc}"
        ) from None
    missing = [m for m in ("reset", "act") if not callable(getattr(agent, m, None))]
    if missing:
        raise ValueError(f"agent class {cls_name} of {file} lacks {' and '.join(missing)}()")
    if not isinstance(getattr(agent, "name", None), str):
        agent.name = spec
    return agent
