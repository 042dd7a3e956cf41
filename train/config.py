"""Training configuration: one flat dataclass, ``TrainConfig``, made of sections, loaded
from YAML (``configs/*.yaml``).

The fields come in sections, each a dataclass with a docstring per field and its own
``check`` (run by ``TrainConfig.validate``): ``GameSection`` (the game and its options),
``NetSection`` (the network and the critic), ``PPOSection`` (PPO's hyperparameters),
``SelfPlaySection`` (the baseline seats, the rewards, cloning the baseline first),
``EvalSection`` (evaluations and checkpoints), ``ParallelSection`` (envs and processes) and
``RLlibSection``; the run's own fields (name, seed, trainer, total_steps, init_from) are
``TrainConfig``'s. A YAML file may be flat (every key at the top, as older files are) or
sectioned (``ppo: {n_steps: 64}``, the game as ``game: {name: dummy_rummy, game_options:
...}``); either way every field is an attribute of the config (``config.n_steps``).
An unknown key, a wrong type or a bad value is a clear error before training starts.

The game is ``game`` (a registry name, ``commoncause games``) and ``game_options`` (that
game's rules options, as its ``make_config`` takes them: for Common Cause ``level``,
``stock_size``, ``open_hands``, ``ace_low``, ``max_open_starts``, ``early_loss``,
``signal_rule``). The keys of older configs and checkpoints (``level``, ``stock_size``,
``open_hands``, ``ace_low``, ``max_open_starts`` at the top level) still load: they are moved
into ``game_options``.

The defaults are the recommended setup of ``configs/normal.yaml`` (the torch trainer from
scratch, no behaviour cloning, 10M steps on 64 envs), so an empty YAML file trains exactly
what ``make train`` trains.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from commoncause.envs.core.options import check_seed
from commoncause.envs.registry import DEFAULT_GAME

LEGACY_GAME_KEYS = ("level", "stock_size", "open_hands", "ace_low", "max_open_starts")
"""Top-level keys of Common Cause's options in configs before ``game_options``."""


def _at_least(config, minimum: int, *names: str) -> None:
    for name in names:
        if getattr(config, name) < minimum:
            what = "must be at least 1" if minimum else "must not be negative"
            raise ValueError(f"config {name} {what}, got {getattr(config, name)}")


def _positive(config, *names: str) -> None:
    for name in names:
        if not getattr(config, name) > 0:
            raise ValueError(f"config {name} must be positive, got {getattr(config, name)}")


@dataclass
class GameSection:
    """The game, its rules and the training games' length (YAML section ``game``)."""

    game: str = DEFAULT_GAME
    """The game (a registry name: ``commoncause games`` lists them)."""
    game_options: dict = field(default_factory=dict)
    """The game's rules options as its ``make_config`` takes them (Common Cause: level,
    stock_size, open_hands, ace_low, max_open_starts, early_loss, signal_rule); those not
    given are the game's defaults (none given: its default rules, Common Cause's normal)."""
    episode_options: dict = field(default_factory=dict)
    """Rules options drawn afresh for every training game, each a list of the values it
    takes, over ``game_options`` (Dummy rummy ``first_contract: [1, 2, ..., 12]``: one-hand
    episodes of every contract); none may change the number of seats. Torch and sb3
    trainers; cloning the baseline (``bc_games``) plays ``game_options`` alone."""
    eval_options: dict = field(default_factory=dict)
    """Rules options that replace ``game_options``' in the periodic and final evaluations
    (Dummy rummy ``hands: 0``: whole games, every contract)."""
    max_moves: int = 0
    """Moves after which a training game is cut short, paying nothing more (the env's
    truncation), instead of the game's own ``max_moves`` (0; Dummy rummy 5,000), so that a
    hand nobody can finish costs fewer steps. Training only: the evaluations keep the
    game's own. Torch and sb3 trainers."""

    def game_record(self):
        """The game's record in the registry (``envs/registry.py``)."""
        from commoncause.envs.registry import get_game

        return get_game(self.game)

    def game_config(self) -> Any:
        """The game's rules config from ``game_options`` (ValueError if bad)."""
        try:
            return self.game_record().make_config(**self.game_options)
        except TypeError as e:  # an option the game's make_config does not take
            raise ValueError(f"config game_options: {e}") from None

    def eval_config(self) -> Any:
        """The rules config of the evaluations: ``game_options`` with ``eval_options``."""
        try:
            return self.game_record().make_config(**(self.game_options | self.eval_options))
        except (TypeError, ValueError) as e:
            raise ValueError(f"config eval_options: {e}") from None

    def env_kwargs(self) -> dict:
        """Keyword options of the game's env (``SelfPlayEnv(game=..., **env_kwargs())``)."""
        return dict(self.game_options)

    def seats(self) -> int:
        """The number of seats of ``game_options``' rules."""
        return self.game_record().num_seats(self.game_config())

    def check(self) -> None:
        game = self.game_record()  # a known game
        if not isinstance(self.game_options, dict) or not all(
            isinstance(k, str) for k in self.game_options
        ):
            raise ValueError(f"config game_options must be a mapping, got {self.game_options!r}")
        seats = self.seats()  # (the game's options)
        for name in ("episode_options", "eval_options"):
            options = getattr(self, name)
            if not all(isinstance(k, str) for k in options):
                raise ValueError(f"config {name} must map option names, got {options!r}")
        self._check_episode_options(seats)
        if game.num_seats(self.eval_config()) != seats:
            raise ValueError("config eval_options must not change the number of seats")
        if type(self.max_moves) is not int or self.max_moves < 0:  # (a bool is no count)
            raise ValueError(f"config max_moves must be 0 (the game's own) or a positive int, "
                             f"got {self.max_moves!r}")  # fmt: skip
        if self.max_moves and self.trainer == "rllib":
            raise ValueError("config max_moves needs trainer torch or sb3 (the RLlib env "
                             "keeps the game's own)")  # fmt: skip
        if self.episode_options and self.trainer == "rllib":
            raise ValueError("config episode_options needs trainer torch or sb3 (the RLlib "
                             "env plays game_options only)")  # fmt: skip

    def _check_episode_options(self, seats: int) -> None:
        """Every listed value of every episode option makes a valid config of ``seats``."""
        game = self.game_record()
        for name, values in self.episode_options.items():
            if name in self.game_options:
                raise ValueError(f"config gives {name} in both game_options and episode_options")
            if not isinstance(values, list) or not values:
                raise ValueError(f"config episode_options {name} must be a list of values, "
                                 f"got {values!r}")  # fmt: skip
            for value in values:
                try:
                    rules = game.make_config(**self.game_options, **{name: value})
                except TypeError as e:
                    raise ValueError(f"config episode_options: {e}") from None
                except ValueError as e:
                    raise ValueError(f"config episode_options {name} {value!r}: {e}") from None
                if game.num_seats(rules) != seats:
                    raise ValueError(f"config episode_options {name} {value!r} changes the "
                                     "number of seats")  # fmt: skip


@dataclass
class NetSection:
    """The policy network and the value function's (YAML section ``net``)."""

    features_dim: int = 256
    """Width of the shared first layer over the observation."""
    net_arch: list[int] = field(default_factory=lambda: [128])
    """Hidden layers of the policy head and of the value head, after the shared layer."""
    activation: str = "tanh"
    """Hidden activation: tanh or relu."""
    card_head: bool = False
    """Add a per-card head (``agents.networks.CardHead``): one small MLP shared by the card
    types scores each one-card move (a discard...) from the card's neighbours in the hand,
    its type and the policy latent, on top of the linear head. For games with
    ``card_moves`` (Dummy rummy, Open Rummy)."""
    critic: str = "seat"
    """What the value function reads: seat (the policy's own value layers, on the seat's
    observation) or state (torch trainer only; a centralised critic, as MAPPO's: its own
    network, ``critic_net_arch``, on the seat's observation and what the seat does not see,
    e.g. the partner's hand and the stock in draw order; games with ``encode_hidden`` only,
    every shipped one; training only, never in play: checkpoints keep it for --resume, exports
    drop it; their policies' own value layers stay untrained, so init_from one into a
    seat-critic run starts that run's values afresh)."""
    critic_net_arch: list[int] = field(default_factory=lambda: [64])
    """Hidden layer sizes of the centralised critic (critic: state)."""

    def network_shape(self) -> tuple:
        """(features_dim, net_arch, activation, card_head): what a checkpoint must match."""
        return self.features_dim, list(self.net_arch), self.activation, self.card_head

    def check(self) -> None:
        _at_least(self, 1, "features_dim")
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"config activation must be tanh or relu, got {self.activation!r}")
        for name in ("net_arch", "critic_net_arch"):
            sizes = getattr(self, name)
            if not sizes or any(not isinstance(n, int) or n < 1 for n in sizes):
                raise ValueError(f"config {name} must be a list of layer sizes, got {sizes}")
        if not isinstance(self.card_head, bool):
            raise ValueError(f"config card_head must be true or false, got {self.card_head!r}")
        if self.card_head and self.game_record().card_moves is None:  # (neither trains with sb3)
            raise ValueError(f"config card_head needs a game with one-card moves "
                             f"(card_moves); {self.game} has none")  # fmt: skip
        if self.critic not in ("seat", "state"):
            raise ValueError(f"config critic must be seat or state, got {self.critic!r}")
        if self.critic == "state":
            if self.trainer != "torch":
                raise ValueError("config critic: state needs trainer: torch")
            if self.game_record().encode_hidden is None:
                raise ValueError(f"config critic: state needs a game that encodes what a seat "
                                 f"does not see (encode_hidden); {self.game} has none")  # fmt: skip
            if self.bc_games:
                raise ValueError(
                    "config critic: state starts its critic untrained, so bc_games "
                    "(which trains the policy's value layers) must be 0"
                )


@dataclass
class PPOSection:
    """PPO's hyperparameters (YAML section ``ppo``)."""

    n_steps: int = 32
    """Steps per env per rollout."""
    batch_size: int = 512
    """PPO minibatch size."""
    n_epochs: int = 1
    """PPO epochs per rollout."""
    learning_rate: float = 3e-4
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
    critic_warmup_steps: int = 0
    """Env steps at the start of a run in which the updates train the values alone (no
    policy or entropy loss; torch trainer): a fresh critic (critic: state after init_from,
    or a new reward) learns before its advantages steer the policy. With critic: seat the
    shared feature layers still move."""

    def check(self) -> None:
        _at_least(self, 1, "n_steps", "batch_size", "n_epochs")
        _at_least(self, 0, "critic_warmup_steps")
        _positive(self, "learning_rate", "clip_range")
        if not 0 < self.gamma <= 1 or not 0 <= self.gae_lambda <= 1:
            raise ValueError("config gamma must be in (0, 1] and gae_lambda in [0, 1]")
        if self.critic_warmup_steps and self.trainer != "torch":
            raise ValueError("config critic_warmup_steps needs trainer: torch")


@dataclass
class SelfPlaySection:
    """Who sits at the self-play games, what they are paid, and cloning the baseline before
    them (YAML section ``selfplay``)."""

    baseline_partner_prob: float = 0.2
    """Share of self-play games where the game's baseline plays ``baseline_seats`` seats: in
    Common Cause the partner (keeps the agent a good partner for unfamiliar players), in a
    competitive game opponents (keeps the agent honest against another style of play)."""
    baseline_seats: int = 1
    """Seats the baseline plays in those games (1 to the number of seats - 1)."""
    baseline_options: list[str] = field(default_factory=lambda: [""])
    """The baselines' option texts (``baseline:<options>`` without the prefix): each game
    with a baseline draws one. Several make a population of hand-written partners (the
    ``adhoc`` recipe: the benchmark's train split); [""] is the game's default baseline."""
    partners: list[str] = field(default_factory=list)
    """Team members (as ``eval --team`` names them for the run's config: a checkpoint path, a
    shipped policy such as ``trained``, ``FILE.py:Class``) that join ``baseline_options`` in
    the population the games with a baseline draw from (one entry of both lists, uniformly):
    trained partners beside the hand-written ones (a policy plays its most likely move). With
    partners, ``baseline_options`` may be empty. Torch and sb3 trainers."""
    reward_scale: float = 1.0
    """Multiplies every reward the learner is paid (not the logged returns): Dummy rummy's
    points are tens to hundreds a hand, so its configs use 0.01 to keep the value targets
    near 1; Common Cause's +-1 results keep 1.0."""
    reward_margin: bool = False
    """Competitive games: pay each seat its rewards minus the mean of the other seats'
    (zero-sum, ``train/selfplay.py``'s ``margins``), the margin the goals and the
    evaluations compare; False pays each seat its own points."""
    bc_games: int = 0
    """Baseline games whose decisions are imitated first (0: start from scratch, the
    recommended setup; see configs/normal.yaml)."""
    bc_epochs: int = 4
    """Passes over the cloning data."""
    bc_batch_size: int = 512
    """Minibatch size for cloning."""
    bc_learning_rate: float = 1e-3
    """Adam learning rate for cloning."""

    def selfplay_kwargs(self) -> dict:
        """Every keyword of the run's ``SelfPlayEnv``: the game, its options, the baseline
        seats and their population (baseline options, partners), and the rewards' scale and
        margin."""
        return {
            "baseline_partner_prob": self.baseline_partner_prob,
            "game": self.game,
            "baseline_seats": self.baseline_seats,
            **({"baseline_options": self.baseline_options}
               if self.baseline_options != [""] else {}),  # fmt: skip
            **({"partners": self.partners} if self.partners else {}),
            "reward_scale": self.reward_scale,
            "reward_margin": self.reward_margin,
            **({"episode_options": self.episode_options} if self.episode_options else {}),
            **({"max_moves": self.max_moves} if self.max_moves else {}),
            **self.env_kwargs(),
        }

    def _check_partners(self) -> None:
        """Each partner loads as a member of the run's game (a missing checkpoint, another
        game's policy or a class that does not load is named here, before training)."""
        from commoncause.agents.registry import for_config, make_agent

        partners = self.partners
        if not isinstance(partners, list) or not all(isinstance(p, str) for p in partners):
            raise ValueError(f"config partners must be a list of team members, got {partners!r}")
        if not partners:
            return
        if self.trainer == "rllib":
            raise ValueError("config partners needs trainer torch or sb3 (rllib seats no "
                             "baseline yet)")  # fmt: skip
        if not self.baseline_partner_prob:
            raise ValueError("config partners sit only in games with a baseline: set "
                             "baseline_partner_prob above 0")  # fmt: skip
        rules = self.game_config()
        for spec in partners:
            try:
                make_agent(for_config(spec, self.game, rules), self.game)
            except ValueError as e:
                raise ValueError(f"config partners {spec!r}: {e}") from None

    def check(self) -> None:
        game, seats = self.game_record(), self.seats()
        if isinstance(self.baseline_seats, bool) or not 1 <= self.baseline_seats < seats:
            raise ValueError(
                f"config baseline_seats must be 1 to {seats - 1} for {seats} seats, "
                f"got {self.baseline_seats}"
            )
        options = self.baseline_options
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise ValueError(
                f"config baseline_options must be a list of option texts, got {options!r}"
            )
        if not options and not self.partners:
            raise ValueError("config baseline_options lists no baseline and there are no "
                             "partners (write [''] for the game's default baseline)")  # fmt: skip
        for text in options:
            try:
                game.baseline(text)
            except ValueError as e:
                raise ValueError(f"config baseline_options {text!r}: {e}") from None
        self._check_partners()
        if not self.reward_scale > 0:
            raise ValueError(f"config reward_scale must be positive, got {self.reward_scale}")
        if not isinstance(self.reward_margin, bool):
            raise ValueError(
                f"config reward_margin must be true or false, got {self.reward_margin!r}"
            )
        if self.reward_margin and game.team:
            raise ValueError(
                f"config reward_margin is for competitive games: the seats of {self.game} share "
                "one return"
            )
        if not 0 <= self.baseline_partner_prob <= 1:
            raise ValueError("config baseline_partner_prob must be in [0, 1]")
        if self.trainer == "rllib" and self.baseline_partner_prob:
            raise ValueError("config baseline_partner_prob must be 0 with trainer rllib "
                             "(it seats no baseline yet)")  # fmt: skip
        _at_least(self, 1, "bc_epochs", "bc_batch_size")
        _at_least(self, 0, "bc_games")
        _positive(self, "bc_learning_rate")


@dataclass
class EvalSection:
    """Evaluations and checkpoints (YAML section ``eval``)."""

    eval_interval: int = 500_000
    """Evaluate against the baseline every this many steps."""
    eval_games: int = 1000
    """Games per periodic evaluation (fixed deal seeds)."""
    eval_seed: int = 20261129
    """Deal seed of the evaluations (the same deals every time)."""
    final_eval_games: int = 2000
    """Games of the final comparison with the baseline team."""
    checkpoint_interval: int = 2_000_000
    """Keep a periodic checkpoint every this many steps."""
    out_dir: str = "runs"
    """Where runs (TensorBoard logs and checkpoints) are written."""

    def check(self) -> None:
        check_seed(self.eval_seed, "config eval_seed")
        _at_least(self, 1, "eval_interval", "eval_games", "final_eval_games",
                  "checkpoint_interval")  # fmt: skip


@dataclass
class ParallelSection:
    """The self-play envs and the processes and threads that run them (YAML section
    ``parallel``)."""

    n_envs: int = 64
    """Parallel self-play games."""
    vec_env: str = "dummy"
    """subproc (worker processes, both cores) or dummy (one process); sb3 trainer only (the
    torch trainer's are ``rollout_workers``)."""
    torch_threads: int = 1
    """Torch threads of the updates (the torch trainer's rollouts use one per process; sb3
    and the RLlib driver use this many throughout). More than 1 pays only on idle cores:
    with another process on the second of two cores, 2 threads made an update 4x slower."""
    rollout_workers: int = 2
    """Processes that step the envs and run the policy during a rollout, the learner's own
    included, each on its share of the ``n_envs`` (at most ``n_envs``); torch trainer only
    (sb3: ``vec_env``, rllib: ``rllib.num_env_runners``). More than 1 forks (Linux; elsewhere
    use 1). 2 puts both cores of a two-core machine to work."""

    def check(self) -> None:
        _at_least(self, 1, "n_envs", "torch_threads", "rollout_workers")
        if self.vec_env not in ("subproc", "dummy"):
            raise ValueError(f"config vec_env must be subproc or dummy, got {self.vec_env!r}")


@dataclass
class RLlibSection:
    """Ray RLlib's settings (YAML section ``rllib``: the same mapping as the flat key)."""

    rllib: dict = field(default_factory=dict)
    """trainer rllib only: Ray settings (train/rllib_config.py: address, num_env_runners,
    num_envs_per_env_runner, num_learners, policies)."""

    def check(self) -> None:
        from .rllib_config import RLlibConfig

        RLlibConfig.from_dict(self.rllib)


SECTIONS = {"game": GameSection, "net": NetSection, "ppo": PPOSection,
            "selfplay": SelfPlaySection, "eval": EvalSection, "parallel": ParallelSection,
            "rllib": RLlibSection}  # fmt: skip
"""YAML section name -> its dataclass (``rllib``'s mapping is its one field's value)."""


@dataclass
class TrainConfig(RLlibSection, ParallelSection, EvalSection, SelfPlaySection, PPOSection,
                  NetSection, GameSection):  # fmt: skip
    """A training run's settings: the run's own fields and every section's, flat."""

    name: str = "normal"
    """Run name prefix: runs are named ``{name}__{seed}__{time}``."""
    seed: int = 0
    """Seed of the deals, the networks and the sampling."""
    trainer: str = "torch"
    """PPO implementation: torch (the lean masked PPO of train/ppo.py), sb3 (sb3-contrib
    MaskablePPO, train/sb3.py) or rllib (Ray RLlib, train/rllib.py; the rllib extra): same
    network, games, hyperparameters and checkpoints; torch runs ~5x the steps/s of sb3."""
    total_steps: int = 10_000_000
    """Learner decisions (env steps) of self-play PPO."""
    init_from: str | None = None
    """Start from this checkpoint's policy weights (a new run: no cloning, a fresh optimizer;
    the network shape must match)."""

    def validate(self, check_files: bool = True) -> None:
        """Check every field, section by section; ``check_files`` also opens ``init_from``
        (a resumed run never reads it again, so resuming does not check it)."""
        if self.trainer not in ("sb3", "torch", "rllib"):
            raise ValueError(f"config trainer must be sb3, torch or rllib, got {self.trainer!r}")
        GameSection.check(self)
        if not self.game_record().team and self.trainer == "sb3":
            raise ValueError(
                f"config trainer sb3 trains team games only (one reward stream); {self.game} is "
                "competitive: use trainer torch (one trajectory per seat, train/ppo.py)"
            )
        check_seed(self.seed, "config seed")
        _at_least(self, 0, "total_steps")
        for section in SECTIONS.values():
            if section is not GameSection:
                section.check(self)
        if self.init_from is not None and check_files:
            from commoncause.agents.trained import load_checkpoint

            start = load_checkpoint(self.init_from, game=self.game)
            shape = (start["features_dim"], list(start["net_arch"]), start["activation"],
                     bool(start.get("card_head")))  # fmt: skip
            if shape != (mine := self.network_shape()):
                raise ValueError(
                    f"config init_from {self.init_from} has the network {shape} (features_dim, "
                    f"net_arch, activation, card_head), the config {mine}"
                )

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
        if origin in (bool, str, list, dict) and isinstance(value, origin):
            return
    raise ValueError(f"config {name} must be {annotation}, got {value!r}")


def _migrate(data: dict) -> dict:
    """Move the top-level game keys of older configs into ``game_options``."""
    legacy = {k: data[k] for k in LEGACY_GAME_KEYS if k in data}
    if not legacy:
        return data
    if data.get("game", DEFAULT_GAME) != DEFAULT_GAME:  # older configs: the default game's
        raise ValueError(
            f"config key(s) {', '.join(legacy)} belong in game_options (game {data['game']})"
        )
    options = data.get("game_options") or {}
    if not isinstance(options, dict):
        return data  # the type check names it
    both = sorted(set(legacy) & set(options))
    if both:
        raise ValueError(f"config gives {', '.join(both)} both at the top and in game_options")
    data = {k: v for k, v in data.items() if k not in legacy}
    legacy = {k: v for k, v in legacy.items() if v is not None}  # stock_size: null
    data["game_options"] = legacy | options
    return data


def _flatten(data: dict) -> dict:
    """A sectioned mapping's keys moved to the top (a flat one stays as it is): each section
    (``SECTIONS``) holds its own fields, the game section names its game ``name``; ``game``
    given as a name and ``rllib`` are the flat keys."""
    flat, nested = {}, {}
    for key, value in data.items():
        if key not in SECTIONS or key == "rllib" or (key == "game" and not isinstance(value, dict)):
            flat[key] = value
            continue
        if not isinstance(value, dict):
            raise ValueError(f"config section {key} must be a mapping of its keys, got {value!r}")
        names = {("name" if f.name == "game" else f.name): f.name for f in fields(SECTIONS[key])}
        for inner, v in value.items():
            if inner not in names:
                raise ValueError(f"config section {key} has no key {inner}; its keys: "
                                 f"{', '.join(names)}")  # fmt: skip
            nested[names[inner]] = v
    if twice := sorted(set(flat) & set(nested)):
        raise ValueError(f"config gives {', '.join(twice)} both at the top and in a section")
    return flat | nested


def config_from_dict(data: dict, check_files: bool = True) -> TrainConfig:
    """A validated config from a mapping (a YAML file, or a checkpoint's saved config);
    ``check_files=False`` leaves ``init_from`` unopened (resuming)."""
    data = _migrate(_flatten(data))
    known = {f.name: f for f in fields(TrainConfig)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(
            f"unknown config key(s) {', '.join(unknown)}; known keys: {', '.join(known)}"
        )
    for name, value in data.items():
        _check_type(name, value, known[name].type)
    config = TrainConfig(**data)
    config.validate(check_files)
    return config


def load_config(path: str | Path) -> TrainConfig:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config file {path} not found")
    try:
        data = yaml.safe_load(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"config file {path} is not a text (YAML) file") from None
    except yaml.YAMLError as e:
        raise ValueError(f"config file {path} is not valid YAML: {_yaml_problem(e)}") from None
    if data is None:  # (not the defaults: an empty file is a config not written yet)
        raise ValueError(
            f"config file {path} is empty: give at least its game (configs/normal.yaml is "
            "the recommended setup)"
        )
    if not isinstance(data, dict):
        raise ValueError(f"config file {path} must be a mapping of keys to values")
    return config_from_dict(data)


def _yaml_problem(error) -> str:
    """One line from a YAML error: what is wrong and where (line and column, 1-based)."""
    problem = getattr(error, "problem", None) or getattr(error, "context", None)
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    text = " ".join(str(problem or type(error).__name__).split())
    if mark is not None:
        text += f" at line {mark.line + 1}, column {mark.column + 1}"
    return text
