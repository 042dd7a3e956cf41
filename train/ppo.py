"""Masked PPO in plain PyTorch (``trainer: torch``): the single-process loop, CleanRL-style.

Read this file for the algorithm: a rollout of ``n_steps`` moves of every env into a buffer,
GAE, then ``n_epochs`` passes of minibatches with the clipped surrogate, the value loss and an
entropy bonus over the legal moves only, gradient clipping and Adam (eps 1e-5) at a linearly
decaying rate, stopped early past 1.5 * ``target_kl``: sb3-contrib's MaskablePPO algorithm, on
``agents.networks.SeatPolicy`` (its network's layers) and ``SelfPlayEnv`` games. Metrics go
to SB3's TensorBoard logger under SB3's names.

A team game (Common Cause) keeps one stream per env: a transition bootstraps from the env's
next decision, whichever seat makes it. A competitive game keeps one trajectory per seat
(``train/ppo_seats.py``). ``critic: state`` gives the values a network of their own on the
observation and what the seat does not see (``SelfPlayEnv.hidden_cards``), as MAPPO's.

Speed: moves are drawn by Gumbel-max, and the action head is computed only on the moves legal
somewhere in the batch (``legal_logits_and_values``: the same loss and gradients), and the
network's first layer and tanh are faster versions of themselves (``train/fast_layers.py``).
``train/ppo_parallel.py`` runs this loop on both cores behind the same face (the default,
``rollout_workers: 2``): forked workers, shared memory, shared gradients.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from commoncause.agents.networks import (
    build_critic,
    legal_columns,
    legal_entries,
    legal_logits_and_values,
    trained_parameters,
)
from commoncause.agents.trained import build_policy

from .config import TrainConfig
from .fast_layers import keep_state_layout, use_fast_layers
from .ppo_seats import SeatTrajectories


def compute_gae(rewards: torch.Tensor, values: torch.Tensor, dones: torch.Tensor,
                last_values: torch.Tensor, gamma: float, gae_lambda: float,
                ) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    """Advantages and returns (``advantages + values``) of a (steps, envs) rollout;
    ``dones[t]``: the game ended with step ``t`` (nothing bootstrapped across it);
    ``last_values``: the values after the last step."""
    advantages = torch.zeros_like(rewards)
    not_done = 1.0 - dones.to(rewards.dtype)
    next_value, running = last_values, torch.zeros_like(last_values)
    for t in range(rewards.shape[0] - 1, -1, -1):
        delta = rewards[t] + gamma * next_value * not_done[t] - values[t]
        running = delta + gamma * gae_lambda * not_done[t] * running
        advantages[t] = running
        next_value = values[t]
    return advantages, advantages + values


def clipped_surrogate(
    log_probs: torch.Tensor, old_log_probs: torch.Tensor, advantages: torch.Tensor, clip: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's clipped policy loss ``-mean(min(r A, clip(r, 1-c, 1+c) A))`` and the ratios."""
    ratio = torch.exp(log_probs - old_log_probs)
    clipped = advantages * torch.clamp(ratio, 1.0 - clip, 1.0 + clip)
    return -torch.min(advantages * ratio, clipped).mean(), ratio


def sample_masked(logits: torch.Tensor, mask: torch.Tensor, generator=None) -> torch.Tensor:
    """One move per row from softmax(logits) over the legal moves, by Gumbel-max: the noise
    ``-log(-log U)`` from uniform draws (~3x faster on the CPU than ``exponential_``)."""
    gumbel = torch.rand(logits.shape, generator=generator).log_().neg_().log_().neg_()
    return (logits + gumbel).masked_fill_(~mask, float("-inf")).argmax(dim=1)


def masked_entropy(logits: torch.Tensor, log_probs: torch.Tensor) -> torch.Tensor:
    """Entropy per row over the legal moves (illegal logits at -1e8 have probability 0;
    ``softmax``, not ``log_probs.exp()``, whose ``exp`` of -1e8 is ~10x slower)."""
    return -(F.softmax(logits, dim=1) * log_probs).sum(dim=1)


class PPO(SeatTrajectories):
    """Masked PPO over a list of ``SelfPlayEnv`` in one process; quacks like the SB3 model
    for ``Trainer`` (``policy`` with ``policy.optimizer``, ``num_timesteps``, ``logger``)."""

    def __init__(self, config: TrainConfig, envs: list, run_dir: str | Path) -> None:
        from stable_baselines3.common.logger import configure

        cfg = self.config = config
        torch.set_num_threads(1)  # (the update sets torch_threads)
        torch.manual_seed(cfg.seed)
        self.envs = envs
        self.obs_size = obs_size = int(envs[0].observation_space.shape[0])
        self.n_actions = n_actions = int(envs[0].action_space.n)
        self.policy = build_policy(
            cfg.features_dim, cfg.net_arch, cfg.activation, obs_size, n_actions,
            cfg.game_record().card_moves if cfg.card_head else None,
        )  # fmt: skip
        self.hidden_size = int(envs[0].hidden_size) if cfg.critic == "state" else 0
        self.critic = None  # (critic: state; it replaces the policy's value layers)
        if self.hidden_size:
            self.critic = build_critic(obs_size + self.hidden_size, cfg.critic_net_arch,
                                       cfg.activation)  # fmt: skip
        use_fast_layers(self.policy, self.critic)  # (speed only: train/fast_layers.py)
        self.params = trained_parameters(self.policy, self.critic)  # what the update trains
        self.policy.optimizer = torch.optim.Adam(self.params, lr=cfg.learning_rate, eps=1e-5,
                                                 fused=True)  # fmt: skip
        keep_state_layout(self.policy.optimizer)  # (a resumed run's moments: fast_layers)
        self.num_timesteps = self.n_updates = 0
        self.logger = configure(str(run_dir), ["tensorboard"])
        self.generator = torch.Generator()
        n, zeros = len(envs), self._zeros
        self.per_seat = bool(envs[0].per_seat)
        self.row0 = int(envs[0].num_seats) if self.per_seat else 0  # per seat: carry rows
        self.rows = rows = self.row0 + cfg.n_steps
        self._obs = zeros((n, obs_size)).numpy()  # the envs' current decisions
        self._hidden = zeros((n, self.hidden_size)).numpy()  # (critic: state; else empty)
        self._mask = zeros((n, n_actions), torch.bool).numpy()
        self._started = False
        self.buf_obs = zeros((rows, n, obs_size))  # the rollout buffer, (rows, envs, ...)
        self.buf_hidden = zeros((rows, n, self.hidden_size))
        self.buf_mask = zeros((rows, n, n_actions), torch.bool)
        self.buf_actions = zeros((rows, n), torch.long)
        self.buf_log_probs, self.buf_values = zeros((rows, n)), zeros((rows, n))
        self.buf_rewards, self.buf_dones = zeros((rows, n)), zeros((rows, n), torch.bool)
        self.buf_advantages, self.buf_returns = zeros((rows, n)), zeros((rows, n))
        self._seat_buffers(zeros, rows, n)
        self.timing = {"rollout_s": 0.0, "env_s": 0.0, "update_s": 0.0, "rollouts": 0}
        self.last_rollout = (0.0, 0.0)  # seconds of the last rollout, of them in the envs

    @staticmethod
    def _zeros(shape, dtype=torch.float32) -> torch.Tensor:
        return torch.zeros(shape, dtype=dtype)

    def learning_rate(self) -> float:
        """The config's rate, with ``lr_decay`` decayed linearly over total_steps (SB3's)."""
        cfg = self.config
        left = max(0.0, 1.0 - self.num_timesteps / cfg.total_steps) if cfg.lr_decay else 1.0
        return cfg.learning_rate * left

    def learn(self, total_steps: int, monitor) -> None:
        """Rollouts and updates until ``num_timesteps`` reaches ``total_steps``."""
        # a resumed run draws other moves than the first leg (its envs deal other games too)
        self.generator.manual_seed(self.config.seed * 1_000_003 + self.num_timesteps)
        for group in self.policy.optimizer.param_groups:  # an SB3 checkpoint's state says not
            group["fused"], group["foreach"] = True, False
        monitor.start()
        try:
            while self.num_timesteps < total_steps:
                self.collect_rollout(monitor)
                monitor.on_rollout_end()
                self.update()
                self.logger.record("time/total_timesteps", self.num_timesteps)
                self.logger.dump(self.num_timesteps)
        finally:
            self.close_workers()

    def close_workers(self) -> None:
        """Nothing to stop in one process (``ppo_parallel`` stops its workers)."""

    def reset_envs(self) -> None:
        """Start a game in every env (they were seeded when made)."""
        for i, env in enumerate(self.envs):
            self._obs[i], _ = env.reset()
            self._mask[i] = env.action_masks()
            if self.critic is not None:
                self._hidden[i] = env.hidden_cards()
        self.pending[:] = -1
        self.buf_used[:] = False
        self._started = True

    def collect_rollout(self, monitor) -> None:
        """``n_steps`` moves of every env into the buffer, the monitor told of each step in
        order, then the advantages and returns."""
        started = time.perf_counter()
        torch.set_num_threads(1)  # one core per rollout process
        self.policy.set_training_mode(False)
        if not self._started:
            self.reset_envs()
        if self.per_seat:
            self._carry_pending()
        events, env_seconds = self._collect_all()
        n = len(self.envs)
        for row, done in enumerate(events, start=self.row0):
            infos = [{}] * n
            for i, info in done:
                infos[i] = info
            self.num_timesteps += n
            monitor.on_step(infos, self.buf_dones[row].tolist())
        if self.per_seat:
            self._seat_gae()
        else:
            with torch.no_grad():
                _, _, last_values = legal_logits_and_values(
                    self.policy, torch.from_numpy(self._obs), torch.from_numpy(self._mask),
                    critic=self.critic, hidden=torch.from_numpy(self._hidden),
                )  # fmt: skip
            cfg = self.config
            adv, ret = compute_gae(self.buf_rewards, self.buf_values, self.buf_dones,
                                   last_values, cfg.gamma, cfg.gae_lambda)  # fmt: skip
            self.buf_advantages.copy_(adv)
            self.buf_returns.copy_(ret)
        self.last_rollout = (time.perf_counter() - started, env_seconds)
        self.timing["rollout_s"] += self.last_rollout[0]
        self.timing["env_s"] += env_seconds
        self.timing["rollouts"] += 1

    def _collect_all(self) -> tuple[list[list[tuple[int, dict]]], float]:
        """The rollout of every env (here: in this process)."""
        return self._collect_slice(0, len(self.envs))

    def _collect_slice(self, lo: int, hi: int) -> tuple[list[list[tuple[int, dict]]], float]:
        """``n_steps`` moves of envs ``lo..hi-1`` into their columns of the buffer. Returns,
        per step, ``(env, info)`` of the games that ended, and the seconds in the envs."""
        envs, per_seat, critic = self.envs, self.per_seat, self.critic
        obs_np, mask_np, hidden_np = self._obs[lo:hi], self._mask[lo:hi], self._hidden[lo:hi]
        obs_t, mask_t, hidden_t = map(torch.from_numpy, (obs_np, mask_np, hidden_np))
        rewards, dones = np.zeros(hi - lo, dtype=np.float32), np.zeros(hi - lo, dtype=bool)
        events: list[list[tuple[int, dict]]] = []
        env_seconds = 0.0
        for row in range(self.row0, self.rows):
            self.buf_obs[row, lo:hi] = obs_t
            self.buf_mask[row, lo:hi] = mask_t
            if critic is not None:
                self.buf_hidden[row, lo:hi] = hidden_t
            with torch.no_grad():
                columns, logits, values = legal_logits_and_values(
                    self.policy, obs_t, mask_t, legal_columns(mask_np), critic, hidden_t
                )
                choice = sample_masked(logits, legal_entries(mask_t, columns), self.generator)
                # (log_softmax, not logsumexp: exp of the -1e8 logits takes a slow path)
                log_probs = F.log_softmax(logits, dim=1).gather(1, choice[:, None])[:, 0]
                actions = columns[choice]
            self.buf_actions[row, lo:hi] = actions
            self.buf_log_probs[row, lo:hi] = log_probs
            self.buf_values[row, lo:hi] = values
            env_started = time.perf_counter()
            ended = []
            for k, action in enumerate(actions.tolist()):
                i, env = lo + k, envs[lo + k]
                if per_seat:
                    self._decide(i, env.state.current, row)
                obs, reward, terminated, truncated, info = env.step(action)
                rewards[k] = reward
                dones[k] = done = terminated or truncated
                if per_seat:
                    self._pay(i, info["rewards"], done)
                if done:
                    ended.append((i, info))
                    obs, _ = env.reset()
                obs_np[k] = obs
                mask_np[k] = env.action_masks()
                if critic is not None:
                    hidden_np[k] = env.hidden_cards()
            env_seconds += time.perf_counter() - env_started
            self.buf_rewards[row, lo:hi] = torch.from_numpy(rewards)
            self.buf_dones[row, lo:hi] = torch.from_numpy(dones)
            events.append(ended)
        return events, env_seconds

    def update(self) -> None:
        """``n_epochs`` passes of minibatches over the rollout (or fewer: ``target_kl``)."""
        cfg, policy = self.config, self.policy
        started = time.perf_counter()
        torch.set_num_threads(cfg.torch_threads)
        lr = self.learning_rate()
        for group in policy.optimizer.param_groups:
            group["lr"] = lr
        rows = self.train_rows if self.per_seat else None  # None: every row
        size = self.rows * len(self.envs) if rows is None else len(rows)
        if size == 0:  # (per seat: no transition complete yet; nothing to learn from)
            return
        policy.set_training_mode(True)
        sums = {"pg": [], "value": [], "entropy": [], "kl": [], "clip": [], "loss": []}
        # the critic's warm-up: the rollouts of the first critic_warmup_steps train it alone
        policy_weight = 0.0 if self.num_timesteps <= cfg.critic_warmup_steps else 1.0
        epochs, stop = 0, False
        while epochs < cfg.n_epochs and not stop:
            order = torch.randperm(size, generator=self.generator)
            if rows is not None:
                order = rows[order]
            for start in range(0, size, cfg.batch_size):
                idx = order[start : start + cfg.batch_size]
                adv = self.buf_advantages.view(-1)[idx]
                # advantages normalised over the whole minibatch, whoever computes a share
                norm = (float(adv.mean()), float(adv.std()) + 1e-8) if len(idx) > 1 else None
                stats = self._gradient(idx, norm, policy_weight)
                for key, value in zip(sums, stats, strict=True):
                    sums[key].append(value)
                if cfg.target_kl is not None and stats[3] > 1.5 * cfg.target_kl:
                    stop = True
                    break
                torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
                policy.optimizer.step()
            epochs += 1
        policy.set_training_mode(False)
        self.n_updates += epochs
        values, rets = self.buf_values.flatten(), self.buf_returns.flatten()
        if rows is not None:
            values, rets = values[rows], rets[rows]
        var = float(rets.var(correction=0))
        explained = float("nan") if var == 0 else 1 - float((rets - values).var(correction=0)) / var
        seconds = time.perf_counter() - started
        self.timing["update_s"] += seconds
        names = {"entropy": "entropy_loss", "pg": "policy_gradient_loss", "value": "value_loss",
                 "kl": "approx_kl", "clip": "clip_fraction"}  # fmt: skip
        logged = {"train/learning_rate": lr}
        logged |= {f"train/{name}": float(np.mean(sums[part])) for part, name in names.items()}
        logged |= {"train/loss": sums["loss"][-1], "train/explained_variance": explained,
                   "train/n_updates": self.n_updates, "train/clip_range": cfg.clip_range,
                   "time/update_s": seconds, "time/rollout_s": self.last_rollout[0],
                   "time/rollout_env_s": self.last_rollout[1]}  # fmt: skip
        for key, value in logged.items():
            self.logger.record(key, value)

    def _gradient(self, idx: torch.Tensor, norm, policy_weight: float) -> list:
        """The minibatch ``idx``'s gradient into the parameters; its loss parts."""
        self.policy.optimizer.zero_grad(set_to_none=True)
        loss, stats = self.share_loss(idx, norm, len(idx), policy_weight)
        loss.backward()
        return stats

    def share_loss(self, idx: torch.Tensor, norm, total: int, policy_weight: float = 1.0,
                   ) -> tuple[torch.Tensor, list]:  # fmt: skip
        """PPO's loss on ``idx``, a share of a minibatch of ``total`` decisions (all of it in
        one process), scaled by ``len(idx) / total`` so that the shares add up to the
        minibatch's. ``norm``: the minibatch's advantage mean and std (None: not
        normalised); ``policy_weight`` multiplies the policy and entropy terms (0 in the
        critic's warm-up). Returns the loss and its scaled parts (policy, value, entropy,
        approximate KL, clip fraction, total) as floats."""
        cfg = self.config
        # (index_select: the rows of [idx], twice as fast)
        obs = self.buf_obs.view(-1, self.obs_size).index_select(0, idx)
        mask = self.buf_mask.view(-1, self.n_actions).index_select(0, idx)
        hidden = self.buf_hidden.flatten(0, 1).index_select(0, idx)  # (rows, 0): no critic
        columns, logits, values = legal_logits_and_values(
            self.policy, obs, mask, critic=self.critic, hidden=hidden
        )
        position = torch.zeros(self.n_actions, dtype=torch.long)  # move -> column
        position[columns] = torch.arange(len(columns))
        log_probs_all = F.log_softmax(logits, dim=1)
        actions = self.buf_actions.view(-1)[idx]
        log_probs = log_probs_all.gather(1, position[actions, None])[:, 0]
        entropy = masked_entropy(logits, log_probs_all)
        adv = self.buf_advantages.view(-1)[idx]
        if norm is not None:
            adv = (adv - norm[0]) / norm[1]
        old_log_probs = self.buf_log_probs.view(-1)[idx]
        policy_loss, ratio = clipped_surrogate(log_probs, old_log_probs, adv, cfg.clip_range)
        value_loss = F.mse_loss(self.buf_returns.view(-1)[idx], values)
        entropy_loss = -entropy.mean()
        weight = len(idx) / total
        actor_loss = policy_loss + cfg.ent_coef * entropy_loss
        loss = (policy_weight * actor_loss + cfg.vf_coef * value_loss) * weight
        with torch.no_grad():
            approx_kl = float(((ratio - 1) - (log_probs - old_log_probs)).mean())
            clip_fraction = float(((ratio - 1).abs() > cfg.clip_range).float().mean())
        parts = (policy_loss.item(), value_loss.item(), entropy_loss.item(), approx_kl,
                 clip_fraction)  # fmt: skip
        return loss, [part * weight for part in parts] + [loss.item()]
