"""A readable text table of a Dummy rummy game (every hand shown: the env's render)."""

from __future__ import annotations

from ..core.cards import card_code, hand_text
from ..core.render import last_moves, table_top
from .actions import CONTRACTS, DECK, group_name
from .notation import position_text
from .rules import CUTIN_PHASE, DRAW_PHASE, GameState, TableMeld


def meld_text(meld: TableMeld) -> str:
    """A set in play order; a run low to high, a wild card as ``2C(7)`` (what it stands for)."""
    if meld.is_set:
        return " ".join(card_code(DECK.type_of(c)) for c in meld.cards)
    parts = []
    for pos in sorted(meld.slots):
        t = DECK.type_of(meld.slots[pos])
        code = card_code(t)
        natural = t % 13 == (pos - 1) % 13 and pos != 2 and t != 52
        parts.append(code if natural else f"{code}({position_text(pos)})")
    return " ".join(parts)


def contract_text(state: GameState, seat: int) -> str:
    k = state.contract[seat]
    if k >= len(CONTRACTS):
        return "all twelve done"
    status = "laid" if state.laid[seat] else "to lay"
    return f"contract {k + 1} ({CONTRACTS[k].text()}), {status}"


def render_table(state: GameState, recent_moves: list[tuple[int, str]] = ()) -> str:
    cfg = state.config
    head = f"Dummy rummy - {cfg.label()}, hand {state.hand_no + (not state.is_terminal)}"
    if cfg.variant_names():
        head += " - " + ", ".join(cfg.variant_names())
    if state.is_terminal:
        status = state.outcome()
    else:
        doing = {DRAW_PHASE: "to draw", CUTIN_PHASE: "to cut in or pass"}.get(
            state.phase, "placing / to discard"
        )
        status = f"player_{state.current} {doing}"
    pile = [card_code(DECK.type_of(c)) for c in state.discard]
    lines = table_top(head, state.turns, status, len(state.stock), pile)
    for s in range(state.n):
        laid = "  ".join(
            f"{group_name(CONTRACTS[m.contract], m.group)}: [{meld_text(m)}]"
            for m in state.melds
            if m.owner == s
        )
        lines.append(
            f"player_{s} ({state.totals[s]} points; {contract_text(state, s)}): "
            f"hand ({len(state.hands[s])}) {hand_text(state.hand_types(s))}"
            + (f"; melds {laid}" if laid else "")
        )
    lines += last_moves(recent_moves)
    return "\n".join(lines)
