"""Options of a hand-coded agent as data: each a named choice among fixed words, written on
the command line as ``baseline:<option>=<value>[;...]``; and the one rule for seeds."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar, Self

SEED_RULE = "a seed is a whole number 0 or more"


def check_seed(value: Any, what: str = "seed") -> int:
    """``value`` as a seed; ValueError naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a whole number 0 or more, got {value!r}")
    return value


class AgentOptions:
    """Mixin for a frozen dataclass of agent options: ``CHOICES`` names each field's allowed
    values (the first listed need not be the default); ``parse`` reads the text form."""

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {}

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value not in self.CHOICES[f.name]:
                allowed = ", ".join(self.CHOICES[f.name])
                raise ValueError(f"baseline option {f.name}={value!r}: choose one of {allowed}")

    @classmethod
    def parse(cls, text: str) -> Self:
        """From ``"jokers=hold;start_choice=first"`` (';' or '+' separated); a ValueError
        names an unknown option or value."""
        return cls(**option_pairs(text.replace("+", ";"), tuple(cls.CHOICES), "baseline"))


def option_pairs(text: str, names: tuple[str, ...], what: str) -> dict[str, str]:
    """``{name: value}`` from ``"name=value;name=value"`` (blank items skipped); a
    ValueError names an item that is not ``name=value`` with a name among ``names``, or a
    name given twice (``what`` names the options in the message: "baseline", "search")."""
    pairs = {}
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in names:
            raise ValueError(
                f"{what} option {item!r}: write name=value with a name among {', '.join(names)}"
            )
        if key.strip() in pairs:
            raise ValueError(f"{what} option {key.strip()} is given twice in {text!r}")
        pairs[key.strip()] = value.strip()
    return pairs
