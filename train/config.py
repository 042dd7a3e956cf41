"""Training configuration: one dataclass, loaded from YAML (``configs/*.yaml``).

Every field has a docstring; an unknown key, a wrong type or a bad value is a clear error
before training starts.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path

from envs.common_cause.rules import GameConfig


@dataclass
class TrainConfig:
    name: str = "normal"
    """Run name prefix: runs are named ``{name}__{seed}__{time}``."""
    seed: int = 0
    """Seed of the deals, the networks and the sampling."""

    # --- the game ---------------------------------------------------------------
    level: str = "normal"
    """Level: full, easy, normal or hard."""
    stock_size: int | None = None
    """Explicit stock size 0-33 (overrides level)."""
    open_hands: bool = False
    """Variant: both hands face up."""
    ace_low: bool = False
    """Variant: the Ace is only low."""
    max_open_starts: int = 2
    """Open starts per player (3 for the variant)."""

    # --- the network -------------------------------------------------------------
    features_dim: int = 256
    """Width of the shared first layer over the observation."""
    net_arch: list[int] = field(default_factory=lambda: [128])
    """Hidden layers of the policy head and of the value head, after the shared layer."""
    activation: str = "tanh"
    """Hidden activation: tanh or relu."""

    init_from: str | None = None
    """Start from this checkpoint's policy weights (a new run: no cloning, a fresh optimizer;
    the network shape must match)."""

    # --- behaviour cloning of the baseline (before self-play) ----------------------
    bc_games: int = 20000
    """Baseline games whose decisions are imitated first (0: start from scratch)."""
    bc_epochs: int = 4
    """Passes over the cloning data."""
    bc_batch_size: int = 512
    """Minibatch size for cloning."""
    bc_learning_rate: float = 1e-3
    """Adam learning rate for cloning."""

    # --- self-play PPO -------------------------------------------------------------
    trainer: str = "sb3"
    """PPO implementation: sb3 (sb3-contrib MaskablePPO) or torch (the lean masked PPO of
    train/ppo.py: same network, games, hyperparameters and checkpoints, ~5x the steps/s)."""
    total_steps: int = 1_000_000
    """Learner decisions (env steps) of self-play PPO."""
    n_envs: int = 8
    """Parallel self-play games."""
    vec_env: str = "subproc"
    """subproc (worker processes, both cores) or dummy (one process); sb3 trainer only (the
    torch trainer steps its envs in-process)."""
    n_steps: int = 256
    """Steps per env per rollout."""
    batch_size: int = 512
    """PPO minibatch size."""
    n_epochs: int = 4
    """PPO epochs per rollout."""
    learning_rate: float = 1e-4
    """Adam learning rate of PPO (decays linearly to 0 over total_steps if lr_decay)."""
    lr_decay: bool = True
    """Decay the learning rate linearly to zero."""
    gamma: float = 1.0
    """Discount (the only reward is the game's result)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.1
    """PPO clip range."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    target_kl: float | None = 0.03
    """Stop an update early past this KL from the rollout policy (None: never)."""
    baseline_partner_prob: float = 0.2
    """Share of self-play games where the baseline plays one seat (keeps the agent a good
    partner for unfamiliar players)."""
    torch_threads: int = 1
    """Torch threads in the learner process."""

    # --- evaluation and checkpoints ---------------------------------------------------
    eval_interval: int = 100_000
    """Evaluate against the baseline every this many steps."""
    eval_games: int = 1000
    """Games per periodic evaluation (fixed deal seeds)."""
    eval_seed: int = 20261129
    """Deal seed of the evaluations (the same deals every time)."""
    final_eval_games: int = 2000
    """Games of the final comparison with the baseline team."""
    checkpoint_interval: int = 250_000
    """Keep a periodic checkpoint every this many steps."""
    out_dir: str = "runs"
    """Where runs (TensorBoard logs and checkpoints) are written."""

    def game_config(self) -> GameConfig:
        return GameConfig.make(
            self.level,
            self.stock_size,
            open_hands=self.open_hands,
            ace_low=self.ace_low,
            max_open_starts=self.max_open_starts,
        )

    def env_kwargs(self) -> dict:
        return {
            "level": self.level,
            "stock_size": self.stock_size,
            "open_hands": self.open_hands,
            "ace_low": self.ace_low,
            "max_open_starts": self.max_open_starts,
        }

    def validate(self) -> None:
        self.game_config()  # level, stock size, variants
        if self.init_from is not None:
            from agents.trained import load_checkpoint

            start = load_checkpoint(self.init_from)
            shape = (start["features_dim"], list(start["net_arch"]), start["activation"])
            if shape != (self.features_dim, list(self.net_arch), self.activation):
                raise ValueError(
                    f"config init_from {self.init_from} has the network {shape}, the config "
                    f"{(self.features_dim, list(self.net_arch), self.activation)}"
                )
        positive = ("features_dim", "n_envs", "n_steps", "batch_size", "n_epochs",
                    "eval_interval", "eval_games", "final_eval_games", "checkpoint_interval",
                    "torch_threads", "bc_epochs", "bc_batch_size")  # fmt: skip
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"config {name} must be at least 1, got {getattr(self, name)}")
        for name in ("total_steps", "bc_games"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name} must not be negative, got {getattr(self, name)}")
        for name in ("learning_rate", "bc_learning_rate", "clip_range"):
            if not getattr(self, name) > 0:
                raise ValueError(f"config {name} must be positive, got {getattr(self, name)}")
        if not 0 < self.gamma <= 1 or not 0 <= self.gae_lambda <= 1:
            raise ValueError("config gamma must be in (0, 1] and gae_lambda in [0, 1]")
        if not 0 <= self.baseline_partner_prob <= 1:
            raise ValueError("config baseline_partner_prob must be in [0, 1]")
        if self.trainer not in ("sb3", "torch"):
            raise ValueError(f"config trainer must be sb3 or torch, got {self.trainer!r}")
        if self.vec_env not in ("subproc", "dummy"):
            raise ValueError(f"config vec_env must be subproc or dummy, got {self.vec_env!r}")
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"config activation must be tanh or relu, got {self.activation!r}")
        if not self.net_arch or any(not isinstance(n, int) or n < 1 for n in self.net_arch):
            raise ValueError(f"config net_arch must be a list of layer sizes, got {self.net_arch}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _check_type(name: str, value, annotation) -> None:
    hint = typing.get_type_hints(TrainConfig)[name]
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for t in allowed:
        origin = typing.get_origin(t) or t
        if t is type(None) and value is None:
            return
        if origin is float and isinstance(value, int | float) and not isinstance(value, bool):
            return
        if origin is int and isinstance(value, int) and not isinstance(value, bool):
            return
        if origin in (bool, str, list) and isinstance(value, origin):
            return
    raise ValueError(f"config {name} must be {annotation}, got {value!r}")


def config_from_dict(data: dict) -> TrainConfig:
    known = {f.name: f for f in fields(TrainConfig)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(
            f"unknown config key(s) {', '.join(unknown)}; known keys: {', '.join(known)}"
        )
    for name, value in data.items():
        _check_type(name, value, known[name].type)
    config = TrainConfig(**data)
    config.validate()
    return config


def load_config(path: str | Path) -> TrainConfig:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config file {path} not found")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise ValueError(f"config file {path} is not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config file {path} must be a mapping of keys to values")
    return config_from_dict(data)
