"""The engines' compiled modules (``setup.py``'s ``COMPILED``, built by Cython from the same
sources) and the rule for when they run.

An install compiles them into extension modules beside their sources. :class:`ModuleFinder`
(first on ``sys.meta_path`` once ``commoncause`` is imported) decides, per ``commoncause``
module, which of the two is imported: the source where there is no extension module, where
the source has changed since it was compiled (a stale build never runs: it warns once and
the edited source runs until ``make install`` compiles it again), and for every module when
the environment variable ``COMMONCAUSE_PURE_PYTHON`` was set (to anything but empty) at the
first import, so the pure-Python reference can be run, tested and timed on the same install.
Under that variable a module that exists only compiled (Common Cause's C engine,
``envs/common_cause/engine/state``) does not import at all, so its package runs the Python
engine instead.
"""

from __future__ import annotations

import os
import sys
import warnings
from importlib.abc import MetaPathFinder
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
)

PURE_PYTHON = "COMMONCAUSE_PURE_PYTHON"
"""The environment variable that makes every ``commoncause`` module run from its source."""


class ModuleFinder(MetaPathFinder):
    """Imports a ``commoncause`` module from its extension module only when that is at least
    as new as its source (and ``pure`` is False); anything else is left to the usual
    finders (they take the extension where it is fresh)."""

    def __init__(self, pure: bool) -> None:
        self.pure = pure

    def find_spec(self, fullname, path, target=None):
        if path is None or not fullname.startswith("commoncause."):
            return None
        tail = fullname.rpartition(".")[2]
        for entry in path:
            source = os.path.join(entry, tail + ".py")
            built = [os.path.join(entry, tail + s) for s in EXTENSION_SUFFIXES]
            built = [b for b in built if os.path.isfile(b)]
            if not os.path.isfile(source):
                if self.pure and built:  # compiled only: nothing of it runs
                    raise ModuleNotFoundError(f"{fullname} is compiled only ({PURE_PYTHON})")
                continue
            if not self.pure:
                if not built or os.path.getmtime(built[0]) >= os.path.getmtime(source):
                    return None
                warnings.warn(
                    f"{source} changed since it was compiled: it runs from source (slower) "
                    "until `make install` compiles it again",
                    stacklevel=2,
                )
            finder = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES))
            return finder.find_spec(fullname, target)
        return None


def install() -> None:
    """Put a :class:`ModuleFinder` first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, ModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, ModuleFinder(pure=bool(os.environ.get(PURE_PYTHON))))


def compiled_modules() -> list[str]:
    """The ``commoncause`` modules imported so far that run compiled, sorted."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("commoncause.")
        and isinstance(getattr(module, "__loader__", None), ExtensionFileLoader)
    )
