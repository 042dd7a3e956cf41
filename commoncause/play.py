"""``commoncause play``: a person plays one seat of Common Cause with an agent partner.

The screen shows only what the person's seat may see (a ``SeatView``). Moves are chosen by
number from the list of legal moves or typed in move notation (any letter case; a unique
prefix of a listed move, word by word, selects it). A move that is the only legal one (the
stock draw when the top discard cannot be placed, or the losing draw at the end) is played
automatically with a message. Every game is recorded (``commoncause.records``) after every
move; ``--resume`` continues a game from its record.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

from rich.console import Console

from envs.common_cause.cards import deck_codes, parse_deck
from envs.common_cause.notation import move_text, parse_move
from envs.common_cause.rules import DRAW_PHASE, LEVELS, GameConfig, GameState
from envs.common_cause.seat import SeatView

from . import records
from .screen import (
    PLAYERS,
    god_screen,
    move_menu,
    ordered_moves,
    seat_screen,
    shown_text,
    title,
    turn_number,
)

VARIANTS = ("open-hands", "ace-low", "three-starts", "early-loss", "signal-rule")

HELP = """\
How to play a move:
  - type its number from the list, e.g. 3
  - or type the move as listed, in any letter case: discard kd, start 7h 7s,
    complete 4c 5c with jk as 6c, layoff 7c on 4c 5c 6c, swap 6c on 4c 5c jk(6c)
  - or type the start of it: 'disc kd', 'dr s' or 'start 7h' are enough when
    only one listed move begins that way (word by word); if several do, they are listed.
Commands:
  help   this text            rules  a short summary of the rules
  hint   what the baseline strategy would play now
  board  show the table again quit   stop; the game is saved and can be resumed
When only one move is legal (usually 'draw stock' because the top discard cannot
be placed), it is played for you and a message says so.
Card codes: ranks A 2-10 J Q K, suits C D H S, joker JK (10 may be written T)."""

RULES = """\
Common Cause in short: you and your partner win or lose together, against the stock.
  - A meld is a set (3-4 cards of one rank) or a run (3+ cards of one suit in sequence;
    the Ace low or high, never K-A-2). The two jokers are wild.
  - Nobody melds alone: you lay an open start of two cards (a pair, neighbours, or one gap;
    no joker; at most two on the table), and only your partner may complete it with a
    third card (or a joker). Then it is a complete meld: either of you may lay off on it,
    or swap a joker out of it with the real card it stands for.
  - Your turn: draw (the stock, or the top discard only if you place it this turn), place
    what you like, then discard one card. With an empty hand you skip the discard.
  - No talking: your discards are your messages. Discarding the card that completes your
    own open start offers it to your partner without using up the stock.
  - You win when both hands are empty and no open start is left. You lose when a player
    must draw from an empty stock and cannot place the top discard."""


# --------------------------------------------------------------------------- agents


def default_partner() -> tuple[str, str | None]:
    """The default partner spec and a note when it falls back to the baseline."""
    from agents.trained import DEFAULT_CHECKPOINT

    if DEFAULT_CHECKPOINT.is_file():
        return "trained", None
    try:
        shown = DEFAULT_CHECKPOINT.relative_to(Path.cwd())
    except ValueError:
        shown = DEFAULT_CHECKPOINT
    return "baseline", f"note: no trained partner yet ({shown} not found); playing the baseline"


def make_player(spec: str) -> tuple[object, dict]:
    """An agent from ``baseline[:options]``, ``random``, ``trained`` (the shipped
    checkpoint) or a checkpoint path, and its seat description for the record. A missing
    or broken checkpoint raises ValueError."""
    from agents.evaluate import make_agent

    name = spec.partition(":")[0]
    if name in ("baseline", "random"):
        return make_agent(spec), {
            "player": "agent",
            "agent": spec,
            "checkpoint": None,
            "sha256": None,
        }
    from agents.trained import DEFAULT_CHECKPOINT, PolicyAgent

    path = DEFAULT_CHECKPOINT if spec == "trained" else Path(spec)
    try:
        agent = PolicyAgent(path)
    except ValueError as e:  # keep it to one line (torch's messages run to several)
        raise ValueError(_one_line(str(e))) from None
    except (KeyError, TypeError, RuntimeError) as e:  # a dict of the right format, wrong parts
        raise ValueError(_one_line(f"checkpoint {path} is not usable: {e!r}")) from None
    return agent, {
        "player": "agent",
        "agent": spec,
        "checkpoint": str(path),
        "sha256": records.sha256_of(path),
    }


def _one_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "unknown error"
    head, sep, tail = line.partition(": ")
    if sep and len(line) > 120:
        line = head + sep + tail.split(". ")[0]
    return line


def agent_move(agent, state: GameState, player: int) -> tuple[int, dict[str, float], float]:
    """The agent's move, its probabilities over the legal moves (by move text) and the
    seconds it took."""
    view = SeatView(state, player)
    legal = state.legal_actions()
    start = time.perf_counter()
    probs = None
    if hasattr(agent, "probabilities") and len(legal) > 1:
        probs = agent.probabilities(view)
    action = agent.act(view)
    seconds = time.perf_counter() - start
    if probs is not None:
        dist = {move_text(state, a): round(float(probs[a]), 6) for a in legal}
    elif getattr(agent, "name", "") == "random":
        dist = {move_text(state, a): round(1 / len(legal), 6) for a in legal}
    else:
        dist = {move_text(state, action): 1.0}
    return action, dist, seconds


# ---------------------------------------------------------------------------- input


class BadInput(Exception):
    """Input that selects no legal move; the message says why."""


_NUMBER = re.compile(r"^[+-]?\d+$")


def resolve_input(text: str, state: GameState, menu: list[int], texts: list[str]) -> int:
    """The legal action a line of input selects (a number, a move, a unique prefix);
    BadInput with a clear message otherwise. ``menu`` and ``texts`` are the numbered moves."""
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
    raise BadInput(f"{problem}. Type a move number (1-{len(menu)}), a listed move, or 'help'.")


# ----------------------------------------------------------------------------- game


class Session:
    """One game in progress: the state, the record, who plays each seat, the screen."""

    def __init__(
        self,
        state: GameState,
        record: dict,
        path: Path,
        agents: dict[int, object],
        console: Console,
        level: str,
    ) -> None:
        self.state = state
        self.record = record
        self.path = path
        self.agents = agents  # seat -> agent; the other seat (if any) is the person
        humans = [p for p in (0, 1) if p not in agents]
        self.human = humans[0] if humans else None
        self.console = console
        self.level = level
        self.turn_moves: dict[int, list[str]] = {0: [], 1: []}  # each seat's latest turn

    # -- bookkeeping --------------------------------------------------------------
    def names(self, p: int) -> str:
        seat = self.record["seats"][p]
        return "human" if seat["player"] == "human" else seat["agent"]

    def play(self, action: int, seconds: float, probs, **extra) -> None:
        state = self.state
        player = state.current
        text = move_text(state, action)
        shown = shown_text(state, action, self.human)
        if state.phase == DRAW_PHASE:  # a new turn for this player
            self.turn_moves[player] = []
        state.apply(action)
        self.turn_moves[player].append(shown)
        records.add_move(self.record, state, player, action, text, seconds, probs, **extra)
        records.save(self.record, self.path)

    def replay_turn_moves(self) -> None:
        """Rebuild each seat's latest-turn moves from the record (after a resume)."""
        state = records.initial_state(self.record)
        turn_moves: dict[int, list[str]] = {0: [], 1: []}
        for entry in self.record["moves"]:
            player, action = entry["player"], entry["action"]
            if state.phase == DRAW_PHASE:
                turn_moves[player] = []
            turn_moves[player].append(shown_text(state, action, self.human))
            state.apply(action)
        self.turn_moves = turn_moves

    # -- output -------------------------------------------------------------------
    def show_board(self) -> None:
        c = self.console
        c.rule(title(self.state, self.level))
        if self.human is None:
            lines = god_screen(self.state, tuple(f"{PLAYERS[p]} ({self.names(p)})" for p in (0, 1)))
        else:
            me, partner = self.human, 1 - self.human
            own = self.turn_moves[me] if self.state.current == me else []
            lines = seat_screen(SeatView(self.state, me), self.level, self.turn_moves[partner], own)
        for line in lines:
            c.print(line, highlight=False)

    def summary(self) -> None:
        c, state = self.console, self.state
        c.rule("Game over")
        if state.result == "win":
            c.print(
                "[bold green]WON[/]: both hands are empty and every card on the table is "
                "in a complete meld.",
                highlight=False,
            )
        else:
            c.print(f"[bold red]LOST[/]: {state.loss_reason}.", highlight=False)
        c.print(f"Turns used: {state.turns}", highlight=False)
        c.print(f"Stock left: {len(state.stock)} of {state.config.stock_size}", highlight=False)
        counts = records.pickups(state)
        if self.human is not None:
            me, partner = self.human, 1 - self.human
            c.print(
                f"You picked up {counts[f'{me}_from_{partner}']} of your partner's discards; "
                f"your partner picked up {counts[f'{partner}_from_{me}']} of yours.",
                highlight=False,
            )
        else:
            c.print(
                f"player_0 picked up {counts['0_from_1']} of player_1's discards; "
                f"player_1 picked up {counts['1_from_0']} of player_0's.",
                highlight=False,
            )
        c.print(
            f"Game record: {self.path}  (see both hands: commoncause replay {self.path})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )

    # -- the game loop ------------------------------------------------------------
    def run(self, input_fn=input) -> int:
        """Play to the end (0), or until the person quits (0, saved) or interrupts (130)."""
        try:
            while not self.state.is_terminal:
                player = self.state.current
                if player in self.agents:
                    action, probs, seconds = agent_move(self.agents[player], self.state, player)
                    if self.human is None:
                        shown = shown_text(self.state, action, None)
                        self.console.print(
                            f"{PLAYERS[player]} ({self.names(player)}): {shown}",
                            highlight=False,
                            markup=False,
                        )
                    self.play(action, seconds, probs)
                    continue
                if not self.human_move(input_fn):
                    self.console.print(
                        f"Game saved. Continue it with: commoncause play --resume {self.path}",
                        highlight=False,
                        markup=False,
                        soft_wrap=True,
                    )
                    return 0
        except KeyboardInterrupt:
            self.console.print(
                f"\nInterrupted. Game saved; continue with: commoncause play --resume {self.path}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
            return 130
        self.show_board()
        self.summary()
        return 0

    def human_move(self, input_fn) -> bool:
        """Ask the person for one move and play it; False if they quit."""
        state, c = self.state, self.console
        legal = state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
            shown = shown_text(state, action, self.human)
            c.print(
                f"Only one move is possible: {shown} - played for you.",
                highlight=False,
                markup=False,
            )
            self.play(action, 0.0, None, forced=True)
            return True
        menu = ordered_moves(legal)
        texts = [move_text(state, a) for a in menu]
        self.show_board()
        self.show_menu(texts)
        prompt = f"Your move (1-{len(menu)}, a move, help): "
        start = time.perf_counter()
        hint = None
        while True:
            try:
                line = input_fn(prompt)
            except EOFError:
                c.print()
                return False
            word = line.strip().lower()
            if not word:
                continue
            if word in ("quit", "exit", "q"):
                return False
            if word in ("help", "?", "h"):
                c.print(HELP, highlight=False, markup=False)
                continue
            if word == "rules":
                c.print(RULES, highlight=False, markup=False)
                continue
            if word in ("board", "moves", "list"):
                self.show_board()
                self.show_menu(texts)
                continue
            if word == "hint":
                hinted = self.hint()
                hint = move_text(state, hinted)
                c.print(
                    f"Hint: the baseline would play {hint} (move {menu.index(hinted) + 1}).",
                    highlight=False,
                    markup=False,
                )
                continue
            try:
                action = resolve_input(line, state, menu, texts)
            except BadInput as e:
                c.print(str(e), highlight=False, markup=False)
                continue
            break
        seconds = time.perf_counter() - start
        extra = {"hint": hint} if hint else {}
        chosen = shown_text(state, action, self.human)
        c.print(f"You play: {chosen}", highlight=False, markup=False)
        self.play(action, seconds, None, **extra)
        return True

    def show_menu(self, texts: list[str]) -> None:
        self.console.print("Your moves:", highlight=False)
        for row in move_menu(texts, self.console.width):
            self.console.print(row, highlight=False)

    def hint(self) -> int:
        """What the baseline strategy would play from the person's seat view."""
        from agents.baseline import BaselineAgent

        return BaselineAgent().act(SeatView(self.state, self.state.current))


# ------------------------------------------------------------------------ starting


def config_from(level: str, stock_size: int | None, variants: list[str]) -> GameConfig:
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise ValueError(f"unknown variant {unknown[0]!r}: choose from {', '.join(VARIANTS)}")
    return GameConfig.make(
        level,
        stock_size,
        open_hands="open-hands" in variants,
        ace_low="ace-low" in variants,
        max_open_starts=3 if "three-starts" in variants else 2,
        early_loss="early-loss" in variants,
        signal_rule="signal-rule" in variants,
    )


def add_arguments(p) -> None:
    p.add_argument(
        "--partner",
        help="baseline, trained (the shipped checkpoint) or a "
        "checkpoint path (default: the shipped checkpoint if there is one, "
        "else baseline)",
    )
    p.add_argument("--level", choices=list(LEVELS), help="difficulty level (default normal)")
    p.add_argument("--stock-size", type=int, help="explicit stock size 0-33 (overrides --level)")
    p.add_argument("--seat", type=int, choices=(0, 1), help="your seat: 0 begins (default 0)")
    p.add_argument("--seed", type=int, help="deal seed (default: a random one, recorded)")
    p.add_argument(
        "--variant",
        action="extend",
        nargs="+",
        choices=VARIANTS,
        metavar="VARIANT",
        help=f"one or more variants (repeatable): {', '.join(VARIANTS)}",
    )
    p.add_argument(
        "--record-dir",
        type=Path,
        default=Path("records"),
        help="folder for the game record (default records/)",
    )
    p.add_argument(
        "--resume", type=Path, metavar="FILE", help="continue an unfinished game from its record"
    )
    p.add_argument(
        "--player",
        default="human",
        help="who plays your seat: human (default), "
        "or an agent (baseline, random, trained, a checkpoint): watch a game",
    )


def run(args) -> int:
    console = Console(highlight=False)
    if args.resume is not None:
        given = [
            name
            for name in ("partner", "level", "stock_size", "seat", "seed", "variant")
            if getattr(args, name) is not None
        ]
        if given or args.player != "human":
            opts = ", ".join("--" + g.replace("_", "-") for g in given or ["player"])
            raise ValueError(f"--resume continues the game as recorded; drop {opts}")
        session = resume(args.resume, console)
        state = session.state
        console.print(
            f"Resuming {args.resume} at move {len(session.record['moves']) + 1} "
            f"(turn {turn_number(state)}).",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        session.replay_turn_moves()
        return session.run()

    level = args.level or "normal"
    config = config_from(level, args.stock_size, args.variant or [])
    label = level if args.stock_size is None else "custom"
    seat = 0 if args.seat is None else args.seat
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    spec, note = (args.partner, None) if args.partner else default_partner()
    partner, partner_info = make_player(spec)
    agents = {1 - seat: partner}
    seats: list[dict] = [{}, {}]
    seats[1 - seat] = partner_info
    if args.player == "human":
        seats[seat] = {"player": "human"}
    else:
        agents[seat], seats[seat] = make_player(args.player)
    shuffled = GameState.new_game(config, seed).deck
    deck = parse_deck(deck_codes(shuffled))  # jokers numbered as a record reads them back
    state = GameState(config, deck)
    record = records.new_record(config, label, deck, seats, seed)
    record["partner"] = {"seat": 1 - seat, **partner_info}
    for p, agent in agents.items():
        agent.reset(seed * 2 + p)
    path = records.new_path(args.record_dir, seed)
    records.save(record, path)
    if note:
        console.print(note, highlight=False, markup=False)
    session = Session(state, record, path, agents, console, label)
    who = (
        f"You play {PLAYERS[seat]}" + (" and begin" if seat == 0 else "")
        if session.human is not None
        else f"{PLAYERS[seat]}: {args.player}"
    )
    console.print(
        f"{title(state, label)}. {who}; partner: {spec}. Seed {seed}. "
        f"Recording to {path}. Type 'help' for help.",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    return session.run()


def resume(path: Path, console: Console) -> Session:
    """A session continuing the recorded game at its last move."""
    record = records.load(path)
    state = records.replay_moves(record)
    if state.is_terminal:
        raise ValueError(
            f"the game in {path} is already over ({state.result}); "
            f"see it with: commoncause replay {path}"
        )
    agents = {}
    for p, seat in enumerate(record["seats"]):
        if seat.get("player") == "human":
            continue
        agent, info = make_player(seat["agent"])
        if seat.get("sha256") and info["sha256"] != seat["sha256"]:
            raise ValueError(
                f"the partner checkpoint {seat['checkpoint']} has changed since this game "
                f"began (sha256 {info['sha256'][:12]}..., recorded {seat['sha256'][:12]}...)"
            )
        seed = record.get("seed") or 0
        agent.reset(seed * 2 + p)
        agents[p] = agent
    level = record.get("level", "normal")
    return Session(state, record, path, agents, console, level)
