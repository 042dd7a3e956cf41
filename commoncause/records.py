"""Game records: one JSON file per game, saved after every move.

A record holds everything needed to replay or resume a game: the deck order (card codes,
top first; both jokers are ``JK``), the level, stock size and variants, who plays which
seat, the partner checkpoint and its sha256, and every move in order with the player, the
move text (notation computed before the move), the action id, the seconds taken and, for
an agent, its move probabilities over the legal moves (a policy's softmax; the baseline
puts probability 1 on its move; ``null`` for a person).

Records are written atomically (a temporary file in the same folder, then ``os.replace``),
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

from envs.common_cause.cards import deck_codes, parse_deck
from envs.common_cause.notation import move_text
from envs.common_cause.rules import GameConfig, GameState, IllegalMoveError

FORMAT = "commoncause-record-v1"
PLAYERS = ("player_0", "player_1")


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def variants_of(config: GameConfig) -> dict:
    return {
        "open_hands": config.open_hands,
        "ace_low": config.ace_low,
        "max_open_starts": config.max_open_starts,
        "early_loss": config.early_loss,
        "signal_rule": config.signal_rule,
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_record(
    config: GameConfig,
    level: str,
    deck: list[int],
    seats: list[dict],
    seed: int | None,
) -> dict:
    """A record for a game about to start. ``seats[p]`` describes who plays seat p:
    ``{"player": "human"}`` or ``{"player": "agent", "agent": name, "checkpoint": path or
    None, "sha256": hash or None}``."""
    return {
        "format": FORMAT,
        "created": _now(),
        "updated": _now(),
        "seed": seed,
        "level": level,
        "stock_size": config.stock_size,
        "variants": variants_of(config),
        "deck": deck_codes(deck),
        "seats": seats,
        "moves": [],
        "finished": False,
        "result": None,
        "loss_reason": "",
        "turns": 0,
        "stock_left": config.stock_size,
    }


def add_move(
    record: dict,
    state: GameState,
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


def update_summary(record: dict, state: GameState) -> None:
    record["updated"] = _now()
    record["finished"] = state.is_terminal
    record["result"] = state.result
    record["loss_reason"] = state.loss_reason
    record["turns"] = state.turns
    record["stock_left"] = len(state.stock)
    record["pickups"] = pickups(state)


def pickups(state: GameState) -> dict[str, int]:
    """How often each player took each player's discard: ``{"0_from_1": n, ...}``
    (the turned-up card counts as ``from_deal``)."""
    counts = {f"{t}_from_{d}": 0 for t in (0, 1) for d in (0, 1, "deal")}
    entries = iter(state.taken_entries)
    for player, action in state.history:
        if action == 1:  # DRAW_DISCARD
            who = state.discard_log[next(entries)][1]
            counts[f"{player}_from_{'deal' if who < 0 else who}"] += 1
    return counts


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
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"{path} is not a Common Cause game record ({FORMAT})")
    for key in ("deck", "stock_size", "variants", "seats", "moves"):
        if key not in record:
            raise ValueError(f"record {path} has no {key!r}")
    return record


def config_of(record: dict) -> GameConfig:
    v = record["variants"]
    return GameConfig(
        stock_size=record["stock_size"],
        open_hands=v.get("open_hands", False),
        ace_low=v.get("ace_low", False),
        max_open_starts=v.get("max_open_starts", 2),
        early_loss=v.get("early_loss", False),
        signal_rule=v.get("signal_rule", False),
    )


def initial_state(record: dict) -> GameState:
    """The game as dealt from the record's deck."""
    return GameState(config_of(record), parse_deck(record["deck"]))


def replay_moves(record: dict, state: GameState | None = None, on_move=None) -> GameState:
    """Play the record's moves on its deck; ``on_move(state_before, entry)`` is called
    before each move is applied. Checks that each move is the recorded player's, legal, and
    has the recorded text; ValueError naming the first move that is not."""
    if state is None:
        state = initial_state(record)
    for i, entry in enumerate(record["moves"]):
        try:
            player, action, text = entry["player"], entry["action"], entry["move"]
        except (KeyError, TypeError):
            raise ValueError(f"record move {i + 1} lacks player, action or move") from None
        if state.is_terminal:
            raise ValueError(f"record move {i + 1} comes after the end of the game")
        if player != state.current:
            raise ValueError(
                f"record move {i + 1} ({text}) is {PLAYERS[player]}'s, "
                f"but it is {PLAYERS[state.current]}'s turn"
            )
        if action not in state.legal_actions():
            raise ValueError(f"record move {i + 1} ({text}) is not legal at that point")
        if move_text(state, action) != text:
            raise ValueError(
                f"record move {i + 1}: action {action} is {move_text(state, action)!r}, "
                f"the record says {text!r}"
            )
        if on_move is not None:
            on_move(state, entry)
        try:
            state.apply(action)
        except IllegalMoveError as e:  # (checked above; kept for safety)
            raise ValueError(f"record move {i + 1} ({text}): {e}") from None
    return state
