"""Options every command shares: ``--game`` and the game's rules options, and seeds.

A game's options come from its config dataclass (one flag per field: ``--stock-size N``,
``--open-hands``; ``--players`` for ``--num-players``), plus ``--level`` and the config's
``CLI_ALIASES`` (Common Cause's ``--three-starts``), so no command restates a game's
options. One rule for seeds everywhere: a whole number 0 or more, checked before any work
starts. The same for paths: a file to read, a file or a folder to write are checked before
any game is played (``check_input_file``, ``check_output_file``, ``check_output_folder``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from commoncause.envs.core.options import SEED_RULE, check_seed
from commoncause.envs.registry import DEFAULT_GAME, game_names, get_game


def seed_type(text: str) -> int:
    """argparse type of every ``--seed``."""
    try:
        return check_seed(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{SEED_RULE}, got {text!r}") from None


def check_input_file(path: Path | None, what: str) -> None:
    """ValueError if ``path`` (named ``what``: ``--config``, ``record``) is a folder; a
    missing file is left to its reader, which names what it should be."""
    if path is not None and path.is_dir():
        raise ValueError(f"{what} {path} is a directory, not a file")


def check_output_file(path: Path | None, what: str) -> None:
    """ValueError unless a file can be written at ``path`` (it may exist; missing folders
    above it are made when it is written)."""
    if path is None:
        return
    if path.is_dir():
        raise ValueError(f"{what} {path} is a directory: give a file name")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise ValueError(f"{what} {path} is read-only")
    else:
        _check_can_make(path, what)


def check_output_folder(path: Path | None, what: str) -> None:
    """ValueError unless files can be written into the folder ``path`` (it may exist)."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} {path} is a file, not a folder")
    if path.is_dir():
        if not _can_write_in(path):
            raise ValueError(f"{what} {path} is a folder you cannot write in")
    else:
        _check_can_make(path, what)


def _check_can_make(path: Path, what: str) -> None:
    """ValueError unless the nearest existing folder above ``path`` is a folder that can be
    written in (so ``path`` and the folders between can be made)."""
    for above in path.absolute().parents:
        if above.exists():
            if not above.is_dir():
                raise ValueError(f"{what} {path}: {above} is a file, not a folder")
            if not _can_write_in(above):
                raise ValueError(f"{what} {path}: cannot write in {above}")
            return


def _can_write_in(folder: Path) -> bool:
    """Whether a file can be made in ``folder``, by making one (permissions alone do not
    say: root passes them where a file system such as /proc makes none)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def add_seed_argument(p: argparse.ArgumentParser, default: int | None = 0, help: str = "") -> None:
    p.add_argument(
        "--seed",
        type=seed_type,
        default=default,
        help=(help or "seed") + (f" (default {default})" if default is not None else ""),
    )


PARSING: ContextVar[list[str] | None] = ContextVar("parsing", default=None)
"""The arguments ``cli.main`` is parsing (a script's or a test's), else None: ``sys.argv``."""


def command_line() -> list[str]:
    """The command line being parsed: ``main``'s arguments where given, else ``sys.argv``'s."""
    given = PARSING.get()
    return sys.argv[1:] if given is None else given


def selected_game(argv: list[str]) -> str:
    """The ``--game`` named on a command line (before the parser exists), else the default."""
    for i, word in enumerate(argv):
        if word == "--game" and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith("--game="):
            return word.split("=", 1)[1]
    return DEFAULT_GAME


class _GameAction(argparse.Action):
    """``--game``, noting that it was given (``args.game_given``): a command that takes
    the game from elsewhere (``play --resume``) refuses one that contradicts it."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        namespace.game_given = True


SHORT_FLAGS = {"num_players": "--players"}
"""A second, shorter flag for a config field (``--players 4``), unless a command has it."""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_game_argument(p: argparse.ArgumentParser) -> None:
    """``--game`` (once: a parser that has it keeps it)."""
    if "--game" in p._option_string_actions:
        return
    p.add_argument(
        "--game",
        default=DEFAULT_GAME,
        choices=game_names(),
        action=_GameAction,
        help=f"which game (default {DEFAULT_GAME}; `commoncause games` lists them)",
    )
    p.set_defaults(game_given=False)


def add_game_arguments(p: argparse.ArgumentParser, game_name: str | None = None) -> None:
    """``--game``, ``--level`` and one flag per field of the game's config."""
    name = game_name or selected_game(command_line())
    add_game_argument(p)
    if name not in game_names():
        return  # argparse reports the bad --game with the choices
    game = get_game(name)
    config_type = game.config_type
    if game.levels:
        levels = ", ".join(game.levels)
        default = game.level_of(game.make_config())
        p.add_argument("--level", default=None, help=f"{levels} (default {default})")
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
    fields = {other: dataclasses.fields(get_game(other).config_type) for other in game_names()}
    others = [f"{other} ({', '.join(_flag(f.name) for f in fields[other])})"
              for other in game_names() if other != name]  # fmt: skip
    p.epilog = (f"The rules options above are {get_game(name).title}'s; the other games' show "
                f"with --game NAME --help: {'; '.join(others)}.")  # fmt: skip
    for alias, (field_name, value) in config_type.CLI_ALIASES.items():
        p.add_argument(_flag(alias), action="store_const", const=value, dest=f"alias_{alias}",
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
    for alias, (name, value) in game.config_type.CLI_ALIASES.items():
        declared = flags is None or name in flags
        if getattr(args, f"alias_{alias}", None) is None or not declared:
            continue
        if options.get(name, value) != value:  # (--three-starts --max-open-starts 2)
            raise ValueError(f"{_flag(alias)} means {_flag(name)} {value}, which contradicts "
                             f"{_flag(name)} {options[name]}: give one")  # fmt: skip
        options[name] = value
    return options


def game_and_config(args: argparse.Namespace):
    """(game record, config) from ``add_game_arguments``' flags; ValueError if bad."""
    game = get_game(args.game)
    return game, game.make_config(**game_options(args))
