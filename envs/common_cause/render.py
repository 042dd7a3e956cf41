"""A readable text table of a game (the god view used by ``env.render``)."""

from __future__ import annotations

from ..core.render import last_moves, table_top
from .cards import card_code, hand_text
from .notation import meld_text, start_text
from .rules import DRAW_PHASE, GameState

PLAYERS = ("player_0", "player_1")


def render_table(state: GameState, recent_moves: list[tuple[int, str]] = ()) -> str:
    """Both hands, the table, the pile and the stock count; ``recent_moves`` are
    (player, move text) pairs shown last."""
    cfg = state.config
    variants = cfg.variant_names()
    head = f"Common Cause - {cfg.label()} (stock {cfg.stock_size})"
    if variants:
        head += " - " + ", ".join(variants)
    if state.result == "win":
        status = "WON: both hands are empty and every card on the table is in a complete meld"
    elif state.result == "loss":
        status = f"LOST: {state.loss_reason}"
    else:
        doing = "to draw" if state.phase == DRAW_PHASE else "placing / to discard"
        status = f"{PLAYERS[state.current]} {doing}"
    pile = [card_code(c) for c in state.discard]
    lines = table_top(head, state.turns, status, len(state.stock), pile)
    lines.append(
        "Complete melds: " + ("  ".join(f"[{meld_text(m)}]" for m in state.melds) or "none")
    )
    for p in (0, 1):
        starts = "  ".join(f"[{start_text(s)}]" for s in state.starts[p]) or "none"
        lines.append(f"{PLAYERS[p]} open starts: {starts}")
    for p in (0, 1):
        lines.append(f"{PLAYERS[p]} hand ({len(state.hands[p])}): {hand_text(state.hands[p])}")
    lines += last_moves(recent_moves)
    return "\n".join(lines)
