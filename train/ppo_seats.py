"""One trajectory per seat for a competitive game (``game.team`` False, Dummy rummy) in the
torch trainer's buffer (``train/ppo.py``).

Every seat shares the one policy, but a transition's reward is what its seat earned from its
decision to its own next decision (``info["rewards"]`` of ``SelfPlayEnv``, summed over the
steps between, other seats' moves included: Dummy rummy's points of each hand reach every
seat), its next value is its seat's next decision, and it ends with the game
(``compute_linked_gae``). The buffer has ``num_seats`` carry rows in front of the rollout's
steps: a seat's last transition of a rollout, still waiting for its next decision, is not
trained on in that rollout but carried into its row and trained on in the next one, once its
reward and next value are known (its old log-probability is that of the policy that chose
it, as PPO's ratio wants).
"""

from __future__ import annotations

import numpy as np
import torch


def compute_linked_gae(rewards: np.ndarray, values: np.ndarray, next_row: np.ndarray,
                       dones: np.ndarray, gamma: float, gae_lambda: float,
                       ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """GAE of per-seat trajectories threaded through a (rows, envs) buffer.

    ``next_row[r, i]`` is the row of the same seat's next decision in env ``i`` (always a
    later row), or -1 where it has none: the game ended with it (``dones[r, i]``), or the next
    decision has not come yet (a pending transition, left out of training: its advantage is
    0 and the lambda-chain of its seat stops there, as at the end of a rollout).
    ``rewards[r, i]`` is what the seat earned from its decision to its next one. Returns
    ``(advantages, returns)``."""
    rows, n = rewards.shape
    advantages = np.zeros_like(values)
    cols = np.arange(n)
    for r in range(rows - 1, -1, -1):
        nxt = next_row[r]
        has = nxt >= 0
        at = np.where(has, nxt, 0)
        next_value = np.where(has, values[at, cols], 0.0)
        next_adv = np.where(has, advantages[at, cols], 0.0)
        delta = rewards[r] + gamma * next_value - values[r]
        advantages[r] = np.where(has | dones[r], delta + gamma * gae_lambda * next_adv, 0.0)
    return advantages, advantages + values


class SeatTrajectories:
    """The per-seat bookkeeping of ``train.ppo.PPO`` (its buffers ``buf_*``, ``row0`` and
    ``config``): which seat decided at each row, the row of its next decision and what it
    earned in between."""

    def _seat_buffers(self, zeros, rows: int, n: int) -> None:
        """The seat of each row, the row of its next decision (-1: none yet / the game
        ended), the rows holding a transition, their rewards and ends, and each env's seat ->
        row of its transition awaiting the next decision (-1: none)."""
        self.buf_seat = zeros((rows, n), torch.long).numpy()
        self.buf_next = zeros((rows, n), torch.long).numpy()
        self.buf_used = zeros((rows, n), torch.bool).numpy()
        self.seat_rewards = zeros((rows, n)).numpy()
        self.seat_dones = zeros((rows, n), torch.bool).numpy()
        self.pending = zeros((n, self.row0 or 1), torch.long).numpy()
        self.buf_seat[:] = self.buf_next[:] = self.pending[:] = -1
        self.train_rows = None  # flat indices trained on (None: all)

    def _carry_pending(self) -> None:
        """Before a rollout: move each seat's transition still awaiting its next decision
        into the seat's carry row (row = seat) and clear the rollout's rows."""
        row0 = self.row0
        self.buf_used[:row0] = False
        for i, s in zip(*np.nonzero(self.pending >= 0), strict=True):
            p = int(self.pending[i, s])
            if p != s:  # (p == s: carried before and still waiting)
                for buf in (self.buf_obs, self.buf_hidden, self.buf_mask, self.buf_actions,
                            self.buf_log_probs, self.buf_values):  # fmt: skip
                    buf[s, i] = buf[p, i]
                self.seat_rewards[s, i] = self.seat_rewards[p, i]
                self.buf_seat[s, i] = s
                self.buf_next[s, i] = -1
                self.seat_dones[s, i] = False
                self.pending[i, s] = s
            self.buf_used[s, i] = True
        self.buf_used[row0:] = False
        self.buf_next[row0:] = -1
        self.buf_seat[row0:] = -1
        self.seat_rewards[row0:] = 0.0
        self.seat_dones[row0:] = False

    def _decide(self, env: int, seat: int, row: int) -> None:
        """``seat`` decides at ``row`` of ``env``: the successor of its previous transition."""
        previous = self.pending[env, seat]
        if previous >= 0:
            self.buf_next[previous, env] = row
        self.pending[env, seat] = row
        self.buf_used[row, env] = True
        self.buf_seat[row, env] = seat

    def _pay(self, env: int, earned, done: bool) -> None:
        """Every seat's rewards of the last step, to its transition awaiting its next
        decision (a seat with none, the baseline's, earns for nobody); the game's end ends
        them all."""
        pending = self.pending[env]
        for seat, reward in enumerate(earned):
            if reward and pending[seat] >= 0:
                self.seat_rewards[pending[seat], env] += reward
        if done:
            for seat in range(len(pending)):
                if pending[seat] >= 0:
                    self.seat_dones[pending[seat], env] = True
                    pending[seat] = -1

    def _seat_gae(self) -> None:
        """After a rollout: the per-seat advantages and returns, and the rows to train on
        (transitions whose next decision or game end came)."""
        cfg = self.config
        adv, ret = compute_linked_gae(self.seat_rewards, self.buf_values.numpy(), self.buf_next,
                                      self.seat_dones, cfg.gamma, cfg.gae_lambda)  # fmt: skip
        self.buf_advantages.copy_(torch.from_numpy(adv))
        self.buf_returns.copy_(torch.from_numpy(ret))
        self.buf_rewards.copy_(torch.from_numpy(self.seat_rewards))  # per seat, for reading
        self.buf_dones.copy_(torch.from_numpy(self.seat_dones))
        trained = self.buf_used & (self.seat_dones | (self.buf_next >= 0))
        self.train_rows = torch.from_numpy(np.flatnonzero(trained))
