"""The policy network's shared body and its optional per-card head (torch modules; imported
only where torch is wanted)."""

from __future__ import annotations

from functools import partial

import gymnasium
import numpy as np
import torch
import torch.nn.functional as F
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from commoncause.agents.trained import ILLEGAL_LOGIT
from commoncause.envs.core.cards import JOKER, N_CARD_TYPES, rank_of, suit_of
from commoncause.envs.core.game import CardMoves

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


def card_neighbours() -> list[list[int]]:
    """Per card type, the hand-plane entries a per-card head reads: the type itself, the
    same rank in the three other suits, the same suit one and two ranks either side (ranks
    wrap, so the Ace neighbours the King), and the jokers; ``N_CARD_TYPES`` stands for an
    entry that is always 0 (the joker has no rank or suit)."""
    rows = []
    for t in range(N_CARD_TYPES):
        if t == JOKER:
            rows.append([t] + [N_CARD_TYPES] * 7 + [JOKER])
            continue
        suit, rank = suit_of(t), rank_of(t)
        ranks = [((suit + k) % 4) * 13 + rank for k in (1, 2, 3)]
        runs = [suit * 13 + (rank + d) % 13 for d in (-2, -1, 1, 2)]
        rows.append([t, *ranks, *runs, JOKER])
    return rows


class CardHead(torch.nn.Module):
    """Scores every one-card move card by card, added to the linear head's logits.

    A linear head over the policy latent scores a discard of each card type with its own
    row of weights, so what makes a card worth keeping (its neighbours in the hand) has to be
    spelt out in the latent for each of the 53 types at once; cloning Open Rummy's baseline,
    such a network agrees with it on ~62% of held-out discards, one with this head on 91%
    (``studies/bc_discard_head.py``). Here one small MLP, shared by the card types, scores a
    type from its hand-plane neighbourhood (``card_neighbours``), a learned embedding of the
    type and the latent: ``out(act(card_in([neighbours, embedding]) + latent_in(latent)))``,
    one score per family of one-card moves (``CardMoves.bases``) and one per move about a
    shown card (``CardMoves.shown``: taking the top discard scores that card). The output
    layer starts at zero, so a new head leaves the network's moves as they were."""

    def __init__(self, moves: CardMoves, latent_dim: int, n_actions: int, activation: str,
                 hidden: int = 32, embedding: int = 8) -> None:  # fmt: skip
        super().__init__()
        self.hand_at = moves.hand_at
        self.shown_at = [offset for _, offset in moves.shown]
        self.register_buffer("neighbours", torch.tensor(card_neighbours()), persistent=False)
        families, shown = len(moves.bases), len(moves.shown)
        per_card = N_CARD_TYPES * families
        slot = torch.full((n_actions,), per_card + shown)  # the zero column
        for f, base in enumerate(moves.bases):
            slot[base : base + N_CARD_TYPES] = torch.arange(N_CARD_TYPES) * families + f
        for k, (move, _) in enumerate(moves.shown):
            slot[move] = per_card + k
        self.register_buffer("slot", slot, persistent=False)
        """Move id -> its column of ``scores`` (the last one, always 0, for other moves)."""
        self.families = families
        self.embedding = torch.nn.Embedding(N_CARD_TYPES, embedding)
        self.card_in = torch.nn.Linear(self.neighbours.shape[1] + embedding, hidden)
        self.latent_in = torch.nn.Linear(latent_dim, hidden, bias=False)
        self.act = ACTIVATIONS[activation]()
        self.out = torch.nn.Linear(hidden, families + shown)
        torch.nn.init.zeros_(self.out.weight)
        torch.nn.init.zeros_(self.out.bias)

    def scores(self, obs: torch.Tensor, latent: torch.Tensor) -> torch.Tensor:
        """(batch, types x families + shown moves + 1): each one-card move's score, each
        shown-card move's (the score of the card its plane marks), then a 0."""
        hand = obs[:, self.hand_at : self.hand_at + N_CARD_TYPES]
        hand = F.pad(hand, (0, 1))[:, self.neighbours]  # (batch, types, neighbours)
        cards = torch.cat([hand, self.embedding.weight.expand(len(obs), -1, -1)], dim=2)
        hidden = self.act(self.card_in(cards) + self.latent_in(latent).unsqueeze(1))
        out = self.out(hidden)  # (batch, types, families + shown)
        parts = [out[:, :, : self.families].flatten(1)]
        for k, at in enumerate(self.shown_at):
            marked = obs[:, at : at + N_CARD_TYPES]
            parts.append((marked * out[:, :, self.families + k]).sum(1, keepdim=True))
        return F.pad(torch.cat(parts, dim=1), (0, 1))


def action_logits(
    policy, obs: torch.Tensor, latent: torch.Tensor, columns: torch.Tensor | None = None
) -> torch.Tensor:
    """The policy's move logits (unmasked) from its actor latent: the linear head, plus the
    per-card head's scores where the policy has one; only the moves ``columns`` when given
    (the same values as those columns of the full logits)."""
    head = policy.action_net
    if columns is None:
        logits = head(latent)
    else:
        logits = F.linear(latent, head.weight[columns], head.bias[columns])
    card_head = getattr(policy, "card_head", None)
    if card_head is not None:
        slots = card_head.slot if columns is None else card_head.slot[columns]
        logits = logits + card_head.scores(obs, latent)[:, slots]
    return logits


def build_critic(in_size: int, net_arch: list[int], activation: str) -> torch.nn.Sequential:
    """A centralised critic (``net_arch``, then one value) over the seat's observation and
    what the seat does not see (``in_size`` in all), initialised as SB3 initialises the
    policy's value layers: orthogonal, gain sqrt(2) in the hidden layers and 1 at the
    value."""
    from stable_baselines3.common.policies import BasePolicy
    from stable_baselines3.common.torch_layers import create_mlp

    critic = torch.nn.Sequential(*create_mlp(in_size, 1, net_arch, ACTIVATIONS[activation]))
    critic[:-1].apply(partial(BasePolicy.init_weights, gain=np.sqrt(2)))
    BasePolicy.init_weights(critic[-1], gain=1.0)
    return critic


def legal_columns(mask: np.ndarray) -> torch.Tensor:
    """The moves legal in at least one row of a boolean (rows, moves) mask."""
    return torch.from_numpy(np.flatnonzero(mask.any(axis=0)))


def legal_logits_and_values(policy, obs: torch.Tensor, mask: torch.Tensor,
                            columns: torch.Tensor | None = None, critic=None,
                            hidden: torch.Tensor | None = None):  # fmt: skip
    """``(columns, logits, values)`` of a batch, the logits on the moves legal somewhere in
    it only: ``logits[:, j]`` is ``masked_logits(...)[:, columns[j]]`` (illegal at -1e8).
    The columns left out are illegal in every row, so softmax, loss and gradients are exactly
    those of the full logits (a minibatch of 512 has ~700 of 4445 moves legal somewhere).
    With a ``critic`` the values are its, on ``obs`` and ``hidden``."""
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
    return columns, logits.masked_fill(~mask[:, columns], ILLEGAL_LOGIT), values
