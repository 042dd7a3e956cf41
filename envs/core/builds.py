"""Whether a compiled-only extension module (one with no ``.py`` twin, which
``commoncause/compiled.py``'s finder does not judge: Common Cause's C engine, the torch
trainer's sparse kernels) is at least as new as what it was built from."""

from __future__ import annotations

import os
import warnings
from pathlib import Path


def fresh(built: str | os.PathLike, sources: list[Path]) -> bool:
    """Whether ``built``, an extension module compiled from ``sources``, is at least as new
    as those of them that exist (an installed copy may ship none); where it is not, a
    warning, and its caller runs the Python reference instead."""
    times = [os.path.getmtime(source) for source in sources if os.path.isfile(source)]
    if not times or os.path.getmtime(built) >= max(times):
        return True
    warnings.warn(
        f"{built} is older than its sources: the Python reference runs until `make install` "
        "builds it again",
        stacklevel=3,
    )
    return False
