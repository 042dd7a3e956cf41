"""PPO on Ray RLlib (``trainer: rllib``): the third trainer behind ``train/trainer.py``.

The run is the project's: the same config (``TrainConfig``, plus its ``rllib:`` section,
``train/rllib_config.py``), the same ``Trainer`` loop with its evaluations against the
baseline on fixed deals, ``best.pt``/``last.pt``/``step_N.pt`` checkpoints in the project's
policy format with model cards, TensorBoard metrics, ``--resume`` and ``init_from``. Only
the learning is RLlib's: PPO on the new API stack, the game's PettingZoo env in RLlib's
``PettingZooEnv`` (``train/rllib_env.py``), the project's masked network as an RLModule
(``train/rllib_module.py``), one shared policy or one per seat (``rllib.policies``).

Mapping of the config: a training iteration is ``n_envs * n_steps`` env steps (the own
PPO's rollout), spread over ``rllib.num_env_runners`` x ``rllib.num_envs_per_env_runner``
games; ``batch_size`` is the minibatch, ``n_epochs``, ``gamma``, ``gae_lambda``,
``clip_range``, ``ent_coef``, ``vf_coef``, ``max_grad_norm`` (global norm) and
``learning_rate`` (linear decay to 0 at ``total_steps`` with ``lr_decay``) map one to one.
Not used: ``target_kl`` (RLlib has no early stop of an update; the KL penalty is off),
``vec_env``; ``baseline_partner_prob`` must be 0.

The ``Trainer`` reads a model's ``policy`` (a local copy of the trained network, refreshed
from the learner after every iteration; ``policy.optimizer`` is the learner's optimizer
state, saved and restored with checkpoints), ``num_timesteps`` (env steps: the learners'
decisions, forced moves not counted) and ``logger``. The RLlib algorithm is built when
learning starts, from the weights the ``Trainer`` put in ``policy`` (fresh, ``init_from``
or resumed): so a shipped checkpoint starts an RLlib run, and every checkpoint an RLlib run
writes is a policy the rest of the project plays (``eval``, ``play``, ``analyze``).

Ray: ``rllib.address`` joins a cluster, else a private local instance is started with its
files in a temporary folder (not /tmp/ray), removed at the end; RLlib's own result folder
is ``{run_dir}/rllib`` (not ~/ray_results). Workers get the project through the runtime
env (the repository, less what is ignored, or the installed package) and one torch thread
each. RLlib's env pre-check is off: it steps random unmasked actions, which the env refuses.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

try:
    import ray
except ImportError:
    raise ValueError(
        "trainer rllib needs Ray RLlib, which is not installed in this environment: run "
        "`make rllib` and use .venv-rllib/bin/commoncause (or pip install 'commoncause[rllib]')"
    ) from None
import torch

from commoncause import ROOT

from .config import TrainConfig
from .rllib_config import RLlibConfig

DESCRIPTION = "PPO on Ray RLlib, train/rllib.py"
SHARED = "shared"
EXCLUDES = [".git", ".venv*", "runs", "records", "reports", "bench", "docs", "tests",
            "checkpoints", "*.egg-info", "build", "out*"]  # fmt: skip
"""Not shipped to the workers from a source checkout (they need only the code)."""


def runtime_env() -> dict:
    """What every Ray worker gets: the project (workers do not see the driver's
    ``sys.path``) and one torch thread per process (the default threads made the learner
    4x slower on two cores)."""
    env = {"env_vars": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}}
    if (ROOT / "commoncause").is_dir():  # a source checkout: the repository's code
        env |= {"working_dir": str(ROOT), "excludes": EXCLUDES}
    else:  # an installed package: everything lives inside it
        env["py_modules"] = [str(ROOT)]
    return env


class RaySession:
    """The run's Ray: joined (``address``) or a private local instance whose files live in
    a temporary folder; ``close`` stops the algorithm, shuts Ray down and removes it."""

    def __init__(self, settings: RLlibConfig) -> None:
        self.temp_dir: str | None = None
        self.algo = None
        options = {"runtime_env": runtime_env(), "logging_level": "WARNING",
                   "include_dashboard": False}  # fmt: skip
        if settings.address is None:
            self.temp_dir = tempfile.mkdtemp(prefix="ccray-")  # short: socket paths are capped
            cpus = max(os.cpu_count() or 1, settings.num_env_runners)  # runners need 1 each
            ray.init(num_cpus=cpus, _temp_dir=self.temp_dir, **options)
        else:
            try:
                ray.init(address=settings.address, **options)
            except (ConnectionError, RuntimeError) as e:  # no cluster there
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise ValueError(f"config rllib.address {settings.address}: {first}") from None

    def close(self) -> None:
        if self.algo is not None:
            self.algo.stop()
            self.algo = None
        ray.shutdown()
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)


def _shared(agent_id, episode, **kwargs) -> str:
    return SHARED


def _own(agent_id, episode, **kwargs) -> str:
    return agent_id


def module_ids(config: TrainConfig) -> list[str]:
    """The policies of a run: ``shared``, or one per seat (named after the seats)."""
    if RLlibConfig.from_dict(config.rllib).policies == SHARED:
        return [SHARED]
    return list(config.game_record().seat_names(config.game_config()))


def learning_rate(config: TrainConfig, start: int):
    """RLlib's ``lr``: the config's rate, or with ``lr_decay`` a schedule over the steps of
    this leg (RLlib counts from 0) reaching 0 at ``total_steps``, as the own PPO's."""
    if not config.lr_decay:
        return config.learning_rate
    now = config.learning_rate * max(0.0, 1.0 - start / config.total_steps)
    return [[0, now], [max(1, config.total_steps - start), 0.0]]


def algorithm_config(config: TrainConfig, start: int = 0):
    """The RLlib ``PPOConfig`` of a training config (``start``: steps already trained)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_env import RLlibGameEnv
    from .rllib_module import MaskedPolicyModule

    settings = RLlibConfig.from_dict(config.rllib)
    modules = module_ids(config)
    spec = RLModuleSpec(
        module_class=MaskedPolicyModule,
        model_config={"features_dim": config.features_dim, "net_arch": list(config.net_arch),
                      "activation": config.activation, "game": config.game,
                      "card_head": config.card_head},
    )  # fmt: skip
    env_config = {"game": config.game, "options": config.env_kwargs(),
                  "reward_scale": config.reward_scale,
                  "reward_margin": config.reward_margin}  # fmt: skip
    return (
        PPOConfig()
        .environment(RLlibGameEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=settings.num_env_runners,
            num_envs_per_env_runner=settings.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=settings.num_learners)
        .multi_agent(
            policies=set(modules), policy_mapping_fn=_shared if modules == [SHARED] else _own
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, spec)))
        .training(
            train_batch_size_per_learner=config.n_envs * config.n_steps,
            minibatch_size=config.batch_size,
            num_epochs=config.n_epochs,
            lr=learning_rate(config, start),
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip_range,
            entropy_coeff=config.ent_coef,
            vf_loss_coeff=config.vf_coef,
            grad_clip=config.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .debugging(seed=config.seed, log_level="WARN")
    )


def _first(results) -> object:
    """The first learner's answer of a ``foreach_learner`` call."""
    return next(iter(results)).get()


class LearnerOptimizer:
    """The learner's optimizer of the saved policy, as ``Trainer`` saves and restores it
    (``state_dict``, ``load_state_dict``); before the learner exists, the state it will
    start from."""

    def __init__(self, model: RLlibModel, initial: dict) -> None:
        self.model = model
        self.pending = initial

    def state_dict(self) -> dict:
        algo, module = self.model.algo, self.model.modules[0]
        if algo is None:
            return self.pending
        return _first(algo.learner_group.foreach_learner(
            lambda learner: learner.get_optimizer(module).state_dict()
        ))  # fmt: skip

    def load_state_dict(self, state: dict) -> None:
        self.pending = state
        if self.model.algo is not None:
            self.model.push_optimizer()


class RLlibModel:
    """What ``Trainer`` reads of a model (``policy``, ``num_timesteps``, ``logger``) over an
    RLlib algorithm, built by ``start``."""

    def __init__(self, config: TrainConfig, session: RaySession, run_dir: str | Path) -> None:
        from stable_baselines3.common.logger import configure

        from commoncause.agents.trained import build_policy

        torch.set_num_threads(config.torch_threads)
        torch.manual_seed(config.seed)
        self.config, self.session, self.run_dir = config, session, Path(run_dir)
        game = config.game_record()
        self.policy = build_policy(config.features_dim, config.net_arch, config.activation,
                                   game.observation_size, game.num_actions,
                                   game.card_moves if config.card_head else None)  # fmt: skip
        fresh = torch.optim.Adam(self.policy.parameters(), lr=0.0, eps=1e-5)
        self.policy.optimizer = LearnerOptimizer(self, fresh.state_dict())
        self.modules = module_ids(config)
        self.num_timesteps = 0
        self.logger = configure(str(run_dir), ["tensorboard"])
        self.algo = None
        self._start_steps = 0

    def start(self) -> None:
        """Build the algorithm from ``policy`` (every module starts from its weights) and the
        optimizer state, for the steps from ``num_timesteps`` to the config's total."""
        from ray.tune.trainable import trainable

        from .rllib_module import from_policy_state

        trainable.DEFAULT_STORAGE_PATH = str((self.run_dir / "rllib").resolve())
        self._start_steps = int(self.num_timesteps)
        algo = algorithm_config(self.config, self._start_steps).build_algo()
        self.algo = self.session.algo = algo
        weights = from_policy_state(self.policy.state_dict())
        self.algo.learner_group.set_weights(dict.fromkeys(self.modules, weights))
        loaded = self.module_weights(self.modules[0])  # (RLlib ignores keys it does not know)
        if any(not torch.equal(loaded[k], v) for k, v in self.policy.state_dict().items()):
            raise RuntimeError("the policy's weights did not load into RLlib's learner")
        self.push_optimizer()
        self.algo.env_runner_group.sync_weights(
            from_worker_or_learner_group=self.algo.learner_group, inference_only=True,
            timeout_seconds=60.0,
        )  # fmt: skip

    def push_optimizer(self) -> None:
        """Give every module's learner optimizer the state in ``policy.optimizer``, where it
        holds one (a resumed run); a fresh optimizer's state has none to give."""
        state = self.policy.optimizer.pending
        if not state.get("state"):
            return
        modules = self.modules
        self.algo.learner_group.foreach_learner(
            lambda learner: [learner.get_optimizer(m).load_state_dict(state) for m in modules]
        )

    def module_weights(self, module: str) -> dict:
        """A module's weights from the learner, as checkpoint weights."""
        from .rllib_module import to_policy_state

        return to_policy_state(self.algo.learner_group.get_weights([module])[module])

    def iterate(self) -> dict:
        """One RLlib training iteration; then ``policy`` and ``num_timesteps`` follow the
        learner, and its metrics go to TensorBoard under ``rllib/``."""
        result = self.algo.train()
        runners = result["env_runners"]
        self.num_timesteps = self._start_steps + int(runners["num_env_steps_sampled_lifetime"])
        self.policy.load_state_dict(self.module_weights(self.modules[0]))
        for group in ("env_runners", "learners", "timers"):
            for key, value in _scalars(result.get(group, {}), f"rllib/{group}"):
                self.logger.record(key, value)
        return result


def _scalars(tree: dict, prefix: str):
    """(path, number) of every numeric leaf of a result tree."""
    for key, value in tree.items():
        path = f"{prefix}/{key}"
        if isinstance(value, dict):
            yield from _scalars(value, path)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            yield path, float(value)


# --- the trainer's face to ``Trainer`` (train/trainer.py), as train/ppo.py has ------------
def make_envs(config: TrainConfig, env_fns: list) -> RaySession:
    """Ray for the run (the games are RLlib's env runners; ``env_fns`` are not used)."""
    return RaySession(RLlibConfig.from_dict(config.rllib))


def make_model(config: TrainConfig, session: RaySession, run_dir: str | Path) -> RLlibModel:
    return RLlibModel(config, session, run_dir)


def learn(model: RLlibModel, total_steps: int, monitor) -> None:
    """RLlib iterations until ``num_timesteps`` reaches ``total_steps``; with one policy per
    seat, each seat's policy is then saved as ``player_<k>.pt`` beside the checkpoints."""
    model.start()
    monitor.start()
    while model.num_timesteps < total_steps:
        model.iterate()
        monitor.on_rollout_end()
        monitor.on_step([], [])
        model.logger.dump(model.num_timesteps)
    if model.modules != [SHARED]:
        export_seats(model, monitor.trainer)


def export_seats(model: RLlibModel, trainer) -> list[Path]:
    """Save each seat's policy in the project's format (``checkpoints/<seat>.pt``)."""
    own = {k: v.clone() for k, v in model.policy.state_dict().items()}
    paths = []
    try:
        for module in model.modules:
            model.policy.load_state_dict(model.module_weights(module))
            paths.append(trainer.save(trainer.checkpoints / f"{module}.pt"))
    finally:
        model.policy.load_state_dict(own)
    return paths


def close_envs(session: RaySession) -> None:
    session.close()
