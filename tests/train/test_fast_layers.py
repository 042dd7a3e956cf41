"""The torch trainer's faster layers (``train/fast_layers.py``) against the layers they
replace: the same outputs and gradients on real observations, the same state dict, and the
dense first layer wherever the kernels are not built."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from commoncause.agents.networks import SeatPolicy, build_critic, legal_logits_and_values
from commoncause.agents.trained import build_policy, weights_digest
from commoncause.compiled import PURE_PYTHON
from commoncause.envs.core.builds import fresh
from commoncause.envs.registry import game_names
from commoncause.train import fast_layers
from commoncause.train.selfplay import SelfPlayEnv


@pytest.fixture
def built() -> None:
    """Skip where the kernels are not built (a failure where CI expects them built)."""
    if fast_layers.sparse_kernels is None:
        if os.environ.get("COMMONCAUSE_EXPECT_COMPILED") and not os.environ.get(PURE_PYTHON):
            pytest.fail("COMMONCAUSE_EXPECT_COMPILED is set but train/sparse_kernels is not built")
        pytest.skip("train/sparse_kernels is not built here (the dense layer runs)")


def observations(game: str, count: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """``count`` observations and masks of random legal play of ``game``."""
    env = SelfPlayEnv(0.0, game)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rows, masks = [], []
    while len(rows) < count:
        mask = env.action_masks()
        rows.append(obs.copy())
        masks.append(mask.copy())
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = env.reset()
    return torch.from_numpy(np.stack(rows)), torch.from_numpy(np.stack(masks))


def policies(obs_size: int, n_actions: int) -> tuple[SeatPolicy, SeatPolicy]:
    """A policy and a copy of it with the sparse first layer."""
    torch.manual_seed(0)
    dense = build_policy(256, [128], "tanh", obs_size, n_actions, None)
    sparse = build_policy(256, [128], "tanh", obs_size, n_actions, None)
    sparse.load_state_dict(dense.state_dict())
    fast_layers.use_fast_layers(sparse)
    return dense, sparse


@pytest.mark.usefixtures("built")
@pytest.mark.parametrize("game", game_names())
def test_outputs_and_gradients_are_the_dense_layers(game):
    obs, mask = observations(game, 300)
    obs[7] = 0.0  # a row with no non-zero at all
    dense, sparse = policies(obs.shape[1], mask.shape[1])
    assert isinstance(sparse.features_extractor.net[0], fast_layers.SparseInputLinear)
    assert sparse.features_extractor.net[0].weight.t().is_contiguous()
    for batch in (obs[:1], obs[:32], obs):
        with torch.no_grad():
            expected, got = dense.extract_features(batch), sparse.extract_features(batch)
        assert torch.allclose(got, expected, atol=1e-5), float((got - expected).abs().max())
    weights = torch.randn(obs.shape[0], 256, generator=torch.Generator().manual_seed(1))
    for policy in (dense, sparse):
        policy.zero_grad()
        (policy.extract_features(obs) * weights).sum().backward()
    first, dense_first = sparse.features_extractor.net[0], dense.features_extractor.net[0]
    for name in ("weight", "bias"):
        got, expected = getattr(first, name).grad, getattr(dense_first, name).grad
        assert got.abs().sum() > 0
        assert torch.allclose(got, expected, atol=1e-4, rtol=1e-4), name
    columns, logits, values = legal_logits_and_values(sparse, obs, mask)
    dense_columns, dense_logits, dense_values = legal_logits_and_values(dense, obs, mask)
    assert torch.equal(columns, dense_columns)
    assert torch.allclose(logits, dense_logits, atol=1e-4)
    assert torch.allclose(values, dense_values, atol=1e-5)


@pytest.mark.usefixtures("built")
def test_an_empty_batch_and_inputs_numpy_cannot_read_as_they_are(monkeypatch):
    obs, mask = observations("common_cause", 8)
    dense, sparse = policies(obs.shape[1], mask.shape[1])
    layer = sparse.features_extractor.net[0]
    with torch.no_grad():
        assert layer(obs[:0]).shape == (0, 256)

    class Refuses:
        def forward(self, *args):
            raise AssertionError("the sparse path ran")

    monkeypatch.setattr(fast_layers, "sparse_kernels", Refuses())
    for other in (obs.t().contiguous().t(), obs.clone().requires_grad_(), obs[0]):
        expected = torch.nn.functional.linear(other, layer.weight, layer.bias)
        assert torch.allclose(layer(other), expected, atol=1e-5)
    assert torch.allclose(layer.double()(obs.double()), dense.features_extractor.net[0]
                          .double()(obs.double()), atol=1e-6)  # fmt: skip


@pytest.mark.usefixtures("built")
def test_state_dict_and_checkpoints_are_the_dense_policys(tmp_path):
    obs, mask = observations("common_cause", 64)
    dense, sparse = policies(obs.shape[1], mask.shape[1])
    saved, reference = sparse.state_dict(), dense.state_dict()
    assert list(saved) == list(reference)
    for name in reference:
        assert saved[name].shape == reference[name].shape
        assert torch.equal(saved[name], reference[name])
        assert saved[name].is_contiguous()  # (row-major, as the plain layer's)
    assert weights_digest({"policy": saved}) == weights_digest({"policy": reference})
    torch.save({"policy": saved}, tmp_path / "weights.pt")
    loaded = build_policy(256, [128], "tanh", obs.shape[1], mask.shape[1], None)
    loaded.load_state_dict(torch.load(tmp_path / "weights.pt", weights_only=True)["policy"])
    assert type(loaded.features_extractor.net[0]) is torch.nn.Linear
    with torch.no_grad():
        assert torch.allclose(loaded.extract_features(obs), sparse.extract_features(obs),
                              atol=1e-5)  # fmt: skip


@pytest.mark.usefixtures("built")
def test_adam_steps_the_transposed_weight_as_the_dense_one():
    obs, mask = observations("common_cause", 256)
    dense, sparse = policies(obs.shape[1], mask.shape[1])
    for policy in (dense, sparse):
        optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3, eps=1e-5, fused=True)
        for _ in range(3):
            optimizer.zero_grad()
            policy.extract_features(obs).square().mean().backward()
            optimizer.step()
    for (name, a), b in zip(dense.named_parameters(), sparse.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-5), name
    assert sparse.features_extractor.net[0].weight.t().is_contiguous()  # (kept in place)


def adam_run(policy: SeatPolicy, obs: torch.Tensor, steps: int, state: dict | None = None):
    """``steps`` fused Adam steps of ``policy`` (from optimizer ``state``, if given, loaded as
    the trainer loads a resumed run's); returns the optimizer's state dict."""
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3, eps=1e-5, fused=True)
    fast_layers.keep_state_layout(optimizer)
    if state is not None:  # (a copy: a step changes the loaded moments in place)
        optimizer.load_state_dict(copy.deepcopy(state))
    for _ in range(steps):
        optimizer.zero_grad()
        policy.extract_features(obs).square().mean().backward()
        optimizer.step()
    return copy.deepcopy(optimizer.state_dict())


@pytest.mark.usefixtures("built")
@pytest.mark.parametrize("saved_by", ["dense", "sparse"])
def test_a_run_resumed_with_the_other_layout_steps_as_an_unbroken_one(saved_by):
    """Adam's moments saved with one layout of the first layer's weight (a run before these
    layers, or where the kernels are not built) resume in the other's in their right order."""
    obs, mask = observations("common_cause", 256)
    dense, sparse = policies(obs.shape[1], mask.shape[1])
    first, then = (dense, sparse) if saved_by == "dense" else (sparse, dense)
    state = adam_run(first, obs, 3)
    then.load_state_dict(first.state_dict())
    adam_run(first, obs, 1, state)  # the unbroken run, one more step
    adam_run(then, obs, 1, state)
    for (name, a), b in zip(first.named_parameters(), then.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-6), name


def test_without_the_kernels_the_dense_layer_stays(monkeypatch):
    monkeypatch.setattr(fast_layers, "sparse_kernels", None)
    policy = build_policy(256, [128], "tanh", 40, 10, None)
    fast_layers.use_fast_layers(policy)
    assert type(policy.features_extractor.net[0]) is torch.nn.Linear
    assert isinstance(policy.features_extractor.net[1], fast_layers.NumpyTanh)


def test_numpy_tanh_and_its_gradient_are_torchs():
    x = torch.randn(300, 256, generator=torch.Generator().manual_seed(2)) * 3
    x[0, :4] = torch.tensor([0.0, -0.0, 30.0, -30.0])
    fast, reference = x.clone().requires_grad_(), x.clone().requires_grad_()
    got, expected = fast_layers.NumpyTanh()(fast), torch.tanh(reference)
    assert torch.allclose(got, expected, atol=1e-6, rtol=0)
    weights = torch.randn(300, 256, generator=torch.Generator().manual_seed(3))
    (got * weights).sum().backward()
    (expected * weights).sum().backward()
    assert torch.allclose(fast.grad, reference.grad, atol=1e-5, rtol=0)
    for other in (x.double(), x.t()):  # (not numpy-ready: torch's tanh)
        assert torch.equal(fast_layers.NumpyTanh()(other), torch.tanh(other))


def test_every_tanh_of_policy_and_critic_is_swapped():
    policy = build_policy(256, [128], "tanh", 40, 10, None)
    critic = build_critic(50, [64, 64], "tanh")
    fast_layers.use_fast_layers(policy, critic)
    for module in (policy, critic):
        kinds = [type(m) for m in module.modules()]
        assert torch.nn.Tanh not in kinds and fast_layers.NumpyTanh in kinds


def test_a_build_older_than_its_source_is_set_aside(tmp_path, monkeypatch):
    built = tmp_path / "sparse_kernels.so"
    built.write_bytes(b"")
    source = Path(fast_layers.__file__).with_name("sparse_kernels.pyx")
    os.utime(built, (1_000_000_000, 1_000_000_000))
    with pytest.warns(UserWarning, match="older than its sources"):
        assert not fresh(built, [source])
    os.utime(built, (4_000_000_000, 4_000_000_000))
    assert fresh(built, [source])
    assert fresh(built, [tmp_path / "absent.pyx"])  # (an installed copy ships no source)
    monkeypatch.setattr(fast_layers, "fresh", lambda built, sources: False)
    assert fast_layers._kernels() is None  # (stale: the dense layer runs)
