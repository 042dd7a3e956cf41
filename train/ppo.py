"""A lean masked PPO in plain PyTorch (``trainer: torch``), for speed on a CPU.

It trains the same network as the SB3 path (``agents.trained.build_policy``, an sb3-contrib
``MaskableActorCriticPolicy``, used through its modules) on the same ``SelfPlayEnv`` games,
with the same PPO as sb3-contrib's MaskablePPO: GAE, advantages normalised per minibatch,
the clipped surrogate, the value loss, an entropy bonus over the legal moves only, gradient
clipping, Adam (eps 1e-5) with the config's linear learning-rate decay, and the update
stopped early once the approximate KL passes 1.5 * ``target_kl``. Checkpoints of either
trainer load into the other.

Trajectories. A team game (Common Cause: every seat has the same return) keeps one stream
per env, as SB3 does: each transition bootstraps from the env's next decision, whichever
seat makes it (the value is the team's either way). A competitive game (``game.team``
False, Dummy rummy) keeps one trajectory per seat of each env, all sharing the one policy:
a transition's reward is what its seat earned from its decision to its own next decision
(``info["rewards"]`` of ``SelfPlayEnv``, summed over the steps in between, other seats'
moves included: Dummy rummy's points of each hand reach every seat), its next value is
its seat's next decision and it ends with the game (``compute_linked_gae``). The buffer
then has ``num_seats`` rows in front of the rollout's steps: a seat's last transition of a
rollout, still waiting for its next decision, is not trained on in that rollout but carried
into those rows and trained on in the next one, once its reward and next value are known
(its old log-probability is that of the policy that chose it, as PPO's ratio wants).

Centralised critic (``critic: state``, as MAPPO's): the values come from a network of their
own (``build_critic``, ``critic_net_arch``) on the seat's observation and what the deciding
seat does not see (``SelfPlayEnv.hidden_cards``: Common Cause's partner hand, stock in draw
order and put-aside cards), stored beside the observation in the buffer; it is trained with
the policy (one Adam, the same value loss, shared with the workers like the rest) and
replaces the policy's own value layers, which stay untrained; the value loss no longer
reaches the policy's layers.
The policy still sees only its seat's view: play, evaluation and exports never use the
critic (checkpoints keep it for ``--resume``).

Where it saves time over SB3 (~5x the env steps per second with configs/normal.yaml on
one core; ``bench/bench_train.py`` measures both): the envs are a plain list stepped
in-process (no ``VecEnv`` copies, auto-reset here); the policy runs once per step on all
of a process's envs; moves are sampled by Gumbel-max (no ``Categorical``, no
``multinomial``, no argument checks); the action head is computed only on the moves legal
somewhere in the batch (~700 of 4445 in a minibatch of 512; exactly the same loss and
gradients, see ``legal_logits_and_values``); one ``log_softmax`` per minibatch gives the
log-probabilities, the entropy and the KL; Adam is the fused one (one pass over the
parameters).

Both cores (``rollout_workers: 2``, the default): a rollout is shared by this process and
forked workers, each stepping its slice of the envs with the policy on one thread; the
buffers and the policy's weights are in shared memory, so a worker writes its envs' columns
in place and sees every update without a copy. The update is shared too: each minibatch is
split, every process computes the gradient of its share (its loss scaled by its share of
the minibatch, the advantages normalised over the whole minibatch), the workers' gradients
reach the learner through a shared buffer, and the learner adds them, clips and steps Adam:
the same update as one process's, up to float rounding (tested). The monitor hears of every
step in order after the rollout (so an evaluation falls between a rollout and its update).
A worker has its own random stream (seeded from the run's seed and its index): runs are
reproducible for a given number of workers.

The object handed to the ``Trainer`` has what it reads of an SB3 model: ``policy`` (with
``policy.optimizer``), ``num_timesteps`` and ``logger`` (SB3's TensorBoard logger, so the
metric names are the same: ``train/entropy_loss``, ``train/policy_gradient_loss``,
``train/value_loss``, ``train/approx_kl``, ``train/clip_fraction``,
``train/learning_rate``...). The ``TrainingMonitor`` (progress bar, game statistics,
evaluations, checkpoints) is called after every vectorised step and every rollout.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import time
import traceback
from functools import partial
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from commoncause.agents.evaluate import die_with_parent
from commoncause.agents.networks import action_logits
from commoncause.agents.trained import ILLEGAL_LOGIT, build_policy

from .config import TrainConfig


# --- the pieces of PPO, as plain functions (unit-tested) ----------------------------------
def compute_gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    dones: torch.Tensor,
    last_values: torch.Tensor,
    gamma: float,
    gae_lambda: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimates and returns of a rollout.

    ``rewards``, ``values`` and ``dones`` are (steps, envs): ``dones[t]`` says the game
    ended with step ``t`` (the env was reset after it), so nothing is bootstrapped across it;
    ``last_values`` (envs,) are the values of the observations after the last step.
    Returns ``(advantages, returns)`` with ``returns = advantages + values``."""
    steps = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    not_done = 1.0 - dones.to(rewards.dtype)
    next_value = last_values
    running = torch.zeros_like(last_values)
    for t in range(steps - 1, -1, -1):
        delta = rewards[t] + gamma * next_value * not_done[t] - values[t]
        running = delta + gamma * gae_lambda * not_done[t] * running
        advantages[t] = running
        next_value = values[t]
    return advantages, advantages + values


def compute_linked_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    next_row: np.ndarray,
    dones: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
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


def clipped_surrogate(
    log_probs: torch.Tensor, old_log_probs: torch.Tensor, advantages: torch.Tensor, clip: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's clipped policy loss ``-mean(min(r A, clip(r, 1-c, 1+c) A))`` and the ratios."""
    ratio = torch.exp(log_probs - old_log_probs)
    unclipped = advantages * ratio
    clipped = advantages * torch.clamp(ratio, 1.0 - clip, 1.0 + clip)
    return -torch.min(unclipped, clipped).mean(), ratio


def sample_masked(logits: torch.Tensor, mask: torch.Tensor, generator=None) -> torch.Tensor:
    """One move per row, drawn from softmax(logits) over the legal moves by Gumbel-max:
    ``argmax(logits + Gumbel noise)`` with illegal moves at -inf (never chosen)."""
    noise = torch.empty_like(logits).exponential_(generator=generator)  # -log E ~ Gumbel
    scores = (logits - noise.log_()).masked_fill_(~mask, float("-inf"))
    return scores.argmax(dim=1)


def legal_logits_and_values(
    policy,
    obs: torch.Tensor,
    mask: torch.Tensor,
    columns: torch.Tensor | None = None,
    critic: torch.nn.Module | None = None,
    hidden: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``masked_logits`` and the values of a batch, with the action head computed only on
    the moves legal somewhere in the batch.

    Returns ``(columns, logits, values)``: ``logits[:, j]`` is ``masked_logits(...)[:, columns[j]]``
    (illegal entries at -1e8). The columns left out are illegal in every row: in the full
    computation their probability is exactly 0 and they get no gradient, so the softmax,
    log-probabilities, entropy, loss and gradients (zero rows of ``action_net``'s gradient
    included) are the same, at a fraction of the cost (a batch of 512 decisions has ~700 of
    the 4445 moves legal somewhere). ``columns`` may be given when the caller has them (the
    rollout computes them with numpy, ~20x faster than ``torch.any`` over a boolean dim).
    With a centralised ``critic`` (``build_critic``) the values are its, on ``obs`` and
    ``hidden`` (what each row's seat does not see)."""
    if columns is None:
        on_cpu = mask.device.type == "cpu"
        columns = legal_columns(mask.numpy()) if on_cpu else mask.any(dim=0).nonzero()[:, 0]
    features = policy.extract_features(obs)
    if critic is None:
        latent_pi, latent_vf = policy.mlp_extractor(features)
        values = policy.value_net(latent_vf).flatten()
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features)
        values = critic(torch.cat((obs, hidden), dim=1)).flatten()
    logits = action_logits(policy, obs, latent_pi, columns)
    logits = logits.masked_fill(~mask[:, columns], ILLEGAL_LOGIT)
    return columns, logits, values


def legal_columns(mask: np.ndarray) -> torch.Tensor:
    """The moves legal in at least one row of a boolean (rows, moves) mask."""
    return torch.from_numpy(np.flatnonzero(mask.any(axis=0)))


def build_critic(in_size: int, net_arch: list[int], activation: str) -> torch.nn.Sequential:
    """A centralised critic (``net_arch``, then one value) over the seat's observation and
    what the seat does not see (``in_size`` in all), initialised as SB3 initialises the
    policy's value layers: orthogonal, gain sqrt(2) in the hidden layers and 1 at the
    value."""
    from stable_baselines3.common.policies import BasePolicy
    from stable_baselines3.common.torch_layers import create_mlp

    from commoncause.agents.networks import ACTIVATIONS

    critic = torch.nn.Sequential(*create_mlp(in_size, 1, net_arch, ACTIVATIONS[activation]))
    critic[:-1].apply(partial(BasePolicy.init_weights, gain=np.sqrt(2)))
    BasePolicy.init_weights(critic[-1], gain=1.0)
    return critic


def masked_entropy(logits: torch.Tensor, log_probs: torch.Tensor) -> torch.Tensor:
    """Entropy per row of softmax(logits) whose illegal entries are at -1e8: their
    probability is exactly 0, so they add nothing (the entropy over the legal moves).

    (``softmax`` rather than ``log_probs.exp()``: elementwise ``exp`` of -1e8 takes a slow
    path on the CPU, ~10x slower.)"""
    return -(F.softmax(logits, dim=1) * log_probs).sum(dim=1)


# --- the trainer ----------------------------------------------------------------------
class TorchPPO:
    """Masked PPO over a list of ``SelfPlayEnv``; quacks like the SB3 model for ``Trainer``."""

    def __init__(self, config: TrainConfig, envs: list, run_dir: str | Path) -> None:
        from stable_baselines3.common.logger import configure

        cfg = self.config = config
        torch.set_num_threads(1)  # (the update sets torch_threads)
        torch.manual_seed(cfg.seed)
        self.envs = envs
        # the sizes of the game being played, from its spaces
        self.obs_size = obs_size = int(envs[0].observation_space.shape[0])
        self.n_actions = n_actions = int(envs[0].action_space.n)
        self.policy = build_policy(
            cfg.features_dim, cfg.net_arch, cfg.activation, obs_size, n_actions,
            cfg.game_record().card_moves if cfg.card_head else None,
        )  # fmt: skip
        # critic: state: a network of its own on the observation and the hidden cards
        self.hidden_size = int(envs[0].hidden_size) if cfg.critic == "state" else 0
        self.critic = (
            build_critic(obs_size + self.hidden_size, cfg.critic_net_arch, cfg.activation)
            if self.hidden_size
            else None
        )
        self.params = list(self.policy.parameters())  # what the update trains
        if self.critic is not None:  # (it replaces the policy's value layers, left untrained)
            own_values = ("value_net.", "mlp_extractor.value_net.")
            self.params = [p for name, p in self.policy.named_parameters()
                           if not name.startswith(own_values)]  # fmt: skip
            self.params += list(self.critic.parameters())
        # as SB3 does: Adam with eps 1e-5 on the policy object, the rate set before updates;
        # fused (one pass over the parameters: ~15x faster than the default on the CPU)
        self.policy.optimizer = torch.optim.Adam(
            self.params, lr=cfg.learning_rate, eps=1e-5, fused=True
        )
        self.num_timesteps = 0
        self.n_updates = 0
        self.logger = configure(str(run_dir), ["tensorboard"])
        self.generator = torch.Generator()
        n, t = len(envs), cfg.n_steps
        # the envs' share of each rollout process (the first is this one) and the workers
        processes = min(cfg.rollout_workers, n)
        bounds = np.linspace(0, n, processes + 1).round().astype(int).tolist()
        self.slices = list(zip(bounds[:-1], bounds[1:], strict=True))
        self.workers: list = []  # (process, connection) of the other rollout processes
        shared = processes > 1  # the buffers the workers write in: shared memory

        def zeros(shape, dtype=torch.float32) -> torch.Tensor:
            tensor = torch.zeros(shape, dtype=dtype)
            return tensor.share_memory_() if shared else tensor

        # competitive games: one trajectory per seat, ``num_seats`` carry rows first
        self.per_seat = bool(getattr(envs[0], "per_seat", False))
        self.row0 = int(envs[0].num_seats) if self.per_seat else 0
        self.rows = rows = self.row0 + t
        self._obs = zeros((n, obs_size)).numpy()  # the envs' current decisions
        self._hidden = zeros((n, self.hidden_size)).numpy()  # (critic: state; else empty)
        self._mask = zeros((n, n_actions), torch.bool).numpy()
        self._started = False
        # the rollout buffer, (steps, envs, ...)
        self.buf_obs = zeros((rows, n, obs_size))
        self.buf_hidden = zeros((rows, n, self.hidden_size))
        self.buf_mask = zeros((rows, n, n_actions), torch.bool)
        self.buf_actions = zeros((rows, n), torch.long)
        self.buf_log_probs = zeros((rows, n))
        self.buf_values = zeros((rows, n))
        self.buf_rewards = zeros((rows, n))
        self.buf_dones = zeros((rows, n), torch.bool)
        self.buf_advantages = zeros((rows, n))  # of the rollout, for the update
        self.buf_returns = zeros((rows, n))
        # each worker's gradient of its share of a minibatch, flat
        n_params = sum(p.numel() for p in self.params)
        self.worker_grads = zeros((processes - 1, n_params))
        # per seat (competitive games): the seat of each row, the row of its next
        # decision (-1: none yet / the game ended), rows holding a transition, and each
        # env's seat -> row of its transition awaiting the next decision (-1: none)
        self.buf_seat = zeros((rows, n), torch.long).numpy()
        self.buf_next = zeros((rows, n), torch.long).numpy()
        self.buf_used = zeros((rows, n), torch.bool).numpy()
        self.seat_rewards = zeros((rows, n)).numpy()
        self.seat_dones = zeros((rows, n), torch.bool).numpy()
        self.pending = zeros((n, self.row0 or 1), torch.long).numpy()
        self.buf_seat[:] = self.buf_next[:] = self.pending[:] = -1
        self.train_rows = None  # flat indices trained on (None: all)
        self.timing = {"rollout_s": 0.0, "env_s": 0.0, "update_s": 0.0, "rollouts": 0}
        self.last_rollout = (0.0, 0.0)  # seconds of the last rollout, of them in the envs

    # ------------------------------------------------------------------------------
    def learning_rate(self) -> float:
        """The config's rate, decayed linearly over total_steps (SB3's progress_remaining)."""
        cfg = self.config
        if not cfg.lr_decay:
            return cfg.learning_rate
        return cfg.learning_rate * max(0.0, 1.0 - self.num_timesteps / cfg.total_steps)

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

    def reset_envs(self) -> None:
        """Start a game in every env (they were seeded when made)."""
        for i, env in enumerate(self.envs):
            obs, _ = env.reset()
            self._obs[i] = obs
            self._mask[i] = env.action_masks()
            if self.critic is not None:
                self._hidden[i] = env.hidden_cards()
        self.pending[:] = -1
        self.buf_used[:] = False
        self._started = True

    def collect_rollout(self, monitor) -> None:
        """``n_steps`` steps of every env into the buffer, then advantages and returns.

        Each rollout process (this one and ``rollout_workers - 1`` forked workers sharing
        the buffers and the policy's weights) steps its slice of the envs; the monitor then
        sees every step in order, as if one process had made them."""
        cfg, policy = self.config, self.policy
        started = time.perf_counter()
        torch.set_num_threads(1)  # one core per rollout process
        policy.set_training_mode(False)
        if not self._started:
            self.reset_envs()
        if self.per_seat:
            self._carry_pending()
        if len(self.slices) > 1 and not self.workers:
            self._start_workers()
        for _, connection in self.workers:
            connection.send("collect")
        events, env_seconds = self._collect_slice(*self.slices[0])
        for index, (_, connection) in enumerate(self.workers, start=1):
            worker_events, seconds = _receive(connection, index)
            env_seconds += seconds
            for step, done in zip(events, worker_events, strict=True):
                step.extend(done)
        n = len(self.envs)
        for row, done in enumerate(events, start=self.row0):
            infos = [{}] * n
            for i, info in done:
                infos[i] = info
            self.num_timesteps += n
            monitor.on_step(infos, self.buf_dones[row].tolist())
        obs_t, mask_t = torch.from_numpy(self._obs), torch.from_numpy(self._mask)
        if self.per_seat:
            adv, ret = compute_linked_gae(
                self.seat_rewards, self.buf_values.numpy(), self.buf_next, self.seat_dones,
                cfg.gamma, cfg.gae_lambda,
            )  # fmt: skip
            self.buf_advantages.copy_(torch.from_numpy(adv))
            self.buf_returns.copy_(torch.from_numpy(ret))
            self.buf_rewards.copy_(torch.from_numpy(self.seat_rewards))  # per seat, for reading
            self.buf_dones.copy_(torch.from_numpy(self.seat_dones))
            trained = self.buf_used & (self.seat_dones | (self.buf_next >= 0))
            self.train_rows = torch.from_numpy(np.flatnonzero(trained))
        else:
            with torch.no_grad():
                _, _, last_values = legal_logits_and_values(
                    policy, obs_t, mask_t, critic=self.critic, hidden=torch.from_numpy(self._hidden)
                )
            adv, ret = compute_gae(
                self.buf_rewards, self.buf_values, self.buf_dones, last_values,
                cfg.gamma, cfg.gae_lambda,
            )  # fmt: skip
            self.buf_advantages.copy_(adv)
            self.buf_returns.copy_(ret)
        self.last_rollout = (time.perf_counter() - started, env_seconds)
        self.timing["rollout_s"] += self.last_rollout[0]
        self.timing["env_s"] += env_seconds
        self.timing["rollouts"] += 1

    def _collect_slice(self, lo: int, hi: int) -> tuple[list[list[tuple[int, dict]]], float]:
        """``n_steps`` steps of envs ``lo..hi-1`` into their columns of the buffer. Returns,
        per step, ``(env, info)`` of the games that ended, and the seconds spent in the envs."""
        policy, envs = self.policy, self.envs
        per_seat, row0 = self.per_seat, self.row0
        obs_np, mask_np = self._obs[lo:hi], self._mask[lo:hi]  # views, refilled in place
        obs_t, mask_t = torch.from_numpy(obs_np), torch.from_numpy(mask_np)
        critic, hidden_np = self.critic, self._hidden[lo:hi]
        hidden_t = torch.from_numpy(hidden_np)
        rewards = np.zeros(hi - lo, dtype=np.float32)
        dones = np.zeros(hi - lo, dtype=bool)
        events: list[list[tuple[int, dict]]] = []
        env_seconds = 0.0
        for row in range(row0, row0 + self.config.n_steps):
            self.buf_obs[row, lo:hi] = obs_t
            self.buf_mask[row, lo:hi] = mask_t
            if critic is not None:
                self.buf_hidden[row, lo:hi] = hidden_t
            with torch.no_grad():
                columns, logits, values = legal_logits_and_values(
                    policy, obs_t, mask_t, legal_columns(mask_np), critic, hidden_t
                )
                choice = sample_masked(logits, mask_t[:, columns], self.generator)
                log_probs = logits.gather(1, choice[:, None])[:, 0] - logits.logsumexp(dim=1)
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

    # --- rollout workers (rollout_workers > 1) ------------------------------------------
    def _start_workers(self) -> None:
        """Fork a process per slice of the envs after the first: each inherits the envs
        (their games so far included), the shared buffers and the policy, whose weights
        are moved to shared memory so that every update reaches the workers in place."""
        try:
            context = mp.get_context("fork")
        except ValueError:
            raise ValueError(
                "config rollout_workers > 1 needs the fork start method (Linux); use 1 here"
            ) from None
        self.policy.share_memory()
        if self.critic is not None:
            self.critic.share_memory()
        seed = self.config.seed * 1_000_003 + self.num_timesteps
        for index in range(1, len(self.slices)):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_rollout_worker,
                args=(self, index, seed, theirs, ours, os.getpid()),
                daemon=True,
            )
            process.start()
            theirs.close()
            self.workers.append((process, ours))

    def close_workers(self) -> None:
        """Stop the rollout workers (each closes its envs). Their games went on in them, not
        here, so a later rollout starts new games and forks new workers (learn() ends by
        closing them)."""
        if self.workers:
            self._started = False
        for process, connection in self.workers:
            with contextlib.suppress(OSError):  # (a worker that died: nothing to tell)
                connection.send("close")
            process.join(timeout=10)
            if process.is_alive():  # (kill: it handles SIGTERM as a stop request)
                process.kill()
            connection.close()
        self.workers = []

    # --- per-seat trajectories (competitive games) ------------------------------------
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

    def update(self) -> None:
        """``n_epochs`` passes of minibatches over the rollout (or fewer: ``target_kl``)."""
        cfg, policy = self.config, self.policy
        started = time.perf_counter()
        torch.set_num_threads(cfg.torch_threads)  # (the workers compute their shares on one each)
        lr = self.learning_rate()
        for group in policy.optimizer.param_groups:
            group["lr"] = lr
        policy.set_training_mode(True)
        rows = self.train_rows if self.per_seat else None  # None: every row
        size = self.rows * len(self.envs) if rows is None else len(rows)
        if size == 0:  # (per seat: no transition complete yet; nothing to learn from)
            policy.set_training_mode(False)
            return
        sums = {"pg": [], "value": [], "entropy": [], "kl": [], "clip": [], "loss": []}
        # the critic's warm-up: the rollouts of the first critic_warmup_steps train it alone
        policy_weight = 0.0 if self.num_timesteps <= cfg.critic_warmup_steps else 1.0
        stop = False
        epochs = 0
        for _ in range(cfg.n_epochs):
            order = torch.randperm(size, generator=self.generator)
            if rows is not None:
                order = rows[order]
            for start in range(0, size, cfg.batch_size):
                idx = order[start : start + cfg.batch_size]
                adv = self.buf_advantages.view(-1)[idx]
                # advantages normalised over the whole minibatch, whoever computes a share
                norm = (float(adv.mean()), float(adv.std()) + 1e-8) if len(idx) > 1 else None
                shares = idx.tensor_split(min(len(self.workers) + 1, len(idx)))
                for share, (_, connection) in zip(shares[1:], self.workers, strict=False):
                    connection.send(("grad", share, norm, len(idx), policy_weight))
                policy.optimizer.zero_grad(set_to_none=True)
                loss, stats = self.share_loss(shares[0], norm, len(idx), policy_weight)
                loss.backward()
                for index, (_, connection) in enumerate(self.workers[: len(shares) - 1], 1):
                    stats = [a + b for a, b in zip(stats, _receive(connection, index), strict=True)]
                for key, value in zip(sums, stats, strict=True):
                    sums[key].append(value)
                if cfg.target_kl is not None and stats[3] > 1.5 * cfg.target_kl:
                    stop = True
                    break
                self._add_worker_grads(len(shares) - 1)
                torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
                policy.optimizer.step()
            epochs += 1
            if stop:
                break
        policy.set_training_mode(False)
        self.n_updates += epochs
        values, rets = self.buf_values.flatten(), self.buf_returns.flatten()
        if rows is not None:
            values, rets = values[rows], rets[rows]
        var = float(rets.var(correction=0))
        explained = float("nan") if var == 0 else 1 - float((rets - values).var(correction=0)) / var
        seconds = time.perf_counter() - started
        self.timing["update_s"] += seconds
        log = self.logger.record
        log("train/learning_rate", lr)
        log("train/entropy_loss", float(np.mean(sums["entropy"])))
        log("train/policy_gradient_loss", float(np.mean(sums["pg"])))
        log("train/value_loss", float(np.mean(sums["value"])))
        log("train/approx_kl", float(np.mean(sums["kl"])))
        log("train/clip_fraction", float(np.mean(sums["clip"])))
        log("train/loss", sums["loss"][-1])
        log("train/explained_variance", explained)
        log("train/n_updates", self.n_updates)
        log("train/clip_range", cfg.clip_range)
        log("time/update_s", seconds)
        log("time/rollout_s", self.last_rollout[0])
        log("time/rollout_env_s", self.last_rollout[1])

    def share_loss(
        self, idx: torch.Tensor, norm, total: int, policy_weight: float = 1.0
    ) -> tuple[torch.Tensor, list]:
        """PPO's loss on a share ``idx`` of a minibatch of ``total`` decisions, scaled so
        that the shares' losses (and gradients) add up to the minibatch's: each mean is the
        share's mean times ``len(idx) / total``. ``norm``: the minibatch's advantage mean and
        std (None: not normalised). ``policy_weight`` multiplies the policy and entropy
        terms (0 during the critic's warm-up). Returns the loss and its parts' contributions
        (policy, value, entropy, approximate KL, clip fraction, total loss) as floats."""
        cfg, policy = self.config, self.policy
        obs = self.buf_obs.view(-1, self.obs_size)[idx]
        mask = self.buf_mask.view(-1, self.n_actions)[idx]
        hidden = self.buf_hidden.flatten(0, 1)[idx]  # (rows, 0) without a critic
        columns, logits, values = legal_logits_and_values(
            policy, obs, mask, critic=self.critic, hidden=hidden
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

    def _add_worker_grads(self, workers: int) -> None:
        """Add the first ``workers`` workers' gradients (flat, shared) to the learner's."""
        if not workers:
            return
        total = self.worker_grads[:workers].sum(dim=0)
        offset = 0
        for param in self.params:
            n = param.numel()
            param.grad.add_(total[offset : offset + n].view_as(param))
            offset += n

    def _worker_grad(
        self, worker: int, idx: torch.Tensor, norm, total: int, policy_weight: float
    ) -> list:
        """In a worker: the gradient of its share of a minibatch into its row of
        ``worker_grads``; returns the share's loss parts."""
        self.policy.optimizer.zero_grad(set_to_none=False)
        loss, stats = self.share_loss(idx, norm, total, policy_weight)
        loss.backward()
        grads = torch.nn.utils.parameters_to_vector(p.grad for p in self.params)
        self.worker_grads[worker - 1] = grads
        return stats


def _rollout_worker(
    model: TorchPPO, index: int, seed: int, connection, parent_end, parent: int
) -> None:
    """A forked rollout process: on each "collect", the rollout of its slice of the envs;
    answers ``(events, env_seconds)`` or ``("error", traceback)``. It closes its copies of
    the learner's ends of the pipes (its own and earlier workers'), so that the learner's
    end going away reads as EOF here, and dies with the learner (``die_with_parent``)."""
    die_with_parent(parent)
    parent_end.close()
    for _, other in model.workers:
        other.close()
    model.workers = []
    torch.set_num_threads(1)
    model.generator.manual_seed(seed + 7919 * index)  # its own moves, not the learner's
    lo, hi = model.slices[index]
    try:
        while (command := connection.recv()) != "close":
            try:
                if command == "collect":
                    connection.send(model._collect_slice(lo, hi))
                else:  # ("grad", share, norm, total, policy_weight): its minibatch share
                    connection.send(model._worker_grad(index, *command[1:]))
            except Exception:  # the learner raises it, naming this worker
                connection.send(("error", traceback.format_exc()))
                return
    except (EOFError, KeyboardInterrupt):  # the learner went away or was interrupted
        pass
    finally:
        for env in model.envs[lo:hi]:
            env.close()


def _receive(connection, index: int):
    """A rollout worker's answer; a RuntimeError with its traceback if it failed or died."""
    try:
        answer = connection.recv()
    except EOFError:
        raise RuntimeError(f"rollout worker {index} died during a rollout") from None
    if answer[0] == "error":
        raise RuntimeError(f"rollout worker {index} failed:\n{answer[1]}")
    return answer


# --- the trainer's face to ``Trainer`` (train/trainer.py), as train/sb3.py has ---------------
DESCRIPTION = "masked PPO in PyTorch, train/ppo.py"


def make_envs(config: TrainConfig, env_fns: list) -> list:
    """The self-play envs as a plain list, stepped in the rollout processes."""
    return [make() for make in env_fns]


def make_model(config: TrainConfig, envs: list, run_dir: str | Path) -> TorchPPO:
    return TorchPPO(config, envs, run_dir)


def learn(model: TorchPPO, total_steps: int, monitor) -> None:
    """Train until ``model.num_timesteps`` reaches ``total_steps``."""
    model.learn(total_steps, monitor)


def close_envs(envs: list) -> None:
    for env in envs:
        env.close()
