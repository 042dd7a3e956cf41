"""Common Cause and its rummy family: ``commoncause.envs`` (rules engines and PettingZoo
environments), ``commoncause.agents``, ``commoncause.train`` and the ``commoncause`` command.

In the repository the design card's folders ``envs/``, ``agents/`` and ``train/`` sit at the
top level beside this package; an installed wheel copies them inside it (``setup.py`` maps
them). Either way they import as ``commoncause.envs`` and so on, so an installed copy puts
no generic top-level names (``envs``, ``train``) in site-packages for a user's own
``train.py`` to shadow. This file only adds the repository root to the package's search
path when those folders are siblings, and puts ``commoncause.compiled``'s finder first,
which says when a module's compiled copy runs in place of its source.
"""

from pathlib import Path

_HERE = Path(__file__).resolve().parent
ROOT = _HERE if (_HERE / "envs").is_dir() else _HERE.parent
"""Where ``envs/``, ``checkpoints/`` and ``configs/`` are: inside the installed package, or
the repository root of a source checkout."""

if ROOT != _HERE:
    __path__.append(str(ROOT))  # noqa: F821 (the package's own __path__)

from .compiled import install  # noqa: E402 (after __path__ is complete)

install()
