"""Move notation: the one text form of every move, for the env, tests, logs and human UIs.

======================================  ================================================
text                                    move
======================================  ================================================
``draw stock`` / ``draw discard``       draw from the stock / take the top discard
``start 7H 7S``                         lay an open start (the two cards in any order)
``complete 7H 7S with 7D``              complete the partner's open start 7H 7S
``complete 7H 7S with JK``              ... with a joker (in a set it names no card)
``complete 4C 5C with JK as 6C``        ... with a joker standing for the 6C
``layoff 7C on 4C 5C 6C``               lay off a card on a complete meld
``layoff JK as 3C on 4C 5C 6C``         lay off a joker standing for a card (runs)
``layoff JK on 7H 7S 7D``               lay off a joker on a set
``swap 6C on 4C 5C JK(6C)``             put the 6C in place of the joker, take the joker
``discard KD``                          discard (ends the turn)
======================================  ================================================

A meld is written as the engine prints it: a run low to high, a set in play order, a joker
in a run as ``JK(6C)`` (the card it stands for) and in a set as ``JK``. When reading a
meld, the order of its cards, the letter case and a joker's ``(..)`` are free. Card codes:
ranks A 2-10 J Q K, suits C D H S, joker JK.
"""

from __future__ import annotations

import re

from .actions import (
    ACTIONS,
    COMPLETE,
    COMPLETIONS,
    DISCARD,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    LAYOFFS,
    START,
    START_BASE,
    STARTS,
    SWAPS,
    start_id,
)
from .cards import JOKER, N_STANDARD, card_at, card_code, parse_card
from .rules import GameState, Meld

_JOKER_TOKEN = re.compile(r"^JK(?:[(=](\w+)\)?)?$")


def start_text(sid: int) -> str:
    shape = STARTS[sid]
    if shape.is_set:
        cards = shape.cards
    else:
        cards = tuple(card_at(shape.suit, p) for p in shape.positions)
    return " ".join(card_code(c) for c in cards)


def meld_text(meld: Meld) -> str:
    if meld.is_set:
        return " ".join(card_code(c) for c in meld.cards)
    tokens = []
    for i, c in enumerate(meld.cards):
        tokens.append(
            f"JK({card_code(card_at(meld.suit, meld.lo + i))})" if c >= N_STANDARD else card_code(c)
        )
    return " ".join(tokens)


def _target_text(state: GameState, origin: int) -> str:
    meld = state.meld_of.get(origin)
    return meld_text(meld) if meld is not None else f"the meld grown from {start_text(origin)}"


def move_text(state: GameState, action: int) -> str:
    """The notation of ``action`` in ``state`` (melds are named by their current cards)."""
    if not 0 <= action < len(ACTIONS):
        raise ValueError(f"action {action} is out of range 0-{len(ACTIONS) - 1}")
    if action == DRAW_STOCK:
        return "draw stock"
    if action == DRAW_DISCARD:
        return "draw discard"
    info = ACTIONS[action]
    card = card_code(info.card) if info.card >= 0 else ""
    joker_as = f" as {card_code(info.stands_for)}" if info.stands_for >= 0 else ""
    if info.kind == DISCARD:
        return f"discard {card}"
    if info.kind == START:
        return f"start {start_text(info.origin)}"
    if info.kind == COMPLETE:
        return f"complete {start_text(info.origin)} with {card}{joker_as}"
    if info.kind == LAYOFF:
        return f"layoff {card}{joker_as} on {_target_text(state, info.origin)}"
    return f"swap {card} on {_target_text(state, info.origin)}"


class _BadForm(Exception):
    """The words of a move do not have its form (reported with the move's usage)."""


def _cards(tokens: list[str], count: int) -> list[int]:
    if len(tokens) != count:
        raise _BadForm
    return [parse_card(t) for t in tokens]


def _index(words: list[str], word: str) -> int:
    if word not in words:
        raise _BadForm
    return words.index(word)


_GROWN_FROM = ["the", "meld", "grown", "from"]


def _find_meld(state: GameState, tokens: list[str]) -> Meld:
    if [t.lower() for t in tokens[:4]] == _GROWN_FROM:
        a, b = _cards(tokens[4:], 2)
        meld = state.meld_of.get(start_id(a, b))
        if meld is None:
            raise ValueError(f"no complete meld grown from {' '.join(tokens[4:])} on the table")
        return meld
    if not tokens:
        raise _BadForm
    wanted = sorted(
        "JK" if _JOKER_TOKEN.match(t.upper()) else card_code(parse_card(t)) for t in tokens
    )
    for meld in state.melds:
        if sorted("JK" if c >= N_STANDARD else card_code(c) for c in meld.cards) == wanted:
            return meld
    on_table = "; ".join(meld_text(m) for m in state.melds) or "none"
    raise ValueError(f"no complete meld {' '.join(tokens)} on the table (melds: {on_table})")


def _joker_choice(options: list[tuple[int, int]], stands: int | None, what: str) -> int:
    """Pick the action among (action id, stands_for) joker options by the ``as`` card."""
    if stands is None:
        if len(options) == 1:
            return options[0][0]
        choices = ", ".join(card_code(s) for _, s in options)
        raise ValueError(f"say which card the joker stands for: {what} as one of {choices}")
    for aid, s in options:
        if s == stands or s < 0:
            return aid
    raise ValueError(f"the joker cannot stand for {card_code(stands)} there")


def parse_move(state: GameState, text: str) -> int:
    """The action id of a move written in notation; raises ValueError naming the problem.

    The move is only parsed here, not checked for legality (``GameState.apply`` does that).
    """
    words = text.strip().replace(",", " ").split()
    if not words:
        raise ValueError("empty move: type a move such as 'draw stock' or 'discard KD'")
    verb, rest = words[0].lower(), words[1:]
    lower = [w.lower() for w in rest]
    usage = {
        "draw": "draw stock | draw discard",
        "discard": "discard <card>",
        "start": "start <card> <card>",
        "complete": "complete <card> <card> with <card> [as <card>]",
        "layoff": "layoff <card> [as <card>] on <meld>",
        "swap": "swap <card> on <meld>",
    }
    if verb not in usage:
        raise ValueError(f"unknown move {words[0]!r}: moves are {', '.join(usage)}")
    try:
        if verb == "draw":
            if lower in (["stock"], ["from", "stock"]):
                return DRAW_STOCK
            if lower in (["discard"], ["from", "discard"]):
                return DRAW_DISCARD
            raise ValueError("say 'draw stock' or 'draw discard'")
        if verb == "discard":
            (card,) = _cards(rest, 1)
            return DISCARD_BASE + card
        if verb == "start":
            a, b = _cards(rest, 2)
            sid = start_id(a, b)
            if sid < 0:
                raise ValueError(
                    f"{rest[0]} {rest[1]} is no open start: a pair, or two cards of one suit "
                    "next to each other or with one gap, no joker"
                )
            return START_BASE + sid
        if verb == "complete":
            with_at = _index(lower, "with")
            a, b = _cards(rest[:with_at], 2)
            sid = start_id(a, b)
            if sid < 0:
                raise ValueError(f"{' '.join(rest[:with_at])} is no open start")
            card, stands = _card_as(rest[with_at + 1 :])
            options = [(aid, s) for aid, c, s, _ in COMPLETIONS[sid] if c == card]
            if not options:
                raise ValueError(f"{card_code(card)} does not complete {start_text(sid)}")
            if card != JOKER:
                return options[0][0]
            return _joker_choice(options, stands, f"complete {start_text(sid)} with JK")
        on_at = _index(lower, "on")
        meld = _find_meld(state, rest[on_at + 1 :])
        card, stands = _card_as(rest[:on_at])
        if verb == "swap":
            if stands is not None or card == JOKER or card not in SWAPS[meld.origin]:
                raise ValueError(f"swap takes a real card of the meld {meld_text(meld)}")
            return SWAPS[meld.origin][card]
        table = LAYOFFS[meld.origin]
        if card != JOKER:
            if (card, -1) not in table or stands is not None:
                raise ValueError(f"{card_code(card)} does not fit {meld_text(meld)}")
            return table[(card, -1)]
        if meld.is_set:
            return table[(JOKER, -1)]
        ends = [card_at(meld.suit, p) for p in meld.open_ends(state.config.max_position)]
        options = [(table[(JOKER, c)], c) for c in ends if (JOKER, c) in table]
        if not options:
            raise ValueError(f"the run {meld_text(meld)} cannot be extended")
        return _joker_choice(options, stands, f"layoff JK on {meld_text(meld)}")
    except _BadForm:
        raise ValueError(f"cannot read {text.strip()!r}: write {usage[verb]}") from None


def _card_as(tokens: list[str]) -> tuple[int, int | None]:
    """``7C`` or ``JK as 6C`` (also ``JK(6C)``) -> (card type, stands_for or None)."""
    if len(tokens) == 1:
        m = _JOKER_TOKEN.match(tokens[0].upper())
        if m and m.group(1):
            return JOKER, parse_card(m.group(1))
        return parse_card(tokens[0]), None
    if len(tokens) == 3 and tokens[1].lower() == "as":
        card = parse_card(tokens[0])
        if card != JOKER:
            raise ValueError(f"only a joker stands for another card, not {tokens[0]}")
        return JOKER, parse_card(tokens[2])
    raise _BadForm
