"""Options of a hand-coded agent as data: each a named choice among fixed words, written on
the command line as ``baseline:<option>=<value>[;...]``."""

from __future__ import annotations

from dataclasses import fields
from typing import ClassVar, Self


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
        kwargs = {}
        for item in text.replace("+", ";").split(";"):
            item = item.strip()
            if not item:
                continue
            key, sep, value = item.partition("=")
            if not sep or key.strip() not in cls.CHOICES:
                raise ValueError(
                    f"baseline option {item!r}: write name=value with a name among "
                    f"{', '.join(cls.CHOICES)}"
                )
            kwargs[key.strip()] = value.strip()
        return cls(**kwargs)
