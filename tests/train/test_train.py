"""Training: the real CLI for a few hundred steps, resume, checkpoints, masks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from commoncause.agents.trained import (
    PolicyAgent,
    load_checkpoint,
    masked_logits,
    policy_from_checkpoint,
)
from commoncause.cli import main
from commoncause.envs.common_cause.actions import N_ACTIONS
from commoncause.envs.common_cause.rules import GameConfig, GameState
from commoncause.envs.common_cause.seat import SeatView
from commoncause.train import fast_layers

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


def smoke_config(tmp_path: Path, **overrides) -> Path:
    data = yaml.safe_load(SMOKE.read_text()) | {"out_dir": str(tmp_path / "runs")} | overrides
    path = tmp_path / "smoke.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory) -> Path:
    """One smoke run of the real train command (module-wide: it takes a few seconds)."""
    tmp = tmp_path_factory.mktemp("train")
    assert main(["train", "--config", str(smoke_config(tmp)), "--run-name", "smoke"]) == 0
    return tmp / "runs" / "smoke"


def test_train_writes_checkpoints_card_curve_and_logs(trained_run: Path):
    ckpt = trained_run / "checkpoints"
    for name in ("best.pt", "best.json", "last.pt", "last.json", "step_256.pt"):
        assert (ckpt / name).is_file(), name
    assert (trained_run / "curve.png").stat().st_size > 1000
    assert list(trained_run.glob("events.out.tfevents.*"))
    card = json.loads((ckpt / "best.json").read_text())
    assert card["env_version"] == "common_cause_v0"
    assert card["config"]["total_steps"] == 512
    assert set(card["final_comparison"]) == {"trained", "baseline", "trained+baseline"}
    assert card["versions"]["torch"]
    # every eval_interval, and once after the last update (not also within the last rollout)
    assert [e["step"] for e in card["evaluations"]] == [0, 256, 512]
    # a checkpoint carries the training time up to it; the best card its own, not the run's
    mid = json.loads((ckpt / "step_256.json").read_text())["training_seconds"]
    last = json.loads((ckpt / "last.json").read_text())["training_seconds"]
    assert 0 < mid < last and card["run_training_seconds"] == last
    assert card["training_seconds"] == round(load_checkpoint(ckpt / "best.pt")["seconds"], 1)
    assert load_checkpoint(ckpt / "last.pt")["num_timesteps"] == 512


def test_eval_reads_the_trained_checkpoint(trained_run: Path, tmp_path: Path):
    best = trained_run / "checkpoints" / "best.pt"
    out = tmp_path / "eval.json"
    args = ["eval", "--team", f"{best},baseline", "--games", "10", "--workers", "1"]
    assert main([*args, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["games"] == 10 and report["team"] == [str(best), "baseline"]


def test_resume_continues_the_step_count(tmp_path: Path):
    config = smoke_config(tmp_path, total_steps=256, checkpoint_interval=10_000)
    assert main(["train", "--config", str(config), "--run-name", "r"]) == 0
    last = tmp_path / "runs" / "r" / "checkpoints" / "last.pt"
    first = load_checkpoint(last)
    assert first["num_timesteps"] == 256
    assert main(["train", "--resume", str(last), "--total-steps", "512"]) == 0
    resumed = load_checkpoint(last)
    assert resumed["num_timesteps"] == 512
    assert resumed["run_name"] == "r" and resumed["config"]["total_steps"] == 512
    steps = [e["step"] for e in resumed["evaluations"]]
    assert steps[: len(first["evaluations"])] == [e["step"] for e in first["evaluations"]]
    assert steps[-1] == 512  # evaluations carried over and continued
    assert resumed["seconds"] > first["seconds"] > 0  # training time adds up over resumes


def random_views(count: int, seed: int = 0) -> list[SeatView]:
    rng = random.Random(seed)
    views = []
    while len(views) < count:
        state = GameState.new_game(GameConfig(), rng.randrange(10**6))
        for _ in range(rng.randrange(1, 60)):
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal and len(state.legal_actions()) > 1:
            views.append(SeatView(state, state.current))
    return views


def test_reloaded_policy_chooses_the_same_actions(trained_run: Path):
    path = trained_run / "checkpoints" / "best.pt"
    agent = PolicyAgent(path)
    again = policy_from_checkpoint(load_checkpoint(path))
    for view in random_views(30):
        mask = torch.zeros((1, N_ACTIONS), dtype=torch.bool)
        mask[0, view.legal_actions()] = True
        with torch.no_grad():
            logits = masked_logits(again, torch.as_tensor(view.observation())[None], mask)
        probs = torch.softmax(logits, 1)[0].numpy()
        assert np.allclose(agent.probabilities(view), probs, atol=1e-6)
        assert agent.act(view) == int(np.argmax(probs))


def test_masks_are_honoured_at_prediction(trained_run: Path):
    path = trained_run / "checkpoints" / "best.pt"
    greedy, sampling = PolicyAgent(path), PolicyAgent(path, deterministic=False)
    for view in random_views(60, seed=1):
        legal = view.legal_actions()
        probs = greedy.probabilities(view)
        assert probs[[a for a in range(len(probs)) if a not in set(legal)]].sum() == 0
        assert greedy.act(view) in legal
        assert all(sampling.act(view) in legal for _ in range(5))


def test_corrupted_or_missing_checkpoint_is_a_clear_error(tmp_path: Path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    assert main(["eval", "--team", f"{bad},baseline", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "corrupted" in err and len(err.strip().splitlines()) == 1
    assert main(["eval", "--team", f"{tmp_path / 'none.pt'},baseline", "--games", "2"]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["train", "--resume", str(bad)]) == 2


def test_bad_config_is_rejected_before_training(tmp_path: Path, capsys):
    config = smoke_config(tmp_path, totl_steps=5)
    assert main(["train", "--config", str(config)]) == 2
    assert "unknown config key(s) totl_steps" in capsys.readouterr().err
    config = smoke_config(tmp_path, learning_rate="fast")
    assert main(["train", "--config", str(config)]) == 2
    assert "learning_rate" in capsys.readouterr().err
    config = smoke_config(tmp_path, rollout_workers=0)
    assert main(["train", "--config", str(config)]) == 2
    assert "config rollout_workers must be at least 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


# --- the PyTorch trainer (trainer: torch) ----------------------------------------------
@pytest.fixture(scope="module")
def torch_run(tmp_path_factory) -> Path:
    """One smoke run of the real train command with the PyTorch PPO, on both cores as
    ``make train`` runs it (a forked rollout worker, two threads in the updates)."""
    tmp = tmp_path_factory.mktemp("train_torch")
    config = smoke_config(tmp, trainer="torch", rollout_workers=2, torch_threads=2)
    assert main(["train", "--config", str(config), "--run-name", "smoke"]) == 0
    return tmp / "runs" / "smoke"


def test_torch_trainer_writes_checkpoints_and_logs(torch_run: Path):
    ckpt = torch_run / "checkpoints"
    for name in ("best.pt", "best.json", "last.pt", "last.json", "step_256.pt"):
        assert (ckpt / name).is_file(), name
    assert (torch_run / "curve.png").is_file()
    assert list(torch_run.glob("events.out.tfevents.*"))
    card = json.loads((ckpt / "best.json").read_text())
    assert card["config"]["trainer"] == "torch" and "train/ppo.py" in card["model"]
    assert set(card["final_comparison"]) == {"trained", "baseline", "trained+baseline"}
    last = load_checkpoint(ckpt / "last.pt")
    assert last["num_timesteps"] == 512 and last["optimizer"]["state"]
    agent = PolicyAgent(ckpt / "best.pt")  # the same network: the usual agent plays it
    for view in random_views(10, seed=2):
        assert agent.act(view) in view.legal_actions()


def test_torch_trainer_resume_continues_the_step_count(tmp_path: Path):
    config = smoke_config(tmp_path, trainer="torch", total_steps=256, checkpoint_interval=10_000)
    assert main(["train", "--config", str(config), "--run-name", "r"]) == 0
    last = tmp_path / "runs" / "r" / "checkpoints" / "last.pt"
    first = load_checkpoint(last)
    assert first["num_timesteps"] == 256
    adam_steps = float(first["optimizer"]["state"][0]["step"])
    assert main(["train", "--resume", str(last), "--total-steps", "512"]) == 0
    resumed = load_checkpoint(last)
    assert resumed["num_timesteps"] == 512 and resumed["config"]["trainer"] == "torch"
    assert float(resumed["optimizer"]["state"][0]["step"]) > adam_steps  # optimizer carried on
    assert [e["step"] for e in resumed["evaluations"]][-1] == 512


def test_a_centralised_critic_run_resumes_with_its_critic_and_exports_without_it(
    tmp_path, capsys
):
    """critic: state through the CLI (a rollout worker too): the checkpoint carries the
    critic's weights, --resume restores and trains them on, and an export drops them; the
    policy plays from the seat view alone (PolicyAgent)."""
    config = smoke_config(tmp_path, trainer="torch", critic="state", total_steps=256,
                          rollout_workers=2, bc_games=0, checkpoint_interval=10_000)  # fmt: skip
    assert main(["train", "--config", str(config), "--run-name", "c"]) == 0
    last = tmp_path / "runs" / "c" / "checkpoints" / "last.pt"
    first = load_checkpoint(last)
    # its own network on the observation and what the seat does not see (partner, stock,
    # aside), of critic_net_arch's sizes
    obs_size = first["policy"]["features_extractor.net.0.weight"].shape[1]
    assert first["critic"]["0.weight"].shape == (64, obs_size + 3 * 54)
    # (768: the rate decays to 0 at the last update, so a resumed leg of one rollout is flat)
    assert main(["train", "--resume", str(last), "--total-steps", "768"]) == 0
    resumed = load_checkpoint(last)
    assert resumed["num_timesteps"] == 768 and resumed["config"]["critic"] == "state"
    assert not torch.equal(resumed["critic"]["0.weight"], first["critic"]["0.weight"])
    out = tmp_path / "shipped"
    assert main(["export", str(last), "--out", str(out)]) == 0
    assert "critic" not in load_checkpoint(out / "best.pt")
    # a critic of another shape (the first version's, on the policy's 256 features, saved
    # before checkpoints had a digest): one line
    odd = last.parent / "odd.pt"
    del resumed["digest"]
    torch.save(resumed | {"critic": {"0.weight": torch.zeros(128, 256 + 162),
                                     "0.bias": torch.zeros(128)}}, odd)  # fmt: skip
    capsys.readouterr()
    assert main(["train", "--resume", str(odd), "--total-steps", "1024"]) == 2
    err = capsys.readouterr().err.strip()
    assert "does not fit this version's critic: state" in err and len(err.splitlines()) == 1
    for view in random_views(5, seed=3):
        assert PolicyAgent(out / "best.pt").act(view) in view.legal_actions()


def test_a_centralised_critic_values_what_the_seat_does_not_see(tmp_path: Path):
    """critic: state: a rollout's values are the critic's on the stored observation and
    what the deciding seat does not see (the partner's hand among it)."""
    from commoncause.train.config import TrainConfig
    from commoncause.train.ppo import legal_logits_and_values
    from commoncause.train.ppo_parallel import TorchPPO
    from commoncause.train.selfplay import SelfPlayEnv

    class Monitor:
        def on_step(self, infos, dones) -> None:
            pass

    cfg = TrainConfig(trainer="torch", n_envs=3, n_steps=40, rollout_workers=1, critic="state",
                      baseline_partner_prob=0.0)  # fmt: skip
    envs = [SelfPlayEnv(**cfg.selfplay_kwargs()) for _ in range(3)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    ppo = TorchPPO(cfg, envs, tmp_path)
    for _ in range(2):
        ppo.collect_rollout(Monitor())
    hidden = ppo.buf_hidden.flatten(0, 1)
    obs, mask = ppo.buf_obs.flatten(0, 1), ppo.buf_mask.flatten(0, 1)
    assert hidden.shape[1] == 3 * 54 and hidden[:, :54].sum() > 0  # (a partner may hold 0)
    with torch.no_grad():
        _, _, values = legal_logits_and_values(ppo.policy, obs, mask, None, ppo.critic, hidden)
    assert torch.allclose(values, ppo.buf_values.flatten(), atol=1e-6)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"trainer": "sb3"}, "critic: state needs trainer: torch"),
        ({"trainer": "torch", "bc_games": 10}, "trains the policy's value layers) must be 0"),
    ],
)
def test_a_centralised_critic_is_refused_where_it_cannot_work(tmp_path, capsys, overrides,
                                                               message):  # fmt: skip
    config = smoke_config(tmp_path, critic="state", **overrides)
    assert main(["train", "--config", str(config)]) == 2
    assert message in capsys.readouterr().err


def test_a_centralised_critic_needs_the_games_hidden_cards(monkeypatch):
    """A game without ``encode_hidden`` (every shipped game has one) refuses critic: state."""
    import dataclasses

    from commoncause.envs import registry
    from commoncause.train.config import TrainConfig

    record = dataclasses.replace(registry.get_game("dummy_rummy"), encode_hidden=None)
    monkeypatch.setattr(registry, "get_game", lambda name: record)
    with pytest.raises(ValueError, match="dummy_rummy has none"):
        TrainConfig(trainer="torch", critic="state", game="dummy_rummy", game_options={}).validate()


def test_gumbel_sampling_is_legal_and_follows_the_softmax():
    from commoncause.train.ppo import sample_masked

    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(500, N_ACTIONS, generator=gen) * 5
    mask = torch.rand(500, N_ACTIONS, generator=gen) < 0.003
    mask[torch.arange(500), torch.randint(N_ACTIONS, (500,), generator=gen)] = True
    for _ in range(5):
        actions = sample_masked(logits, mask, gen)
        assert mask[torch.arange(500), actions].all()
    # one state, three legal moves: the draws follow softmax over the legal ones
    row = torch.full((20_000, 100), 9.0)  # illegal moves with high logits never win
    legal = torch.zeros_like(row, dtype=torch.bool)
    legal[:, [3, 70, 99]] = True
    row[:, [3, 70, 99]] = torch.tensor([0.0, 1.0, 2.0])
    counts = torch.bincount(sample_masked(row, legal, gen), minlength=100)
    assert counts.sum() == counts[[3, 70, 99]].sum()
    expected = torch.softmax(torch.tensor([0.0, 1.0, 2.0]), 0)
    assert torch.allclose(counts[[3, 70, 99]] / 20_000, expected, atol=0.015)


def test_torch_rollout_actions_are_legal(tmp_path: Path):
    from commoncause.train.config import TrainConfig
    from commoncause.train.ppo_parallel import TorchPPO
    from commoncause.train.selfplay import SelfPlayEnv

    class Monitor:
        def __init__(self) -> None:
            self.infos: list[dict] = []

        def on_step(self, infos, dones) -> None:
            self.infos += [i for i, d in zip(infos, dones, strict=True) if d]

    cfg = TrainConfig(trainer="torch", n_envs=4, n_steps=100, baseline_partner_prob=0.5)
    envs = [SelfPlayEnv(0.5, **cfg.env_kwargs()) for _ in range(4)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    ppo, monitor = TorchPPO(cfg, envs, tmp_path), Monitor()
    ppo.reset_envs()
    try:
        ppo.collect_rollout(monitor)
    finally:
        ppo.close_workers()  # (a forked worker stepped half of the envs)
    taken = ppo.buf_mask.gather(2, ppo.buf_actions[..., None])
    assert taken.all() and ppo.num_timesteps == 400
    assert monitor.infos and not any("illegal_action" in i for i in monitor.infos)
    assert ppo.buf_dones.any()  # games ended and the envs were reset in the rollout


def _rollouts(tmp_path: Path, workers: int, rollouts: int = 2) -> list[dict]:
    """``rollouts`` rollouts of 4 envs by ``workers`` processes, a copy of each buffer."""
    from commoncause.train.config import TrainConfig
    from commoncause.train.ppo_parallel import TorchPPO
    from commoncause.train.selfplay import SelfPlayEnv

    class Monitor:
        def __init__(self) -> None:
            self.ended: list[int] = []  # env of each game that ended, in step order

        def on_step(self, infos, dones) -> None:
            self.ended += [i for i, d in enumerate(dones) if d and "result" in infos[i]]

    cfg = TrainConfig(trainer="torch", n_envs=4, n_steps=60, rollout_workers=workers)
    envs = [SelfPlayEnv(0.5, **cfg.env_kwargs()) for _ in range(4)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    ppo, monitor, seen = TorchPPO(cfg, envs, tmp_path), Monitor(), []
    try:
        for _ in range(rollouts):
            ppo.collect_rollout(monitor)
            with torch.no_grad():  # the log-probabilities under the weights here, now
                logits = masked_logits(ppo.policy, ppo.buf_obs.flatten(0, 1),
                                       ppo.buf_mask.flatten(0, 1))  # fmt: skip
                here = torch.log_softmax(logits, 1).gather(1, ppo.buf_actions.view(-1, 1))
            seen.append({"obs": ppo.buf_obs.clone(), "mask": ppo.buf_mask.clone(),
                         "actions": ppo.buf_actions.clone(), "dones": ppo.buf_dones.clone(),
                         "ended": list(monitor.ended), "steps": ppo.num_timesteps,
                         "workers": [p.pid for p, _ in ppo.workers],
                         "log_probs": ppo.buf_log_probs.clone(),
                         "log_probs_here": here.view_as(ppo.buf_log_probs)})  # fmt: skip
            ppo.update()  # the workers play the updated weights next
    finally:
        processes = [p for p, _ in ppo.workers]
        ppo.close_workers()
    assert not any(p.is_alive() for p in processes)
    return seen


def test_rollout_workers_share_the_buffer_and_the_weights(tmp_path: Path):
    """Two rollout processes: every env's column is filled with legal moves, games end and
    restart in both processes' envs (the monitor hears of them all), the worker plays the
    learner's current weights (after an update too), a second rollout goes on from where
    the first left off, and the same seed gives the same rollouts."""
    first, second = _rollouts(tmp_path / "a", 2), _rollouts(tmp_path / "b", 2)
    for rollout in first:
        assert len(rollout["workers"]) == 1
        assert torch.allclose(rollout["log_probs"], rollout["log_probs_here"], atol=1e-4)
        taken = rollout["mask"].gather(2, rollout["actions"][..., None])
        assert taken.all() and rollout["obs"].abs().sum(dim=(0, 2)).gt(0).all()
    assert first[1]["steps"] == 480
    assert {0, 1} & set(first[1]["ended"]) and {2, 3} & set(first[1]["ended"])
    assert not torch.equal(first[0]["obs"], first[1]["obs"])  # the games went on
    for a, b in zip(first, second, strict=True):
        assert torch.equal(a["actions"], b["actions"]) and torch.equal(a["obs"], b["obs"])
        assert a["ended"] == b["ended"]


@pytest.mark.parametrize("critic", ["seat", "state"])
def test_an_update_shared_with_the_worker_equals_one_process_alone(tmp_path: Path, critic: str):
    """The worker computes the gradient of its share of every minibatch: the update's
    weights (a centralised critic's too) equal those of the same update made by the learner
    alone (same rollout, same start, same minibatches), up to float rounding."""
    import copy

    from commoncause.train.config import TrainConfig
    from commoncause.train.ppo_parallel import TorchPPO
    from commoncause.train.selfplay import SelfPlayEnv

    class Monitor:
        def on_step(self, infos, dones) -> None:
            pass

    cfg = TrainConfig(trainer="torch", n_envs=4, n_steps=64, batch_size=100, rollout_workers=2,
                      critic=critic)  # fmt: skip
    envs = [SelfPlayEnv(0.5, **cfg.env_kwargs()) for _ in range(4)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    ppo = TorchPPO(cfg, envs, tmp_path)
    try:
        ppo.collect_rollout(Monitor())  # forks the worker
        start = [p.detach().clone() for p in ppo.params]
        optimizer = copy.deepcopy(ppo.policy.optimizer.state_dict())
        generator = ppo.generator.get_state()
        ppo.update()  # minibatches shared with the worker
        shared = [p.detach().clone() for p in ppo.params]
        with torch.no_grad():  # (in place: the worker's weights too)
            for p, p0 in zip(ppo.params, start, strict=True):
                p.copy_(p0)
        ppo.policy.optimizer.load_state_dict(optimizer)
        ppo.generator.set_state(generator)
        workers, ppo.workers = ppo.workers, []
        ppo.update()  # the learner alone
        ppo.workers = workers
    finally:
        ppo.close_workers()
    alone = [p.detach() for p in ppo.params]
    # the critic's parameters replace those of the policy's value layers
    own_values = [n for n, _ in ppo.policy.named_parameters() if "value_net" in n]
    policy_size = len(list(ppo.policy.parameters()))
    if critic == "state":
        critic_size = len(list(ppo.critic.parameters()))
        assert len(alone) == policy_size - len(own_values) + critic_size
    else:
        assert len(alone) == policy_size
    assert any(not torch.equal(a, a0) for a, a0 in zip(alone, start, strict=True))
    if critic == "state":  # the critic learned too
        assert not torch.equal(alone[-1], start[-1])
    for a, b in zip(shared, alone, strict=True):
        assert torch.allclose(a, b, atol=1e-6)


def test_worker_gradient_rows_are_laid_out_as_the_parameters(tmp_path: Path):
    """A worker's gradient views have their parameters' strides (else backward warns that
    the gradient layout contract is broken, and accumulates slower), and so do a resumed
    run's Adam moments (fused Adam reads raw memory): the fast first layer's weight is
    stored transposed."""
    from commoncause.train.config import TrainConfig
    from commoncause.train.ppo_parallel import TorchPPO
    from commoncause.train.selfplay import SelfPlayEnv

    cfg = TrainConfig(trainer="torch", n_envs=2, n_steps=8, rollout_workers=2)
    envs = [SelfPlayEnv(0.0, **cfg.env_kwargs()) for _ in range(2)]
    ppo = TorchPPO(cfg, envs, tmp_path)
    (views,) = ppo.grad_views
    for param, view in zip(ppo.params, views, strict=True):
        assert view.shape == param.shape and view.stride() == param.stride()
    strides = {param.stride() for param in ppo.params if param.dim() == 2}
    if fast_layers.sparse_kernels is not None:  # (a transposed weight among them)
        assert any(stride[0] < stride[1] for stride in strides)
    offsets = [view.storage_offset() for view in views]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    # a resumed run's Adam moments, saved row-major (before these layers), follow too
    optimizer = ppo.policy.optimizer
    moments = {}
    for i, param in enumerate(ppo.params):
        moments[i] = {"step": torch.tensor(3.0), "exp_avg": torch.rand(param.shape),
                      "exp_avg_sq": torch.rand(param.shape)}  # fmt: skip
    optimizer.load_state_dict({"state": moments,
                               "param_groups": optimizer.state_dict()["param_groups"]})  # fmt: skip
    for i, param in enumerate(ppo.params):
        assert optimizer.state[param]["exp_avg"].stride() == param.stride()
        assert torch.equal(optimizer.state[param]["exp_avg"], moments[i]["exp_avg"])


def test_each_worker_writes_the_gradient_of_its_share_into_its_row(tmp_path: Path):
    """Three processes share a minibatch: each worker's row of ``worker_grads`` holds
    exactly the gradient of its share (computed again here by the learner), and the
    learner's gradient is its own share's plus both rows, that is the whole minibatch's."""
    from commoncause.train.config import TrainConfig
    from commoncause.train.ppo_parallel import TorchPPO
    from commoncause.train.selfplay import SelfPlayEnv

    class Monitor:
        def on_step(self, infos, dones) -> None:
            pass

    cfg = TrainConfig(trainer="torch", n_envs=6, n_steps=32, rollout_workers=3)
    envs = [SelfPlayEnv(0.5, **cfg.env_kwargs()) for _ in range(6)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    ppo = TorchPPO(cfg, envs, tmp_path)

    def alone(share: torch.Tensor, total: int, norm) -> list[torch.Tensor]:
        ppo.policy.optimizer.zero_grad(set_to_none=True)
        ppo.share_loss(share, norm, total)[0].backward()
        return [p.grad.clone() for p in ppo.params]

    try:
        ppo.collect_rollout(Monitor())  # forks the two workers
        idx = torch.randperm(ppo.rows * 6, generator=torch.Generator().manual_seed(1))[:150]
        adv = ppo.buf_advantages.view(-1)[idx]
        norm = (float(adv.mean()), float(adv.std()) + 1e-8)
        ppo._gradient(idx, norm, 1.0)
        shared = [p.grad.clone() for p in ppo.params]
        rows = ppo.worker_grads.clone()
        workers, ppo.workers = ppo.workers, []
        shares = [alone(share, len(idx), norm) for share in idx.tensor_split(3)]
        whole = alone(idx, len(idx), norm)
        ppo.workers = workers
    finally:
        ppo.close_workers()
    assert rows.abs().sum(dim=1).gt(0).all()  # both workers wrote
    for row, share in zip(rows, shares[1:], strict=True):
        for view, grad in zip(ppo._row_views(row), share, strict=True):
            assert torch.equal(view, grad)
    for got, mine, first, second in zip(shared, *shares, strict=True):
        assert torch.equal(got, mine + first + second)
    for got, want in zip(shared, whole, strict=True):
        assert torch.allclose(got, want, atol=1e-6)


def test_a_failing_rollout_worker_is_named_with_its_error(tmp_path: Path):
    """An env that raises in the worker's slice: the learner raises a RuntimeError naming
    the worker and carrying the env's traceback, and the worker is gone after close."""
    from commoncause.train.config import TrainConfig
    from commoncause.train.ppo_parallel import TorchPPO
    from commoncause.train.selfplay import SelfPlayEnv

    class Monitor:
        def on_step(self, infos, dones) -> None:
            pass

    def broken_step(action):
        raise ValueError("the table fell over")

    cfg = TrainConfig(trainer="torch", n_envs=4, n_steps=8, rollout_workers=2)
    envs = [SelfPlayEnv(0.0, **cfg.env_kwargs()) for _ in range(4)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    envs[3].step = broken_step  # env 3 is in the worker's half (forked with it)
    ppo = TorchPPO(cfg, envs, tmp_path)
    with pytest.raises(RuntimeError, match="rollout worker 1 failed") as info:
        ppo.collect_rollout(Monitor())
    assert "the table fell over" in str(info.value)
    ((process, _),) = ppo.workers
    ppo.close_workers()
    assert not process.is_alive() and not ppo.workers


def test_legal_columns_give_the_full_logits_and_gradients():
    from commoncause.agents.trained import build_policy, masked_logits_and_values
    from commoncause.train.ppo import legal_logits_and_values, masked_entropy

    torch.manual_seed(0)
    policy = build_policy(32, [16])
    views = random_views(40, seed=3)
    obs = torch.as_tensor(np.stack([v.observation() for v in views]))
    mask = torch.zeros((len(views), N_ACTIONS), dtype=torch.bool)
    for i, v in enumerate(views):
        mask[i, v.legal_actions()] = True
    grads = []
    for subset in (False, True):
        policy.zero_grad()
        if subset:
            columns, logits, values = legal_logits_and_values(policy, obs, mask)
            full = torch.full((len(views), N_ACTIONS), -1e8)
            full[:, columns] = logits.detach()
            assert torch.allclose(full, masked_logits(policy, obs, mask), atol=1e-5)
        else:
            logits, values = masked_logits_and_values(policy, obs, mask)
        log_probs = torch.log_softmax(logits, 1)
        loss = -log_probs.max(1).values.mean() - masked_entropy(logits, log_probs).mean()
        (loss + values.square().mean()).backward()
        grads.append(torch.cat([p.grad.flatten() for p in policy.parameters()]))
    assert torch.allclose(grads[0], grads[1], atol=1e-6)


def test_gae_and_clipped_loss_match_a_hand_computed_example():
    from commoncause.train.ppo import clipped_surrogate, compute_gae

    # env 0: a win on the last step; env 1: a loss on the first step, then a new game that
    # is bootstrapped from the value after the rollout (0.5)
    rewards = torch.tensor([[0.0, -1.0], [0.0, 0.0], [1.0, 0.0]])
    values = torch.tensor([[0.5, 0.2], [0.6, 0.1], [0.7, -0.3]])
    dones = torch.tensor([[False, True], [False, False], [True, False]])
    adv, ret = compute_gae(rewards, values, dones, torch.tensor([0.9, 0.5]), 0.9, 0.8)
    # env 0: deltas 0.04, 0.03, 0.3 -> A2 = 0.3, A1 = 0.03 + 0.72 * 0.3, A0 = 0.04 + 0.72 * A1
    # env 1: A0 = -1.2 (game over), A2 = 0.45 + 0.3 = 0.75, A1 = -0.37 + 0.72 * 0.75
    expected = torch.tensor([[0.21712, -1.2], [0.246, 0.17], [0.3, 0.75]])
    assert torch.allclose(adv, expected, atol=1e-6)
    assert torch.allclose(ret, expected + values, atol=1e-6)
    # ratios 1.5, 0.5, 1.05, 0.5 with advantages 1, 1, -2, -1 and clip 0.2:
    # min terms 1.2, 0.5, -2.1, -0.8 -> loss -mean = 0.3
    ratios = torch.tensor([1.5, 0.5, 1.05, 0.5])
    loss, ratio = clipped_surrogate(
        ratios.log(), torch.zeros(4), torch.tensor([1.0, 1.0, -2.0, -1.0]), 0.2
    )
    assert torch.allclose(ratio, ratios) and abs(loss.item() - 0.3) < 1e-6


def test_trainer_key_is_checked(tmp_path: Path, capsys):
    assert main(["train", "--config", str(smoke_config(tmp_path, trainer="jax"))]) == 2
    assert "trainer must be sb3, torch or rllib" in capsys.readouterr().err


def test_init_from_starts_a_new_run_from_a_checkpoint(trained_run: Path, tmp_path: Path, capsys):
    best = trained_run / "checkpoints" / "best.pt"
    config = smoke_config(tmp_path, init_from=str(best), bc_games=0, total_steps=256)
    assert main(["train", "--config", str(config), "--run-name", "from_best"]) == 0
    assert "starting from the policy of" in capsys.readouterr().out
    new = load_checkpoint(tmp_path / "runs" / "from_best" / "checkpoints" / "last.pt")
    assert new["run_name"] == "from_best" and new["evaluations"][0]["step"] == 0
    # the step-0 evaluation plays the start policy on the same deals: the same result
    start_eval = load_checkpoint(best)["evaluations"][-1]
    assert new["evaluations"][0]["win_rate"] == start_eval["win_rate"]
    wrong = smoke_config(tmp_path, init_from=str(best), features_dim=64)
    assert main(["train", "--config", str(wrong)]) == 2
    assert "has the network" in capsys.readouterr().err


def test_export_ships_weights_only_with_card_and_curve(trained_run: Path, tmp_path: Path):
    best = trained_run / "checkpoints" / "best.pt"
    out = tmp_path / "shipped"
    assert main(["export", str(best), "--out", str(out), "--lineage", "smoke test"]) == 0
    shipped = load_checkpoint(out / "best.pt")
    assert "optimizer" not in shipped
    assert (out / "best.pt").stat().st_size < best.stat().st_size
    card = json.loads((out / "best.json").read_text())
    assert card["lineage"] == ["smoke test"] and card["steps"] == shipped["num_timesteps"]
    assert (out / "curve.png").stat().st_size > 1000
    for view in random_views(10, seed=2):  # the same policy
        assert PolicyAgent(out / "best.pt").act(view) == PolicyAgent(best).act(view)


@pytest.mark.parametrize(
    ("overrides", "group_sigint"),
    [({"trainer": "torch"}, False), ({"trainer": "sb3", "vec_env": "subproc"}, True)],
    ids=["sigterm-torch", "ctrl-c-to-the-group-sb3-subproc"],
)
def test_a_stop_signal_saves_a_resumable_checkpoint(tmp_path: Path, overrides, group_sigint):
    """kill (SIGTERM to the trainer), or Ctrl-C (SIGINT to the whole process group, forked
    env workers included): the run stops, saves last.pt and exits 130."""
    import os
    import signal
    import subprocess
    import sys
    import time

    config = smoke_config(tmp_path, total_steps=10**8, bc_games=0, **overrides)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "commoncause.cli",
            "train",
            "--config",
            str(config),
            "--run-name",
            "stop",
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    last = tmp_path / "runs" / "stop" / "checkpoints" / "step_256.pt"
    deadline = time.time() + 120
    while not last.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.5)
    assert last.exists(), proc.communicate()[0].decode()[-2000:]
    if group_sigint:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.terminate()  # SIGTERM
    output = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 130, output[-2000:]
    assert "resume with: commoncause train --resume" in output
    saved = load_checkpoint(tmp_path / "runs" / "stop" / "checkpoints" / "last.pt")
    assert saved["num_timesteps"] >= 256


def test_a_stop_signal_waits_for_a_safe_point_and_a_second_one_does_not():
    import signal

    from commoncause.train import signals

    previous = signals.install()
    try:
        signals.stop_if_requested()  # nothing asked yet
        signal.raise_signal(signal.SIGTERM)  # recorded, not raised here
        with pytest.raises(KeyboardInterrupt, match="signal 15"):
            signals.stop_if_requested()
        with pytest.raises(KeyboardInterrupt, match="twice"):
            signal.raise_signal(signal.SIGINT)
        signals.install(forget=False)  # installed again (after Ray's): the request stays
        with pytest.raises(KeyboardInterrupt, match="signal 15"):
            signals.stop_if_requested()
        signals.install()  # a new run forgets the old request
        signals.stop_if_requested()
        signal.raise_signal(signal.SIGTERM)
    finally:
        signals.restore(previous)
    assert signal.getsignal(signal.SIGTERM) is previous[signal.SIGTERM]
    signals.stop_if_requested()  # the request ended with the run


def test_a_stop_in_the_final_comparison_saves_and_resumes(tmp_path: Path, monkeypatch, capsys):
    """A stop request after the last update ends the final comparison at its next chunk:
    exit 130, last.pt holds the whole run (its evaluations too), and --resume does only the
    comparison. The run's signal handlers are put back after it either way."""
    import signal

    from commoncause.train import signals
    from commoncause.train.trainer import Trainer

    compare = Trainer.final_comparison

    def stopped_comparison(self) -> dict:
        signals._request_stop(signal.SIGTERM, None)  # as the handler does
        return compare(self)

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(Trainer, "final_comparison", stopped_comparison)
    config = smoke_config(tmp_path, trainer="torch", total_steps=256, bc_games=0,
                          rollout_workers=1)  # fmt: skip
    assert main(["train", "--config", str(config), "--run-name", "s"]) == 130
    assert "interrupted in the final comparison; resume with" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGTERM) is before
    last = tmp_path / "runs" / "s" / "checkpoints" / "last.pt"
    saved = load_checkpoint(last)
    assert saved["num_timesteps"] >= 256 and saved["evaluations"][-1]["step"] >= 256
    monkeypatch.setattr(Trainer, "final_comparison", compare)
    assert main(["train", "--resume", str(last)]) == 0
    card = json.loads(last.with_suffix(".json").read_text())
    assert card["steps"] == saved["num_timesteps"]
    assert set(card["final_comparison"]) == {"trained", "baseline", "trained+baseline"}
