"""A trained policy as an agent, and the checkpoint format it loads.

A checkpoint is a plain ``torch.save`` dict of tensors and primitives, loaded with
``torch.load(weights_only=True)``: loading never runs code from the file. It holds the
policy weights (``networks.SeatPolicy``: sb3-contrib's layers), the network shape, the game
(``game``, a registry name; absent in older checkpoints, which are Common Cause's), the
observation/action sizes and env version it was trained for, and, for resuming, the
optimizer state, step count and the training config and model card. Sizes come from the
game's record, never from one game's constants. A damaged file is refused: the zip checksums
torch writes must match, the weights must be finite, and ``digest`` (``weights_digest``; in
checkpoints saved since issue 36) must match the weights.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np

from commoncause import ROOT
from commoncause.envs.registry import DEFAULT_GAME, get_game

from .base import ILLEGAL_LOGIT

FORMAT = "commoncause-policy-v1"
DEFAULT_CHECKPOINT = ROOT / "checkpoints" / "normal" / "best.pt"
"""Common Cause's shipped partner (the default game's ``trained``)."""


def shipped_checkpoint(game: str = DEFAULT_GAME, config=None) -> Path:
    """The shipped policy of a game for a config (default: the game's default config), as
    its record names it; a ValueError when the game ships none."""
    record = get_game(game)
    relative = record.checkpoint(config if config is not None else record.make_config())
    path = None if relative is None else ROOT / relative
    if path is None or not path.is_file():
        label = record.make_config().label() if config is None else config.label()
        raise ValueError(
            f"{record.title} ships no trained policy for {label}; name a checkpoint path"
        )
    return path


def build_policy(
    features_dim: int,
    net_arch: list[int],
    activation: str = "tanh",
    obs_size: int | None = None,
    n_actions: int | None = None,
    card_moves=None,
):
    """An untrained policy network of the given shape (CPU, a ``networks.SeatPolicy``), for
    observations of ``obs_size`` and ``n_actions`` moves (default: those of the default
    game), initialised as sb3-contrib's ``MaskableActorCriticPolicy`` is (the same weights
    from the same torch seed); with ``card_moves`` (a game's ``CardMoves``) it has a
    per-card head (``networks.CardHead``, the module ``card_head``)."""
    from .networks import CardHead, SeatPolicy, orthogonal_init

    if obs_size is None or n_actions is None:
        default = get_game(DEFAULT_GAME)
        obs_size = default.observation_size if obs_size is None else obs_size
        n_actions = default.num_actions if n_actions is None else n_actions
    policy = SeatPolicy(obs_size, n_actions, features_dim, net_arch, activation)
    for part, gain in ((policy.features_extractor, np.sqrt(2)), (policy.mlp_extractor, np.sqrt(2)),
                       (policy.action_net, 0.01), (policy.value_net, 1.0)):  # fmt: skip
        orthogonal_init(part, gain)
    if card_moves is not None:
        policy.card_head = CardHead(card_moves, net_arch[-1], n_actions, activation)
    return policy


def checkpoint_card_moves(data: dict):
    """The ``CardMoves`` of a checkpoint's per-card head (None: it has none; older
    checkpoints have none)."""
    return get_game(data["game"]).card_moves if data.get("card_head") else None


def _load_error(path: Path, error: Exception) -> str:
    """One line of our own for a file torch cannot load with ``weights_only=True`` (torch's
    own message advises loading unsafely and carries terminal colour codes)."""
    text = str(error)
    if "Unsupported global" in text:
        name = re.search(r"GLOBAL ([\w.]+)", text)
        what = f" ({name.group(1)})" if name else ""
        return (
            f"checkpoint {path} holds a Python object{what} besides tensors and plain data; "
            "it is not loaded, since loading it could run code from the file"
        )
    return f"checkpoint {path} is corrupted or not a checkpoint (torch cannot read it)"


def weights_digest(data: dict) -> str:
    """SHA-256 of a checkpoint's weights (``policy``, and ``critic`` where it has one): each
    tensor's name, dtype, shape and bytes, in order."""
    import torch

    digest = hashlib.sha256()
    for part in ("policy", "critic"):
        for name, tensor in data.get(part, {}).items():
            flat = tensor.detach().cpu().contiguous().reshape(-1)
            digest.update(f"{part}.{name}:{flat.dtype}:{tuple(tensor.shape)};".encode())
            digest.update(flat.view(dtype=torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def _check_intact(path: Path, data: dict) -> None:
    """A one-line ValueError if the weights are not finite or do not match ``digest``."""
    import torch

    for part in ("policy", "critic"):
        for name, tensor in data.get(part, {}).items():
            if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
                raise ValueError(
                    f"checkpoint {path} is damaged: its weights {part}.{name} are not finite "
                    "(NaN or infinite)"
                )
    if "digest" in data and data["digest"] != weights_digest(data):
        raise ValueError(
            f"checkpoint {path} is damaged: its weights do not match the digest saved with them"
        )


def _check_checksums(path: Path) -> None:
    """A one-line ValueError if the file is a zip (as ``torch.save`` writes) whose entries do
    not match their stored CRC-32 checksums (bytes overwritten by a disk or copy error)."""
    if not zipfile.is_zipfile(path):
        return  # (torch.load names what is wrong with it)
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        raise ValueError(f"checkpoint {path} is damaged: {' '.join(str(e).split())}") from None
    if bad is not None:
        raise ValueError(f"checkpoint {path} is damaged: {bad} does not match its checksum")


def load_checkpoint(path: str | Path, game: str | None = None) -> dict:
    """The checkpoint dict; a one-line ValueError naming the problem if missing, corrupted
    or damaged (checksums, non-finite weights, ``digest``), foreign, for another game than
    ``game`` (when given), or of the wrong size for its game. Checkpoints from before games
    were recorded are Common Cause's. (The one loader of eval, play, export and resume.)"""
    import torch

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} not found")
    _check_checksums(path)
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # truncated file, not a torch file, unsafe content
        raise ValueError(_load_error(path, e)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a commoncause policy checkpoint ({FORMAT})")
    _check_intact(path, data)
    name = data.setdefault("game", DEFAULT_GAME)
    if game is not None and name != game:
        raise ValueError(f"checkpoint {path} is a policy for the game {name}, not {game}")
    try:
        record = get_game(name)
    except ValueError as e:
        raise ValueError(f"checkpoint {path}: {e}") from None
    if data.get("obs_size") != record.observation_size or data.get("n_actions") != (
        record.num_actions
    ):
        raise ValueError(
            f"checkpoint {path} was trained for observations of {data.get('obs_size')} and "
            f"{data.get('n_actions')} actions ({data.get('env_version')}); {record.env_name} "
            f"has {record.observation_size} and {record.num_actions}"
        )
    return data


def policy_from_checkpoint(data: dict):
    """The checkpoint's policy network, a plain torch module (``networks.SeatPolicy``, in
    evaluation mode); a one-line ValueError if its weights do not fit the network shape it
    records."""
    from .networks import SeatPolicy

    policy = SeatPolicy.shaped_for(data, checkpoint_card_moves(data))
    expected = {k: tuple(v.shape) for k, v in policy.state_dict().items()}
    given = {k: tuple(v.shape) for k, v in data["policy"].items()}
    shape = f"features_dim {data['features_dim']}, net_arch {list(data['net_arch'])}"
    if data.get("card_head"):
        shape += ", a per-card head"
    if set(expected) != set(given):
        odd = sorted(set(expected) ^ set(given))
        raise ValueError(f"checkpoint weights do not fit the network ({shape}): layers {odd}")
    for key, size in expected.items():
        if given[key] != size:
            raise ValueError(
                f"checkpoint weights do not fit the network ({shape}): {key} is "
                f"{list(given[key])}, the network's {list(size)}"
            )
    policy.load_state_dict(data["policy"])
    return policy.eval()


def masked_logits(policy, obs, mask):
    """Action logits of ``policy`` for a batch, illegal moves at -1e8 (torch tensors)."""
    from .networks import action_logits

    latent_pi = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
    return action_logits(policy, obs, latent_pi).masked_fill(~mask, ILLEGAL_LOGIT)


def masked_logits_and_values(policy, obs, mask):
    """``masked_logits`` and the value estimates (flat) from one pass of the shared layer."""
    from .networks import action_logits

    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    logits = action_logits(policy, obs, latent_pi).masked_fill(~mask, ILLEGAL_LOGIT)
    return logits, policy.value_net(latent_vf).flatten()


_POLICIES: OrderedDict[tuple, tuple[dict, object]] = OrderedDict()
"""Loaded checkpoints and their networks by (file, modification time, size): agents of one
file share one read-only network (a server with many games loads it once)."""
_POLICY_CACHE_SIZE = 8


def _shared_policy(path: Path, game: str | None) -> tuple[dict, object]:
    if not path.is_file():
        raise ValueError(f"checkpoint {path} not found")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)
    if key in _POLICIES:
        _POLICIES.move_to_end(key)
        data, policy = _POLICIES[key]
        if game is not None and data["game"] != game:
            raise ValueError(
                f"checkpoint {path} is a policy for the game {data['game']}, not {game}"
            )
        return data, policy
    data = load_checkpoint(path, game)
    entry = (data, policy_from_checkpoint(data))
    _POLICIES[key] = entry
    while len(_POLICIES) > _POLICY_CACHE_SIZE:
        _POLICIES.popitem(last=False)
    return entry


def trained_spec(game: str, config) -> str:
    """What ``trained`` means for a game and config as a team member: ``trained`` when it is
    the default config's shipped policy, else that config's checkpoint path; a ValueError
    when the game ships none for the config."""
    path = shipped_checkpoint(game, config)
    try:
        default = shipped_checkpoint(game)
    except ValueError:
        default = None
    return "trained" if path == default else str(path)


def member_label(spec: str, game: str, config) -> str:
    """A member as a person reads it: ``trained`` for the config's shipped policy (which
    ``trained_spec`` spells as its path where the config is not the game's default)."""
    try:
        return "trained" if Path(spec) == shipped_checkpoint(game, config) else spec
    except ValueError:  # the game ships none for this config
        return spec


class PolicyAgent:
    """Plays the policy's most likely legal move (``deterministic``) or samples from it."""

    def __init__(
        self,
        path: str | Path = DEFAULT_CHECKPOINT,
        deterministic: bool = True,
        game: str | None = None,
    ) -> None:
        import torch

        torch.set_num_threads(1)
        self.path = Path(path)
        self.checkpoint, self.policy = _shared_policy(self.path, game)
        self.game = self.checkpoint["game"]
        self.n_actions = int(self.checkpoint["n_actions"])
        self.deterministic = deterministic
        self.name = f"trained:{self.path}"
        self.generator = torch.Generator().manual_seed(0)

    def reset(self, seed: int) -> None:
        self.generator.manual_seed(seed)

    def probabilities(self, view) -> np.ndarray:
        """The policy's move probabilities (zero on illegal moves)."""
        import torch

        from .networks import action_logits

        legal = view.legal_actions()
        obs = torch.as_tensor(view.observation()).unsqueeze(0)
        policy = self.policy
        with torch.no_grad():  # the action head only on the legal moves: the same softmax
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
            logits = action_logits(policy, obs, latent, torch.as_tensor(legal))[0]
            probs = np.zeros(self.n_actions, dtype=np.float32)
            probs[legal] = torch.softmax(logits, dim=0).numpy()
        return probs

    def probabilities_batch(self, views: list) -> np.ndarray:
        """``probabilities`` of each view, shape (len(views), n_actions), in one network pass."""
        import torch

        obs = torch.as_tensor(np.stack([view.observation() for view in views]))
        mask = torch.zeros((len(views), self.n_actions), dtype=torch.bool)
        for i, view in enumerate(views):
            mask[i, view.legal_actions()] = True
        with torch.no_grad():
            return torch.softmax(masked_logits(self.policy, obs, mask), dim=1).numpy()

    def act(self, view) -> int:
        import torch

        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        probs = self.probabilities(view)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(torch.multinomial(torch.as_tensor(probs), 1, generator=self.generator))

    @property
    def batch_key(self) -> tuple | None:
        """Agents with the same key act together (``act_batch``): the deterministic agents
        of one network (``arena.play_side_by_side``); a sampling agent, or a subclass with
        its own ``act``, acts alone."""
        if not self.deterministic or type(self).act is not PolicyAgent.act:
            return None
        return ("policy", id(self.policy))

    NEAR_TIE = 1e-3
    """Where a batch's two best logits are closer than this, the move is taken alone: a
    batch's rounding (last bits of float32) cannot then reorder the two, so every move is
    exactly ``act``'s."""

    @staticmethod
    def act_batch(agents: list[PolicyAgent], views: list) -> list[int]:
        """Each agent's ``act`` on its view, with one network pass for all the views with
        several legal moves (agents of one ``batch_key``; near ties taken alone)."""
        from .networks import legal_logits

        legals = [view.legal_actions() for view in views]
        moves = [legal[0] for legal in legals]
        asked = [k for k, legal in enumerate(legals) if len(legal) > 1]
        if not asked:
            return moves
        obs = np.stack([views[k].observation() for k in asked])
        logits = legal_logits(agents[0].policy, obs, [legals[k] for k in asked])
        for k, scores in zip(asked, logits, strict=True):
            second, best = np.partition(scores, -2)[-2:]
            close = best - second < PolicyAgent.NEAR_TIE
            moves[k] = agents[k].act(views[k]) if close else legals[k][int(np.argmax(scores))]
        return moves
