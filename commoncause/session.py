"""A play session with no UI: one game, who plays each seat, the record, input, hints.

The terminal (``commoncause play``) drives a :class:`PlaySession` today and a browser will
tomorrow, so everything a screen needs comes out of the session as plain data (JSON-able
dicts of strings and numbers) built from a seat's ``SeatView`` only: the own hand, the
table, the discards, hand sizes, whose turn it is, the legal moves in move notation, each
seat's latest moves as that seat saw them, and the result. No screen reads the game state.

The session is game-neutral where that costs nothing: it reads a game through its
:class:`~commoncause.envs.core.game.Game` record (deck, new state, notation, seat view,
baseline), records the game's name and its config's ``to_dict``, and pays per-seat
returns. What a table looks like is a game's own business, answered by its seat view
(``SeatView.table()``: generic keys every screen draws plus the game's labelled
``sections``; ``SeatView.menu_order``: the move menu), so this module names no game.

Every move is saved to the record as it is played (``commoncause.records``); a session
resumes from its record (:meth:`PlaySession.resume`) at the last move.
"""

from __future__ import annotations

import operator
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from commoncause.agents.arena import REFUSALS, refused
from commoncause.envs.core.game import IllegalMoveError
from commoncause.envs.registry import DEFAULT_GAME, get_game

from . import records

HUMAN = "human"


class BadInput(Exception):
    """Input that selects no legal move; the message says why."""


# --------------------------------------------------------------------------- agents


def default_partner(game_name: str = DEFAULT_GAME, config: Any = None) -> tuple[str, str | None]:
    """The default partner or opponent spec for a game and config: its shipped policy
    (``trained`` for the default config, else the checkpoint's path), or the baseline with a
    note when none is shipped."""
    from commoncause.agents.trained import shipped_checkpoint

    record = get_game(game_name)
    try:
        path = shipped_checkpoint(game_name, config)
    except ValueError:  # none shipped for this config, or its file is missing
        who = "partner" if record.team else f"{record.title} player"
        label = (config if config is not None else record.make_config()).label()
        return "baseline", f"note: no trained {who} for {label} yet; playing the baseline"
    return ("trained" if path == shipped_checkpoint(game_name) else str(path)), None


def one_line(message: str) -> str:
    """The first line of an error message, cut at its first sentence when long."""
    line = message.strip().splitlines()[0] if message.strip() else "unknown error"
    head, sep, tail = line.partition(": ")
    if sep and len(line) > 120:
        line = head + sep + tail.split(". ")[0]
    return line


def make_player(spec: str, game_name: str = DEFAULT_GAME) -> tuple[Any, dict]:
    """An agent from ``baseline[:options]``, ``random``, ``trained`` (the shipped checkpoint)
    or a checkpoint path, and its seat description for the record. A bad name, a missing or
    broken checkpoint raises ValueError in one line (``make_agent``'s, listing the choices)."""
    from commoncause.agents.registry import make_agent

    try:
        agent = make_agent(spec, game_name)
        played = getattr(agent, "game", game_name)
        if played != game_name:
            raise ValueError(f"checkpoint {spec} is a policy for {played}, not {game_name}")
    except ValueError as e:  # keep it to one line (torch's messages run to several)
        raise ValueError(one_line(str(e))) from None
    except (KeyError, TypeError, RuntimeError) as e:  # a dict of the right format, wrong parts
        raise ValueError(one_line(f"checkpoint {spec} is not usable: {e!r}")) from None
    path = getattr(agent, "path", None)
    return agent, {
        "player": "agent",
        "agent": spec,
        "checkpoint": None if path is None else str(path),
        "sha256": None if path is None else records.sha256_of(path),
    }


# ---------------------------------------------------------------------- the table


def ordered_moves(view, legal: list[int] | None = None) -> list[int]:
    """Legal moves (default: the view's own) in the menu order of the view's game."""
    return view.menu_order(view.legal_actions() if legal is None else legal)


# ------------------------------------------------------------------------ moves


@dataclass
class Move:
    """A move played in the session: the record's text and what each seat saw of it."""

    seat: int
    action: int
    text: str
    public: str
    """As every other seat saw it (a stock draw does not name its card)."""
    private: str
    """As its own seat saw it (a stock draw names the card drawn)."""
    turn: int
    """The number of the turn it belongs to (1 for the first)."""
    hand_end: dict | None = None
    """The hand it ended (``SeatView.hand_ends``' entry: who went out, every seat's cards
    left and points), if it ended one."""

    def seen_by(self, viewer: int | None) -> str:
        """``viewer`` None: sees everything (replays with both hands)."""
        return self.private if viewer in (None, self.seat) else self.public


def _taken(table: dict) -> int:
    return sum(bool(d["taken"]) for d in table["discards"])


_NUMBER = re.compile(r"^-?[0-9]+$")
"""A menu number: ASCII digits only (no '+1', no digits of other scripts)."""


# ---------------------------------------------------------------------- session


@dataclass
class PlaySession:
    """One game in progress: the state, the seats (a person or an agent), the record.

    ``agents`` maps a seat to its agent; every other seat is a person (``humans``). A
    session with a ``path`` saves its record there after every move."""

    game: Any
    config: Any
    state: Any
    record: dict
    path: Path | None = None
    agents: dict[int, Any] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)

    # -- starting -------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        config: Any = None,
        seats: list[str] | None = None,
        seed: int | None = None,
        record_dir: str | Path | None = None,
        game_name: str = DEFAULT_GAME,
    ) -> PlaySession:
        """A new game: ``seats[p]`` is ``"human"`` or an agent spec (``make_player``);
        default: a person in seat 0 and the baseline in the others. ``seed`` None: a random
        one (recorded). With ``record_dir`` the record is saved there at once."""
        game = get_game(game_name)
        config = game.make_config() if config is None else config
        n = game.num_seats(config)
        seats = seats or [HUMAN] + ["baseline"] * (n - 1)
        if len(seats) != n:
            raise ValueError(f"{game.title} has {n} seats, got {len(seats)} players")
        seed = random.SystemRandom().randrange(10**9) if seed is None else seed
        agents, infos = {}, []
        for p, spec in enumerate(seats):
            if spec == HUMAN:
                infos.append({"player": HUMAN})
            else:
                agents[p], info = make_player(spec, game.name)
                infos.append(info)
        spec_deck = game.deck(config)
        order = list(range(spec_deck.size))
        random.Random(seed).shuffle(order)
        deck = spec_deck.parse(spec_deck.codes(order))  # numbered as a record reads back
        state = game.new_state(config, deck)
        record = records.new_record(config, config.label(), deck, infos, seed, game.name)
        for p, agent in agents.items():
            agent.reset(seed * n + p)
        path = None if record_dir is None else records.new_path(record_dir, seed)
        session = cls(game, config, state, record, path, agents)
        session.save()
        return session

    @classmethod
    def from_record(
        cls,
        record: dict,
        path: Path | None = None,
        agents: bool = False,
        moves: int | None = None,
    ) -> PlaySession:
        """The recorded game after its first ``moves`` moves (all by default; each checked);
        with ``agents`` the recorded agents play their seats again (a checkpoint must be the
        one recorded)."""
        game = records.game_of(record)
        config = records.config_of(record)
        state = records.initial_state(record)
        session = cls(game, config, state, record, path)
        for entry in record["moves"][:moves]:
            session.replay_move(entry)
        if agents:
            n = game.num_seats(config)
            for p, seat in enumerate(record["seats"]):
                if seat.get("player") == HUMAN:
                    continue
                agent, info = make_player(seat["agent"], game.name)
                if seat.get("sha256") and info["sha256"] != seat["sha256"]:
                    raise ValueError(
                        f"the partner checkpoint {seat['checkpoint']} has changed since this "
                        f"game began (sha256 {info['sha256'][:12]}..., recorded "
                        f"{seat['sha256'][:12]}...)"
                    )
                agent.reset((record.get("seed") or 0) * n + p)
                session.agents[p] = agent
        return session

    @classmethod
    def resume(cls, path: str | Path) -> PlaySession:
        """Continue the game recorded in ``path`` (ValueError if it is over or broken)."""
        path = Path(path)
        record = records.load(path)
        session = cls.from_record(record, path, agents=True)
        if session.is_over:
            raise ValueError(
                f"the game in {path} is already over ({session.outcome()}); "
                f"see it with: commoncause replay {path}"
            )
        return session

    # -- facts ------------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return self.game.num_seats(self.config)

    @property
    def humans(self) -> list[int]:
        return [p for p in range(self.num_seats) if p not in self.agents]

    @property
    def current(self) -> int:
        return self.state.current

    @property
    def max_moves(self) -> int:
        """Moves after which the game is cut short: the game's own safety net, as the env
        (truncation) and evaluation apply it."""
        return self.game.max_moves

    @property
    def truncated(self) -> bool:
        """Whether the game was cut short at ``max_moves`` before it ended."""
        return not self.state.is_terminal and len(self.moves) >= self.max_moves

    @property
    def is_over(self) -> bool:
        return self.state.is_terminal or self.truncated

    def outcome(self) -> str:
        """The result in words (the game's own; a game cut short says so)."""
        if self.truncated:
            return (
                f"cut short after {len(self.moves)} moves, the game's limit "
                "(as in training and evaluation)"
            )
        return self.state.outcome()

    @property
    def person_to_move(self) -> bool:
        return not self.is_over and self.current not in self.agents

    def player_name(self, p: int) -> str:
        seat = self.record["seats"][p]
        if seat.get("player") == HUMAN:
            return HUMAN
        from commoncause.agents.trained import member_label

        label = member_label(str(seat.get("agent", "agent")), self.game.name, self.config)
        return records.shown_path(label)  # a checkpoint as the project names it

    def view(self, seat: int):
        return self.game.seat_view(self.state, seat)

    def turn(self) -> int:
        """The number of the turn in progress (the last one once the game is over)."""
        done = self.moves[-1].turn if self.moves else 0
        if self.is_over or (self.moves and self.moves[-1].seat == self.current):
            return max(done, 1)
        return done + 1

    def turn_moves(self, seat: int, viewer: int | None) -> list[str]:
        """``seat``'s moves in its latest turn (the one in progress if it is its turn), as
        ``viewer`` saw them; [] when the seat has not moved yet in its turn in progress."""
        just_begun = not self.moves or self.moves[-1].seat != seat
        if not self.is_over and seat == self.current and just_begun:
            return []  # its turn has just begun, nothing played yet
        mine = [m for m in self.moves if m.seat == seat]
        if not mine:
            return []
        last = mine[-1].turn
        return [m.seen_by(viewer) for m in mine if m.turn == last]

    def legal_moves(self) -> list[tuple[int, str]]:
        """The current seat's legal moves in menu order, with their notation."""
        menu = ordered_moves(self.view(self.current), self.state.legal_actions())
        return [(a, self.game.move_text(self.state, a)) for a in menu]

    # -- data for screens ---------------------------------------------------------------
    def screen(self, seat: int | None) -> dict:
        """Everything a screen shows to ``seat`` (None: every hand, for replays), as data
        built from seat views only; ``hand_ends``: every finished hand's scoring (public
        once it is over), ``hand_end``: the one the latest move ended, else None."""
        n = self.num_seats
        views = [self.view(p) for p in range(n)]
        own = views[0 if seat is None else seat]
        table = own.table()
        data: dict[str, Any] = {
            "game": self.game.name,
            "title": self.game.title,
            "label": self.config.label(),
            "long_label": self.game.long_label(self.config),
            "variants": self.config.variant_names(),
            "options": self.config.to_dict(),
            "seat": seat,
            "team": self.game.team,
            "others": self.game.others,
            "seats": self.game.seat_names(self.config),
            "players": [self.player_name(p) for p in range(n)],
            "current": None if self.is_over else own.current,
            "your_turn": seat is not None and not self.is_over and own.is_my_turn,
            "over": self.is_over,
            "turn": self.turn(),
            "turns": own.turns,
            **table,
            "last_moves": [self.turn_moves(p, seat) for p in range(n)],
            "hand_ends": own.hand_ends(),
            "hand_end": self.moves[-1].hand_end if self.moves else None,
            "legal": [],
            "result": self.outcome() if self.is_over else None,
            "returns": list(own.returns()) if self.is_over else None,
        }
        if seat is None:
            data["hands"] = [v.table()["hand"] for v in views]
        if data["your_turn"]:
            data["legal"] = [
                {"n": i + 1, "action": a, "text": t} for i, (a, t) in enumerate(self.legal_moves())
            ]
        return data

    # -- input ---------------------------------------------------------------------------
    def resolve(self, text: str, commands: tuple[str, ...] = ()) -> int:
        """The legal move a line of input selects (a menu number, a move in notation in any
        letter case, or a unique word-by-word prefix of a listed move); BadInput saying why
        otherwise (a typo, an ambiguous prefix, a move that is not legal now), naming the
        screen's ``commands`` (the terminal's 'help') as other things to type."""
        menu = self.legal_moves()
        return resolve_input(
            text,
            self.state,
            [a for a, _ in menu],
            [t for _, t in menu],
            self.game.parse_move,
            commands,
        )

    def hint(self) -> int:
        """What the game's baseline would play now from the current seat's view."""
        return self.game.baseline("").act(self.view(self.current))

    # -- playing -------------------------------------------------------------------------
    def agent_move(self) -> tuple[int, dict[str, float] | None, float]:
        """The current seat's agent's move, its probabilities over the legal moves (by move
        text) and the seconds it took (not yet played). A move that is not one of the legal
        action ids is the arena's one-line ValueError (``refused``)."""
        seat = self.current
        agent = self.agents[seat]
        view = self.view(seat)
        legal = self.state.legal_actions()
        start = time.perf_counter()
        probs = None
        if hasattr(agent, "probabilities") and len(legal) > 1:
            probs = agent.probabilities(view)
        chosen = agent.act(view)
        seconds = time.perf_counter() - start
        try:
            action = operator.index(chosen)  # an int (a numpy one too), else TypeError
            if action not in legal:
                raise IllegalMoveError(action, legal)
        except REFUSALS as exc:
            raise refused(agent, seat, chosen, self.game.title, exc) from None
        text = self.game.move_text
        if probs is not None:
            dist = {text(self.state, a): round(float(probs[a]), 6) for a in legal}
        elif getattr(agent, "name", "") == "random":
            dist = {text(self.state, a): round(1 / len(legal), 6) for a in legal}
        else:
            dist = {text(self.state, action): 1.0}
        return action, dist, seconds

    def play(self, action: int, seconds: float = 0.0, probs=None, **extra) -> Move:
        """Play ``action`` for the current seat, record it and save the record."""
        player = self.current
        move = self._apply(action)
        records.add_move(
            self.record, self.state, player, action, move.text, seconds, probs, **extra
        )
        self.save()
        return move

    def replay_move(self, entry: dict) -> Move:
        """Play the record's next move (``entry``, checked against the game) without
        recording it again: replays and resuming."""
        records.check_move(self.record, self.state, entry, len(self.moves))
        return self._apply(entry["action"])

    def _apply(self, action: int) -> Move:
        """Apply a move and note what each seat saw of it (from the mover's seat view: the
        card a draw took is public when it was the top discard, else its own)."""
        state, player = self.state, self.current
        text = self.game.move_text(state, action)
        before = self.view(player).table()
        ended = len(self.view(player).hand_ends())
        turn = self.turn()
        state.apply(action)
        after = self.view(player).table()
        ends = self.view(player).hand_ends()
        gained = list((Counter(after["hand"]) - Counter(before["hand"])).elements())
        public = private = text
        if text.startswith("draw") and len(gained) == 1:
            code = gained[0]
            if _taken(after) > _taken(before):  # the top discard, seen by all
                public = private = f"{text} (took {code})"
            else:
                private = f"{text} (drew {code})"
        move = Move(player, action, text, public, private, turn)
        if len(ends) > ended:  # the move ended a hand: its scoring, public from now on
            move.hand_end = ends[-1]
        self.moves.append(move)
        return move

    def step_agents(self, on_move: Callable[[Move], None] | None = None) -> None:
        """Let the agents play until a person is to move or the game is over."""
        while not self.is_over and self.current in self.agents:
            action, probs, seconds = self.agent_move()
            move = self.play(action, seconds, probs)
            if on_move is not None:
                on_move(move)

    def save(self) -> None:
        """Write the record (when the session has a path); the summary is recomputed from
        the record's own moves, so a save after an interruption is consistent."""
        if self.path is None:
            return
        if len(self.record["moves"]) != len(self.moves):  # interrupted between the two
            state = records.initial_state(self.record)
            for entry in self.record["moves"]:
                state.apply(entry["action"])
        else:
            state = self.state
        records.update_summary(self.record, state)
        if len(self.record["moves"]) >= self.max_moves and not state.is_terminal:
            self.record.update(finished=True, truncated=True, outcome=self.outcome())
        records.save(self.record, self.path)

    # -- the end -----------------------------------------------------------------------
    def summary(self) -> dict:
        """The result as data: outcome words, whether a team won (a return above 0),
        per-seat returns, turns, the stock left and the game's own figures
        (``Game.summary``)."""
        out = {
            "team": self.game.team,
            "over": self.is_over,
            "truncated": self.truncated,
            "result": self.outcome() if self.is_over else None,
            "won": self.game.team and self.is_over and self.state.returns()[0] > 0,
            "returns": list(self.state.returns()),
            "turns": self.state.turns,
        }
        stock = self.view(0).table()["stock"]
        if stock is not None:
            out["stock_left"] = stock
        out.update(self.game.summary(self.state))  # the game's own figures
        return out


def resolve_input(
    text: str,
    state: Any,
    menu: list[int],
    texts: list[str],
    parse_move: Callable[[Any, str], int] | None = None,
    commands: tuple[str, ...] = (),
) -> int:
    """The legal action a line of input selects (a number, a move, a unique prefix);
    BadInput with a clear message otherwise (naming ``commands`` too, where the screen has
    any). ``menu`` and ``texts`` are the numbered moves."""
    if parse_move is None:
        parse_move = get_game(DEFAULT_GAME).parse_move
    norm = " ".join(text.lower().split())
    if _NUMBER.match(norm):
        n = int(norm)
        if 1 <= n <= len(menu):
            return menu[n - 1]
        raise BadInput(f"There is no move {n}: choose a number from 1 to {len(menu)}.")
    lower = [t.lower() for t in texts]
    if norm in lower:
        return menu[lower.index(norm)]
    try:
        action = parse_move(state, text)
        if action in menu:
            return action
        problem = f"'{text.strip()}' is not a legal move now"
    except ValueError as e:
        problem = str(e)
    words = norm.split()
    matches = [
        i
        for i, t in enumerate(lower)
        if len(words) <= len(t.split())
        and all(m.startswith(w) for w, m in zip(words, t.split(), strict=False))
    ]
    if len(matches) == 1:
        return menu[matches[0]]
    if matches:
        listed = "; ".join(f"{i + 1}. {texts[i]}" for i in matches[:12])
        more = f" (and {len(matches) - 12} more)" if len(matches) > 12 else ""
        raise BadInput(f"'{text.strip()}' could be any of: {listed}{more}. Type more of it.")
    ways = [f"a move number (1-{len(menu)})", "a listed move", *(f"'{c}'" for c in commands)]
    listed = ", ".join(ways[:-1]) + ("," if len(ways) > 2 else "") + " or " + ways[-1]
    raise BadInput(f"{problem}. Type {listed}.")
