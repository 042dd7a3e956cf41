"""A readable text table of an Open Rummy game (every hand shown: the env's render)."""

from __future__ import annotations

from ..core.cards import JOKER, card_code, hand_text
from ..core.render import last_moves, table_top
from .actions import TYPE_OF, card_at_position
from .rules import DRAW_PHASE, GameState, TableMeld


def meld_text(meld: TableMeld) -> str:
    """A set in play order; a run low to high, a joker as ``JK(8H)`` (what it stands for)."""
    if meld.is_set:
        return " ".join(card_code(TYPE_OF[c]) for c in meld.cards)
    parts = []
    for pos in sorted(meld.slots):
        t = TYPE_OF[meld.slots[pos]]
        stand = card_code(card_at_position(meld.suit, pos))
        parts.append(f"JK({stand})" if t == JOKER else card_code(t))
    return " ".join(parts)


def render_table(state: GameState, recent_moves: list[tuple[int, str]] = ()) -> str:
    cfg = state.config
    head = f"Open Rummy - {cfg.label()}, round {state.round_no + (not state.is_terminal)}"
    if cfg.variant_names():
        head += " - " + ", ".join(cfg.variant_names())
    if state.is_terminal:
        status = state.outcome()
    else:
        doing = "to draw" if state.phase == DRAW_PHASE else "placing / to discard"
        if state.phase == DRAW_PHASE and state.swap_open:
            doing += " or card swap"
        if state.pending is not None:
            doing = "laying a meld"
        status = f"player_{state.current} {doing}"
    pile = [card_code(TYPE_OF[c]) for c in state.discard]
    lines = table_top(head, state.turns, status, len(state.stock), pile)
    for s in range(state.n):
        laid = "laid" if state.laid[s] else "no meld yet"
        lines.append(
            f"player_{s} ({state.totals[s]} points, {state.placed[s]} placed this round; "
            f"{laid}): hand ({len(state.hands[s])}) {hand_text(state.hand_types(s))}"
        )
    for m in state.melds:
        what = "closed set" if m.closed else "set" if m.is_set else "run"
        lines.append(f"  meld {m.slot + 1} ({what}, player_{m.owner}): [{meld_text(m)}]")
    lines += last_moves(recent_moves)
    return "\n".join(lines)
