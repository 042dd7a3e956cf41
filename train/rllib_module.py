"""The project's policy network as an RLlib RLModule (new API stack), with action masking.

The module holds the very network the other trainers train and every agent plays
(``agents.trained.build_policy``: a ``networks.SeatPolicy``) under the
attribute ``policy``, and computes its logits and values with the project's own functions
(``masked_logits``, and in training the own PPO's ``legal_logits_and_values``: illegal
moves at -1e8, so probability 0 and no gradient). Its weights are the checkpoint format's
``policy`` weights with the prefix ``policy.``: export and import are a rename
(``to_policy_state``, ``from_policy_state``).

Observations are ``{"observations": ..., "action_mask": ...}`` (RLlib's convention; the
env wrapper of ``train/rllib_env.py`` renames PettingZoo's ``observation``). The model
config is ``features_dim``, ``net_arch``, ``activation`` (the training config's).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

from commoncause.agents.trained import ILLEGAL_LOGIT, build_policy, masked_logits
from commoncause.envs.registry import get_game

from .ppo import legal_logits_and_values

PREFIX = "policy."


def to_policy_state(module_state: dict) -> dict:
    """A module's weights (RLlib's ``get_state``, tensors or arrays) as checkpoint weights."""
    return {
        key[len(PREFIX) :]: torch.as_tensor(value)
        for key, value in module_state.items()
        if key.startswith(PREFIX)
    }


def from_policy_state(policy_state: dict) -> dict:
    """Checkpoint weights as a module's state (for ``set_state`` / ``set_weights``)."""
    return {PREFIX + key: value for key, value in policy_state.items()}


class _NormalisedCategorical(torch.distributions.Categorical):
    """torch's ``Categorical`` with the logits normalised by ``log_softmax`` rather than its
    constructor's ``logsumexp``: the same distribution, but ``logsumexp`` (and its backward)
    takes the CPU's slow path for underflowing ``exp`` on the mask's -1e8 logits (~6x
    slower for a 512 x 4445 batch); entropy and sampling use ``softmax``, which does not."""

    def __init__(self, logits: torch.Tensor) -> None:
        self.logits = F.log_softmax(logits, dim=-1)
        self._param = self.logits
        self._num_events = logits.size(-1)
        torch.distributions.Distribution.__init__(self, logits.size()[:-1], validate_args=False)


class MaskedCategorical(TorchCategorical):
    """RLlib's categorical action distribution over masked logits (see above)."""

    def _get_torch_distribution(self, logits=None, probs=None) -> torch.distributions.Categorical:
        return _NormalisedCategorical(logits)


class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI):
    """The project's masked actor-critic as an RLModule for RLlib's PPO."""

    def setup(self) -> None:
        cfg = self.model_config
        card_moves = get_game(cfg["game"]).card_moves if cfg.get("card_head") else None
        self.policy = build_policy(
            cfg["features_dim"], list(cfg["net_arch"]), cfg["activation"],
            self.observation_space["observations"].shape[0], int(self.action_space.n),
            card_moves,
        )  # fmt: skip
        self.action_dist_cls = MaskedCategorical

    @staticmethod
    def _inputs(batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
        obs = batch[Columns.OBS]
        return obs["observations"], obs["action_mask"].bool()

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs, mask = self._inputs(batch)
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self.policy, obs, mask)}

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        """Logits and values, the action head computed only on the moves legal somewhere in
        the batch (the own PPO's ``legal_logits_and_values``: the same logits, loss and
        gradients; a minibatch of 512 has ~700 of Common Cause's 4445 moves legal), the
        other columns at -1e8."""
        obs, mask = self._inputs(batch)
        columns, legal, values = legal_logits_and_values(self.policy, obs, mask)
        logits = legal.new_full(mask.shape, ILLEGAL_LOGIT).index_copy(1, columns, legal)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: values}

    def compute_values(self, batch: dict, embeddings=None) -> torch.Tensor:
        """The value of each observation (``embeddings``: the values ``_forward_train``
        already computed in the same pass)."""
        if embeddings is not None:
            return embeddings
        obs, _ = self._inputs(batch)
        policy = self.policy
        _, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
        return policy.value_net(latent_vf).flatten()
