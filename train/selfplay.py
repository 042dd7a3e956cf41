"""The self-play training view: Common Cause as one Gymnasium env for a shared policy.

Each ``step`` is one decision of the player whose turn it is, seen from that player's own
observation (the same encoding as the PettingZoo env's ``observation``). Both seats are the
learner, so the one team reward (+1 win, -1 loss) arrives on the transition that ends the
game, whichever seat made it. Moves with a single legal choice are played automatically
(they teach nothing). With ``baseline_partner_prob`` > 0 a game may seat the rule sheet's
baseline in one chair; its moves are played inside the env and the learner only sees its
own seat. ``action_masks()`` is a method of the env itself, so ``SubprocVecEnv`` works.

An illegal action (SB3's ``check_env`` samples unmasked actions) does not crash: it ends
the game as a loss (reward -1) with ``info["illegal_action"]``.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from agents.baseline import BaselineAgent
from envs.common_cause.actions import N_ACTIONS
from envs.common_cause.common_cause import raw_env
from envs.common_cause.observer import OBS_SIZE, encode
from envs.common_cause.seat import SeatView


class SelfPlayEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(
        self,
        baseline_partner_prob: float = 0.0,
        **env_kwargs,
    ) -> None:
        super().__init__()
        if not 0.0 <= baseline_partner_prob <= 1.0:
            raise ValueError(
                f"baseline_partner_prob must be in [0, 1], got {baseline_partner_prob}"
            )
        self.aec = raw_env(**env_kwargs)
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.baseline_partner_prob = baseline_partner_prob
        self.baseline = BaselineAgent()
        self.baseline_seat = -1  # the seat the baseline plays this game, or -1
        self._mask = np.zeros(N_ACTIONS, dtype=bool)

    # ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**31)), options=options)
        game = self.aec.game
        self.baseline_seat = -1
        if self.np_random.random() < self.baseline_partner_prob:
            self.baseline_seat = int(self.np_random.integers(2))
            self.baseline.reset(int(self.np_random.integers(2**31)))
        self._advance()
        if game.is_terminal:  # a deal lost before the learner moved
            if options and "deck" in options:
                raise ValueError("this deck is lost before the learner's first decision")
            return self.reset()  # deal again
        return self._observe(), {}

    def step(self, action: int):
        game = self.aec.game
        action = int(action)
        if action not in game.legal_actions():
            game.result, game.loss_reason = "loss", "illegal action"
            return self._observe(), -1.0, True, False, {"illegal_action": action, **self._stats()}
        game.apply(action)
        self._advance()
        if game.is_terminal:
            return self._observe(), game.returns()[0], True, False, self._stats()
        return self._observe(), 0.0, False, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask

    # ------------------------------------------------------------------------------
    def _advance(self) -> None:
        """Play forced moves and the baseline partner's moves until the learner decides."""
        game = self.aec.game
        while not game.is_terminal:
            legal = game.legal_actions()
            if game.current == self.baseline_seat:
                game.apply(self.baseline.act(SeatView(game, game.current)))
            elif len(legal) == 1:
                game.apply(legal[0])
            else:
                break
        self._mask[:] = False
        if not game.is_terminal:
            self._mask[game.legal_actions()] = True

    def _observe(self) -> np.ndarray:
        game = self.aec.game
        return encode(game, game.current)

    def _stats(self) -> dict:
        game = self.aec.game
        return {
            "result": game.result,
            "turns": game.turns,
            "pickups": game.pickups,
            "baseline_partner": self.baseline_seat >= 0,
        }
