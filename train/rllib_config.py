"""The ``rllib:`` section of a training config (``trainer: rllib``, ``train/rllib.py``).

Checked with the rest of the config before training starts, without importing Ray, so a
bad key is a one-line error (exit status 2) also where the ``rllib`` extra is not installed.
Everything else (the game, the network, PPO's hyperparameters, evaluation, checkpoints)
comes from the config's own fields, as for the other trainers.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

POLICIES = ("shared", "per_seat")


@dataclass(frozen=True)
class RLlibConfig:
    address: str | None = None
    """Ray cluster to join: ``auto`` (the cluster this machine belongs to, e.g. after
    ``ray start --head`` or inside ``ray job submit``), ``HOST:PORT``; None starts a
    private local Ray instance for the run (its files in a temporary folder, removed at the
    end)."""
    num_env_runners: int = 1
    """Env runner processes (actors) that sample games; 0 samples in the driver."""
    num_envs_per_env_runner: int = 8
    """Games each env runner steps together (one batched forward pass per step)."""
    num_learners: int = 0
    """Learner processes (0: the learner runs in the driver; more for data-parallel updates
    on a cluster)."""
    policies: str = "shared"
    """``shared``: one policy plays every seat; ``per_seat``: one policy per seat, each
    exported as ``checkpoints/player_<k>.pt`` beside the run's checkpoints (which hold
    ``player_0``'s)."""

    @classmethod
    def from_dict(cls, data: dict) -> RLlibConfig:
        """The section from a mapping; a one-line ValueError for an unknown key or a bad
        value."""
        if not isinstance(data, dict):
            raise ValueError(f"config rllib must be a mapping, got {data!r}")
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(
                f"unknown config key(s) {', '.join('rllib.' + k for k in unknown)}; known "
                f"keys: {', '.join('rllib.' + k for k in known)}"
            )
        config = cls(**data)
        if config.address is not None and not isinstance(config.address, str):
            raise ValueError(f"config rllib.address must be a string, got {config.address!r}")
        for name, least in (("num_env_runners", 0), ("num_envs_per_env_runner", 1),
                            ("num_learners", 0)):  # fmt: skip
            value = getattr(config, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"config rllib.{name} must be a whole number >= {least}, "
                                 f"got {value!r}")  # fmt: skip
        if config.policies not in POLICIES:
            raise ValueError(
                f"config rllib.policies must be {' or '.join(POLICIES)}, got {config.policies!r}"
            )
        return config
