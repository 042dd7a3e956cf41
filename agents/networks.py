"""The policy network's shared body (a torch module; imported only where torch is wanted)."""

from __future__ import annotations

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


class SeatEncoder(BaseFeaturesExtractor):
    """One dense layer over the seat observation, shared by the policy and value heads."""

    def __init__(self, observation_space: gymnasium.spaces.Box, features_dim: int = 256,
                 activation: str = "tanh") -> None:  # fmt: skip
        super().__init__(observation_space, features_dim)
        self.net = torch.nn.Sequential(
            torch.nn.Linear(observation_space.shape[0], features_dim), ACTIVATIONS[activation]()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


def policy_kwargs(features_dim: int, net_arch: list[int], activation: str) -> dict:
    """sb3-contrib MaskableActorCriticPolicy arguments for this network shape."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    return {
        "features_extractor_class": SeatEncoder,
        "features_extractor_kwargs": {"features_dim": features_dim, "activation": activation},
        "share_features_extractor": True,
        "net_arch": {"pi": list(net_arch), "vf": list(net_arch)},
        "activation_fn": ACTIVATIONS[activation],
    }
