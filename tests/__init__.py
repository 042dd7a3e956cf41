"""The test suite, by floor: ``core/`` (the rummy core, the registry, the adapter, layout
and packaging), ``games/`` (the conformance suite every registered game passes, and the
new-game check), ``games/<game>/`` (each game's own rules), ``agents/``, ``train/`` and
``app/`` (the CLI, play, sessions, web, docs).

The shared helpers (``helpers``, ``competitive``, ``dummy_helpers``, ``open_helpers``,
``terminal``) sit here and import by their bare names: importing this package puts this
folder on ``sys.path`` (under pytest, and for ``python -m tests.games.<game>.test_x``)."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
