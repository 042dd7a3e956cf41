"""``commoncause play``: a person plays one seat of a game with agent partners, in the terminal.

A thin driver of :class:`~commoncause.session.PlaySession` (the game, the seats, the record,
input and hints live there; a browser will drive the same session). Any registered game
(``--game``, with its options, e.g. ``--game dummy_rummy --num-players 4``): the other seats
are agents (``--partner``: one for all, or a comma list, one per other seat). The screen shows only
what the person's seat may see (``session.screen(seat)``, built from its seat view). Moves
are chosen by number from the list of legal moves or typed in move notation (any letter
case; a unique prefix of a listed move, word by word, selects it). A move that is the only
legal one (the stock draw when the top discard cannot be placed, or the losing draw at the
end) is played automatically with a message. Every game is recorded
(``commoncause.records``) after every move, so quitting or Ctrl-C loses nothing:
``--resume`` continues a game from its record.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .options import add_game_arguments, game_and_config, game_options, seed_type
from .screen import god_screen, hand_end_lines, move_menu, seat_names, seat_screen, title
from .session import (  # noqa: F401 (BadInput and resolve_input: the play API of old)
    HUMAN,
    BadInput,
    Move,
    PlaySession,
    default_partner,
    make_player,
    resolve_input,
)

HELP = """\
How to play a move:
  - type its number from the list, e.g. 3
  - or type the move as listed, in any letter case: {examples} when
    only one listed move begins that way (word by word); if several do, they are listed.
Commands:
  help   this text            rules  a short summary of the rules
  hint   what the baseline strategy would play now
  board  show the table again quit   stop; the game is saved and can be resumed
When only one move is legal (say 'draw stock' because the top discard cannot be
placed), it is played for you and a message says so.
Card codes: ranks A 2-10 J Q K, suits C D H S, joker JK (10 may be written T)."""

GENERIC_EXAMPLES = (
    "draw stock, discard kd\n  - or type the start of it: 'disc kd' or 'dr s' are enough"
)


def help_text(view) -> str:
    """``HELP`` with the game's own move examples (its seat view's ``move_examples``)."""
    return HELP.format(examples=view.move_examples() or GENERIC_EXAMPLES)


def rules_text(view, title: str) -> str:
    """The game's rules in short (its seat view's ``rules_text``)."""
    return view.rules_text() or f"{title}: see its rule sheet."


QUIET = {"highlight": False, "markup": False, "soft_wrap": True}


class Terminal:
    """The terminal screen of a session: prints boards, asks for moves."""

    def __init__(self, session: PlaySession, console: Console) -> None:
        self.session = session
        self.console = console
        humans = session.humans
        self.seat = humans[0] if humans else None  # the person's seat; None: watching
        self.seen = 0
        """Moves played when the board was last shown."""

    def say(self, text: str) -> None:
        self.console.print(text, **QUIET)

    def resume_line(self) -> str:
        return f"commoncause play --resume {self.session.path}"

    # -- output -------------------------------------------------------------------
    def show_board(self) -> None:
        s = self.session
        seat = s.current if s.person_to_move else self.seat
        data = s.screen(seat)
        data["hand_end"] = None  # shown when the hand ended (``hand_over``)
        self.seen = len(s.moves)
        self.console.rule(title(data))
        if seat is None:
            names = tuple(f"{data['seats'][p]} ({data['players'][p]})" for p in range(s.num_seats))
            lines = god_screen(data, names)
        else:
            lines = seat_screen(data)
        for line in lines:
            self.console.print(line, highlight=False)

    def summary(self) -> None:
        s, c = self.session, self.console
        out = s.summary()
        c.rule("Game over")
        seat = 0 if self.seat is None else self.seat
        returns = out["returns"]
        if out["team"]:
            word, _, rest = out["result"].partition(": ")
            colour = "green" if returns[seat] > 0 else "red"
            c.print(f"[bold {colour}]{word.upper()}[/]: {rest}.", highlight=False)
        else:
            colour = "green" if returns[seat] == max(returns) else "red"
            c.print(f"[bold {colour}]GAME OVER[/]: {escape(out['result'])}.", highlight=False)
            you = "" if self.seat is None else f" (you: player_{self.seat})"
            shown = ", ".join(f"player_{p} {r or 0.0:g}" for p, r in enumerate(returns))
            self.say(f"Returns: {shown}{you}")
        self.say(f"Turns used: {out['turns']}")
        if "stock_left" in out:
            total = f" of {out['stock_dealt']}" if "stock_dealt" in out else ""
            self.say(f"Stock left: {out['stock_left']}{total}")
        counts = out.get("pickups")
        if counts and s.num_seats == 2:
            if self.seat is not None:
                me, partner = self.seat, 1 - self.seat
                self.say(
                    f"You picked up {counts[f'{me}_from_{partner}']} of your partner's "
                    f"discards; your partner picked up {counts[f'{partner}_from_{me}']} of yours."
                )
            else:
                self.say(
                    f"player_0 picked up {counts['0_from_1']} of player_1's discards; "
                    f"player_1 picked up {counts['1_from_0']} of player_0's."
                )
        self.say(f"Game record: {s.path}  (see every hand: commoncause replay {s.path})")

    def show_menu(self, texts: list[str]) -> None:
        self.console.print("Your moves:", highlight=False)
        for row in move_menu(texts, self.console.width):
            self.console.print(row, highlight=False)

    # -- the game loop ------------------------------------------------------------
    def run(self, input_fn=input) -> int:
        """Play to the end (0), or until the person quits (0) or interrupts (130); the
        record is saved either way."""
        s = self.session
        try:
            while not s.is_over:
                if s.current in s.agents:
                    action, probs, seconds = s.agent_move()
                    move = s.play(action, seconds, probs)
                    if self.seat is None:
                        p = move.seat
                        self.say(f"player_{p} ({s.player_name(p)}): {move.seen_by(None)}")
                    if self.hand_over(move, input_fn):
                        continue
                elif self.human_move(input_fn):
                    continue
                s.save()
                self.say(f"Game saved. Continue it with: {self.resume_line()}")
                return 0
        except KeyboardInterrupt:
            s.save()
            self.say(f"\nInterrupted. Game saved; continue with: {self.resume_line()}")
            return 130
        self.show_board()
        self.summary()
        return 0

    def hand_over(self, move: Move, input_fn) -> bool:
        """After a move that ended a hand: who went out, every seat's cards left and points;
        then, where a person plays and the game goes on, a pause before the next hand. False
        if the person quits there."""
        s = self.session
        if move.hand_end is None:
            return True
        data = s.screen(self.seat)
        names = (
            seat_names(data)
            if self.seat is not None
            else {p: f"{data['seats'][p]} ({data['players'][p]})" for p in range(s.num_seats)}
        )
        self.console.rule("End of the hand")
        for line in hand_end_lines(move.hand_end, names):
            self.console.print(line, highlight=False)
        if self.seat is None or s.is_over:
            return True
        try:
            answer = input_fn("Enter: the next hand (q: quit) ")
        except EOFError:
            return False
        return answer.strip().lower() not in ("q", "quit")

    def human_move(self, input_fn) -> bool:
        """Ask the person for one move and play it; False if they quit."""
        s = self.session
        menu = s.legal_moves()
        if len(menu) == 1:
            if any(m.seat != s.current for m in s.moves[self.seen :]):
                self.show_board()  # what the others did since: no turn of theirs unseen
            move = s.play(menu[0][0], 0.0, None, forced=True)
            self.say(f"Only one move is possible: {move.seen_by(move.seat)} - played for you.")
            return self.hand_over(move, input_fn)
        texts = [t for _, t in menu]
        self.show_board()
        self.show_menu(texts)
        prompt = f"Your move (1-{len(menu)}, a move, help): "
        start = time.perf_counter()
        hint = None
        while True:
            try:
                line = input_fn(prompt)
            except EOFError:
                self.console.print()
                return False
            word = line.strip().lower()
            if not word:
                continue
            if word in ("quit", "exit", "q"):
                return False
            if word in ("help", "?", "h"):
                self.say(help_text(s.view(s.current)))
                continue
            if word == "rules":
                self.say(rules_text(s.view(s.current), s.game.title))
                continue
            if word in ("board", "moves", "list"):
                self.show_board()
                self.show_menu(texts)
                continue
            if word == "hint":
                hinted = s.hint()
                hint = s.game.move_text(s.state, hinted)
                number = [a for a, _ in menu].index(hinted) + 1
                self.say(f"Hint: the baseline would play {hint} (move {number}).")
                continue
            try:
                action = s.resolve(line, commands=("help",))
            except BadInput as e:
                self.say(str(e))
                continue
            break
        seconds = time.perf_counter() - start
        extra = {"hint": hint} if hint else {}
        move = s.play(action, seconds, None, **extra)
        self.say(f"You play: {move.seen_by(move.seat)}")
        return self.hand_over(move, input_fn)


# ------------------------------------------------------------------------ starting


def add_arguments(p) -> None:
    p.add_argument(
        "--partner",
        metavar="AGENT[,AGENT...]",
        help="who plays the other seats (the partner, or the opponents): baseline, "
        "baseline:<option>=<value>, random, trained (the shipped checkpoint), search (the "
        "trained policy with search, search:<option>=<value>, e.g. "
        "search:blueprint=baseline) or a checkpoint "
        "path; one agent for every other seat, or one per other seat separated by commas, "
        "in seat order without yours (e.g. --num-players 4 --partner baseline,random,baseline)."
        " Default: the shipped checkpoint if there is one for the game, else the game's "
        "baseline",
    )
    p.add_argument("--seat", type=int, help="your seat: 0 begins (default 0)")
    p.add_argument(
        "--seed",
        type=seed_type,
        default=None,
        help="deal seed, 0 or more (default: a random one, recorded)",
    )
    add_game_arguments(p)
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
        default=HUMAN,
        help="who plays your seat: human (default), or an agent (baseline, random, trained, "
        "a checkpoint): watch a game",
    )


def run(args, console: Console | None = None) -> int:
    console = console or Console(highlight=False)
    try:
        terminal = start(args, console)
    except KeyboardInterrupt:
        console.print("\nInterrupted before the game began; nothing was saved.", **QUIET)
        return 130
    return terminal.run()


def start(args, console: Console) -> Terminal:
    """The terminal of a new or resumed session, its opening lines printed."""
    if args.resume is not None:
        given = [n for n in ("partner", "seat", "seed") if getattr(args, n) is not None]
        given += list(game_options(args))
        if given or args.player != HUMAN:
            opts = ", ".join("--" + g.replace("_", "-") for g in given or ["player"])
            raise ValueError(f"--resume continues the game as recorded; drop {opts}")
        session = PlaySession.resume(args.resume)
        console.print(
            f"Resuming {args.resume} at move {len(session.record['moves']) + 1} "
            f"(turn {session.turn()}).",
            **QUIET,
        )
        return Terminal(session, console)

    game, config = game_and_config(args)
    n = game.num_seats(config)
    seat = 0 if args.seat is None else args.seat
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0-{n - 1} in {game.title}, got {seat}")
    if args.partner:
        others, note = other_seats(args.partner, n), None
    else:
        spec, note = default_partner(game.name, config)
        others = [spec] * (n - 1)
    seats = others[:seat] + [args.player] + others[seat:]
    session = PlaySession.new(config, seats, args.seed, args.record_dir, game.name)
    if n == 2 and game.team:
        session.record["partner"] = {"seat": 1 - seat, **session.record["seats"][1 - seat]}
        session.save()
    if note:
        console.print(note, **QUIET)
    terminal = Terminal(session, console)
    begins = " and begin" if seat == 0 else ""
    who = (
        f"You play player_{seat}{begins}"
        if terminal.seat is not None
        else (f"player_{seat}: {args.player}")
    )
    from commoncause.agents.trained import member_label

    shown = [member_label(spec, game.name, config) for spec in seats]
    if n == 2 and game.team:
        with_whom = f"{game.others}: {shown[1 - seat]}"
    elif len(set(others)) == 1:
        with_whom = f"{game.others}: {shown[(seat + 1) % n]}"
    else:
        with_whom = "the others: " + ", ".join(
            f"player_{p} {shown[p]}" for p in range(n) if p != seat
        )
    data = session.screen(None)
    console.print(
        f"{title(data)}. {who}; {with_whom}. Seed {session.record['seed']}. "
        f"Recording to {session.path}. Type 'help' for help.",
        **QUIET,
    )
    return terminal


def other_seats(text: str, n: int) -> list[str]:
    """The agents of the seats other than the person's from ``--partner``: one spec for
    all of them, or one per seat separated by commas (in seat order, the person's left
    out)."""
    specs = [t.strip() for t in text.split(",")]
    if len(specs) == 1:
        return specs * (n - 1)
    if len(specs) != n - 1 or not all(specs):
        raise ValueError(
            f"--partner takes one agent for every other seat or {n - 1} separated by commas "
            f"(one per other seat, in seat order), got {text!r}"
        )
    return specs
