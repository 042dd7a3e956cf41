"""What the terminal shows: one seat's screen, the god view of replays, the move menu.

Screens are drawn from the data a :class:`~commoncause.session.PlaySession` builds from
seat views (``session.screen(seat)``): own hand, discard history, counts, each seat's
latest moves, another hand only where the game shows it (``open_hands``), and the game's
own ``sections`` of labelled lines (``SeatView.table``), so this module draws every game
and names none. They never see the game state. The god view (every hand,
``screen(None)``) is for replays only.

Screens are plain lines of rich markup, one fact per line, so that they read well and stay
checkable in tests: the own hand is always the single line ``Your hand (N): ...``.
"""

from __future__ import annotations

import re

from rich.markup import escape

__all__ = [
    "card_markup",
    "colour_text",
    "god_screen",
    "hand_end_lines",
    "hand_markup",
    "move_menu",
    "seat_names",
    "seat_screen",
    "title",
]

SUIT_STYLE = {"C": "green", "D": "blue", "H": "red", "S": "bold"}  # a four-colour deck


def card_markup(code: str) -> str:
    if code == "JK":
        return f"[bold magenta]{code}[/]"
    return f"[{SUIT_STYLE.get(code[-1], 'default')}]{escape(code)}[/]"


def hand_markup(codes: list[str]) -> str:
    """A hand (already sorted by suit and rank, jokers last); suits separated by two
    spaces."""
    groups: list[list[str]] = []
    last = None
    for code in codes:
        group = "JK" if code == "JK" else code[-1]
        if group != last:
            groups.append([])
            last = group
        groups[-1].append(card_markup(code))
    return "  ".join(" ".join(g) for g in groups) or "(empty)"


_CARD_CODE = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b|\bJK\b")


def colour_text(text: str) -> str:
    """Move or table text with its card codes coloured (the rest escaped)."""
    out, last = [], 0
    for m in _CARD_CODE.finditer(text):
        out.append(escape(text[last : m.start()]))
        out.append(card_markup(m.group()))
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def title(data: dict) -> str:
    """``<title> - <label> (<its level's options>) - <variants>``: the game's title, its
    config's label with what its level sets (``Game.long_label``), and the variants in
    play."""
    head = f"{data['title']} - {data['long_label'] or 'standard'}"
    return head + (" - " + ", ".join(data["variants"]) if data["variants"] else "")


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _groups(texts: list[str]) -> str:
    return "  ".join(f"[{colour_text(t)}]" for t in texts) or "none"


def seat_names(data: dict) -> dict[int, str]:
    """How a seat's screen names the seats: ``you`` and the game's word for the other seat
    in a two-seat team game (``partner``), ``you`` and ``player_k`` otherwise."""
    seat, n = data["seat"], len(data["seats"])
    if n == 2 and data.get("team"):
        return {seat: "you", 1 - seat: data["others"]}
    return {p: "you" if p == seat else data["seats"][p] for p in range(n)}


def _who(who: int, names: dict[int, str]) -> str:
    return "deal" if who < 0 else escape(names.get(who, f"player_{who}"))


def discard_lines(discards: list[dict], names: dict[int, str]) -> list[str]:
    """Top discard and the discard history (who discarded each card, taken or not)."""
    lying = [d for d in discards if not d["taken"] and not d.get("reshuffled")]
    if lying:
        top = lying[-1]
        top_line = f"Top discard: {card_markup(top['card'])} ({_who(top['by'], names)})"
    else:
        top_line = "Top discard: (pile empty)"

    def note(d: dict) -> str:
        return " [bold](taken)[/]" if d["taken"] else " (reshuffled)" if d.get("reshuffled") else ""

    history = ", ".join(
        f"{card_markup(d['card'])} {_who(d['by'], names)}{note(d)}" for d in discards
    )
    return [top_line, f"Discards (oldest first): {history}"]


def _possessive(name: str) -> str:
    return "Your" if name == "you" else f"{escape(name).capitalize()}'s"


def section_lines(sections: list[dict], seats: list[int], name_of) -> list[str]:
    """The game's own lines (``SeatView.table()["sections"]``): those of no seat first, as
    they come, then each seat's in the order of ``seats``, headed ``name_of(seat)``."""

    def line(head: str, section: dict) -> str:
        body = colour_text(section["text"]) if "text" in section else _groups(section["items"])
        return f"{head}: {body}"

    lines = [line(escape(s["label"]), s) for s in sections if s.get("seat") is None]
    for p in seats:
        lines += [
            line(f"{name_of(p)} {escape(s['label'])}", s) for s in sections if s.get("seat") == p
        ]
    return lines


def _counts(data: dict, sizes: str = "") -> str:
    stock = "" if data.get("stock") is None else f"    Stock: {_cards(data['stock'])}"
    return f"Turn {data['turn']}{stock}" + (f"    {sizes}" if sizes else "")


def hand_end_lines(end: dict, names: dict[int, str]) -> list[str]:
    """A finished hand (``SeatView.hand_ends``' entry): who went out, then every seat's
    cards left and points (``names``: how the screen names the seats)."""
    out = end["out"]
    who = "nobody went out" if out is None else f"{_who(out, names)} went out"
    lines = [f"[bold]{escape(end['title'])} is over[/]: {who}."]
    for p, cards in enumerate(end["left"]):
        lines.append(
            f"  {_who(p, names)}: {hand_markup(cards) if cards else '(no cards)'}  "
            f"({end['points'][p]:g} {escape(end['points_label'])})"
        )
    return lines


def seat_screen(data: dict) -> list[str]:
    """One seat's screen as rich markup lines, from ``session.screen(seat)``."""
    seat = data["seat"]
    names = seat_names(data)
    others = [p for p in range(len(data["seats"])) if p != seat]
    sizes = "    ".join(
        f"{_possessive(names[p])} hand: {_cards(data['hand_sizes'][p])}" for p in others
    )
    lines = hand_end_lines(data["hand_end"], names) if data.get("hand_end") else []
    lines.append(_counts(data, sizes))
    lines += section_lines(
        data.get("sections", []), others + [seat], lambda p: _possessive(names[p])
    )
    lines += discard_lines(data["discards"], names)
    for p in others:
        moves = data["last_moves"][p]
        if moves:
            lines.append(
                f"{escape(names[p]).capitalize()} just played: "
                + " | ".join(colour_text(t) for t in moves)
            )
    own = data["last_moves"][seat] if data["current"] == seat else []
    if own:
        lines.append("This turn so far: " + " | ".join(colour_text(t) for t in own))
    for p, hand in enumerate(data.get("open_hands") or []):
        if hand is None or p == seat:
            continue
        lines.append(f"{_possessive(names[p])} hand ({len(hand)}, open hands): {hand_markup(hand)}")
    lines.append(f"Your hand ({len(data['hand'])}): {hand_markup(data['hand'])}")
    return lines


def god_screen(data: dict, names: tuple[str, ...] | None = None) -> list[str]:
    """Every hand and the whole table (replays), from ``session.screen(None)``."""
    names = names or tuple(data["seats"])
    n = len(names)
    end = data.get("hand_end")
    lines = hand_end_lines(end, {p: names[p] for p in range(n)}) if end else []
    lines.append(_counts(data))
    lines += section_lines(data.get("sections", []), list(range(n)), lambda p: escape(names[p]))
    lines += discard_lines(data["discards"], {p: f"p{p}" for p in range(n)})
    for p in range(n):
        hand = data["hands"][p]
        lines.append(f"{escape(names[p])} hand ({len(hand)}): {hand_markup(hand)}")
    return lines


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
