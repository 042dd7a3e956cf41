"""``commoncause serve``: the browser front of :class:`~commoncause.session.PlaySession`.

One FastAPI app serves a documented JSON API (docs/web.md) and one static page that uses
only that API. Every game is a play session: the same flow, records, resume and hints as
the terminal (``commoncause play``). Each game has an id (16 hex digits) and one token per
seat a person plays; a request shows a seat only what its seat view holds
(``session.screen(seat)``). Records are saved after every move as ``<record_dir>/<id>.json``
in the terminal's format (``commoncause replay`` reads them); the seats' token hashes live
beside them in ``<record_dir>/tokens/<id>.json``, so a restarted server resumes any game on
demand by its id. Finished games leave memory (their records stay on disk).

Rules of the API: no token 401, a wrong token 403, an unknown game 404, a move that is not
the caller's to play 409, an illegal or unreadable move 400 with the legal moves (the game
goes on unchanged), a malformed body 422, a body over ``MAX_BODY`` bytes 413. Every error
is JSON ``{"error": "<what is wrong>", ...}``. Nothing from a request becomes a file path:
ids are checked against a pattern and partners are chosen from a fixed list.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from commoncause import ROOT, records
from commoncause.agents.search import can_search
from commoncause.agents.trained import trained_spec
from commoncause.envs.registry import DEFAULT_GAME, game_names, get_game
from commoncause.session import HUMAN, BadInput, PlaySession, default_partner

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
"""Bytes a request body may hold (a game or a move is far smaller)."""
MAX_RECORD_BODY = 8 * 1024 * 1024
"""Bytes an uploaded record may hold (``POST /api/replay``)."""
MAX_IN_MEMORY = 256
"""Unfinished games kept in memory; older ones are reloaded from their records."""
PERSON = ("person", HUMAN)
"""Partner names that mean a second person plays that seat (with its own token)."""
ID_PATTERN = re.compile(r"[0-9a-f]{16}")
BASELINE_SPEC = re.compile(r"baseline(:[A-Za-z0-9_=.,-]{1,60})?")


class ApiError(Exception):
    """An error answered as ``{"error": message, **extra}`` with ``status``."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


# ------------------------------------------------------------------------ requests


STRICT = ConfigDict(extra="forbid", strict=True)
"""Request bodies: no unknown field, and each field of its own JSON type (``true`` is no
seed, ``3.0`` no player count, ``"1"`` no seat: a 422, never a silent coercion)."""


class GameOptions(BaseModel):
    """``POST /api/partners``: a game and its options."""

    model_config = STRICT
    game: str = DEFAULT_GAME
    level: str | None = Field(default=None, max_length=40)
    options: dict[str, bool | int | str] = Field(default_factory=dict)


class NewGame(GameOptions):
    """``POST /api/games``."""

    seat: int = 0
    partner: str | list[str] | None = None
    opponents: str | list[str] | None = None
    seed: int | None = Field(default=None, ge=0, le=2**53)
    deck: list[str | int] | None = Field(default=None, max_length=1000)


class NewMove(BaseModel):
    """``POST /api/games/{id}/moves``."""

    model_config = STRICT
    move: str = Field(max_length=200)


# ---------------------------------------------------------------------- partners


def checkpoint_choices(root: Path = ROOT) -> dict[str, Path]:
    """Shipped checkpoints by name (``checkpoints/<name>/best.pt``), the only paths a
    request may name."""
    folder = root / "checkpoints"
    if not folder.is_dir():
        return {}
    return {
        f"checkpoints/{d.name}": d / "best.pt"
        for d in sorted(folder.iterdir())
        if (d / "best.pt").is_file()
    }


def checkpoint_game(path: Path) -> str:
    """The game a shipped checkpoint plays (its model card's ``game``; Common Cause if
    the card names none)."""
    try:
        card = json.loads((path.parent / "best.json").read_text())
    except (OSError, ValueError):
        return DEFAULT_GAME
    return str(card.get("game") or card.get("config", {}).get("game") or DEFAULT_GAME)


def offers_search(game) -> bool:
    """Whether the page offers ``search`` (its default options: the shipped policy with
    search): for a team game the search plays, whose shipped policy is its default
    config's; a competitive game's blueprint depends on the number of players."""
    return game.team and can_search(game)


def partner_choices(game_name: str, config: Any = None) -> list[dict[str, str]]:
    """Who may play the other seats of a game with ``config`` (default: its default one):
    value and a short description, the default first (``trained`` only where a policy is
    shipped for the config)."""
    game = get_game(game_name)
    config = game.make_config() if config is None else config
    out = [{"value": "baseline", "label": f"the {game.title} baseline"}]
    if default_other(game_name, config)[0] == "trained":
        out.insert(0, {"value": "trained", "label": "the trained policy (shipped)"})
        if offers_search(game):
            out.insert(1, {"value": "search", "label": "the trained policy with search (slower)"})
    for name, path in checkpoint_choices().items():
        if checkpoint_game(path) == game_name:
            out.append({"value": name, "label": f"checkpoint {name}"})
    out.append({"value": "random", "label": "random legal moves"})
    out.append({"value": "person", "label": "a person (you get a link to send)"})
    return out


def default_other(game_name: str, config) -> tuple[str, str | None]:
    """The default for the other seats, as the terminal's (``default_partner``):
    ``trained`` where a policy is shipped for this config, else ``baseline`` and a note
    saying so."""
    _, note = default_partner(game_name, config)
    return ("baseline" if note else "trained"), note


def agent_spec(value: str, game_name: str, config: Any = None) -> str:
    """The agent spec for ``make_player`` from a request's partner value (never a path the
    request wrote: checkpoints come from ``checkpoint_choices``); a 400 listing the choices
    for ``config`` otherwise."""
    if value in ("trained", "random") or BASELINE_SPEC.fullmatch(value):
        return value
    if value == "search" and offers_search(get_game(game_name)):  # its default options only
        return value
    shipped = checkpoint_choices()
    if value in shipped:
        return str(shipped[value])
    raise ApiError(400, f"unknown partner {value!r}: choose {choice_names(game_name, config)}")


def choice_names(game_name: str, config: Any = None) -> str:
    return ", ".join(c["value"] for c in partner_choices(game_name, config))


def game_config(body: GameOptions) -> tuple[Any, Any]:
    """The game record and config a request names (a 400 saying what is wrong)."""
    if body.game not in game_names():
        raise ApiError(400, f"unknown game {body.game!r}: choose {', '.join(game_names())}")
    game = get_game(body.game)
    options = dict(body.options)
    if body.level is not None:
        if "level" in options and options["level"] != body.level:
            raise ApiError(400, f"level {body.level!r} and options.level "
                                f"{options['level']!r} disagree: give one")  # fmt: skip
        options["level"] = body.level
    try:
        return game, game.make_config(**options)
    except (ValueError, TypeError) as e:
        raise ApiError(400, f"bad options for {game.title}: {e}") from None


# -------------------------------------------------------------------------- games


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class WebGame:
    """A game in memory: its session, its seats' token hashes, a lock, pending hints."""

    id: str
    session: PlaySession
    tokens: dict[int, str]
    """seat -> sha256 of its token."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    hints: dict[int, str] = field(default_factory=dict)
    """A seat's hint asked for in the turn in progress (recorded with its move)."""


class Store:
    """The games: in memory while played, on disk always (records and token hashes)."""

    def __init__(self, record_dir: Path) -> None:
        self.record_dir = Path(record_dir)
        self.games: OrderedDict[str, WebGame] = OrderedDict()
        self.lock = threading.Lock()

    def record_path(self, game_id: str) -> Path:
        return self.record_dir / f"{game_id}.json"

    def tokens_path(self, game_id: str) -> Path:
        return self.record_dir / "tokens" / f"{game_id}.json"

    def add(self, game: WebGame) -> None:
        path = self.tokens_path(game.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({str(s): h for s, h in game.tokens.items()}) + "\n")
        self.keep(game)

    def keep(self, game: WebGame) -> None:
        with self.lock:
            self.games[game.id] = game
            self.games.move_to_end(game.id)
            while len(self.games) > MAX_IN_MEMORY:
                self.games.popitem(last=False)

    def forget(self, game_id: str) -> None:
        with self.lock:
            self.games.pop(game_id, None)

    def get(self, game_id: str) -> WebGame:
        """The game by id: from memory, else loaded from its record (404 if none)."""
        if not ID_PATTERN.fullmatch(game_id):
            raise ApiError(404, f"no game {game_id[:40]!r} (ids are 16 hex digits)")
        with self.lock:
            game = self.games.get(game_id)
            if game is not None:
                return game
            return self._load(game_id)

    def _load(self, game_id: str) -> WebGame:
        path, tpath = self.record_path(game_id), self.tokens_path(game_id)
        if not path.is_file() or not tpath.is_file():
            raise ApiError(404, f"no game {game_id!r}")
        try:
            record = records.load(path)
            tokens = {int(s): h for s, h in json.loads(tpath.read_text()).items()}
            finished = bool(record.get("finished"))
            session = PlaySession.from_record(record, path, agents=not finished)
        except ValueError as e:
            raise ApiError(409, f"game {game_id} cannot be resumed: {e}") from None
        game = WebGame(game_id, session, tokens)
        if not session.is_over:  # (the caller holds the store's lock)
            self.games[game_id] = game
            while len(self.games) > MAX_IN_MEMORY:
                self.games.popitem(last=False)
        return game


def seat_of(game: WebGame, authorization: str | None) -> int:
    """The seat whose token the request carries: 401 without one, 403 if it is wrong."""
    if not authorization:
        raise ApiError(401, "this needs the seat's token: send 'Authorization: Bearer <token>'")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "the Authorization header must be 'Bearer <token>'")
    digest = _hash(token.strip())
    for seat, h in game.tokens.items():
        if hmac.compare_digest(digest, h):
            return seat
    raise ApiError(403, f"that token opens no seat of game {game.id}")


def advance(game: WebGame) -> None:
    """Play on until a person is to move or the game is over: the agents' moves, and in a
    game of one person their only legal move (played for them, marked ``forced`` as the
    terminal does). With several persons a person plays even an only move: played for them,
    when it came (at once) would tell the others that their hand has no other (a forced
    ``draw stock``: the top discard fits nowhere in it)."""
    s = game.session
    while not s.is_over:
        if s.current in s.agents:
            action, probs, seconds = s.agent_move()
            s.play(action, seconds, probs)
            continue
        menu = s.legal_moves()
        if len(menu) != 1 or len(s.humans) > 1:
            return
        game.hints.pop(s.current, None)
        s.play(menu[0][0], 0.0, None, forced=True)


def view(game: WebGame, seat: int) -> dict:
    """What ``seat`` sees (``session.screen``) plus the game's id, the seats' kinds and,
    once over, the result's summary and links."""
    s = game.session
    data = s.screen(seat)
    data["id"] = game.id
    data["kinds"] = [
        "person" if info.get("player") == HUMAN else "agent" for info in s.record["seats"]
    ]
    data["moves_played"] = len(s.moves)
    data["waiting_for"] = None if s.is_over or s.current == seat else s.current
    data["history"] = [
        {"n": i + 1, "seat": m.seat, "turn": m.turn, "move": m.seen_by(seat)}
        for i, m in enumerate(s.moves[-40:], start=max(0, len(s.moves) - 40))
    ]
    if s.is_over:
        summary = s.summary()
        data["summary"] = summary
        returns = summary["returns"]
        if s.game.team:
            data["won"] = bool(summary["won"])
        else:
            data["won"] = returns[seat] == max(returns)
        data["record_url"] = f"/api/games/{game.id}/record"
        data["replay_url"] = f"/replay/{game.id}"
    return data


RECORD_KEYS = (
    "format", "game", "created", "updated", "level", "config", "seats", "partner", "web_id",
    "finished", "result", "outcome", "turns", "returns",
)  # fmt: skip
"""The keys of a record a seat may see while the game runs, with the game's own figures
(``Game.summary``, public by definition): an allow-list, so a key that records gain later
stays private until it is named here (never the seed or the deck, which the whole deal
follows from)."""
OWN_MOVE_KEYS = ("n", "player", "move", "action", "seconds", "turn", "probabilities", "hint",
                 "forced")  # fmt: skip
"""The keys of a seat's own moves in its record so far."""
OTHER_MOVE_KEYS = ("n", "player", "turn", "seconds")
"""The keys of the other seats' moves in it (the move as the seat saw it added)."""


def seat_record(record: dict, session: PlaySession, seat: int) -> dict:
    """The record of an unfinished game as ``seat`` may see it: the ``RECORD_KEYS`` (no
    seed, no deck), its own moves whole, the others' as it saw them (no action ids,
    probabilities or hints)."""
    public = records.shareable(record)
    keys = (*RECORD_KEYS, *session.game.summary(session.state))
    out = {k: public[k] for k in keys if k in public}
    out["deck"] = None
    out["view_of"] = seat
    out["moves"] = []
    for entry, move in zip(record["moves"], session.moves, strict=False):
        if entry["player"] == seat:
            shown = {k: entry[k] for k in OWN_MOVE_KEYS if k in entry}
        else:
            shown = {k: entry[k] for k in OTHER_MOVE_KEYS if k in entry}
            shown["move"] = move.seen_by(seat)
        out["moves"].append(shown)
    return out


def is_text(string: str) -> bool:
    """Whether ``string`` is text: not a lone surrogate in it (``"\\ud800"`` in JSON), which
    has no UTF-8, so no answer could echo it."""
    try:
        string.encode()
    except UnicodeEncodeError:
        return False
    return True


def check_text(document: Any) -> None:
    """ValueError naming the first string of a JSON document, key or value, that is not
    text (``is_text``)."""
    todo: list[tuple[tuple, Any]] = [((), document)]
    while todo:  # (a loop, not recursion: a document may nest deeper than Python's limit)
        path, value = todo.pop()
        where = ".".join(map(str, path)) or "record"
        if isinstance(value, str):
            if not is_text(value):
                raise ValueError(f"{where}: not valid text")
            continue
        if isinstance(value, dict):
            if not all(map(is_text, value)):
                raise ValueError(f"{where}: a key is not valid text")
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        todo += [((*path, k), v) for k, v in reversed(items)]


def replay_frame(record: dict, move: int, seat: int | None, public: bool) -> dict:
    """The table after the record's first ``move`` moves, as ``seat`` saw it (None: every
    hand), with the line of that move. Not ``public`` (a game still running): no seed, and
    whether a move was forced only for the seat's own."""
    total = len(record["moves"])
    move = max(0, min(move, total))
    session = PlaySession.from_record(record, moves=move)
    if seat is not None and not 0 <= seat < session.num_seats:
        raise ApiError(400, f"seat must be 0-{session.num_seats - 1} for this game, got {seat}")
    entry = record["moves"][move - 1] if move else None
    line = None
    if entry is not None:
        m = session.moves[-1]
        line = {
            "n": move,
            "seat": m.seat,
            "player": session.player_name(m.seat),
            "move": m.seen_by(seat),
            "seconds": entry.get("seconds"),
            "forced": bool(entry.get("forced")) if public or seat == m.seat else None,
            "hint": entry.get("hint") if seat in (None, m.seat) else None,
        }
    screen = session.screen(seat)
    screen["legal"] = []
    return {
        "move": move,
        "total": total,
        "line": line,
        "screen": screen,
        "seed": record.get("seed") if public else None,
        "summary": session.summary() if session.is_over else None,
    }


# ---------------------------------------------------------------------------- app


class BodyLimit:
    """ASGI middleware: refuse request bodies over a limit (413) before the app reads
    them (``MAX_RECORD_BODY`` for record uploads, ``MAX_BODY`` otherwise)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = MAX_RECORD_BODY if scope.get("path") == "/api/replay" else MAX_BODY
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > limit
                except ValueError:
                    too_big = True
                if too_big:
                    await _refuse(send, limit)
                    return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > limit:
                await _refuse(send, limit)
                return
        sent = False

        async def replay_receive():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay_receive, send)


async def _refuse(send, limit: int) -> None:
    payload = json.dumps({"error": f"request body too large (at most {limit} bytes)"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "bad request: " + "; ".join(parts)


def _body_problem(error: BaseException | None) -> str | None:
    """What is wrong with a body that is no JSON Python reads, from the error behind
    FastAPI's "There was an error parsing the body" (malformed JSON is its own 422)."""
    if isinstance(error, RecursionError):
        return "nested too deeply"
    if isinstance(error, UnicodeDecodeError):
        return "not valid UTF-8"
    if isinstance(error, ValueError) and "integer string conversion" in str(error):
        return "number too large"  # more digits than sys.get_int_max_str_digits()
    return None


def create_app(record_dir: str | Path = Path("records/web")) -> FastAPI:
    """The app, its games recorded in ``record_dir``."""
    app = FastAPIOffline(  # the docs' Swagger UI served by the app itself, not a CDN
        title="Common Cause",
        description="Play Common Cause and its rummy family; see docs/web.md.",
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        static_url="/api/docs-static",
    )
    store = Store(Path(record_dir))
    app.state.store = store

    places = {store.record_dir.resolve(), ROOT, store.record_dir} - {Path(".")}
    folders = sorted((f"{d}{os.sep}" for d in places), key=len, reverse=True)

    def unplaced(message: str) -> str:
        """A message without the server's folders (the project's, the records')."""
        for folder in folders:
            message = message.replace(folder, "")
        return message

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return JSONResponse({"error": unplaced(exc.message), **exc.extra}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse({"error": _validation_message(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        problem = _body_problem(exc.__cause__)
        if problem:
            return JSONResponse({"error": f"bad request: body: {problem}"}, status_code=422)
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        return JSONResponse(
            {"error": unplaced(f"internal error: {type(exc).__name__}: {exc}")[:300]},
            status_code=500,
        )

    # -- pages ------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    @app.get("/play/{game_id}", include_in_schema=False)
    def play_page(game_id: str):
        return FileResponse(STATIC / "index.html")

    @app.get("/replay", include_in_schema=False)
    @app.get("/replay/{game_id}", include_in_schema=False)
    def replay_page(game_id: str = ""):
        return FileResponse(STATIC / "index.html")

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str):
        files = {p.name: p for p in STATIC.iterdir() if p.is_file()}
        if name not in files:
            raise ApiError(404, f"no static file {name[:60]!r}")
        return FileResponse(files[name])

    # -- facts ------------------------------------------------------------------
    @app.get("/api/meta")
    def meta() -> dict:
        """The games, their options (levels, fields with defaults), seats and partners."""
        out = []
        for name in game_names():
            game = get_game(name)
            config = game.make_config()
            fields = [
                {
                    "name": f.name,
                    "type": f.type if isinstance(f.type, str) else f.type.__name__,
                    "default": getattr(config, f.name),
                }
                for f in dataclasses.fields(game.config_type)
            ]
            out.append(
                {
                    "name": name,
                    "title": game.title,
                    "team": game.team,
                    "seats": game.num_seats(config),
                    "levels": list(game.levels),
                    "level": game.level_of(config),
                    "level_fields": list(game.level_fields),
                    "options": fields,
                    "partners": partner_choices(name),
                }
            )
        return {"games": out, "default": DEFAULT_GAME}

    @app.post("/api/partners")
    def partners(body: GameOptions) -> dict:
        """Who may play the other seats of a game with these options, the default first,
        and the note shown when no trained policy is shipped for them."""
        game, config = game_config(body)
        default, note = default_other(game.name, config)
        return {"partners": partner_choices(game.name, config), "default": default, "note": note}

    @app.get("/api/games/{game_id}/rules")
    def rules(game_id: str) -> dict:
        game = store.get(game_id)
        s = game.session
        v = s.view(0)
        return {
            "title": s.game.title,
            "rules": v.rules_text() or f"{s.game.title}: see its rule sheet.",
            "examples": v.move_examples(),
        }

    # -- playing ----------------------------------------------------------------
    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame) -> dict:
        """A new game; the caller's seat token, and one per other seat a person plays."""
        game, config = game_config(body)
        n = game.num_seats(config)
        if not 0 <= body.seat < n:
            raise ApiError(400, f"seat must be 0-{n - 1} in {game.title}, got {body.seat}")
        if body.partner is not None and body.opponents is not None:
            raise ApiError(400, "give partner or opponents, not both")
        given = body.partner if body.partner is not None else body.opponents
        note = None
        if given is None:
            default, note = default_other(game.name, config)
            others = [default] * (n - 1)
        elif isinstance(given, str):
            others = [given] * (n - 1)
        else:
            others = list(given)
        if len(others) != n - 1:
            raise ApiError(
                400, f"{game.title} with {n} seats needs {n - 1} other players, got {len(others)}"
            )
        specs = [HUMAN if o in PERSON else agent_spec(o, game.name, config) for o in others]
        if "trained" in specs:  # the shipped policy for this config (2 or 4 players, ...)
            try:
                resolved = trained_spec(game.name, config)
            except ValueError:
                raise ApiError(
                    400,
                    f"no trained policy is shipped for {game.title} with {config.label()}: "
                    f"choose {choice_names(game.name, config)}",
                ) from None
            specs = [resolved if spec == "trained" else spec for spec in specs]
        seats = specs[: body.seat] + [HUMAN] + specs[body.seat :]
        deck = None
        if body.deck is not None:
            spec = game.deck(config)
            try:
                deck = spec.parse(body.deck)
            except ValueError as e:
                raise ApiError(400, f"bad deck: {e}") from None
        try:
            session = PlaySession.new(config, seats, body.seed, None, game.name)
        except ValueError as e:
            raise ApiError(400, str(e)) from None
        if deck is not None:
            session.state = game.new_state(config, deck)
            session.record["deck"] = spec.codes(deck)
            session.record["explicit_deck"] = True
        game_id = secrets.token_hex(8)
        while store.record_path(game_id).exists():
            game_id = secrets.token_hex(8)
        for info in session.record["seats"]:
            if info.get("player") == HUMAN:
                info["interface"] = "web"
        session.record["web_id"] = game_id
        if n == 2 and game.team:
            partner = 1 - body.seat
            session.record["partner"] = {"seat": partner, **session.record["seats"][partner]}
        session.path = store.record_path(game_id)
        session.save()
        tokens = {p: secrets.token_urlsafe(24) for p in session.humans}
        web = WebGame(game_id, session, {p: _hash(t) for p, t in tokens.items()})
        store.add(web)
        with web.lock:
            advance(web)
        out: dict[str, Any] = {"id": game_id, "seat": body.seat, "token": tokens[body.seat]}
        if note:
            out["note"] = note
        others_tokens = [{"seat": p, "token": t} for p, t in tokens.items() if p != body.seat]
        if others_tokens:
            out["others"] = others_tokens
            out["partner_token"] = others_tokens[0]["token"]
            out["partner_seat"] = others_tokens[0]["seat"]
        out["view"] = view(web, body.seat)
        return out

    @app.get("/api/games/{game_id}")
    def get_view(game_id: str, authorization: str | None = Header(default=None)) -> dict:
        game = store.get(game_id)
        seat = seat_of(game, authorization)
        with game.lock:
            return view(game, seat)

    @app.post("/api/games/{game_id}/moves")
    def post_move(
        game_id: str, body: NewMove, authorization: str | None = Header(default=None)
    ) -> dict:
        game = store.get(game_id)
        seat = seat_of(game, authorization)
        with game.lock:
            s = game.session
            if s.is_over:
                raise ApiError(409, f"game {game_id} is over: {s.outcome()}")
            if s.current != seat:
                raise ApiError(
                    409,
                    f"it is not your turn: player_{s.current} is to move (you are player_{seat})",
                    current=s.current,
                )
            start = time.perf_counter()
            try:
                action = s.resolve(body.move)
            except BadInput as e:
                legal = [t for _, t in s.legal_moves()]
                raise ApiError(400, str(e), legal=legal) from None
            hint = game.hints.pop(seat, None)
            extra = {"hint": hint} if hint else {}
            s.play(action, time.perf_counter() - start, None, **extra)
            advance(game)
            data = view(game, seat)
        if s.is_over:
            store.forget(game_id)
        return data

    @app.get("/api/games/{game_id}/hint")
    def hint(game_id: str, authorization: str | None = Header(default=None)) -> dict:
        """What the game's baseline would play now (noted in the record with the move)."""
        game = store.get(game_id)
        seat = seat_of(game, authorization)
        with game.lock:
            s = game.session
            if s.is_over or s.current != seat:
                raise ApiError(409, "a hint is for the seat to move, in its turn")
            action = s.hint()
            text = s.game.move_text(s.state, action)
            game.hints[seat] = text
            number = [a for a, _ in s.legal_moves()].index(action) + 1
            return {"move": text, "n": number}

    @app.get("/api/games/{game_id}/record")
    def get_record(game_id: str, authorization: str | None = Header(default=None)) -> dict:
        """The whole record once the game is over (anyone with the id); before that only a
        seat's own view of it (with its token)."""
        game = store.get(game_id)
        with game.lock:
            if game.session.is_over:
                return records.shareable(game.session.record)
            seat = seat_of(game, authorization)
            return seat_record(game.session.record, game.session, seat)

    @app.get("/api/games/{game_id}/replay")
    def replay_stored(
        game_id: str,
        move: int = 0,
        seat: int | None = None,
        authorization: str | None = Header(default=None),
    ) -> dict:
        """The table after ``move`` moves: every hand (or ``seat``'s view) once the game is
        over; before that only the token's seat's view."""
        game = store.get(game_id)
        with game.lock:
            record = json.loads(json.dumps(game.session.record))
            over = game.session.is_over
        if not over:
            seat = seat_of(game, authorization)
        return replay_frame(record, move, seat, public=over)

    @app.post("/api/replay")
    def replay_upload(record: dict, move: int = 0, seat: int | None = None) -> dict:
        """The table after ``move`` moves of any record (the JSON of a game record)."""
        try:
            check_text(record)
            records.check_record(record)
            PlaySession.from_record(record)  # checks every move
        except ValueError as e:
            raise ApiError(400, f"bad record: {e}"[:400]) from None
        return replay_frame(record, move, seat, public=True)

    return BodyLimit(app)  # type: ignore[return-value]


# --------------------------------------------------------------------------- CLI


def port_number(text: str) -> int:
    """argparse type of ``--port``: 1-65535 (0, any free port, would print no address)."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, got {text!r}")
    return port


def add_arguments(p) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=8000, help="port (default 8000)")
    p.add_argument(
        "--record-dir",
        type=Path,
        default=Path("records/web"),
        help="folder of the web games' records (default records/web)",
    )


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address of ``host`` at ``port``, as uvicorn's own binding
    (asyncio's ``create_server``) would bind them; a ValueError naming the address and the
    reason (a host that is none, a port in use) otherwise, not uvicorn's log and exit."""
    bound: list[socket.socket] = []
    try:
        found = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        for family, kind, proto, _, address in dict.fromkeys(found):
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError as e:
        for sock in bound:
            sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return bound


def run(args) -> int:
    import uvicorn

    app = create_app(args.record_dir)
    sockets = listen(args.host, args.port)
    print(f"Common Cause on http://{args.host}:{args.port}/ (records in {args.record_dir})")
    # idle connections kept longer than clients' usual 5 s, so a client never reuses one the
    # server is closing at that moment (a lost request seen under load: docs/web.md, Load)
    config = uvicorn.Config(app, log_level="warning", timeout_keep_alive=30)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the server has shut down
        uvicorn.Server(config).run(sockets=sockets)
    return 0
