"""Training on Ray RLlib (``trainer: rllib``, train/rllib.py): tiny runs of the real train
command on a local Ray (Common Cause, and Dummy rummy with one policy per seat), on a local
multi-node cluster, checkpoints the rest of the project plays, export and reload with the
same move probabilities both ways, masks honoured over thousands of sampled steps, and the
config's guards.

The Ray tests are marked ``rllib`` and need the extra (``make test-rllib``, which CI runs);
without Ray they skip with that reason, and the config checks run anyway. Every test that
starts Ray must leave it shut down (the ``ray_down`` fixture checks)."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from commoncause.cli import main

HAS_RAY = importlib.util.find_spec("ray") is not None
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "checkpoints" / "normal" / "best.pt"
needs_ray = [
    pytest.mark.rllib,
    pytest.mark.skipif(not HAS_RAY, reason="Ray RLlib is not installed: make test-rllib"),
    pytest.mark.usefixtures("ray_down"),
]


@pytest.fixture
def ray_down(monkeypatch):
    """Fails a test that leaves Ray running (and shuts it down), and one that leaves a local
    Ray's temporary folder behind (they go to a private, short temporary folder here)."""
    import shutil
    from types import SimpleNamespace

    import ray

    from commoncause.train import rllib

    private = tempfile.mkdtemp(prefix="cct-")  # short: Ray's socket paths are capped

    def mkdtemp(prefix: str) -> str:
        return tempfile.mkdtemp(prefix=prefix, dir=private)

    monkeypatch.setattr(rllib, "tempfile", SimpleNamespace(mkdtemp=mkdtemp))  # (Ray's only)
    yield
    alive = ray.is_initialized()
    ray.shutdown()
    left = list(Path(private).glob("ccray-*"))
    shutil.rmtree(private, ignore_errors=True)
    assert not alive, "the test left Ray running"
    assert not left, f"the test left Ray's folder {left}"


def tiny_config(tmp_path: Path, **overrides) -> Path:
    """A run of two RLlib iterations of 512 steps, evaluated on 20 deals."""
    data = {
        "name": "rl_tiny", "game": "common_cause", "trainer": "rllib", "total_steps": 1024,
        "n_envs": 4, "n_steps": 128, "batch_size": 256, "n_epochs": 1,
        "baseline_partner_prob": 0.0, "eval_interval": 512, "eval_games": 20,
        "final_eval_games": 20, "checkpoint_interval": 512, "out_dir": str(tmp_path / "runs"),
        "rllib": {"num_env_runners": 1, "num_envs_per_env_runner": 2},
    } | overrides  # fmt: skip
    path = tmp_path / "rllib.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


# --- the config's guards (no Ray needed) ---------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ({"rllib": {"num_runners": 2}}, "unknown config key(s) rllib.num_runners"),
        ({"rllib": {"policies": "each"}}, "rllib.policies must be shared or per_seat"),
        ({"rllib": {"num_env_runners": -1}}, "rllib.num_env_runners must be a whole number"),
        ({"rllib": ["address"]}, "config rllib must be"),
        ({"baseline_partner_prob": 0.2}, "baseline_partner_prob must be 0 with trainer rllib"),
        ({"trainer": "ray"}, "trainer must be"),
    ],
)
def test_bad_rllib_config_is_one_line_and_exit_2(tmp_path: Path, capsys, overrides, says):
    assert main(["train", "--config", str(tiny_config(tmp_path, **overrides))]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert err.count("\n") == 1
    assert not (tmp_path / "runs").exists()


@pytest.mark.skipif(HAS_RAY, reason="checks the message given where Ray is missing")
def test_without_ray_trainer_rllib_says_how_to_install(tmp_path: Path, capsys):
    assert main(["train", "--config", str(tiny_config(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert "make rllib" in err and err.count("\n") == 1


# --- runs of the real train command ------------------------------------------------------
def ray_test(fn):
    """Marks a test as needing Ray (``rllib``; skipped without it; Ray left down)."""
    for mark in needs_ray:
        fn = mark(fn)
    return fn


@ray_test
def test_common_cause_run_writes_policies_the_project_plays(tmp_path: Path):
    import json

    assert main(["train", "--config", str(tiny_config(tmp_path)), "--run-name", "cc"]) == 0
    run = tmp_path / "runs" / "cc"
    ckpt = run / "checkpoints"
    for name in ("best.pt", "last.pt", "step_513.pt", "best.json", "last.json"):
        assert (ckpt / name).is_file(), name
    card = json.loads((ckpt / "last.json").read_text())
    assert "RLlib" in card["model"] and card["versions"]["ray"]
    assert card["steps"] >= 1024  # (RLlib samples a step or two more than asked)
    assert [e["step"] for e in card["evaluations"]][:2] == [0, 513]
    assert list(run.glob("events.out.tfevents.*")) and (run / "rllib").is_dir()
    best = ckpt / "best.pt"
    assert main(["eval", "--team", f"{best},{best}", "--games", "6", "--workers", "1"]) == 0
    assert main(["export", str(best), "--out", str(tmp_path / "shipped")]) == 0
    shipped = tmp_path / "shipped" / "best.pt"
    assert main(["eval", "--team", f"{shipped},baseline", "--games", "6", "--workers", "1"]) == 0


@ray_test
def test_resume_continues_steps_optimizer_and_evaluations(tmp_path: Path):
    from commoncause.agents.trained import load_checkpoint

    config = tiny_config(tmp_path, total_steps=512, eval_interval=10**6)
    assert main(["train", "--config", str(config), "--run-name", "r"]) == 0
    last = tmp_path / "runs" / "r" / "checkpoints" / "last.pt"
    first = load_checkpoint(last)
    assert first["optimizer"]["state"]  # the learner's Adam moments, saved
    assert main(["train", "--resume", str(last), "--total-steps", "1024"]) == 0
    second = load_checkpoint(last)
    assert second["num_timesteps"] >= 1024 > first["num_timesteps"] >= 512
    steps = [e["step"] for e in second["evaluations"]]
    assert steps[: len(first["evaluations"])] == [e["step"] for e in first["evaluations"]]
    assert steps[-1] >= 1024


@ray_test
def test_competitive_run_trains_one_policy_per_seat(tmp_path: Path, monkeypatch):
    """Per-seat policies, with the per-card head (``card_head``: RLlib's module is the
    project's network, head included)."""
    import torch

    from commoncause.agents.trained import load_checkpoint

    config = tiny_config(
        tmp_path, game="dummy_rummy", game_options={"num_players": 2, "hands": 1},
        reward_scale=0.01, eval_games=4, final_eval_games=4, card_head=True,
        rllib={"num_env_runners": 1, "num_envs_per_env_runner": 2, "policies": "per_seat"},
    )  # fmt: skip
    assert main(["train", "--config", str(config), "--run-name", "dr"]) == 0
    ckpt = tmp_path / "runs" / "dr" / "checkpoints"
    seats = [load_checkpoint(ckpt / f"player_{k}.pt", game="dummy_rummy") for k in (0, 1)]
    first, second = seats[0]["policy"], seats[1]["policy"]
    assert not all(torch.equal(first[k], second[k]) for k in first)  # each learnt its own
    assert seats[0]["card_head"] and first["card_head.out.weight"].abs().sum() > 0
    team = f"{ckpt / 'player_0.pt'},{ckpt / 'player_1.pt'}"
    args = ["eval", "--game", "dummy_rummy", "--num-players", "2", "--hands", "1", "--team",
            team, "--games", "2", "--workers", "1"]  # fmt: skip
    monkeypatch.setattr("sys.argv", ["commoncause", *args])  # (game options read sys.argv)
    assert main(args) == 0


@ray_test
def test_runs_on_a_local_multi_node_cluster(tmp_path: Path, monkeypatch):
    """A head and a worker node, each a raylet of its own (separate processes), joined
    through ``rllib.address``; the env runners get the project through the runtime env."""
    import shutil

    import ray
    from ray.cluster_utils import Cluster

    temp = tempfile.mkdtemp(prefix="cc-")  # Ray's files (short: its socket paths have a cap)
    monkeypatch.setenv("RAY_TMPDIR", temp)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=2)
        config = tiny_config(tmp_path, total_steps=512, eval_interval=10**6,
                             rllib={"address": cluster.address, "num_env_runners": 2,
                                    "num_envs_per_env_runner": 1})  # fmt: skip
        assert main(["train", "--config", str(config), "--run-name", "cl"]) == 0
        assert (tmp_path / "runs" / "cl" / "checkpoints" / "best.pt").is_file()
    finally:
        ray.shutdown()
        cluster.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


# --- the network both ways, and the masks --------------------------------------------------
def _positions(game: str, options: dict, count: int, seed: int = 0):
    """(wrapped env, agent) at ``count`` decisions of random legal games."""
    from commoncause.train.rllib_env import make_seats

    env = make_seats(game, options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    found = 0
    while found < count:
        if not env.agents or env.terminations[env.agent_selection]:
            env.reset()
            continue
        agent = env.agent_selection
        yield env, agent
        found += 1
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(rng.choice(legal)))


@ray_test
def test_margin_rewards_pay_each_seat_its_lead_over_the_others():
    """With ``reward_margin`` a seat is paid, over a whole game, its points minus the other
    seats' mean: the same random Dummy rummy games (3 players, 2 hands) through both."""
    from commoncause.train.rllib_env import make_seats

    for seed in range(2):
        totals = []
        for margin in (False, True):
            env = make_seats("dummy_rummy", {"num_players": 3, "hands": 2}, 1.0, margin)
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            paid = dict.fromkeys(env.possible_agents, 0.0)
            for agent in env.agent_iter():
                obs, reward, terminated, truncated, _ = env.last()
                paid[agent] += reward
                done = terminated or truncated
                env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            totals.append(np.array(list(paid.values())))
        plain, margin_paid = totals
        assert plain.any()
        np.testing.assert_allclose(margin_paid, plain - (plain.sum() - plain) / 2)


def _module_probabilities(module, obs: dict) -> np.ndarray:
    import torch
    from ray.rllib.core.columns import Columns

    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return torch.softmax(logits, dim=1)[0].numpy()


def _same_probabilities(module, checkpoint: Path, positions: int = 30) -> None:
    from commoncause.agents.trained import PolicyAgent

    agent = PolicyAgent(checkpoint, game="common_cause")
    for env, name in _positions("common_cause", {"level": "normal"}, positions):
        raw = env.unwrapped
        view = raw.GAME.seat_view(raw.game_state, raw.possible_agents.index(name))
        np.testing.assert_allclose(
            _module_probabilities(module, env.observe(name)), agent.probabilities(view),
            atol=1e-6,
        )  # fmt: skip


@ray_test
def test_shipped_policy_into_rllib_and_back_keeps_the_probabilities(tmp_path: Path):
    """The reverse path (a shipped checkpoint starts RLlib: its env runner's module plays the
    same probabilities), then one RLlib update and the export (the project's agent on the
    saved checkpoint plays what RLlib's module plays)."""
    import torch

    from commoncause.agents.trained import load_checkpoint
    from commoncause.train.config import load_config
    from commoncause.train.trainer import Trainer

    config = load_config(tiny_config(tmp_path, init_from=str(SHIPPED),
                                     rllib={"num_env_runners": 0}))  # fmt: skip
    trainer = Trainer(config, run_name="both_ways", say=lambda *_: None)
    trainer.env = trainer._make_env()
    try:
        model = trainer.model = trainer._make_model()
        model.policy.load_state_dict(load_checkpoint(SHIPPED)["policy"])
        model.start()
        runner_module = model.algo.get_module("shared")
        _same_probabilities(runner_module, SHIPPED)
        model.iterate()
        saved = trainer.save(trainer.checkpoints / "last.pt")
        before = load_checkpoint(SHIPPED)["policy"]
        after = load_checkpoint(saved)["policy"]
        assert not all(torch.equal(before[k], after[k]) for k in before)  # it learnt
        _same_probabilities(model.algo.get_module("shared"), saved)
    finally:
        trainer._close_env()


@ray_test
@pytest.mark.parametrize(
    ("game", "options"),
    [("common_cause", {"level": "normal"}), ("dummy_rummy", {"num_players": 3, "hands": 1})],
)
def test_sampled_moves_are_always_legal(tmp_path: Path, game: str, options: dict):
    """Thousands of moves sampled by RLlib's env runner from an untrained policy (nearly
    uniform over all 4445 moves but for the mask): each one legal in its observation."""
    from commoncause.train.config import load_config
    from commoncause.train.rllib import RaySession, algorithm_config
    from commoncause.train.rllib_config import RLlibConfig

    config = load_config(tiny_config(tmp_path, game=game, game_options=options,
                                     rllib={"num_env_runners": 0,
                                            "num_envs_per_env_runner": 4}))  # fmt: skip
    session = RaySession(RLlibConfig.from_dict(config.rllib))
    try:
        algo = session.algo = algorithm_config(config).build_algo()
        checked = 0
        while checked < 3000:
            for episode in algo.env_runner.sample(num_timesteps=1000):
                for single in episode.agent_episodes.values():
                    masks = single.get_observations()["action_mask"]  # one more than actions
                    for mask, action in zip(masks, single.get_actions(), strict=False):
                        assert mask[action] == 1
                        checked += 1
    finally:
        session.close()
    assert checked >= 3000
