"""Copies by declaration: a state or meld class names every field and how its copy copies it.

A hand-written field list silently shares a field someone added later; here the class
declares each field once (``{name: how}``) and :func:`declared_copy` compiles the copy from
that table. A ``__slots__`` class must declare exactly its slots (checked when the class is
made); for a ``__dict__`` class the tests walk a played game's fields against the
declaration (``tests/core/test_core_clone.py``).

``how`` is one of:

- ``SHARE``: the same object (immutable, or replaced and never changed in place);
- ``COPY``: a shallow copy (``.copy()``: a list, set or dict);
- ``COPY_EACH``: a list of copies of each element (``.copy()``: lists of lists, melds);
- ``RESET``: None (a cache the copy builds again);
- ``DERIVED``: left to the caller, which sets it from the copied fields (say, an index of
  the copied melds) right after the copy;
- a callable: ``how(value)`` (say, :func:`copy_rng`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

SHARE = "share"
COPY = "copy"
COPY_EACH = "copy_each"
RESET = "reset"
DERIVED = "derived"

How = str | Callable[[Any], Any]

_TEMPLATES = {
    SHARE: "new.{0} = self.{0}",
    COPY: "new.{0} = self.{0}.copy()",
    COPY_EACH: "new.{0} = [x.copy() for x in self.{0}]",
    RESET: "new.{0} = None",
}


def copy_rng(rng: random.Random) -> random.Random:
    """An independent ``random.Random`` in the same state."""
    new = random.Random()
    new.setstate(rng.getstate())
    return new


def declared_copy(fields: Mapping[str, How], slots: tuple[str, ...] | None = None) -> Callable:
    """A copy method (``copy(self)``) that copies as ``fields`` declares, compiled once (like
    dataclasses' generated methods) so that it runs as fast as a hand-written one. Give a
    ``__slots__`` class's ``slots``: the declaration must name exactly those (ValueError
    otherwise) and each is set on the copy. Otherwise the copy starts from the instance's
    ``__dict__`` (an undeclared field would be shared: the tests check there is none)."""
    if slots is not None and set(fields) != set(slots):
        missing, extra = sorted(set(slots) - set(fields)), sorted(set(fields) - set(slots))
        raise ValueError(f"undeclared slots {missing}, declared non-slots {extra}")
    lines = ["def copy(self):", "    new = _new(self.__class__)"]
    if slots is None:
        lines.append("    new.__dict__.update(self.__dict__)")
    env: dict[str, Any] = {"_new": object.__new__}
    for name, how in fields.items():
        if callable(how):
            env[f"_how_{name}"] = how
            lines.append(f"    new.{name} = _how_{name}(self.{name})")
        elif how == DERIVED or (how == SHARE and slots is None):
            continue  # set by the caller; or already in the copied __dict__
        elif how in _TEMPLATES:
            lines.append("    " + _TEMPLATES[how].format(name))
        else:
            raise ValueError(f"field {name!r}: unknown copy rule {how!r}")
    lines.append("    return new")
    exec("\n".join(lines), env)
    copy = env["copy"]
    copy.__doc__ = "A copy, field by field as declared (``envs/core/clone``)."
    return copy
