"""Game records: one JSON file per game, saved after every move.

A record holds everything needed to replay or resume a game: the game's registry name
(``game``), its rules options (``config``: the config's own ``to_dict``) and their label
(``level``), the deck order (card codes, top first; jokers are ``JK``), who plays which
seat, a partner checkpoint and its sha256, and every move in order with the player, the
move text (notation computed before the move), the action id, the seconds taken and, for
an agent, its move probabilities over the legal moves (a policy's softmax; the baseline
puts probability 1 on its move; ``null`` for a person).

Older records (before the game registry) have no ``game`` and keep the options as
``stock_size`` and ``variants`` (the config's other fields); they load as Common Cause.

A record is checked whole before anything reads it (``check_record``: its parts and their
types, the seats against its config), so a malformed one is a one-line ValueError naming the
problem. Records are written atomically (a temporary file in the same folder, then ``os.replace``),
so a crash never leaves a half-written record behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from commoncause import ROOT
from commoncause.envs.core.game import IllegalMoveError
from commoncause.envs.registry import DEFAULT_GAME, get_game

FORMAT = "commoncause-record-v1"


class _Seat(BaseModel):
    """Who plays a seat, as a record says (other keys, such as ``interface``, allowed)."""

    model_config = ConfigDict(extra="allow", strict=True)
    player: Literal["human", "agent"]
    agent: str | None = None
    checkpoint: str | None = None
    sha256: str | None = None


class _Move(BaseModel):
    """One recorded move (whether it is legal is for ``check_move``)."""

    model_config = ConfigDict(extra="allow", strict=True)
    player: int
    action: int
    move: str
    n: int | None = None
    turn: int | None = None
    seconds: float | None = None
    probabilities: dict[str, float] | None = None
    hint: str | None = None
    forced: bool = False


class _Record(BaseModel):
    """The parts of a record every reader relies on, with their types."""

    model_config = ConfigDict(extra="allow", strict=True)
    format: Literal["commoncause-record-v1"]
    game: str = DEFAULT_GAME
    seed: int | None = Field(default=None, ge=0)
    config: dict[str, Any] | None = None
    stock_size: int | None = None
    variants: dict[str, Any] | None = None
    deck: list[str | int]
    seats: list[_Seat]
    moves: list[_Move]


def check_record(record: Any) -> None:
    """ValueError naming the first problem (one line) unless ``record`` is a whole record of
    this project: its format, a known game, options its config reads, a deck of that game's
    cards, one seat description per seat of that config (an agent's with its spec), a seed
    that is none or not negative, and moves with a player, an action and a text. Whether
    each move is legal is checked as the record is replayed (``check_move``)."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"it is not a game record of this project ({FORMAT})")
    try:
        _Record.model_validate(record)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        what = "Input should be an object" if err["type"] == "model_type" else err["msg"]
        raise ValueError(f"{where}: {what}") from None
    if "config" in record and record["config"] is None:
        raise ValueError("config: Input should be a valid dictionary")
    if "config" not in record and (record.get("stock_size") is None or "variants" not in record):
        raise ValueError("it has no 'config'")
    try:
        game, config = game_of(record), config_of(record)
    except TypeError as e:  # a config's from_dict given values of the wrong kinds
        raise ValueError(f"config: {e}") from None
    game.deck(config).parse(record["deck"])
    seats = game.num_seats(config)
    if len(record["seats"]) != seats:
        raise ValueError(
            f"{game.title} with {config.label()} has {seats} seats, the record describes "
            f"{len(record['seats'])}"
        )
    for p, seat in enumerate(record["seats"]):
        if seat["player"] == "agent" and not seat.get("agent"):
            raise ValueError(f"seats.{p}: an agent's seat names no agent")


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def shown_path(text: str) -> str:
    """A path as a shared record or a message shows it: relative to the project when inside
    it (``checkpoints/normal/best.pt``), else just its file name; any other text as it is."""
    path = Path(text)
    if not path.is_absolute():
        return text
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def shareable(record: dict) -> dict:
    """``record`` with its seats' agents and checkpoints as ``shown_path`` names them (their
    sha256 say which files they are): no server folder in a record that leaves it."""

    def seat(info: dict) -> dict:
        out = dict(info)
        for key in ("agent", "checkpoint"):
            if isinstance(out.get(key), str):
                out[key] = shown_path(out[key])
        return out

    out = {**record, "seats": [seat(info) for info in record["seats"]]}
    if isinstance(record.get("partner"), dict):
        out["partner"] = seat(record["partner"])
    return out


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_record(
    config: Any,
    level: str,
    deck: list[int],
    seats: list[dict],
    seed: int | None,
    game: str = DEFAULT_GAME,
) -> dict:
    """A record for a game about to start. ``seats[p]`` describes who plays seat p:
    ``{"player": "human"}`` or ``{"player": "agent", "agent": name, "checkpoint": path or
    None, "sha256": hash or None}``."""
    record = {
        "format": FORMAT,
        "game": game,
        "created": _now(),
        "updated": _now(),
        "seed": seed,
        "level": level,
        "config": config.to_dict(),
        "deck": get_game(game).deck(config).codes(deck),
        "seats": seats,
        "moves": [],
        "finished": False,
        "result": None,
        "outcome": "",
        "turns": 0,
    }
    rules = get_game(game)
    record.update(rules.summary(rules.new_state(config, deck)))
    return record


def add_move(
    record: dict,
    state: Any,
    player: int,
    action: int,
    text: str,
    seconds: float,
    probabilities: dict[str, float] | None,
    **extra,
) -> None:
    """Append a move already applied to ``state`` and update the summary fields."""
    entry = {
        "n": len(record["moves"]) + 1,
        "player": player,
        "move": text,
        "action": action,
        "seconds": round(seconds, 3),
        "turn": state.turns,
        "probabilities": probabilities,
    }
    entry.update(extra)
    record["moves"].append(entry)
    update_summary(record, state)


def update_summary(record: dict, state: Any) -> None:
    record["updated"] = _now()
    record["finished"] = state.is_terminal
    record["result"] = state.result
    record["outcome"] = state.outcome()
    record["returns"] = list(state.returns())
    record["turns"] = state.turns
    record.update(game_of(record).summary(state))  # the game's own figures


def save(record: dict, path: str | Path) -> None:
    """Write ``record`` to ``path`` atomically (temporary file, then ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def new_path(folder: str | Path, seed: int | None) -> Path:
    """A fresh record file name in ``folder``: ``game-<time>-seed<S>.json``."""
    folder = Path(folder)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = f"game-{stamp}" + (f"-seed{seed}" if seed is not None else "")
    path = folder / f"{base}.json"
    n = 2
    while path.exists():
        path = folder / f"{base}-{n}.json"
        n += 1
    return path


def load(path: str | Path) -> dict:
    """A record from its file; ValueError naming the problem if it is missing or broken."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"record {path} not found")
    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"record {path} is not readable JSON: {e}") from None
    try:
        check_record(record)
    except ValueError as e:
        raise ValueError(f"record {path}: {e}") from None
    return record


def game_of(record: dict):
    """The record's game (``Game``); a record from before the registry is Common Cause."""
    return get_game(record.get("game", DEFAULT_GAME))


def config_of(record: dict) -> Any:
    """The record's rules config, through the config's own ``from_dict``."""
    config_type = game_of(record).config_type
    if "config" in record:
        return config_type.from_dict(record["config"])
    return config_type.from_dict({"stock_size": record["stock_size"], **record["variants"]})


def initial_state(record: dict) -> Any:
    """The game as dealt from the record's deck."""
    game, config = game_of(record), config_of(record)
    return game.new_state(config, game.deck(config).parse(record["deck"]))


def check_move(record: dict, state: Any, entry: dict, i: int | None = None) -> None:
    """ValueError unless ``entry`` is the recorded player's legal move with the recorded
    text at ``state`` (before it is applied)."""
    game = game_of(record)
    i = record["moves"].index(entry) if i is None else i
    try:
        player, action, text = entry["player"], entry["action"], entry["move"]
    except (KeyError, TypeError):
        raise ValueError(f"record move {i + 1} lacks player, action or move") from None
    if state.is_terminal:
        raise ValueError(f"record move {i + 1} comes after the end of the game")
    if player != state.current:
        raise ValueError(
            f"record move {i + 1} ({text}) is player_{player}'s, "
            f"but it is player_{state.current}'s turn"
        )
    if action not in state.legal_actions():
        raise ValueError(f"record move {i + 1} ({text}) is not legal at that point")
    if game.move_text(state, action) != text:
        raise ValueError(
            f"record move {i + 1}: action {action} is {game.move_text(state, action)!r}, "
            f"the record says {text!r}"
        )


def replay_moves(record: dict, state: Any = None, on_move=None) -> Any:
    """Play the record's moves on its deck; ``on_move(state_before, entry)`` is called
    before each move is applied. Checks that each move is the recorded player's, legal, and
    has the recorded text; ValueError naming the first move that is not."""
    if state is None:
        state = initial_state(record)
    for i, entry in enumerate(record["moves"]):
        check_move(record, state, entry, i)
        action, text = entry["action"], entry["move"]
        if on_move is not None:
            on_move(state, entry)
        try:
            state.apply(action)
        except IllegalMoveError as e:  # (checked above; kept for safety)
            raise ValueError(f"record move {i + 1} ({text}): {e}") from None
    return state
