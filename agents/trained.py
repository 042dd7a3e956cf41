"""A trained policy as an agent, and the checkpoint format it loads.

A checkpoint is a plain ``torch.save`` dict of tensors and primitives, loaded with
``torch.load(weights_only=True)``: loading never runs code from the file. It holds the
policy weights (an sb3-contrib ``MaskableActorCriticPolicy``), the network shape, the
observation/action sizes and env version it was trained for, and, for resuming, the
optimizer state, step count and the training config and model card.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from envs.common_cause.actions import N_ACTIONS
from envs.common_cause.common_cause import raw_env
from envs.common_cause.observer import OBS_SIZE
from envs.common_cause.seat import SeatView

FORMAT = "commoncause-policy-v1"
ENV_VERSION = raw_env.metadata["name"]
DEFAULT_CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "normal" / "best.pt"


def build_policy(features_dim: int, net_arch: list[int], activation: str = "tanh"):
    """An untrained policy network of the given shape (CPU)."""
    import gymnasium
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from .networks import policy_kwargs

    return MaskableActorCriticPolicy(
        gymnasium.spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
        gymnasium.spaces.Discrete(N_ACTIONS),
        lr_schedule=lambda _: 0.0,
        **policy_kwargs(features_dim, net_arch, activation),
    )


def load_checkpoint(path: str | Path) -> dict:
    """The checkpoint dict; ValueError naming the problem if missing, corrupted or foreign."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} not found")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # truncated file, not a torch file, unsafe content
        first_line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"checkpoint {path} is corrupted or unreadable: {first_line}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a Common Cause policy checkpoint ({FORMAT})")
    if data.get("obs_size") != OBS_SIZE or data.get("n_actions") != N_ACTIONS:
        raise ValueError(
            f"checkpoint {path} was trained for observations of {data.get('obs_size')} and "
            f"{data.get('n_actions')} actions ({data.get('env_version')}); this env has "
            f"{OBS_SIZE} and {N_ACTIONS} ({ENV_VERSION})"
        )
    return data


def policy_from_checkpoint(data: dict):
    policy = build_policy(data["features_dim"], data["net_arch"], data["activation"])
    try:
        policy.load_state_dict(data["policy"])
    except (RuntimeError, KeyError) as e:
        raise ValueError(
            f"checkpoint weights do not fit the network {data['net_arch']}: {e}"
        ) from None
    policy.set_training_mode(False)
    return policy


ILLEGAL_LOGIT = -1e8
"""The logit of an illegal move: its probability is exactly 0 and it gets no gradient."""


def masked_logits(policy, obs, mask):
    """Action logits of ``policy`` for a batch, illegal moves at -1e8 (torch tensors)."""
    latent_pi = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
    return policy.action_net(latent_pi).masked_fill(~mask, ILLEGAL_LOGIT)


def masked_logits_and_values(policy, obs, mask):
    """``masked_logits`` and the value estimates (flat) from one pass of the shared layer."""
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    logits = policy.action_net(latent_pi).masked_fill(~mask, ILLEGAL_LOGIT)
    return logits, policy.value_net(latent_vf).flatten()


class PolicyAgent:
    """Plays the policy's most likely legal move (``deterministic``) or samples from it."""

    def __init__(self, path: str | Path = DEFAULT_CHECKPOINT, deterministic: bool = True) -> None:
        import torch

        torch.set_num_threads(1)
        self.path = Path(path)
        self.checkpoint = load_checkpoint(self.path)
        self.policy = policy_from_checkpoint(self.checkpoint)
        self.deterministic = deterministic
        self.name = f"trained:{self.path}"
        self.generator = torch.Generator().manual_seed(0)

    def reset(self, seed: int) -> None:
        self.generator.manual_seed(seed)

    def probabilities(self, view: SeatView) -> np.ndarray:
        """The policy's move probabilities (zero on illegal moves)."""
        import torch

        legal = view.legal_actions()
        obs = torch.as_tensor(view.observation()).unsqueeze(0)
        policy = self.policy
        with torch.no_grad():  # the action head only on the legal moves: the same softmax
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))[0]
            rows = torch.as_tensor(legal)
            head = policy.action_net
            logits = torch.mv(head.weight[rows], latent) + head.bias[rows]
            probs = np.zeros(N_ACTIONS, dtype=np.float32)
            probs[legal] = torch.softmax(logits, dim=0).numpy()
        return probs

    def act(self, view: SeatView) -> int:
        import torch

        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        probs = self.probabilities(view)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(torch.multinomial(torch.as_tensor(probs), 1, generator=self.generator))
