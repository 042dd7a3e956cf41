"""The torch trainer on several cores (``rollout_workers``, default 2): ``train/ppo.py``'s
loop, with its rollouts and its minibatch gradients shared by forked worker processes.

A rollout is shared by this process and forked workers, each stepping its slice of the envs
with the policy on one thread; the buffers and the policy's weights are in shared memory, so
a worker writes its envs' columns in place and sees every update without a copy. The update
is shared too: each minibatch is split, every process computes the gradient of its share
(``PPO.share_loss``: its loss scaled by its share of the minibatch, the advantages normalised
over the whole minibatch), the workers' gradients reach the learner through a shared buffer,
and the learner adds them, clips and steps Adam: the same update as one process's, up to
float rounding (tested). The monitor hears of every step in order after the rollout. A
worker has its own random stream (seeded from the run's seed and its index): runs are
reproducible for a given number of workers; with ``rollout_workers: 1`` this is ``PPO``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import traceback
from pathlib import Path

import numpy as np
import torch

from commoncause.agents.evaluate import die_with_parent

from .config import TrainConfig
from .ppo import PPO


class TorchPPO(PPO):
    """``PPO`` with ``rollout_workers - 1`` forked workers (started at the first rollout,
    stopped by ``close_workers``)."""

    def __init__(self, config: TrainConfig, envs: list, run_dir: str | Path) -> None:
        # the envs' share of each rollout process (the first is this one)
        processes = min(config.rollout_workers, len(envs))
        bounds = np.linspace(0, len(envs), processes + 1).round().astype(int).tolist()
        self.slices = list(zip(bounds[:-1], bounds[1:], strict=True))
        self.workers: list = []  # (process, connection) of the other rollout processes
        super().__init__(config, envs, run_dir)
        n_params = sum(p.numel() for p in self.params)
        self.worker_grads = self._zeros((processes - 1, n_params))  # each worker's, flat
        # worker k's row (k = 1, 2, ...) as one view per parameter: its parameters' grad
        self.grad_views = [self._row_views(row) for row in self.worker_grads]

    def _zeros(self, shape, dtype=torch.float32) -> torch.Tensor:
        """A buffer the workers write in: in shared memory (with workers)."""
        tensor = torch.zeros(shape, dtype=dtype)
        return tensor.share_memory_() if len(self.slices) > 1 else tensor

    def _collect_all(self) -> tuple[list[list[tuple[int, dict]]], float]:
        """Each process's slice of the envs at once; their steps merged in env order."""
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
        return events, env_seconds

    def _gradient(self, idx: torch.Tensor, norm, policy_weight: float) -> list:
        """The minibatch's gradient, each process computing a share: the workers' added to
        the learner's; the loss parts summed."""
        shares = idx.tensor_split(min(len(self.workers) + 1, len(idx)))
        for share, (_, connection) in zip(shares[1:], self.workers, strict=False):
            # (as numpy: a tensor travels through a shared-memory file, 0.4 ms more a send)
            connection.send(("grad", share.numpy(), norm, len(idx), policy_weight))
        self.policy.optimizer.zero_grad(set_to_none=True)
        loss, stats = self.share_loss(shares[0], norm, len(idx), policy_weight)
        loss.backward()
        for index, (_, connection) in enumerate(self.workers[: len(shares) - 1], 1):
            stats = [a + b for a, b in zip(stats, _receive(connection, index), strict=True)]
        for views in self.grad_views[: len(shares) - 1]:
            for param, grad in zip(self.params, views, strict=True):
                param.grad.add_(grad)
        return stats

    def _row_views(self, row: torch.Tensor) -> list[torch.Tensor]:
        """A flat row of ``worker_grads`` as one view per trained parameter, in order, each
        laid out in memory as its parameter is (a gradient must be: ``fast_layers``' first
        layer stores its weight transposed)."""
        parts = row.split([param.numel() for param in self.params])
        return [part.as_strided(param.size(), param.stride())
                for part, param in zip(parts, self.params, strict=True)]  # fmt: skip

    def _worker_grad(self, worker: int, idx: np.ndarray, norm, total: int,
                     policy_weight: float) -> list:  # fmt: skip
        """In a worker: the gradient of its share of a minibatch into its row of
        ``worker_grads`` (its parameters' ``grad`` are views of that row, so backward adds
        into it in place); returns the share's loss parts."""
        self.worker_grads[worker - 1].zero_()
        loss, stats = self.share_loss(torch.from_numpy(idx), norm, total, policy_weight)
        loss.backward()
        return stats

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
            process = context.Process(target=_rollout_worker,
                                      args=(self, index, seed, theirs, ours, os.getpid()),
                                      daemon=True)  # fmt: skip
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


def _rollout_worker(model: TorchPPO, index: int, seed: int, connection, parent_end,
                    parent: int) -> None:  # fmt: skip
    """A forked rollout process: on each "collect", the rollout of its slice of the envs,
    answering ``(events, env_seconds)``; on each ``("grad", ...)``, the gradient of its share
    of a minibatch into its row of ``worker_grads`` (its parameters' ``grad`` are set to that
    row's views at the start), answering the share's loss parts; ``("error", traceback)``
    if either failed. It closes its copies of the learner's ends of the pipes (its own and
    earlier workers'), so that the learner's end going away reads as EOF here, and dies
    with the learner (``die_with_parent``)."""
    die_with_parent(parent)
    parent_end.close()
    for _, other in model.workers:
        other.close()
    model.workers = []
    torch.set_num_threads(1)
    model.generator.manual_seed(seed + 7919 * index)  # its own moves, not the learner's
    for param, grad in zip(model.params, model.grad_views[index - 1], strict=True):
        param.grad = grad  # backward adds into its row of the shared buffer in place
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
DESCRIPTION = "masked PPO in PyTorch, train/ppo.py (on several cores: train/ppo_parallel.py)"


def make_envs(config: TrainConfig, env_fns: list) -> list:
    """The self-play envs as a plain list, stepped in the rollout processes."""
    return [make() for make in env_fns]


def make_model(config: TrainConfig, envs: list, run_dir: str | Path) -> TorchPPO:
    """The trainer on ``rollout_workers`` processes."""
    return TorchPPO(config, envs, run_dir)


def learn(model: TorchPPO, total_steps: int, monitor) -> None:
    """Train until ``model.num_timesteps`` reaches ``total_steps``."""
    model.learn(total_steps, monitor)


def close_envs(envs: list) -> None:
    for env in envs:
        env.close()
