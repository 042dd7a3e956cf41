"""Options every command shares: ``--game`` and the game's rules options, and seeds.

A game's options come from its config dataclass (one flag per field: ``--stock-size N``,
``--open-hands``; ``--players`` for ``--num-players``), plus ``--level`` and the config's
``CLI_ALIASES`` (Common Cause's ``--three-starts``), so no command restates a game's
options. One rule for seeds everywhere: a whole number 0 or more, checked before any work
starts.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from commoncause.envs.registry import DEFAULT_GAME, game_names, get_game

SEED_RULE = "a seed is a whole number 0 or more"


def check_seed(value: Any, what: str = "seed") -> int:
    """``value`` as a seed; ValueError naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a whole number 0 or more, got {value!r}")
    return value


def seed_type(text: str) -> int:
    """argparse type of every ``--seed``."""
    try:
        return check_seed(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{SEED_RULE}, got {text!r}") from None


def add_seed_argument(p: argparse.ArgumentParser, default: int | None = 0, help: str = "") -> None:
    p.add_argument(
        "--seed",
        type=seed_type,
        default=default,
        help=(help or "seed") + (f" (default {default})" if default is not None else ""),
    )


def selected_game(argv: list[str]) -> str:
    """The ``--game`` named on a command line (before the parser exists), else the default."""
    for i, word in enumerate(argv):
        if word == "--game" and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith("--game="):
            return word.split("=", 1)[1]
    return DEFAULT_GAME


SHORT_FLAGS = {"num_players": "--players"}
"""A second, shorter flag for a config field (``--players 4``), unless a command has it."""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_game_arguments(p: argparse.ArgumentParser, game_name: str | None = None) -> None:
    """``--game``, ``--level`` and one flag per field of the game's config."""
    name = game_name or selected_game(sys.argv[1:])
    p.add_argument(
        "--game",
        default=DEFAULT_GAME,
        choices=game_names(),
        help=f"which game (default {DEFAULT_GAME}; `commoncause games` lists them)",
    )
    if name not in game_names():
        return  # argparse reports the bad --game with the choices
    config_type = get_game(name).config_type
    levels = getattr(config_type, "LEVELS", None)
    if levels:
        p.add_argument("--level", default=None, help=f"{', '.join(levels)} (default normal)")
    own = set(p._option_string_actions)  # the command's own flags win (calibrate's --target)
    added = []
    for field in dataclasses.fields(config_type):
        if _flag(field.name) in own:
            continue
        added.append(field.name)
        short = SHORT_FLAGS.get(field.name)
        flags = [_flag(field.name)] + ([short] if short and short not in own else [])
        if field.type in ("bool", bool):
            words = f"variant: {field.name.replace('_', ' ')}"
            state = "on" if field.default else "off"
            p.add_argument(*flags, action=argparse.BooleanOptionalAction,
                           default=None, help=f"{words} (default {state})")  # fmt: skip
        else:
            word = field.type in ("str", str)
            kind = "a word" if word else "an int"
            help_text = f"rules option {field.name} ({kind}, default {field.default})"
            p.add_argument(*flags, type=str if word else int, default=None,
                           help=help_text)  # fmt: skip
    p.set_defaults(game_fields=tuple(added))
    for alias, (field_name, value) in getattr(config_type, "CLI_ALIASES", {}).items():
        p.add_argument(_flag(alias), action="store_const", const=value, dest=field_name,
                       help=f"same as {_flag(field_name)} {value}")  # fmt: skip


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The rules options given on the command line (only those given)."""
    game = get_game(args.game)
    flags = getattr(args, "game_fields", None)  # those add_game_arguments declared
    options = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(game.config_type)
        if getattr(args, f.name, None) is not None and (flags is None or f.name in flags)
    }
    if getattr(args, "level", None) is not None:
        options["level"] = args.level
    return options


def game_and_config(args: argparse.Namespace):
    """(game record, config) from ``add_game_arguments``' flags; ValueError if bad."""
    game = get_game(args.game)
    return game, game.make_config(**game_options(args))
