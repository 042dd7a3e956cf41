"""The policy network as plain torch modules (no SB3 import): ``SeatPolicy`` plays a
checkpoint with torch alone and is what the torch and RLlib trainers train
(``agents.trained.build_policy``); its shared body ``SeatEncoder``, its heads and the
optional per-card head ``CardHead``. Its layers and their names are those of sb3-contrib's
``MaskableActorCriticPolicy`` (``train/sb3.py`` builds that one from the same
``SeatEncoder``), so the weights of either load into the other."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from commoncause.agents.base import ILLEGAL_LOGIT
from commoncause.envs.core.cards import JOKER, N_CARD_TYPES, rank_of, suit_of
from commoncause.envs.core.game import CardMoves

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


class SeatEncoder(torch.nn.Module):
    """One dense layer over the seat observation, shared by the policy and value heads.
    ``observation``: its size, or its space (SB3 builds it as the features extractor from
    the observation space and reads ``features_dim``)."""

    def __init__(self, observation, features_dim: int = 256, activation: str = "tanh") -> None:
        super().__init__()
        self.features_dim = features_dim
        size = observation if isinstance(observation, int) else observation.shape[0]
        self.net = torch.nn.Sequential(
            torch.nn.Linear(size, features_dim), ACTIVATIONS[activation]()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


def _mlp(sizes: list[int], activation: str) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for size_in, size_out in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [torch.nn.Linear(size_in, size_out), ACTIVATIONS[activation]()]
    return torch.nn.Sequential(*layers)


class Heads(torch.nn.Module):
    """The policy and value layers after the shared one (SB3's ``MlpExtractor``)."""

    def __init__(self, features_dim: int, net_arch: list[int], activation: str) -> None:
        super().__init__()
        self.policy_net = _mlp([features_dim, *net_arch], activation)
        self.value_net = _mlp([features_dim, *net_arch], activation)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class SeatPolicy(torch.nn.Module):
    """A trained policy with torch alone: ``SeatPolicy.load("best.pt").act(obs, legal)``.

    The torch and RLlib trainers train it (``agents.trained.build_policy``); its layers and
    their names are those of sb3-contrib's ``MaskableActorCriticPolicy`` (the shared layer
    is registered as ``features_extractor`` and, as SB3 does, under its two aliases
    ``pi_``/``vf_features_extractor``), so the weights of either trainer load as they are."""

    def __init__(self, obs_size: int, n_actions: int, features_dim: int = 256,
                 net_arch: list[int] | tuple[int, ...] = (128,), activation: str = "tanh",
                 card_moves: CardMoves | None = None) -> None:  # fmt: skip
        super().__init__()
        net_arch = list(net_arch)
        self.features_extractor = SeatEncoder(obs_size, features_dim, activation)
        self.pi_features_extractor = self.vf_features_extractor = self.features_extractor
        self.mlp_extractor = Heads(features_dim, net_arch, activation)
        self.action_net = torch.nn.Linear(net_arch[-1], n_actions)
        self.value_net = torch.nn.Linear(net_arch[-1], 1)
        if card_moves is not None:
            self.card_head = CardHead(card_moves, net_arch[-1], n_actions, activation)

    @classmethod
    def shaped_for(cls, data: dict, card_moves: CardMoves | None = None) -> SeatPolicy:
        """An untrained policy of a checkpoint dict's shape; ``card_moves``: its game's,
        when it has a per-card head (``data["card_head"]``)."""
        return cls(data["obs_size"], data["n_actions"], data["features_dim"], data["net_arch"],
                   data["activation"], card_moves)  # fmt: skip

    @classmethod
    def load(cls, path, card_moves: CardMoves | None = None) -> SeatPolicy:
        """A checkpoint's policy (evaluation mode), read by ``torch.load(weights_only=True)``
        (``agents.trained.load_checkpoint`` adds the checks of a damaged file)."""
        data = torch.load(path, map_location="cpu", weights_only=True)
        policy = cls.shaped_for(data, card_moves)
        policy.load_state_dict(data["policy"])
        return policy.eval()

    def extract_features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.features_extractor(obs.float())

    def set_training_mode(self, mode: bool) -> None:
        self.train(mode)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Move logits of a batch of observations, illegal moves (``mask`` False) at -1e8."""
        latent = self.mlp_extractor.forward_actor(self.extract_features(obs))
        return action_logits(self, obs, latent).masked_fill(~mask, ILLEGAL_LOGIT)

    @torch.no_grad()
    def act(self, obs, legal: list[int]) -> int:
        """The most likely of the ``legal`` moves for one observation (a numpy vector)."""
        obs = torch.as_tensor(obs).unsqueeze(0)
        latent = self.mlp_extractor.forward_actor(self.extract_features(obs))
        logits = action_logits(self, obs, latent, torch.as_tensor(legal))[0]
        return int(legal[int(logits.argmax())])


def orthogonal_init(module: torch.nn.Module, gain: float) -> None:
    """PPO's initialisation (openai/baselines', as SB3 applies it): every linear layer of
    ``module`` orthogonal with ``gain``, biases zero."""
    for layer in module.modules():
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.orthogonal_(layer.weight, gain=gain)
            torch.nn.init.zeros_(layer.bias)


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


def legal_logits(policy, obs: np.ndarray, legals: list[list[int]]) -> list[np.ndarray]:
    """For each row of ``obs`` (one observation per row), the policy's logits of the moves
    ``legals[row]``, in that order. One network pass for all rows, the head only on the
    moves legal in some row."""
    rows = [a for legal in legals for a in legal]
    owner = [k for k, legal in enumerate(legals) for _ in legal]
    with torch.no_grad():
        obs_t = torch.as_tensor(obs)
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs_t))
        columns, at_column = np.unique(rows, return_inverse=True)
        table = action_logits(policy, obs_t, latent, torch.as_tensor(columns))
        logits = table[torch.as_tensor(owner), torch.as_tensor(at_column)].numpy()
    return np.split(logits, np.cumsum([len(legal) for legal in legals])[:-1])


def build_critic(in_size: int, net_arch: list[int], activation: str) -> torch.nn.Sequential:
    """A centralised critic (``net_arch``, then one value) over the seat's observation and
    what the seat does not see (``in_size`` in all), initialised as the policy's value
    layers: orthogonal, gain sqrt(2) in the hidden layers and 1 at the value."""
    critic = torch.nn.Sequential(
        *_mlp([in_size, *net_arch], activation), torch.nn.Linear(net_arch[-1], 1)
    )
    orthogonal_init(critic[:-1], np.sqrt(2))
    orthogonal_init(critic[-1], 1.0)
    return critic


def trained_parameters(policy: torch.nn.Module, critic: torch.nn.Module | None) -> list:
    """What PPO trains: the policy's parameters, or with a centralised ``critic`` the
    critic's in place of the policy's own value layers (left untrained)."""
    if critic is None:
        return list(policy.parameters())
    own_values = ("value_net.", "mlp_extractor.value_net.")
    kept = [p for name, p in policy.named_parameters() if not name.startswith(own_values)]
    return kept + list(critic.parameters())


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
    return columns, logits.masked_fill(~legal_entries(mask, columns), ILLEGAL_LOGIT), values


def legal_entries(mask: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
    """``mask[:, columns]`` (by numpy's take on the CPU: the same entries, 4x faster)."""
    if mask.device.type != "cpu":
        return mask[:, columns]
    return torch.from_numpy(mask.numpy().take(columns.numpy(), 1))
