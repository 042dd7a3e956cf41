"""Open Rummy move notation: one text per step, for the env, tests, logs and UIs.

========================================  ==================================================
text                                      move
========================================  ==================================================
``draw stock`` / ``draw discard``         draw from the stock / take the top discard
``discard 7H``                            discard (ends the turn; the last card goes out)
``cardswap 7H``                           round-start card swap: 7H to the pile, its top
                                          card to the hand (ends the turn)
``meld set 7H`` / ``meld set JK``         lay a card in the new meld, a set
``meld run 7H``                           ... a natural card in the new meld, a run
``meld run JK as 8H``                     ... a joker in a run, standing for the 8H
``layoff 7H on meld 3``                   lay off on the meld in slot 3 (counted from 1 in
                                          the order melds were begun this round)
``layoff JK on meld 3 as 8H``             ... a joker at a run's end, standing for the 8H
                                          (``layoff JK on meld 3`` for a set)
``steal meld 3 with 8H``                  take the joker from meld 3, 8H in its place
========================================  ==================================================

Card codes as everywhere: ranks A 2-10 J Q K, suits C D H S, joker JK; letter case is free.
"""

from __future__ import annotations

from ..core.cards import JOKER, card_code, parse_card
from .actions import (
    CARDSWAP_BASE,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    JOKER_HIGH,
    JOKER_LOW,
    KIND_CARDSWAP,
    KIND_DISCARD,
    KIND_RUN_STEP,
    KIND_SET_STEP,
    KIND_STEAL,
    MAX_MELDS,
    RUN_STEP_BASE,
    SET_STEP_BASE,
    card_at_position,
    decode,
    layoff_action,
    position_of,
    run_joker_action,
    steal_action,
)
from .rules import GameState

HELP = (
    "try 'draw stock', 'draw discard', 'discard 7H', 'cardswap 7H', 'meld set 7H', "
    "'meld run 7H', 'meld run JK as 8H', 'layoff 7H on meld 1', 'layoff JK on meld 1 as 8H' "
    "or 'steal meld 1 with 8H'"
)


def move_text(state: GameState, action: int) -> str:
    """The text of action id ``action`` for the current player (ValueError if out of range)."""
    info = decode(action)
    if action == DRAW_STOCK:
        return "draw stock"
    if action == DRAW_DISCARD:
        return "draw discard"
    code = card_code(info.card)
    if info.kind == KIND_DISCARD:
        return f"discard {code}"
    if info.kind == KIND_CARDSWAP:
        return f"cardswap {code}"
    if info.kind == KIND_SET_STEP:
        return f"meld set {code}"
    if info.kind == KIND_RUN_STEP:
        if info.card == JOKER:
            return f"meld run JK as {card_code(card_at_position(info.suit, info.position))}"
        return f"meld run {code}"
    if info.kind == KIND_STEAL:
        return f"steal meld {info.slot + 1} with {code}"
    text = f"layoff {code} on meld {info.slot + 1}"
    if info.card == JOKER and info.slot < len(state.melds):
        meld = state.melds[info.slot]
        if not meld.is_set:
            ends = dict(meld.open_ends())
            if info.end in ends:
                text += f" as {card_code(card_at_position(meld.suit, ends[info.end]))}"
            else:
                text += " at the " + ("high" if info.end else "low") + " end"
    elif info.card == JOKER and info.end:
        text += " at the high end"
    return text


def _natural(text: str) -> int:
    t = parse_card(text)
    if t == JOKER:
        raise ValueError("name a natural card here, not a joker")
    return t


def _slot(word: str) -> int:
    if not word.isdigit() or not 1 <= int(word) <= MAX_MELDS:
        raise ValueError(f"a meld is named by its number 1-{MAX_MELDS}, got {word!r}")
    return int(word) - 1


def parse_move(state: GameState, text: str) -> int:
    """Action id of a move text for the current player; ValueError naming the problem."""
    words = text.lower().split()
    if words == ["draw", "stock"]:
        return DRAW_STOCK
    if words == ["draw", "discard"]:
        return DRAW_DISCARD
    if len(words) == 2 and words[0] == "discard":
        return DISCARD_BASE + parse_card(words[1])
    if len(words) == 2 and words[0] == "cardswap":
        return CARDSWAP_BASE + parse_card(words[1])
    if len(words) == 3 and words[:2] == ["meld", "set"]:
        return SET_STEP_BASE + parse_card(words[2])
    if len(words) in (3, 5) and words[:2] == ["meld", "run"]:
        t = parse_card(words[2])
        if t != JOKER:
            if len(words) == 5:
                raise ValueError("only a joker is laid 'as' another card")
            return RUN_STEP_BASE + t
        if len(words) != 5 or words[3] != "as":
            raise ValueError("say what a joker stands for in a run: 'meld run JK as 8H'")
        stand = _natural(words[4])
        return run_joker_action(stand // 13, position_of(stand))
    if len(words) == 5 and words[:2] == ["steal", "meld"] and words[3] == "with":
        return steal_action(_slot(words[2]), _natural(words[4]))
    if len(words) in (5, 7, 9) and words[0] == "layoff" and words[2:4] == ["on", "meld"]:
        t = parse_card(words[1])
        slot = _slot(words[4])
        if t != JOKER:
            if len(words) != 5:
                raise ValueError("only a joker is laid 'as' another card")
            return layoff_action(slot, t)
        if len(words) == 5:
            return layoff_action(slot, JOKER_LOW)
        if words[5:] in (["at", "the", "low", "end"], ["at", "the", "high", "end"]):
            return layoff_action(slot, JOKER_HIGH if words[7] == "high" else JOKER_LOW)
        if words[5] != "as":
            raise ValueError(f"cannot read {text!r}: {HELP}")
        stand = _natural(words[6])
        meld = state.melds[slot] if slot < len(state.melds) else None
        if meld is None or meld.is_set or meld.closed:
            raise ValueError(f"meld {slot + 1} is no run on the table")
        for end, pos in meld.open_ends():
            if card_at_position(meld.suit, pos) == stand:
                return layoff_action(slot, JOKER_LOW if end == 0 else JOKER_HIGH)
        raise ValueError(f"meld {slot + 1} has no open end for {card_code(stand)}")
    raise ValueError(f"cannot read {text!r}: {HELP}")
