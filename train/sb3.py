"""sb3-contrib's MaskablePPO as a trainer (``trainer: sb3``).

The same network (``agents/networks.py``), self-play games (``train/selfplay.py``),
hyperparameters and checkpoints as the lean PyTorch PPO of ``train/ppo.py``; the envs run
in an SB3 ``VecEnv`` (``vec_env: subproc`` worker processes, or ``dummy``), and SB3's hooks
reach the run's ``TrainingMonitor`` through ``TrainingCallback``. Each trainer module has
the same face to ``Trainer``: ``DESCRIPTION``, ``make_envs``, ``make_model``, ``learn``,
``close_envs``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from .config import TrainConfig

DESCRIPTION = "sb3-contrib MaskablePPO"


def make_envs(config: TrainConfig, env_fns: list):
    """An SB3 VecEnv of the self-play envs."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if config.vec_env == "subproc" and len(env_fns) > 1:
        return SubprocVecEnv(env_fns, start_method="fork")
    return DummyVecEnv(env_fns)


def policy_kwargs(features_dim: int, net_arch: list[int], activation: str) -> dict:
    """sb3-contrib MaskableActorCriticPolicy arguments for the network of
    ``agents/networks.py`` (the same layers and names as ``SeatPolicy``)."""
    from commoncause.agents.networks import ACTIVATIONS, SeatEncoder

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    return {
        "features_extractor_class": SeatEncoder,
        "features_extractor_kwargs": {"features_dim": features_dim, "activation": activation},
        "share_features_extractor": True,
        "net_arch": {"pi": list(net_arch), "vf": list(net_arch)},
        "activation_fn": ACTIVATIONS[activation],
    }


def make_model(config: TrainConfig, env, run_dir: str | Path):
    """A MaskablePPO with the config's network and hyperparameters, logging to TensorBoard
    in ``run_dir``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    cfg = config
    torch.set_num_threads(cfg.torch_threads)

    def learning_rate(progress_remaining: float) -> float:
        return cfg.learning_rate * (progress_remaining if cfg.lr_decay else 1.0)

    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        target_kl=cfg.target_kl,
        policy_kwargs=policy_kwargs(cfg.features_dim, cfg.net_arch, cfg.activation),
        seed=cfg.seed,
        device="cpu",
    )
    model.set_logger(configure(str(run_dir), ["tensorboard"]))
    return model


def learn(model, total_steps: int, monitor) -> None:
    """Train until ``model.num_timesteps`` reaches ``total_steps`` (SB3 counts on from the
    restored step count)."""
    from .callbacks import TrainingCallback

    remaining = total_steps - int(model.num_timesteps)
    if remaining > 0:
        model.learn(
            total_timesteps=remaining,
            callback=TrainingCallback(monitor),
            reset_num_timesteps=False,
            progress_bar=False,
        )


def close_envs(env) -> None:
    # the workers may already be gone (Ctrl-C reaches them too)
    with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):
        env.close()
