"""What the terminal game shows: one seat's view of the table, the move list, summaries.

Everything a seat's screen shows comes from a ``SeatView`` (own hand, public table,
discard history, counts); the partner's hand only in the open-hands variant. The god view
(both hands) is used by ``commoncause replay`` only.

Screens are built as plain lines of rich markup, one fact per line, so that they read well
and stay checkable in tests: the own hand is always the single line ``Your hand (N): ...``.
"""

from __future__ import annotations

import re

from rich.markup import escape

from envs.common_cause.actions import (
    ACTIONS,
    COMPLETE,
    DISCARD,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    START,
    STARTS,
    SWAP,
)
from envs.common_cause.cards import JOKER, N_STANDARD, card_code, parse_card, sort_key, suit_of
from envs.common_cause.notation import meld_text, move_text, start_text
from envs.common_cause.render import variant_names
from envs.common_cause.rules import DRAW_PHASE, GameState
from envs.common_cause.seat import SeatView

PLAYERS = ("player_0", "player_1")
SUIT_STYLE = ("green", "blue", "red", "bold")  # C D H S: a four-colour deck


def card_markup(card: int) -> str:
    code = card_code(card)
    if card >= N_STANDARD:
        return f"[bold magenta]{code}[/]"
    return f"[{SUIT_STYLE[suit_of(card)]}]{code}[/]"


def hand_markup(cards: list[int]) -> str:
    """A hand sorted by suit and rank, jokers last; suits separated by two spaces."""
    groups: list[list[str]] = []
    last = None
    for c in sorted(cards, key=sort_key):
        group = sort_key(c)[0]
        if group != last:
            groups.append([])
            last = group
        groups[-1].append(card_markup(c))
    return "  ".join(" ".join(g) for g in groups) or "(empty)"


_CARD_CODE = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b|\bJK\b")


def colour_text(text: str) -> str:
    """Move or meld text with its card codes coloured (the rest escaped)."""
    out, last = [], 0
    for m in _CARD_CODE.finditer(text):
        out.append(escape(text[last : m.start()]))
        out.append(card_markup(parse_card(m.group())))
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def shown_text(state: GameState, action: int, viewer: int | None) -> str:
    """The move text as ``viewer`` sees it (``None``: sees everything), computed before the
    move is applied: a stock draw names its card to its own player only, a discard draw
    names the card taken (public)."""
    text = move_text(state, action)
    if action == DRAW_DISCARD and state.discard:
        text += f" (took {card_code(state.discard[-1])})"
    elif action == DRAW_STOCK and state.stock and viewer in (state.current, None):
        text += f" (drew {card_code(state.stock[-1])})"
    return text


def title(state: GameState, level: str) -> str:
    head = f"Common Cause - {level} (stock {state.config.stock_size})"
    variants = variant_names(state)
    return head + (" - " + ", ".join(variants) if variants else "")


def turn_number(state: GameState) -> int:
    """The number of the turn in progress (a turn is one player's draw-place-discard)."""
    return state.turns + (1 if state.phase == DRAW_PHASE and not state.is_terminal else 0)


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _starts(sids: list[int]) -> str:
    return "  ".join(f"[{colour_text(start_text(s))}]" for s in sids) or "none"


def _melds(state: GameState) -> str:
    return "  ".join(f"[{colour_text(meld_text(m))}]" for m in state.melds) or "none"


def _who(who: int, seat: int | None, names: tuple[str, str]) -> str:
    if who < 0:
        return "deal"
    return escape(names[who] if seat is None else (names[0] if who == seat else names[1]))


def discard_lines(log: list[list[int]], seat: int | None, names: tuple[str, str]) -> list[str]:
    """Top discard and the discard history (who discarded each card, taken or not)."""
    lying = [e for e in log if not e[2]]
    if lying:
        top = lying[-1]
        top_line = f"Top discard: {card_markup(top[0])} ({_who(top[1], seat, names)})"
    else:
        top_line = "Top discard: (pile empty)"
    history = ", ".join(
        f"{card_markup(c)} {_who(w, seat, names)}{' [bold](taken)[/]' if taken else ''}"
        for c, w, taken in log
    )
    return [top_line, f"Discards (oldest first): {history}"]


def seat_screen(
    view: SeatView,
    level: str,
    partner_moves: list[str] = (),
    own_moves: list[str] = (),
    names: tuple[str, str] = ("you", "partner"),
) -> list[str]:
    """One seat's screen as rich markup lines: only what that seat may see."""
    state = view._state  # for the title and turn number only (public facts)
    seat = view.player
    me, partner = names
    lines = [
        f"Turn {turn_number(state)}    Stock: {_cards(view.stock_size)}    "
        f"{partner.capitalize()}'s hand: {_cards(view.partner_hand_size)}",
        f"Complete melds: {_melds(state)}",
        f"{partner.capitalize()}'s open starts: {_starts(view.partner_starts)}",
        f"{'Your' if me == 'you' else me.capitalize() + chr(39) + 's'} open starts: "
        f"{_starts(view.my_starts)}",
    ]
    lines += discard_lines(view.discard_log, seat, names)
    if partner_moves:
        lines.append(
            f"{partner.capitalize()} just played: "
            + " | ".join(colour_text(t) for t in partner_moves)
        )
    if own_moves:
        lines.append("This turn so far: " + " | ".join(colour_text(t) for t in own_moves))
    if view.config.open_hands:
        lines.append(
            f"{partner.capitalize()}'s hand ({view.partner_hand_size}, open hands): "
            f"{hand_markup(view.partner_hand)}"
        )
    lines.append(f"Your hand ({len(view.hand)}): {hand_markup(view.hand)}")
    return lines


def god_screen(state: GameState, names: tuple[str, str] = PLAYERS) -> list[str]:
    """Both hands and the whole table (replays)."""
    lines = [
        f"Turn {turn_number(state)}    Stock: {_cards(len(state.stock))}",
        f"Complete melds: {_melds(state)}",
    ]
    for p in (0, 1):
        lines.append(f"{escape(names[p])} open starts: {_starts(state.starts[p])}")
    lines += discard_lines(state.discard_log, None, ("p0", "p1"))
    for p in (0, 1):
        lines.append(
            f"{escape(names[p])} hand ({len(state.hands[p])}): {hand_markup(state.hands[p])}"
        )
    return lines


_KIND_ORDER = {DRAW: 0, COMPLETE: 1, LAYOFF: 2, SWAP: 3, START: 4, DISCARD: 5}


def _move_order(action: int) -> tuple:
    info = ACTIONS[action]
    if info.kind == DRAW:
        return (0, action)
    card = STARTS[info.origin].cards[0] if info.kind == START else info.card
    card = min(card, JOKER)
    return (_KIND_ORDER[info.kind], sort_key(card), info.origin, action)


def ordered_moves(legal: list[int]) -> list[int]:
    """Legal moves in menu order: draws, completions, lay-offs, swaps, starts, discards."""
    return sorted(legal, key=_move_order)


def move_menu(texts: list[str], width: int) -> list[str]:
    """Numbered move texts laid out in columns (numbered down each column)."""
    items = [f"{i + 1:>2}. {t}" for i, t in enumerate(texts)]
    col = max(len(s) for s in items) + 4
    ncols = max(1, min(4, width // col))
    nrows = -(-len(items) // ncols)
    rows = []
    for r in range(nrows):
        cells = [items[c * nrows + r] for c in range(ncols) if c * nrows + r < len(items)]
        rows.append("".join(escape(cell).ljust(col) for cell in cells).rstrip())
    return rows
