"""Dummy rummy move notation: one text per step, for the env, tests, logs and UIs.

========================================  ==================================================
text                                      move
========================================  ==================================================
``draw stock`` / ``draw discard``         draw from the stock / take the top discard
``discard 7H``                            discard (ends the turn; the last card goes out)
``cutin take`` / ``cutin pass``           cut in for the top discard (option) / let it go
``meld 7H in set 1``                      lay a card of one's contract in its first set
``meld 5C in run 1``                      ... a natural card in a run (its rank's place)
``meld 2C in run 1 as 7``                 ... a wild card standing for the 7
``meld AH in run 1 as A-high``            ... the Ace above the King (``as A``: below the 2)
``layoff 7H on player_2 set 1``           lay off on a meld (its owner and group)
``layoff JK on player_0 run 1 as 9``      ... a wild card at a run's end, standing for the 9
========================================  ==================================================

Groups are numbered within their kind as the contract lists them (``set 1``, ``set 2``,
``run 1``); a run position is written as its rank, ``A`` low and ``A-high``. Card codes as
everywhere: ranks A 2-10 J Q K, suits C D H S, joker JK; letter case is free.
"""

from __future__ import annotations

from ..core.cards import RANKS, card_code, parse_card
from .actions import (
    CONTRACTS,
    CUTIN_PASS,
    CUTIN_TAKE,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    HIGH_ACE,
    IS_WILD,
    KIND_DISCARD,
    KIND_RUN_MELD,
    KIND_SET_MELD,
    decode,
    group_name,
    layoff_action,
    positions_of_rank,
    rank_at,
    run_meld_action,
    set_meld_action,
)
from .rules import GameState


def position_text(position: int) -> str:
    return "A-high" if position == HIGH_ACE else RANKS[position - 1]


def parse_position(text: str) -> int:
    word = text.strip().upper()
    if word in ("A-HIGH", "AHIGH", "A+", "14"):
        return HIGH_ACE
    if word == "T":
        word = "10"
    if word in RANKS:
        return RANKS.index(word) + 1
    raise ValueError(f"unknown run position {text!r}: a rank A 2-10 J Q K, or A-high")


def move_text(state: GameState, action: int) -> str:
    """The text of action id ``action`` for the current player (ValueError if out of range)."""
    info = decode(action)
    if action == DRAW_STOCK:
        return "draw stock"
    if action == DRAW_DISCARD:
        return "draw discard"
    if action == CUTIN_TAKE:
        return "cutin take"
    if action == CUTIN_PASS:
        return "cutin pass"
    code = card_code(info.card) if info.card >= 0 else "?"
    if info.kind == KIND_DISCARD:
        return f"discard {code}"
    p = state.current
    if info.kind in (KIND_SET_MELD, KIND_RUN_MELD):
        contract = state.contract_of(p)
        group = (
            group_name(contract, info.group)
            if info.group < len(contract.groups)
            else f"group {info.group + 1}"
        )
        text = f"meld {code} in {group}"
        if info.kind == KIND_RUN_MELD and (IS_WILD[info.card] or info.card % 13 == 0):
            text += f" as {position_text(info.position)}"
        return text
    owner = (p + info.owner) % state.n
    meld = state.meld_at.get((owner, info.group))
    contract = CONTRACTS[meld.contract] if meld is not None else state.contract_of(owner)
    group = (
        group_name(contract, info.group)
        if info.group < len(contract.groups)
        else f"group {info.group + 1}"
    )
    text = f"layoff {code} on player_{owner} {group}"
    if meld is not None and not meld.is_set:
        ends = dict(meld.open_ends())
        position = ends.get(info.end)
        if position is not None and (IS_WILD[info.card] or info.card % 13 == 0):
            text += f" as {position_text(position)}"
    return text


def _group_index(state: GameState, seat: int, kind: str, number: str) -> int:
    contract = state.contract_of(seat) if state.contract[seat] < len(CONTRACTS) else None
    if contract is None:
        raise ValueError(f"player_{seat} has completed all twelve contracts")
    try:
        k = int(number) - 1
    except ValueError:
        raise ValueError(f"a group is 'set N' or 'run N', got {kind} {number!r}") from None
    count = len(contract.sets) if kind == "set" else len(contract.runs)
    if not 0 <= k < count:
        raise ValueError(
            f"player_{seat}'s contract ({contract.text()}) has no {kind} {number}"
        )
    return k if kind == "set" else len(contract.sets) + k


def parse_move(state: GameState, text: str) -> int:
    """Action id of a move text for the current player; ValueError naming the problem."""
    words = text.lower().split()
    if words in (["draw", "stock"], ["draw", "discard"], ["cutin", "take"], ["cutin", "pass"]):
        return {"stock": DRAW_STOCK, "discard": DRAW_DISCARD, "take": CUTIN_TAKE,
                "pass": CUTIN_PASS}[words[1]]  # fmt: skip
    if len(words) == 2 and words[0] == "discard":
        return DISCARD_BASE + parse_card(words[1])
    position = None
    if len(words) >= 2 and words[-2] == "as":
        position = parse_position(words[-1])
        words = words[:-2]
    p = state.current
    if len(words) == 5 and words[0] == "meld" and words[2] == "in":
        t = parse_card(words[1])
        g = _group_index(state, p, words[3], words[4])
        if words[3] == "set":
            return set_meld_action(g, t)
        position = _natural_position(t, position)
        action = run_meld_action(g, position, t)
        if action < 0:
            raise ValueError(f"{card_code(t)} cannot sit at {position_text(position)}")
        return action
    if len(words) == 6 and words[0] == "layoff" and words[2] == "on":
        t = parse_card(words[1])
        owner_name = words[3]
        if not owner_name.startswith("player_") or not owner_name[7:].isdigit():
            raise ValueError(f"name a meld's owner as player_N, got {words[3]!r}")
        owner = int(owner_name[7:])
        if not 0 <= owner < state.n:
            raise ValueError(f"there is no {owner_name} in a {state.n}-player game")
        g = _group_index(state, owner, words[4], words[5])
        relative = (owner - p) % state.n
        meld = state.meld_at.get((owner, g))
        if meld is None:
            raise ValueError(f"{owner_name} has no {words[4]} {words[5]} on the table")
        if meld.is_set:
            return layoff_action(relative, g, 0, t)
        ends = meld.open_ends()
        if position is None:
            fitting = [e for e, pos in ends if not IS_WILD[t] and t % 13 == rank_at(pos)]
            if len(fitting) != 1:
                raise ValueError("say where it goes: add 'as <rank>' (e.g. as 9, as A-high)")
            return layoff_action(relative, g, fitting[0], t)
        for end, pos in ends:
            if pos == position:
                return layoff_action(relative, g, end, t)
        raise ValueError(f"that run has no open end at {position_text(position)}")
    raise ValueError(
        f"cannot read {text!r}: try 'draw stock', 'draw discard', 'discard 7H', "
        "'meld 7H in set 1', 'meld 2C in run 1 as 7', 'layoff 9C on player_1 run 1', "
        "'cutin take' or 'cutin pass'"
    )


def _natural_position(t: int, position: int | None) -> int:
    if position is not None:
        return position
    if IS_WILD[t]:
        raise ValueError("say what a wild card stands for in a run: add 'as <rank>'")
    return positions_of_rank(t % 13)[0]
