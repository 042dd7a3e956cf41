"""The game protocol every rummy game implements, and the record a registry keeps of it.

A game is a folder under ``envs/`` with a rules engine (a ``State`` class), a frozen config
dataclass (a :class:`RulesConfig`), fixed action ids, an observer, move notation, a render,
a baseline agent and a spec module (its PettingZoo env). Its ``game.py`` ties them together
in one :class:`Game` record, which the registry (``envs/registry.py``) names. Everything
above ``envs/`` (the PettingZoo adapter, the trainers, evaluation, play) reads a game only
through this record, the state protocol and the seat view.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self

from .cards import DeckSpec

if typing.TYPE_CHECKING:
    import numpy as np

    from .seat import SeatView


class IllegalMoveError(ValueError):
    """An action that is not legal in the current state; the state is left unchanged."""

    def __init__(self, action: int, legal: list[int], message: str = "") -> None:
        self.action = action
        self.legal = legal
        super().__init__(message or f"illegal action {action}; legal actions: {legal}")


def action_id(action: Any, state: Any) -> int:
    """``action`` as an int id (an int or a numpy integer); an IllegalMoveError naming
    anything else (a bool, a float, a string), the state left as it is."""
    if isinstance(action, int) and not isinstance(action, bool):
        return action
    dtype = getattr(action, "dtype", None)  # a numpy integer, or a 0-d array of one
    if getattr(dtype, "kind", "") in ("i", "u") and getattr(action, "ndim", 0) == 0:
        return int(action)
    raise IllegalMoveError(-1, state.legal_actions(), f"an action is an int id, not {action!r}")


class RulesConfig:
    """Mixin for a game's frozen config dataclass: everything that changes its rules.

    The config serialises itself (``to_dict`` / ``from_dict``) and names its variants, so
    records, training configs, the CLI and the screens never restate the options."""

    VARIANTS: ClassVar[dict[str, str]] = {}
    """Field name -> words shown when the field differs from its default."""
    CLI_ALIASES: ClassVar[dict[str, tuple[str, Any]]] = {}
    """A command-line flag that stands for one field's value (``three_starts`` ->
    ``("max_open_starts", 3)``)."""

    @classmethod
    def make(cls, **options: Any) -> Self:
        """The config from keyword options (``from_dict``); a game may take other words."""
        return cls.from_dict(options)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """The config from ``to_dict``'s output; an unknown key or a bad value is a
        ValueError naming it."""
        if not isinstance(data, dict):
            raise ValueError(f"a game config is a mapping of options, got {data!r}")
        names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ValueError(f"unknown game option(s) {unknown}: choose from {names}")
        return cls(**data)

    def variant_names(self) -> list[str]:
        """The variants and options in play, as words (empty for the plain game)."""
        defaults = type(self)()
        return [
            words
            for name, words in self.VARIANTS.items()
            if getattr(self, name) != getattr(defaults, name)
        ]

    def label(self) -> str:
        """A short name of the config for titles (a level, say)."""
        return ""

    def check_int(self, name: str, lo: int, hi: int | None = None) -> None:
        """ValueError unless field ``name`` is an int (not a bool) in ``lo``-``hi`` (no top
        when ``hi`` is None)."""
        value = getattr(self, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an int, got {value!r}")
        if value < lo or (hi is not None and value > hi):
            top = f"-{hi}" if hi is not None else " or more"
            raise ValueError(f"{name} must be {lo}{top}, got {value}")

    def check_bool(self, *names: str) -> None:
        """ValueError unless each field in ``names`` is a bool."""
        for name in names:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be true or false, got {value!r}")

    def check_choice(self, name: str, choices: tuple[str, ...]) -> None:
        """ValueError unless field ``name`` is one of ``choices``."""
        value = getattr(self, name)
        if value not in choices:
            allowed = " or ".join(repr(c) for c in choices)
            raise ValueError(f"{name} must be {allowed}, got {value!r}")


def lazy_adapter(package: str, module: str, names: tuple[str, ...] = ("env", "raw_env")):
    """A package's module ``__getattr__`` that imports ``module`` (relative to ``package``)
    only when one of ``names`` is first read, so that the engine loads no RL library."""

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(module, package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def field_offsets(fields: list[tuple[str, int]]) -> tuple[dict[str, int], int]:
    """An observation's layout from its (field name, size) table, in order: each field's
    offset by name, and the total size."""
    offsets: dict[str, int] = {}
    at = 0
    for name, size in fields:
        offsets[name] = at
        at += size
    return offsets, at


class State(Protocol):
    """A game in progress (the engine): pure Python, reproducible, cloneable."""

    config: Any
    current: int
    """The seat to act (meaningless once terminal)."""
    turns: int
    history: list[tuple[int, int]]
    """(seat, action) of every move so far."""
    result: str | None
    """The result in a word (None while playing)."""

    @property
    def num_seats(self) -> int: ...

    @property
    def is_terminal(self) -> bool: ...

    def legal_actions(self) -> list[int]:
        """The current seat's legal action ids, ascending; empty once the game is over."""

    def apply(self, action: int) -> None:
        """Play ``action`` for the current seat; IllegalMoveError (state unchanged) if not
        legal."""

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns so far (a team game gives every seat the same)."""

    def rewards(self) -> tuple[float, ...]:
        """Per-seat rewards earned by the last move; over a game they sum to ``returns``."""

    def outcome(self) -> str:
        """The result in words ("" while playing)."""

    def seat_stats(self, seat: int) -> dict[str, float]:
        """A game's own per-seat figures for evaluation (points, went out, ...)."""

    def clone(self) -> Self:
        """An independent copy (search and look-ahead)."""


@dataclass(frozen=True)
class CardMoves:
    """Where a game's observation holds the seat's hand by card type, which move ids play
    one card type each (``base + type`` for every type) and which concern one card it shows:
    what a network's per-card head (``agents.networks.CardHead``) scores, card by card."""

    hand_at: int
    """Offset of the hand plane in the observation: ``N_CARD_TYPES`` entries, one per card
    type (52 = the jokers), zero where none is held."""
    bases: tuple[int, ...]
    """First move id of each family of one-card moves (a discard ``DISCARD_BASE + type``);
    each family has ``N_CARD_TYPES`` ids."""
    shown: tuple[tuple[int, int], ...] = ()
    """Moves about one card the observation shows (taking the top discard): (move id,
    offset of the plane of ``N_CARD_TYPES`` entries that marks that card with a 1)."""


@dataclass(frozen=True)
class Game:
    """What the house knows of one game: the registry's record of it."""

    name: str
    """Registry name and ``--game`` value (``common_cause``)."""
    title: str
    """Name for people (``Common Cause``)."""
    version: int
    """Env version: bump on any change to spaces or rewards."""
    team: bool
    """All seats share one return (a cooperative game)."""
    config_type: type
    """The frozen config dataclass (a ``RulesConfig``)."""
    make_config: Callable[..., Any]
    """Config from keyword options (levels, variants), validated."""
    deck: Callable[[Any], DeckSpec]
    """The deck a config plays with."""
    new_state: Callable[[Any, list[int]], State]
    """A game dealt from a deck of physical ids, top first."""
    num_seats: Callable[[Any], int]
    num_actions: int
    """Size of the fixed action id space."""
    observation_size: int
    state_size: int
    """Size of ``encode_state`` (hidden cards included, for centralised critics)."""
    observer: Callable[[int], Any]
    """An observer for one seat: ``observer(seat).encode(state) -> np.ndarray``; it keeps
    its own caches and reads only what that seat may see."""
    encode_state: Callable[[State], np.ndarray]
    seat_view: type[SeatView]
    """The game's seat view class, built as ``seat_view(state, seat)`` (its ``searchable``
    says whether the search agent plays the game)."""
    move_text: Callable[[State, int], str]
    parse_move: Callable[[State, str], int]
    render: Callable[[State, list[tuple[int, str]]], str]
    """A text table of the whole game (every hand), recent (seat, move) pairs last."""
    baseline: Callable[[str], Any]
    """The game's hand-coded baseline agent from an option string ("" for defaults)."""
    env_module: str
    """Module of the PettingZoo env (spec docstring, ``env``, ``raw_env``)."""
    max_moves: int = 2000
    """Moves after which a game is cut short (env truncation, evaluation, self-play): a
    safety net for games that need not end (each spec says why)."""
    hidden_size: int = 0
    """Size of ``encode_hidden`` (0: the game has none)."""
    encode_hidden: Callable[[State, int], np.ndarray] | None = None
    """What a seat's observation hides (``encode_hidden(state, seat)``: other hands, the
    stock in its draw order, ...), for a centralised critic beside that observation, in
    training only: a compact complement where ``encode_state`` would repeat the public
    planes (and does not show the draw order)."""
    compiled_state: Callable[[Any, list[int]], Any] | None = None
    """A compiled engine for the training view's hot path (``SelfPlayEnv``): the game
    ``new_state`` deals from a deck, or None where it is not built or plays no such config.
    Its state has the ``State`` protocol's moves and results, and ``encode(seat)`` (the
    observer's observation), ``encode_hidden(seat)``, ``write_mask(mask)`` and
    ``baseline_action()`` (the move of ``baseline("")`` for the seat to move). None: the
    game has no compiled engine."""
    checkpoint: Callable[[Any], str | None] = lambda config: None
    """The shipped trained policy for a config (a path under the project root), if any."""
    card_moves: CardMoves | None = None
    """The hand plane and the one-card moves, for a network's per-card head (None: the game
    offers none)."""
    levels: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Named presets (``--level``, the web form's level) -> the options each sets; the
    options also name one field directly, which overrides the level. Empty: no levels."""
    summary: Callable[[State], dict[str, Any]] = lambda state: {}
    """A game's own figures for its record and its end screen, beyond outcome, returns and
    turns (JSON-ready; public, as every seat may see them): Common Cause's loss reason,
    stock left and dealt and who took whose discards."""
    policies: tuple[str, ...] = ()
    """The folders under ``checkpoints/`` of the policies the game ships (those ``checkpoint``
    names and those its studies play): the one list packaging reads."""
    members: dict[str, str] = field(default_factory=dict)
    """More shipped policies a team member may name, beside ``trained``: name -> checkpoint
    path under the project (its folder also in ``policies``)."""
    studies: dict[str, str] = field(default_factory=dict)
    """The game's own studies, by command (``analyze``, ``benchmark``, ``calibrate``): the
    module of each, with ``add_arguments(parser)`` and ``run(args)``; ``commoncause
    <command> --game NAME`` runs it, and says so in one line for a game without it."""
    others: str = "the other players"
    """How a seat's screens name the other seats together ("partner" in a team of two)."""

    @property
    def env_name(self) -> str:
        return f"{self.name}_v{self.version}"

    @property
    def env_id(self) -> str:
        """The PettingZoo registry id (``pettingzoo.make("aec", env_id)``)."""
        return f"commoncause/{self.name}-v{self.version}"

    @property
    def level_fields(self) -> tuple[str, ...]:
        """The config fields the levels set (each may be given instead of a level)."""
        return tuple(dict.fromkeys(name for options in self.levels.values() for name in options))

    def level_of(self, config: Any) -> str | None:
        """The level whose options ``config`` has (the first), None when at none."""
        values = config.to_dict()
        return next(
            (
                level
                for level, options in self.levels.items()
                if all(values.get(name) == value for name, value in options.items())
            ),
            None,
        )

    def long_label(self, config: Any) -> str:
        """The config's label, with the options its level sets (``normal (stock size
        22)``); the label alone otherwise."""
        label = config.label()
        level = self.level_of(config)
        if level is None or label != level:
            return label
        words = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.levels[level].items())
        return f"{label} ({words})"

    def seat_names(self, config: Any) -> list[str]:
        return [f"player_{i}" for i in range(self.num_seats(config))]

    def new_game(self, config: Any, seed: int | None = None) -> State:
        """A game dealt from a deck shuffled by ``random.Random(seed)``."""
        deck = list(range(self.deck(config).size))
        random.Random(seed).shuffle(deck)
        return self.new_state(config, deck)
